"""A custom matcher for ``$match`` in ground truth, imported by its path."""

from __future__ import annotations

from typing import Any

PATH = f"{__name__}:starts_with"


def starts_with(value: Any, prefix: str = "a") -> bool:
    return isinstance(value, str) and value.startswith(prefix)

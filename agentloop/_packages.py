"""Benchmark data packages (bfcl-eval, inspect-evals): found where pip put them, or in the
folder of their own that ``make`` installs them into without their dependencies
(``<prefix>/<folder>``: in site-packages, pip's dependency check would report them broken)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

__all__ = ["data_package"]


def data_package(name: str, folder: str) -> Path | None:
    """The folder of the installed package ``name`` (found without importing it: such
    packages import heavy dependencies), importable from then on: one installed in the
    environment, else the one in ``<prefix>/<folder>`` (which joins the end of
    ``sys.path``). None when there is neither."""
    spec = importlib.util.find_spec(name)
    target = Path(sys.prefix) / folder
    if spec is None and (target / name).is_dir():
        if str(target) not in sys.path:
            sys.path.append(str(target))
            importlib.invalidate_caches()
        spec = importlib.util.find_spec(name)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) if locations else None

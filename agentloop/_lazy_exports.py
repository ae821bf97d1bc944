"""A package's exported names, each imported from its module on first use (PEP 562).

Importing a package then costs only what its caller touches: ``agentloop --help`` or a
config error must not load LangChain, the OpenAI SDK or the run machinery (about a second
and a half). A package lists its exports by module, for type checkers too::

    if TYPE_CHECKING:
        from agentloop.engine._loop import run_agent
    else:
        __getattr__, __dir__ = lazy_exports(__name__, {"agentloop.engine._loop": ["run_agent"]})

``tests/test_layout.py`` checks that the two lists agree.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, modules: Mapping[str, Iterable[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose names are those of
    ``modules`` (module -> names): each is imported from its module when first read, then
    kept in the package."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__

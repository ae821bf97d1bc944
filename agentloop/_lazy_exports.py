"""A package's exported names, each imported from its module on first use (PEP 562).

Importing a package then costs only what its caller touches: ``agentloop --help`` or a
config error must not load LangChain, the OpenAI SDK or the run machinery (about a second
and a half). A package names each export once where its modules are concerned: under
``if TYPE_CHECKING:``, which is what type checkers read, and which ``lazy_exports`` reads
too (the ``__init__``'s own source, parsed when the package is imported), besides the
package's ``__all__``::

    if TYPE_CHECKING:
        from agentloop.engine._loop import run_agent
    else:
        __getattr__, __dir__ = lazy_exports(__name__, __file__)

``tests/test_layout.py`` checks that every such name is in ``__all__``.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["lazy_exports", "type_checking_imports"]


def type_checking_imports(init: str | Path) -> dict[str, str]:
    """Name -> module of each ``from module import name`` under the ``if TYPE_CHECKING:`` of
    a package's ``__init__`` file."""
    tree = ast.parse(Path(init).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            return {
                alias.asname or alias.name: str(imported.module)
                for imported in node.body
                if isinstance(imported, ast.ImportFrom)
                for alias in imported.names
            }
    raise ImportError(f"{init}: no `if TYPE_CHECKING:` block to read the exports from")


def lazy_exports(
    package: str, init: str | Path
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose names are those its
    ``__init__`` file (``init``) imports under ``if TYPE_CHECKING:``: each is imported from
    its module when first read, then kept in the package."""
    where = type_checking_imports(init)

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

"""Resolving tools named by import path: ``"pkg.module:name"`` or ``"./file.py:name"``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool

from agentloop.errors import ToolLoadError

__all__ = ["load_tool", "load_tools", "tool_factory"]


def _import_module(path: str) -> Any:
    if path.endswith(".py") or "/" in path or "\\" in path:
        file = Path(path).expanduser().resolve()
        if not file.is_file():
            raise ToolLoadError(f"tool file not found: {path}")
        name = f"agentloop_user_tools_{abs(hash(str(file)))}"
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, file)
        if spec is None or spec.loader is None:
            raise ToolLoadError(f"cannot import tool file: {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise ToolLoadError(f"importing {path} failed: {type(exc).__name__}: {exc}") from exc
        return module
    try:
        return importlib.import_module(path)
    except ImportError as exc:
        raise ToolLoadError(f"cannot import module {path!r}: {exc}") from exc


def tool_factory(spec: str) -> Callable[[], BaseTool]:
    """What makes the tool at ``module:name``, resolved once.

    A ``BaseTool`` class may keep state, so the factory makes a new instance per
    call; a tool object or a function (wrapped with ``@tool``) is shared.
    Raises ``ToolLoadError`` with a one-line message when the path or name is wrong.
    """
    module_path, sep, attr = spec.rpartition(":")
    if not sep or not module_path or not attr:
        raise ToolLoadError(
            f"bad tool path {spec!r}: expected 'package.module:name' or './file.py:name'"
        )
    module = _import_module(module_path)
    try:
        obj = getattr(module, attr)
    except AttributeError:
        public = sorted(n for n in vars(module) if not n.startswith("_"))
        raise ToolLoadError(
            f"{module_path} has no attribute {attr!r} (it has: {', '.join(public[:20])})"
        ) from None
    if isinstance(obj, type) and issubclass(obj, BaseTool):
        cls = obj

        def instantiate() -> BaseTool:
            try:
                return cls()
            except Exception as exc:
                raise ToolLoadError(f"cannot instantiate tool class {spec}: {exc}") from exc

        return instantiate
    if isinstance(obj, BaseTool):
        shared: BaseTool = obj
    elif callable(obj):
        if not obj.__doc__:
            raise ToolLoadError(f"{spec} is a function without a docstring; the model needs one")
        shared = as_tool(obj)
    else:
        raise ToolLoadError(f"{spec} is not a tool (got {type(obj).__name__})")
    return lambda: shared


def load_tool(spec: str) -> BaseTool:
    """The tool at ``module:name``; a ``BaseTool`` class is instantiated, a function wrapped.

    Raises ``ToolLoadError`` with a one-line message when the path or name is wrong.
    """
    return tool_factory(spec)()


def load_tools(specs: list[str]) -> list[BaseTool]:
    """Resolve several tool paths; names must be unique."""
    tools = [load_tool(s) for s in specs]
    names = [t.name for t in tools]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ToolLoadError(f"tool names must be unique; repeated: {', '.join(duplicates)}")
    return tools

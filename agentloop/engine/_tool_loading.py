"""Resolving objects named by import path: ``"pkg.module:name"`` or ``"./file.py:name"``.

Tools are resolved here; the harness uses the same resolver for tool factories and
rewards, so every kind of path gets the same one-line errors. A dotted module path is
looked up in the current directory first, as ``python -m`` and pytest do: ``mine.tools:x``
run from a project's root finds ``./mine/tools.py`` whichever way agentloop was started.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool

from agentloop.errors import ToolLoadError

__all__ = [
    "as_tools",
    "import_object",
    "load_tool",
    "load_tools",
    "module_tools",
    "one_line",
    "tool_factory",
]


def one_line(text: str) -> str:
    """``text`` with its whitespace (newlines of a pydantic error, say) collapsed."""
    return " ".join(str(text).split())


def _import_module(path: str, kind: str) -> Any:
    if path.endswith(".py") or "/" in path or "\\" in path:
        file = Path(path).expanduser().resolve()
        if not file.is_file():
            tried = "" if str(file) == path else f" (looked for {file})"
            raise ToolLoadError(f"{kind} file not found: {path}{tried}")
        name = f"agentloop_user_tools_{abs(hash(str(file)))}"
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, file)
        if spec is None or spec.loader is None:
            raise ToolLoadError(f"cannot import {kind} file: {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise ToolLoadError(
                one_line(f"importing {path} failed: {type(exc).__name__}: {exc}")
            ) from exc
        return module
    _current_directory_first()
    try:
        return importlib.import_module(path)
    except ImportError as exc:
        raise ToolLoadError(one_line(f"cannot import module {path!r}: {exc}")) from exc
    except Exception as exc:  # the module itself fails: a SyntaxError, a raise at import
        raise ToolLoadError(
            one_line(f"importing {path} failed: {type(exc).__name__}: {exc}")
        ) from exc


def _current_directory_first() -> None:
    """Put the working directory at the head of ``sys.path`` unless it is on it already
    (``python -m`` puts it there; an installed ``agentloop`` script puts its own folder).
    It stays: a user's module may import its siblings later, at call time."""
    cwd = os.getcwd()
    if not any(os.path.abspath(entry or os.curdir) == cwd for entry in sys.path):
        sys.path.insert(0, cwd)
        importlib.invalidate_caches()


def import_object(spec: str, kind: str = "tool") -> Any:
    """The object at ``module:name`` (``kind`` names it in errors: tool, factory, reward).

    Raises ``ToolLoadError`` with a one-line message when the path or name is wrong.
    """
    module_path, sep, attr = spec.rpartition(":")
    if not sep or not module_path or not attr:
        raise ToolLoadError(
            f"bad {kind} path {spec!r}: expected 'package.module:name' or './file.py:name'"
        )
    module = _import_module(module_path, kind)
    try:
        return getattr(module, attr)
    except AttributeError:
        public = sorted(n for n in vars(module) if not n.startswith("_"))
        raise ToolLoadError(
            f"{module_path} has no attribute {attr!r} (it has: {', '.join(public[:20])})"
        ) from None


def _check_fields(cls: type[BaseTool], args: Mapping[str, Any], spec: str) -> None:
    fields = cls.model_fields
    unknown = sorted(set(args) - set(fields))
    if unknown:
        accepted = ", ".join(sorted(n for n in fields if n not in BaseTool.model_fields))
        raise ToolLoadError(
            f"{spec}: unknown argument(s) {unknown}; accepted: {accepted or 'none'}"
        )


def _as_tool(obj: Any, spec: str) -> BaseTool:
    if isinstance(obj, BaseTool):
        return obj
    if not obj.__doc__:
        raise ToolLoadError(f"{spec} is a function without a docstring; the model needs one")
    return as_tool(obj)


def tool_factory(spec: str, args: Mapping[str, Any] | None = None) -> Callable[[], BaseTool]:
    """What makes the tool at ``module:name``, resolved once.

    A ``BaseTool`` class may keep state, so the factory makes a new instance per
    call, with ``args`` as constructor arguments (checked against its fields); a
    tool object or a function (wrapped with ``@tool``) is shared and takes no args.
    Raises ``ToolLoadError`` with a one-line message when the path or name is wrong.
    """
    obj = import_object(spec)
    if isinstance(obj, type) and issubclass(obj, BaseTool):
        cls, kwargs = obj, dict(args or {})
        _check_fields(cls, kwargs, spec)

        def instantiate() -> BaseTool:
            try:
                return cls(**kwargs)
            except Exception as exc:
                message = one_line(f"cannot instantiate tool class {spec}: {exc}")
                raise ToolLoadError(message) from exc

        return instantiate
    if args:
        raise ToolLoadError(
            f"{spec}: args are for tool classes and factories, not a tool object or function"
        )
    if not isinstance(obj, BaseTool) and (isinstance(obj, type) or not callable(obj)):
        raise ToolLoadError(f"{spec} is not a tool (got {type(obj).__name__})")
    shared = _as_tool(obj, spec)
    return lambda: shared


def as_tools(made: Any, origin: str) -> list[BaseTool]:
    """What a tool factory returned, as tools: a list or tuple of tools and documented
    functions (wrapped with ``@tool``). ``origin`` names the factory in errors."""
    if not isinstance(made, (list, tuple)):
        raise ToolLoadError(f"{origin} returned {type(made).__name__}, not a list of tools")
    tools = []
    for index, item in enumerate(made):
        if not isinstance(item, BaseTool) and (isinstance(item, type) or not callable(item)):
            raise ToolLoadError(
                f"{origin} returned a list with {type(item).__name__} at [{index}], "
                "not a tool or a function"
            )
        tools.append(_as_tool(item, f"{origin}: item [{index}]"))
    return tools


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


def _tool_class_of(obj: Any, module: str) -> bool:
    """Whether ``obj`` is a ``BaseTool`` class defined in ``module`` (not imported there)."""
    return isinstance(obj, type) and issubclass(obj, BaseTool) and obj.__module__ == module


def module_tools(spec: str) -> list[BaseTool]:
    """The tools of ``module`` (or ``./file.py``): its tool objects (``@tool`` functions)
    and the ``BaseTool`` classes it defines, instantiated without arguments; or the one
    tool at ``module:name``. Raises ``ToolLoadError`` (one line) when there is none."""
    if ":" in spec:
        return [load_tool(spec)]
    module = _import_module(spec, "tool")
    found: list[BaseTool] = []
    for name, obj in vars(module).items():
        if name.startswith("_"):
            continue
        if isinstance(obj, BaseTool):
            found.append(obj)
        elif _tool_class_of(obj, module.__name__):
            found.append(load_tool(f"{spec}:{name}"))
    if not found:
        raise ToolLoadError(f"{spec} has no tools (@tool functions or BaseTool classes)")
    return found

"""How one tool is called: LangChain's ``ainvoke``, or its function directly.

``BaseTool.ainvoke`` spends about 200 µs a call on callback managers, signature
inspection and input re-parsing. When no callback handler is active (no tracing,
no ``callbacks=`` on the tool, not verbose), that work has no observer, so a plain
``@tool`` function whose every parameter comes from the model is called directly
with the arguments the dispatcher already validated: what LangChain would pass.
Anything else (class-based tools, tools with callbacks, error handlers, artifacts,
injected or config parameters) goes through ``ainvoke`` as usual.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from langchain_core.callbacks.manager import AsyncCallbackManager
from langchain_core.runnables.config import ensure_config
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel

__all__ = ["Invoker", "callbacks_active", "make_invoker"]

# Called with the model's arguments and their validated form (None when unvalidated).
Invoker = Callable[[dict[str, Any], BaseModel | None], Awaitable[Any]]

_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def callbacks_active() -> bool:
    """True when a LangChain callback handler (a tracer, say) would see tool runs here."""
    config = ensure_config()
    manager = AsyncCallbackManager.configure(
        config.get("callbacks"), None, False, config.get("tags"), None, config.get("metadata")
    )
    return bool(manager.handlers)


def _direct_function(tool: BaseTool, schema: type[BaseModel] | None) -> Callable[..., Any] | None:
    """The tool's own function, when calling it directly is indistinguishable."""
    if type(tool) is not StructuredTool or schema is None:
        return None
    if tool.callbacks or tool.verbose or tool.handle_tool_error:
        return None
    if tool.response_format != "content":
        return None
    function = tool.coroutine or tool.func
    if function is None:
        return None
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind in _VARIADIC for p in params.values()):
        return None
    # Every parameter must come from the model: config, callbacks and injected
    # arguments are LangChain's to fill in.
    if set(params) != set(schema.model_fields):
        return None
    return function


def _validated_kwargs(args: dict[str, Any], validated: BaseModel | None) -> dict[str, Any]:
    # What LangChain passes: the keys the model gave, with their validated values.
    if validated is None:
        return args
    return {key: getattr(validated, key) for key in args}


def _in_thread(function: Callable[[], Any]) -> Awaitable[Any]:
    # Our own worker thread, abandoned on timeout: a hung sync tool must not hold
    # up the run (or the event loop's shutdown).
    return anyio.to_thread.run_sync(function, abandon_on_cancel=True)


def make_invoker(
    tool: BaseTool, schema: type[BaseModel] | None, *, direct_allowed: bool
) -> Invoker:
    """How to call ``tool``: directly when allowed and safe, else through LangChain."""
    function = _direct_function(tool, schema) if direct_allowed else None
    if function is not None and inspect.iscoroutinefunction(function):
        direct = function

        def call_async(args: dict[str, Any], validated: BaseModel | None) -> Awaitable[Any]:
            return direct(**_validated_kwargs(args, validated))  # type: ignore[no-any-return]

        return call_async
    if function is not None:
        sync = function

        def call_sync(args: dict[str, Any], validated: BaseModel | None) -> Awaitable[Any]:
            return _in_thread(functools.partial(sync, **_validated_kwargs(args, validated)))

        return call_sync
    sync_only = tool.coroutine is None if isinstance(tool, StructuredTool) else (
        type(tool)._arun is BaseTool._arun
    )
    if sync_only:
        return lambda args, _validated: _in_thread(functools.partial(tool.invoke, args))
    return lambda args, _validated: tool.ainvoke(args)

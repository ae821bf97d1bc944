"""How one tool is called: LangChain's ``ainvoke``, or its function directly.

``BaseTool.ainvoke`` spends about 200 µs a call on callback managers, signature
inspection and input re-parsing. When no callback handler is active (no tracing,
no ``callbacks=`` on the tool, not verbose), that work has no observer, so a plain
``@tool`` function whose every parameter comes from the model is called directly
with what LangChain would pass it: the arguments as the tool's own ``args_schema``
validated them (``langchain_kwargs``). Anything else (class-based tools, tools with
callbacks, error handlers, artifacts, injected or config parameters) goes through
``ainvoke`` as usual. Sync code runs in our daemon threads (``_threads``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.callbacks.manager import AsyncCallbackManager
from langchain_core.runnables.config import ensure_config
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel

from agentloop.engine._threads import run_in_daemon_thread

__all__ = [
    "Invoker",
    "callbacks_active",
    "langchain_kwargs",
    "make_invoker",
    "tool_defaults",
    "validation_schema",
]

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


def _model_schema(tool: BaseTool) -> type[BaseModel] | None:
    schema = tool.args_schema
    return schema if isinstance(schema, type) and issubclass(schema, BaseModel) else None


def validation_schema(tool: BaseTool) -> type[BaseModel] | None:
    """The schema LangChain validates the model's arguments with, or None if it does not.

    That is the tool's own ``args_schema``, validators included (``tool_call_schema``
    is a copy without them). LangChain does not validate for a JSON-schema dict, for a
    schema without fields (the tool is called without arguments) or without a schema;
    and a tool with ``handle_validation_error`` answers invalid input itself.
    """
    schema = _model_schema(tool)
    if schema is None or not schema.model_fields or tool.handle_validation_error:
        return None
    return schema


def tool_defaults(tool: BaseTool) -> frozenset[str]:
    """Fields of the tool's schema that LangChain fills in when the model omits them."""
    schema = _model_schema(tool)
    if schema is None:
        return frozenset()
    return frozenset(
        name
        for name, field in schema.model_fields.items()
        if not field.is_required() and name not in ("args", "kwargs")
    )


def langchain_kwargs(
    args: dict[str, Any], validated: BaseModel, defaults: frozenset[str]
) -> dict[str, Any]:
    """The keyword arguments ``BaseTool._parse_input`` passes to the tool's function.

    The fields the model gave (by name or alias) and those with defaults, with their
    validated values; other keys are dropped unless the schema keeps extras.
    """
    provided = validated.model_fields_set
    return {
        key: getattr(validated, key)
        for key in validated.model_dump()  # LangChain's key order and set, extras included
        if key in args or key in provided or key in defaults
    }


def _direct_function(tool: BaseTool) -> Callable[..., Any] | None:
    """The tool's own function, when calling it directly gives LangChain's result.

    Only LangChain's run context is skipped (no callback run, no inherited config for
    runnables the tool itself calls): that is why this is used only when no callback
    handler is active.
    """
    schema = _model_schema(tool)
    if type(tool) is not StructuredTool or schema is None:
        return None
    if tool.callbacks or tool.verbose or tool.handle_tool_error or tool.handle_validation_error:
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
    # arguments are LangChain's to fill in (and absent from tool_call_schema).
    call_schema: Any = tool.tool_call_schema
    offered = getattr(call_schema, "model_fields", None)
    if offered is None or set(params) != set(schema.model_fields) or set(params) != set(offered):
        return None
    return function


def make_invoker(tool: BaseTool, *, direct_allowed: bool) -> Invoker:
    """How to call ``tool``: directly when allowed and safe, else through LangChain."""
    function = _direct_function(tool) if direct_allowed else None
    if function is not None:
        direct = function
        defaults = tool_defaults(tool)

        def kwargs_for(args: dict[str, Any], validated: BaseModel | None) -> dict[str, Any]:
            # No validated form: a schema without fields, called without arguments.
            return {} if validated is None else langchain_kwargs(args, validated, defaults)

        if inspect.iscoroutinefunction(direct):

            def call_async(args: dict[str, Any], validated: BaseModel | None) -> Awaitable[Any]:
                return direct(**kwargs_for(args, validated))  # type: ignore[no-any-return]

            return call_async

        def call_sync(args: dict[str, Any], validated: BaseModel | None) -> Awaitable[Any]:
            return run_in_daemon_thread(functools.partial(direct, **kwargs_for(args, validated)))

        return call_sync
    sync_only = (
        tool.coroutine is None
        if isinstance(tool, StructuredTool)
        else (type(tool)._arun is BaseTool._arun)
    )
    if sync_only:
        return lambda args, _validated: run_in_daemon_thread(functools.partial(tool.invoke, args))
    return lambda args, _validated: tool.ainvoke(args)

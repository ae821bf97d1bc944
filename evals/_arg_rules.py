"""tool_call_match's configuration made callable: argument rules by tool name,
acceptable values from ``arg_overrides``, expected calls with matchers compiled."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from functools import cache
from typing import Any

from ._calls import Call
from ._compare import ARG_MODES, ArgRule, arg_rule
from ._matchers import check_matchers, compile_arguments, compile_matchers
from ._schema_rules import SchemaIndex, schema_index
from ._schema_rules import schema_problems as _problems

__all__ = ["Override", "check_mode", "expected_calls", "rules", "schema_problems", "schema_rules"]


def check_mode(kind: str, value: Any, valid: tuple[str, ...], where: str = "") -> None:
    if value not in valid:
        raise ValueError(f"unknown {kind} mode {value!r}{where}; valid: {', '.join(valid)}")


def _as_rule(fn: Callable[[Any, Any], Any]) -> ArgRule:
    return lambda g, e: bool(fn(g, e))


Override = str | Callable[[Any, Any], Any] | Mapping[str, Any]


def rules(
    args: str, numeric: bool, overrides: Mapping[str, Override] | None
) -> tuple[ArgRule, dict[str, ArgRule], dict[str, dict[str, Any]]]:
    """The default rule, rules by tool name, and acceptable values by tool and argument.

    >>> default, by_tool, values = rules("exact", False, {"f": "ignore", "g": {"x": 1}})
    >>> default({"a": 1}, {"a": 1}), by_tool["f"]({"a": 1}, {}), values
    (True, True, {'g': {'x': 1}})
    """
    if args not in ARG_MODES:
        check_mode("args", args, ARG_MODES)
    if overrides is None:  # the common case: one rule for every tool
        return _rule(args, numeric), _NONE, _NONE
    if not isinstance(overrides, Mapping):
        raise ValueError("arg_overrides must map tool names to modes, callables or matchers")
    per_tool: dict[str, ArgRule] = {}
    values: dict[str, dict[str, Any]] = {}
    for name, spec in (overrides or {}).items():
        if isinstance(spec, str):
            check_mode("args", spec, ARG_MODES, f" (override for {name!r})")
            per_tool[name] = arg_rule(spec, numeric)
        elif isinstance(spec, Mapping):
            if problems := check_matchers(spec, f"arg_overrides.{name}"):
                raise ValueError(problems[0])
            values[name] = {str(k): v for k, v in spec.items()}  # compiled with each call
        elif callable(spec):
            per_tool[name] = _as_rule(spec)
        else:
            raise ValueError(
                f"arg_overrides[{name!r}] must be one of {', '.join(ARG_MODES)}, a callable "
                "or an object of acceptable argument values"
            )
    return _rule(args, numeric), per_tool, values


_NONE: dict[str, Any] = {}  # no rules or values by tool: shared, never written


@cache
def _rule(args: str, numeric: bool) -> ArgRule:
    """The rule of a known mode (stateless, so built once per mode)."""
    return arg_rule(args, numeric)


def expected_calls(exp: list[Call], values: dict[str, dict[str, Any]]) -> list[Call]:
    """Expected calls with their matchers compiled and the overrides' values applied;
    the list itself when there is nothing to do (the common case).

    >>> plain = [Call("f", {"x": 1})]
    >>> expected_calls(plain, {}) is plain
    True
    """
    out = exp
    for k, call in enumerate(exp):
        args = call.args
        extra = values.get(call.name) if values else None
        if extra is not None and isinstance(args, Mapping):
            args = {**args, **extra}
        compiled = compile_arguments(args) if type(args) is dict else compile_matchers(args)
        if compiled is call.args:  # no matcher and no override: nothing to do
            continue
        if out is exp:
            out = list(exp)
        out[k] = Call(call.name, compiled)
    return out


_ROW_NEEDS_TOOLS = "schema='row' needs the row's tools: pass them as schema=[...]"


def schema_rules(schema: Any, names: Collection[str] | None = None) -> SchemaIndex | None:
    """The schema index, of the tools named (of all tools without ``names``); None
    without a schema."""
    if schema is None:
        return None
    if schema == "row":
        raise ValueError(_ROW_NEEDS_TOOLS)
    return schema_index(schema, names)


def schema_problems(schema: Any, gen: list[Call], exp: list[Call]) -> list[str | None] | None:
    """The schema rule each generated call breaks (None: none) for the calls that could
    pair (see :func:`agentloop.evals._schema_rules.schema_problems`); None without a schema."""
    if schema is None:
        return None
    if type(schema) is not list and schema == "row":
        raise ValueError(_ROW_NEEDS_TOOLS)
    return _problems(schema, gen, exp)

"""τ²-bench's tool mechanics, written here: how a domain's tools are declared, described to the
model, called, and how their results and errors become the texts τ²-bench records.

A domain is a :class:`Toolkit` subclass over a pydantic database; each tool is a method marked
with :func:`tau2_tool` (its kind: ``read``, ``write``, ``generic``, ``think``), its description
and its arguments' descriptions. The schema the model sees is τ²-bench's: a pydantic model of
the parameters named ``parameters`` (its JSON schema, titles included), and a description that
is the short description, then a blank line and the long one when there is one. A call runs the
method with the arguments as given (τ²-bench validates nothing before the call); a result is
sent as τ²-bench sends it (:func:`result_text`: a string as is, anything else as JSON of its
data, numbers at the top of a list or value as strings), an exception as ``Error: <message>``.
"""

from __future__ import annotations

import copy
import inspect
import json
import typing
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

__all__ = [
    "DB",
    "ToolInfo",
    "Toolkit",
    "deep_update",
    "discoverable_info",
    "discoverable_methods",
    "discoverable_tool",
    "result_text",
    "tau2_tool",
]

ToolKind = Literal["read", "write", "generic", "think"]
_TOOL = "__tau2_tool__"


class DB(BaseModel):
    """A domain database: extra fields are refused, as τ²-bench's ``DB`` refuses them."""

    model_config = ConfigDict(extra="forbid")


class ToolInfo:
    """What :func:`tau2_tool` records on a method."""

    def __init__(
        self, kind: ToolKind, description: str, args: Mapping[str, str], mutates: bool
    ) -> None:
        self.kind, self.description, self.args, self.mutates = kind, description, args, mutates


def tau2_tool(
    kind: ToolKind,
    description: str,
    args: Mapping[str, str] | None = None,
    *,
    mutates: bool | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a toolkit method as a tool. ``mutates`` (default: a ``write`` tool does) says
    whether replaying the conversation must run it again, as τ²-bench's ``mutates_state``."""

    def mark(method: Callable[..., Any]) -> Callable[..., Any]:
        info = ToolInfo(
            kind, description, dict(args or {}), kind == "write" if mutates is None else mutates
        )
        setattr(method, _TOOL, info)
        return method

    return mark


_DISCOVERABLE = "__tau2_discoverable__"


def discoverable_tool(
    kind: ToolKind, *, mutates: bool | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a toolkit method as a discoverable tool (τ²-bench 1.0, banking_knowledge): not
    offered to the model; the knowledge base names it, and the agent unlocks and calls it
    (or gives it to the user) through ordinary tools. Its docstring is its description, as
    τ²-bench shows it. ``mutates``: as :func:`tau2_tool`."""

    def mark(method: Callable[..., Any]) -> Callable[..., Any]:
        setattr(
            method,
            _DISCOVERABLE,
            ToolInfo(kind, "", {}, kind == "write" if mutates is None else mutates),
        )
        return method

    return mark


def discoverable_info(method: Any) -> ToolInfo | None:
    """What :func:`discoverable_tool` recorded on a method; None for any other."""
    info = getattr(method, _DISCOVERABLE, None)
    return info if isinstance(info, ToolInfo) else None


def discoverable_methods(toolkit: type) -> dict[str, Any]:
    """A toolkit class's discoverable tools (:func:`discoverable_tool`), by name."""
    return {
        name: member
        for name in dir(toolkit)
        if not name.startswith("_")
        and discoverable_info(member := getattr(toolkit, name)) is not None
    }


def _json_data(value: Any) -> Any:
    """τ²-bench's conversion before ``json.dumps``: models as their dump, numbers and
    booleans as strings, dates in ISO form."""
    if isinstance(value, BaseModel):  # as stored (a float in an int field stays one), quietly
        return value.model_dump(warnings=False)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return str(value)
    if isinstance(value, list):
        return [_json_data(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_json_data(v) for v in value)
    if isinstance(value, dict):
        return {k: _json_data(v) for k, v in value.items()}
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise ValueError(f"Unsupported type: {type(value)}")


def result_text(value: Any) -> str:
    """The text τ²-bench records for a tool's result."""
    if isinstance(value, str):
        return value
    return json.dumps(_json_data(value), default=str)


def calculate(expression: str) -> str:
    """τ²-bench's ``calculate`` tool (airline and retail): arithmetic on digits, ``+-*/``,
    parentheses and spaces only, rounded to 2 decimals."""
    if not all(char in "0123456789+-*/(). " for char in expression):
        raise ValueError("Invalid characters in expression")
    return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))


def deep_update(base: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``update`` merged in: nested mappings merged key by key, anything else
    replaced (how τ²-bench applies a task's ``initialization_data``)."""
    out = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_update(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


class Toolkit:
    """One side's tools over a database (the agent's, or the user's device in telecom)."""

    def __init__(self, db: BaseModel) -> None:
        self.db = db

    @classmethod
    def tool_names(cls) -> list[str]:
        """The tools' names, in definition order."""
        return [name for name, member in vars(cls).items() if hasattr(member, _TOOL)]

    @classmethod
    def info(cls, name: str) -> ToolInfo:
        info: ToolInfo = getattr(getattr(cls, name), _TOOL)
        return info

    def has_tool(self, name: str) -> bool:
        return name in type(self).tool_names()

    def schema(self, name: str) -> dict[str, Any]:
        """The OpenAI function schema τ²-bench sends for this tool."""
        method = getattr(type(self), name)
        info = type(self).info(name)
        hints = typing.get_type_hints(method, include_extras=True)
        fields: dict[str, Any] = {}
        for pname, param in list(inspect.signature(method).parameters.items())[1:]:
            default = ... if param.default is param.empty else param.default
            if pname in info.args:
                default = Field(default, description=info.args[pname])
            annotation = hints.get(pname, Any)
            fields[pname] = (annotation, default)
        params = create_model("parameters", **fields)
        return {
            "name": name,
            "description": info.description,
            "parameters": params.model_json_schema(),
        }

    def call(
        self, name: str, arguments: Mapping[str, Any], then: Callable[[], None] | None = None
    ) -> tuple[str, bool]:
        """Run one call as τ²-bench's environment does: its text and whether it failed.
        ``then`` runs after the tool and before its result is written (τ²-bench's sync of
        the two sides); its failure is the call's."""
        if not self.has_tool(name):
            return f"Error: Tool '{name}' not found.", True
        try:
            result = getattr(self, name)(**dict(arguments))
            if then is not None:
                then()
            return result_text(result), False
        except Exception as exc:
            return f"Error: {exc}", True

    def sync(self, user: Toolkit | None) -> None:
        """τ²-bench's ``sync_tools``: bring the user's side in line with this one after a
        change (telecom's phone and the carrier's records); nothing elsewhere."""

    def run(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """Call any method (tool or not: initialization actions, assertions); raises."""
        method = getattr(self, name, None)
        if name.startswith("_") or not callable(method):
            raise ValueError(f"Function {name} not found")
        return method(**dict(arguments))

"""BFCL's multi-turn backends (``GorillaFileSystem``, ``TwitterAPI``, ...) as an agentloop
environment: one live instance per class, shared by the LangChain tools of its methods.

The classes come from the installed ``bfcl-eval`` package
(``bfcl_eval.eval_checker.multi_turn_eval.func_source_code``), built the way BFCL's
``execute_multi_turn_func_call`` builds them: ``Class()``, then, unless the class is
stateless, ``_load_scenario(deep copy of initial_config[Class], long_context=...)``.
A call runs as BFCL runs it, so a tool's text is the one BFCL's checker compares:
a ``str`` result as is, a ``dict`` as ``json.dumps`` (``str`` if that fails), anything
else ``str``; an exception becomes ``Error during execution: <message>``. BFCL binds a
name to the method of the *last* involved class that has it, and refuses a few names
(``kill``, ``exit``, ...) outright; so does :func:`call_bfcl_method`.

The tools take their schemas from BFCL's ``multi_turn_func_doc`` files as BFCL sends them
to an OpenAI function-calling model (:func:`openai_tools`); the arguments reach the
method unvalidated, as BFCL's ``eval`` passes them.
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from agentloop.benchmarks.bfcl._convert import PYTHON_HINT, openai_tools
from agentloop.errors import DatasetError

__all__ = [
    "BFCL_CLASSES",
    "BfclEnvironment",
    "bfcl_class_docs",
    "bfcl_environment",
    "bfcl_instances",
    "bfcl_methods",
    "call_bfcl_method",
]

_SOURCE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
# class -> (module, function-doc file), as bfcl_eval.constants.executable_backend_config
BFCL_CLASSES: dict[str, tuple[str, str]] = {
    "GorillaFileSystem": ("gorilla_file_system", "gorilla_file_system.json"),
    "MathAPI": ("math_api", "math_api.json"),
    "MessageAPI": ("message_api", "message_api.json"),
    "TwitterAPI": ("posting_api", "posting_api.json"),
    "TicketAPI": ("ticket_api", "ticket_api.json"),
    "TradingBot": ("trading_bot", "trading_bot.json"),
    "TravelAPI": ("travel_booking", "travel_booking.json"),
    "VehicleControlAPI": ("vehicle_control", "vehicle_control.json"),
}
_STATELESS = frozenset({"MathAPI"})
# names BFCL's executor refuses before evaluating a call
_REFUSED = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})


def _check_class(name: str) -> None:
    if name not in BFCL_CLASSES:
        raise DatasetError(f"unknown BFCL class {name!r}; known: {', '.join(BFCL_CLASSES)}")


def _load_class(name: str) -> type:
    from agentloop.benchmarks.bfcl._package import BFCL_INSTALL, bfcl_package

    _check_class(name)
    bfcl_package()  # importable wherever it was installed
    try:
        module = importlib.import_module(f"{_SOURCE}.{BFCL_CLASSES[name][0]}")
    except ImportError as exc:
        raise DatasetError(f"BFCL class {name}: {exc}; {BFCL_INSTALL}") from None
    cls: type = getattr(module, name)
    return cls


@functools.cache
def _doc_lines(file: str) -> tuple[str, ...]:
    from agentloop.benchmarks.bfcl._package import bfcl_data_dir

    path = bfcl_data_dir() / "multi_turn_func_doc" / file
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(f"BFCL function docs not found: {path}") from None
    return tuple(line for line in text.splitlines() if line.strip())


def bfcl_func_docs(file: str) -> list[dict[str, Any]]:
    """BFCL's function docs in ``multi_turn_func_doc/<file>`` (read once), fresh copies."""
    return [json.loads(line) for line in _doc_lines(file)]


def bfcl_class_docs(name: str) -> list[dict[str, Any]]:
    """BFCL's function docs of one multi-turn class, fresh copies."""
    _check_class(name)
    return bfcl_func_docs(BFCL_CLASSES[name][1])


def bfcl_instances(
    initial_config: Mapping[str, Any], involved_classes: Sequence[str], long_context: bool
) -> dict[str, Any]:
    """Fresh instances of the involved classes, loaded from the initial config."""
    instances: dict[str, Any] = {}
    for name in involved_classes:
        instance = _load_class(name)()
        if name not in _STATELESS:
            config = copy.deepcopy(dict(initial_config.get(name) or {}))
            instance._load_scenario(config, long_context=long_context)
        instances[name] = instance
    return instances


def bfcl_methods(instances: Mapping[str, Any]) -> dict[str, Callable[..., Any]]:
    """Public method name -> bound method; a later class wins a shared name, as in BFCL."""
    methods: dict[str, Callable[..., Any]] = {}
    for instance in instances.values():
        for name, member in inspect.getmembers(instance, predicate=inspect.ismethod):
            if not name.startswith("_"):
                methods[name] = member
    return methods


def _as_text(result: Any) -> str:
    if type(result) is str:
        return result
    if type(result) is dict:
        try:
            return json.dumps(result)
        except Exception:
            return str(result)
    return str(result)


def schema_tool(schema: Mapping[str, Any], call: Callable[[str, dict[str, Any]], str]) -> BaseTool:
    """A BFCL function, described by its OpenAI schema, as a tool whose calls go to
    ``call(name, arguments)`` (the environments of multi-turn, memory and web search)."""
    name = schema["name"]

    def run(**arguments: Any) -> str:
        return call(name, arguments)

    return StructuredTool(
        name=name,
        description=schema.get("description", ""),
        args_schema=schema["parameters"],
        func=run,
    )


def call_bfcl_method(
    methods: Mapping[str, Callable[..., Any]],
    name: str,
    arguments: Mapping[str, Any],
    positional: Sequence[Any] = (),
) -> str:
    """Run one call the way BFCL's executor does; the text it would record."""
    if name in _REFUSED:
        return f"Error during execution: Function call {name} is not allowed."
    method = methods.get(name)
    if method is None:
        return f"Error during execution: name '{name}' is not defined"
    # BFCL evaluates a call's text, so each call gets values of its own: methods keep
    # (and later change) the lists they are given
    arguments, positional = copy.deepcopy(dict(arguments)), copy.deepcopy(list(positional))
    try:
        return _as_text(method(*positional, **arguments))
    except Exception as exc:
        return f"Error during execution: {exc}"


def _jsonable(value: Any, seen: frozenset[int] = frozenset()) -> Any:
    """A JSON-able copy of an attribute: objects as their public attributes, without
    back-references (a ``Directory``'s ``parent``)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if id(value) in seen:
        return None
    inner = seen | {id(value)}
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v, inner) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, inner) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v, inner) for v in value), key=repr)
    if hasattr(value, "__dict__"):
        return {
            k: _jsonable(v, inner)
            for k, v in vars(value).items()
            if not k.startswith("_") and k != "parent"
        }
    return str(value)


def _public_state(instance: Any) -> dict[str, Any]:
    return {k: _jsonable(v) for k, v in vars(instance).items() if not k.startswith("_")}


class BfclEnvironment:
    """One BFCL scenario: the involved classes' instances and their tools."""

    def __init__(
        self,
        initial_config: Mapping[str, Any],
        involved_classes: Sequence[str],
        long_context: bool = False,
        held_back: Sequence[str] = (),
    ) -> None:
        self.instances = bfcl_instances(initial_config, involved_classes, long_context)
        self.methods = bfcl_methods(self.instances)
        docs = [doc for name in involved_classes for doc in bfcl_class_docs(name)]
        self._schemas = [tool["function"] for tool in openai_tools(docs)]
        for schema in self._schemas:
            # BFCL adds its Python hint before holding functions back, so they lack it
            if schema["name"] in held_back:
                schema["description"] = schema["description"].removesuffix(PYTHON_HINT)

    def tools(self) -> list[BaseTool]:
        """One tool per documented function; all share this environment's instances."""
        return [schema_tool(schema, self.call) for schema in self._schemas]

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """One call as BFCL's executor runs it; the text it records."""
        return call_bfcl_method(self.methods, name, arguments)

    def snapshot(self) -> dict[str, Any]:
        """Public attributes of every instance (what BFCL's state check compares), JSON-able."""
        return {name: _public_state(instance) for name, instance in self.instances.items()}


def bfcl_environment(row: Mapping[str, Any]) -> BfclEnvironment:
    """The environment factory of the BFCL multi-turn configs (``environment:
    agentloop.benchmarks:bfcl_environment``): reads the row's ``environment``
    (``initial_config``, ``involved_classes``, ``long_context``); functions a later
    turn adds are described as BFCL describes them."""
    spec = row.get("environment")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("involved_classes"), list):
        raise DatasetError(
            f"row {row.get('id')!r}: environment: expected a BFCL scenario "
            "({initial_config, involved_classes, long_context})"
        )
    held_back = [
        name
        for turn in row.get("turns") or []
        for name in (turn.get("tools") or [])
        if isinstance(name, str)
    ]
    return BfclEnvironment(
        spec.get("initial_config") or {},
        spec["involved_classes"],
        bool(spec.get("long_context", False)),
        held_back,
    )

"""Tool schemas: ``match_function_call`` (one call's name and arguments against an expected
schema, as reward-kit scores it) and the schema rules ``tool_call_match`` applies.

The schema rules: declared parameters, required ones, and their types.

Types follow BFCL's Python rules: an int is fine for ``number``/``float``, a float is
not an ``integer``, a bool is never a number, ``array``/``tuple`` take lists, ``object``/
``dict`` take objects; array items are checked against ``items`` at every depth.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from operator import attrgetter
from typing import Any, NamedTuple

from ._calls import Call, deserialize_args
from ._matchers import _new
from ._result_models import FunctionCallDetails, RewardResult

__all__ = [
    "STRICTNESS_MODES",
    "SchemaIndex",
    "match_function_call",
    "schema_index",
    "schema_problem",
    "schema_problems",
    "type_problem",
]

STRICTNESS_MODES = ("exact", "partial", "flexible", "permissive")

# The JSON-schema type names (checked with ``_fits``); others accept anything.
_JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")


class Declared(NamedTuple):
    """One tool's declared parameter schemas and its required parameter names."""

    properties: Mapping[str, Any]
    required: Sequence[str]


SchemaIndex = dict[str, Declared]
_name = attrgetter("name")


# Type name -> the Python classes whose values have that type (bool is never a number).
_CLASSES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "float": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "tuple": (list, tuple),
    "object": (Mapping,),
    "dict": (Mapping,),
    "null": (type(None),),
}


def _fits(name: str, value: Any) -> bool | None:
    """Whether ``value`` has the type ``name``; None for a name with no rule."""
    classes = _CLASSES.get(name)
    if classes is None:
        return None
    return isinstance(value, classes) and (bool in classes or not isinstance(value, bool))


def schema_index(tools: Any, names: Collection[str] | None = None) -> SchemaIndex:
    """Tool name -> :class:`Declared` of OpenAI tool schemas (or bare function schemas);
    ValueError (one line) on a shape it cannot read. ``names``: index only these tools
    (the first of each name), reading the tools in order until all of them are found.

    >>> tool = {"type": "function", "function": {"name": "f", "parameters": {
    ...     "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}}
    >>> schema_index([tool]), schema_index([tool], names=())
    ({'f': Declared(properties={'x': {'type': 'integer'}}, required=['x'])}, {})
    """
    if not isinstance(tools, list):
        raise ValueError("schema must be a list of tool schemas or 'row'")
    index: SchemaIndex = {}
    for i, tool in enumerate(tools):
        if names is not None and len(index) == len(names):
            break
        function = (
            tool.get("function", tool)
            if (type(tool) is dict or isinstance(tool, Mapping))
            else None
        )
        if (
            not (type(function) is dict or isinstance(function, Mapping))
            or type(name := function.get("name")) is not str
        ):
            raise ValueError(f"schema[{i}] is not a tool schema with a function name")
        if name in index or (names is not None and name not in names):
            continue
        params = function.get("parameters") or {}
        props = (
            params.get("properties") or {}
            if (type(params) is dict or isinstance(params, Mapping))
            else None
        )
        if type(props) is not dict and not isinstance(props, Mapping):
            raise ValueError(f"schema[{i}] ({name!r}): parameters.properties must be an object")
        required = params.get("required") or ()  # JSON Schema names are strings
        index[name] = _new(Declared, (props, list(map(str, required))))
    return index


def schema_problems(tools: Any, gen: list[Call], exp: Sequence[Any]) -> list[str | None]:
    """The schema rule each generated call breaks (None: none) for the calls that could
    pair (an expected call has their name). Only the tools such calls name are read, as
    BFCL reads only the expected function's doc.

    >>> tool = {"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}
    >>> schema_problems([tool], [Call("f", {"x": "1"}), Call("g", {})], [Call("f", {})])
    ["type of parameter 'x': expected integer, got str", None]
    """
    expected = set(map(_name, exp))
    index = schema_index(tools, expected.intersection(map(_name, gen)))
    return [schema_problem(g, index) if g.name in expected else None for g in gen]


def type_problem(value: Any, schema: Any) -> str | None:
    """Why ``value`` does not have the declared type, or None when it does (or when no
    type, ``any`` or an unknown type name is declared).

    >>> type_problem(3, {"type": "number"}), type_problem(3.0, {"type": "integer"})
    (None, 'expected integer, got float')
    >>> type_problem([1, "2"], {"type": "array", "items": {"type": "integer"}})
    'item 1: expected integer, got str'
    """
    if type(schema) is not dict and not isinstance(schema, Mapping):
        return None
    declared = schema.get("type")
    known = False
    for name in declared if type(declared) is list else (declared,):
        if type(name) is str and (fits := _fits(name, value)) is not None:
            if fits:
                break
            known = True
    else:
        if known:
            names = declared if type(declared) is list else (declared,)
            got = "bool" if isinstance(value, bool) else type(value).__name__
            return f"expected {'/'.join(str(n) for n in names)}, got {got}"
    items = schema.get("items")
    if items is not None and isinstance(value, (list, tuple)) and isinstance(items, Mapping):
        for i, item in enumerate(value):
            problem = type_problem(item, items)
            if problem is not None:
                return f"item {i}: {problem}"
    return None


def schema_problem(call: Call, index: SchemaIndex) -> str | None:
    """The first schema rule ``call`` breaks (naming the rule and parameter), or None.

    >>> index = {"f": Declared({"x": {"type": "integer"}}, ("x",))}
    >>> schema_problem(Call("f", {"x": 1}), index) is None
    True
    >>> schema_problem(Call("f", {"y": 1}), index)
    "missing required parameter 'x'"
    >>> schema_problem(Call("f", {"x": True}), index)
    "type of parameter 'x': expected integer, got bool"
    """
    declared = index.get(call.name)
    if declared is None:
        return f"tool {call.name!r} is not declared"
    args = call.args
    if type(args) is not dict and not isinstance(args, Mapping):
        return f"arguments are a {type(args).__name__}, not an object"
    properties, required = declared
    for name in required:
        if name not in args:
            return f"missing required parameter {name!r}"
    for name, value in args.items():
        if name not in properties:
            return f"undeclared parameter {name!r}"
        problem = type_problem(value, properties[name])
        if problem is not None:
            return f"type of parameter {name!r}: {problem}"
    return None


def _schema_parts(schema: Any) -> tuple[str, dict[str, Any], set[str]]:
    """(name, declared argument schemas, required names) from any accepted shape."""
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except ValueError as exc:
            raise ValueError(f"expected_call_schema is not valid JSON: {exc}") from None
    if not isinstance(schema, Mapping):
        raise ValueError(f"expected_call_schema must be a dict, not {type(schema).__name__}")
    if isinstance(schema.get("function"), Mapping):  # an OpenAI tool definition
        schema = schema["function"]
    name = schema.get("name", "")
    if isinstance(schema.get("parameters"), Mapping):  # JSON schema: only `required` is required
        params = schema["parameters"]
        props = params.get("properties") or {}
        required = {str(r) for r in params.get("required") or []}
    else:  # the reference shape: every declared argument is required
        props = schema.get("arguments") or {}
        required = set(props) if isinstance(props, Mapping) else set()
    if not isinstance(props, Mapping):
        raise ValueError("expected_call_schema arguments/properties must be a dict")
    return str(name), dict(props), required


def _type_ok(value: Any, arg_schema: Any) -> bool:
    declared = arg_schema.get("type") if isinstance(arg_schema, Mapping) else None
    names = declared if isinstance(declared, list) else [declared]
    fits = [_fits(n, value) for n in names if isinstance(n, str) and n in _JSON_TYPES]
    # No type, "any" or an unknown type name accepts any value.
    return not fits or any(fits)


def match_function_call(
    messages: Any,
    function_name: str,
    parsed_arguments: Any,
    expected_call_schema: Any,
    argument_match_strictness: str = "exact",
) -> RewardResult[FunctionCallDetails]:
    """Score one call: ``(name score + argument score) / 2``, as reward-kit does.

    ``messages`` is context only and unused. ``expected_call_schema`` is
    ``{"name", "arguments": {arg: {"type": ...}}}`` (every declared argument
    required, as in reward-kit), ``{"name", "parameters": <JSON schema>}``
    (only ``required`` ones are), or an OpenAI tool definition. Types are JSON
    schema names (a list means any of them); ``True`` is not a number.
    ``parsed_arguments`` may be a dict or its JSON text.

    Argument score by ``argument_match_strictness``:

    - ``exact``: 1 with no missing required, no extra and no mistyped argument, else 0;
    - ``flexible`` / ``permissive``: extras allowed; 1 unless a required one is
      missing or one is mistyped;
    - ``partial``: only provided arguments are checked: the fraction of them
      that are declared and well typed (missing ones ignored; with nothing
      provided, 1 if the schema requires nothing, else 0).

    Any other strictness raises ValueError.

    >>> schema = {"name": "get_weather",
    ...           "arguments": {"location": {"type": "string"}, "unit": {"type": "string"}}}
    >>> match_function_call([], "get_weather", {"location": "Boston"}, schema).score
    0.5
    >>> r = match_function_call([], "get_weather", {"location": "Boston", "days": 3}, schema,
    ...                         argument_match_strictness="partial")
    >>> r.score, r.details.extra_args
    (0.75, ['days'])
    """
    if argument_match_strictness not in STRICTNESS_MODES:
        raise ValueError(
            f"unknown argument_match_strictness {argument_match_strictness!r}; "
            f"valid: {', '.join(STRICTNESS_MODES)}"
        )
    expected_name, declared, required = _schema_parts(expected_call_schema)
    args = deserialize_args(parsed_arguments)
    note = ""
    if not isinstance(args, Mapping):
        note = f"arguments are a {type(args).__name__}, not an object; treated as none"
        args = {}
    matched, mistyped, extra = [], [], []
    for key, value in args.items():
        if key not in declared:
            extra.append(str(key))
        elif _type_ok(value, declared[key]):
            matched.append(str(key))
        else:
            mistyped.append(str(key))
    missing = [k for k in declared if k in required and k not in args]

    mode = argument_match_strictness
    if mode == "exact":
        arg_score = 0.0 if missing or extra or mistyped else 1.0
    elif mode == "partial":
        arg_score = len(matched) / len(args) if args else (0.0 if required else 1.0)
    else:
        arg_score = 0.0 if missing or mistyped else 1.0
    name_match = isinstance(function_name, str) and function_name == expected_name
    score = ((1.0 if name_match else 0.0) + arg_score) / 2
    problems = [
        f"{label} {items}"
        for label, items in (("missing", missing), ("extra", extra), ("mistyped", mistyped))
        if items
    ]
    reason = (
        f"name {'matches' if name_match else f'{function_name!r} != {expected_name!r}'}; "
        f"arguments {arg_score:.2f} under {mode}" + (": " + ", ".join(problems) if problems else "")
    )
    return RewardResult[FunctionCallDetails](
        score=score,
        reason=reason,
        details=FunctionCallDetails(
            strictness=mode,
            name_match=name_match,
            arg_score=arg_score,
            matched_args=matched,
            missing_args=missing,
            extra_args=extra,
            type_mismatches=mistyped,
            note=note,
        ),
    )

"""Schema-aware argument rules: declared parameters, required ones, and their types.

Types follow BFCL's Python rules: an int is fine for ``number``/``float``, a float is
not an ``integer``, a bool is never a number, ``array``/``tuple`` take lists, ``object``/
``dict`` take objects; array items are checked against ``items`` at every depth.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, TypeGuard

from ._calls import Call

__all__ = ["SchemaIndex", "schema_index", "schema_problem", "schema_problems", "type_problem"]

# Declared parameters and the required ones, by tool name.
SchemaIndex = dict[str, tuple[Mapping[str, Any], Sequence[str]]]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_int,
    "number": lambda v: _is_int(v) or isinstance(v, float),
    "float": lambda v: _is_int(v) or isinstance(v, float),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, (list, tuple)),
    "tuple": lambda v: isinstance(v, (list, tuple)),
    "object": lambda v: isinstance(v, Mapping),
    "dict": lambda v: isinstance(v, Mapping),
    "null": lambda v: v is None,
}


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    return type(value) is dict or isinstance(value, Mapping)  # ABC checks are slow


def schema_index(tools: Any, names: Collection[str] | None = None) -> SchemaIndex:
    """Tool name -> (declared parameter schemas, required names) of OpenAI tool schemas
    (or bare function schemas); ValueError (one line) on a shape it cannot read.
    ``names``: index only these tools (the called ones); tools are read in order until
    all of them are found.

    >>> tool = {"type": "function", "function": {"name": "f", "parameters": {
    ...     "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}}
    >>> schema_index([tool]), schema_index([tool], names=())
    ({'f': ({'x': {'type': 'integer'}}, ['x'])}, {})
    """
    _check_tools(tools)
    index: SchemaIndex = {}
    if names is not None and not names:
        return index
    for i, tool in enumerate(tools):
        function, name = _function(i, tool)
        if names is not None and name not in names:
            continue
        index[name] = _declared(i, name, function)
        if names is not None and len(index) == len(names):
            break
    return index


def schema_problems(tools: Any, gen: list[Call], exp: list[Call]) -> list[str | None]:
    """The schema rule each generated call breaks (None: none) for the calls that could
    pair (an expected call has their name). A tool is read only when such a call names
    it, reading the tools in order until it is found, as BFCL reads only the expected
    function's doc; ValueError (one line) on a shape it cannot read.

    >>> tool = {"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}
    >>> schema_problems([tool], [Call("f", {"x": "1"}), Call("g", {})], [Call("f", {})])
    ["type of parameter 'x': expected integer, got str", None]
    """
    if type(tools) is not list:
        _check_tools(tools)
    problems: list[str | None] = []
    found: SchemaIndex = {}
    for g in gen:
        name = g.name
        for e in exp:  # a loop, not a set: one to three expected calls, mostly
            if e.name == name:
                break
        else:
            problems.append(None)  # pairs with nothing anyway
            continue
        declared = found.get(name)
        if declared is None:
            declared = found[name] = _find(tools, name)
        problems.append(_problem(g, declared))
    return problems


def _check_tools(tools: Any) -> None:
    if not isinstance(tools, list):
        raise ValueError("schema must be a list of tool schemas or 'row'")


def _function(i: int, tool: Any) -> tuple[Mapping[str, Any], str]:
    """The function schema of ``tools[i]`` and its name."""
    function = tool.get("function", tool) if _is_mapping(tool) else None
    if not _is_mapping(function) or type(name := function.get("name")) is not str:
        raise ValueError(f"schema[{i}] is not a tool schema with a function name")
    return function, name


def _declared(
    i: int, name: str, function: Mapping[str, Any]
) -> tuple[Mapping[str, Any], Sequence[str]]:
    params = function.get("parameters") or {}
    props = params.get("properties") or {} if _is_mapping(params) else None
    if type(props) is not dict and not _is_mapping(props):
        raise ValueError(f"schema[{i}] ({name!r}): parameters.properties must be an object")
    required = params.get("required") or ()
    for each in required:  # names are strings (JSON Schema); anything else is read as one
        if type(each) is not str:
            return props, tuple(map(str, required))
    return props, required


_UNDECLARED: tuple[Mapping[str, Any], Sequence[str]] = ({}, ())


def _find(tools: list[Any], name: str) -> tuple[Mapping[str, Any], Sequence[str]]:
    """The first tool named ``name`` (``_UNDECLARED`` when none is), read in order."""
    for i, tool in enumerate(tools):
        function = tool.get("function", tool) if type(tool) is dict else None
        if type(function) is not dict or type(found := function.get("name")) is not str:
            function, found = _function(i, tool)  # the general reading, and its error
        if found == name:
            return _declared(i, name, function)
    return _UNDECLARED


def _type_name(value: Any) -> str:
    return "bool" if isinstance(value, bool) else type(value).__name__


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
    if type(declared) is str:  # the common case: one type name
        check = _TYPES.get(declared)
        if check is not None and not check(value):
            return f"expected {declared}, got {_type_name(value)}"
    else:
        names = declared if isinstance(declared, list) else [declared]
        checks = [_TYPES[n] for n in names if isinstance(n, str) and n in _TYPES]
        if checks and not any(check(value) for check in checks):
            return f"expected {'/'.join(str(n) for n in names)}, got {_type_name(value)}"
    items = schema.get("items")
    if isinstance(value, (list, tuple)) and isinstance(items, Mapping):
        kind = items.get("type")
        plain = _PLAIN_OK.get(kind) if type(kind) is str else None
        if plain:  # scalar items, the common case: one loop, no call per item
            for item in value:
                if type(item) not in plain:
                    break
            else:
                return None
        for i, item in enumerate(value):
            problem = type_problem(item, items)
            if problem is not None:
                return f"item {i}: {problem}"
    return None


def schema_problem(call: Call, index: SchemaIndex) -> str | None:
    """The first schema rule ``call`` breaks (naming the rule and parameter), or None.

    >>> index = {"f": ({"x": {"type": "integer"}}, ("x",))}
    >>> schema_problem(Call("f", {"x": 1}), index) is None
    True
    >>> schema_problem(Call("f", {"y": 1}), index)
    "missing required parameter 'x'"
    >>> schema_problem(Call("f", {"x": True}), index)
    "type of parameter 'x': expected integer, got bool"
    """
    return _problem(call, index.get(call.name))


def _problem(
    call: Call, declared: tuple[Mapping[str, Any], Sequence[str]] | None
) -> str | None:
    if declared is None or declared is _UNDECLARED:
        return f"tool {call.name!r} is not declared"
    props, required = declared
    args = call.args
    if type(args) is not dict and not isinstance(args, Mapping):
        return f"arguments are a {type(args).__name__}, not an object"
    for name in required:
        if name not in args:
            return f"missing required parameter {name!r}"
    for name, value in args.items():
        spec = props.get(name, _ABSENT)
        if spec is _ABSENT:
            return f"undeclared parameter {name!r}"
        try:  # a scalar of a declared scalar type, the common case
            if type(value) in _PLAIN_OK[spec["type"]]:
                continue
        except (KeyError, TypeError):  # no type, an unknown one, a list of types...
            pass
        problem = type_problem(value, spec)
        if problem is not None:
            return f"type of parameter {name!r}: {problem}"
    return None


_ABSENT = object()
# Declared type -> the JSON scalar types that have it (exactly: no subclass, no bool as a
# number); containers and the rest go through type_problem, which also checks items.
_PLAIN_OK: dict[str, frozenset[type]] = {
    "string": frozenset((str,)),
    "integer": frozenset((int,)),
    "number": frozenset((int, float)),
    "float": frozenset((int, float)),
    "boolean": frozenset((bool,)),
    "null": frozenset((type(None),)),
    # Containers: never plain (items are checked), listed so that looking them up does
    # not raise (an exception costs more than the check).
    **dict.fromkeys(("array", "tuple", "object", "dict"), frozenset()),
}

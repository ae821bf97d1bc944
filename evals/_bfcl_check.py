"""BFCL's AST rules for one call, reimplemented from its ``ast_checker`` (Java and
JavaScript arguments first go through BFCL's own converters: ``_bfcl_languages``).

Each argument is checked against its parameter's acceptable values in BFCL's form (a
list, ``""`` among them meaning "may be left out"; a dict answer maps each key to such a
list), read from agentloop's ground truth as it is needed: a parameter's ground truth
(``{"$any": [...]}``, wrapped in ``$optional`` when BFCL lists ``""``; a plain value;
``$literal``) becomes BFCL's list of acceptable values (:func:`answer_options`); BFCL checks dicts
one level deep, so a dict answer maps each key to such a list again. A matcher BFCL has no
rule for fails the ground truth whenever its parameter is read.

Every check returns None when it passes, else ``(error_type, message)`` with BFCL's error
type, so nothing is formatted on success. Values compare with Python ``==`` where
BFCL's does (``1 == 1.0 == True`` inside ``in``), strings after ``bfcl_normalize``.

Nothing is remembered between calls: the doc and the ground truth are read as they are
now, one lookup per argument, as BFCL's checker reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._bfcl_languages import BfclLanguage, read_argument
from ._matchers import _SCALARS, matcher_key
from ._matchers import bfcl_normalize as _norm

__all__ = ["Failure", "Unsupported", "answer_options", "bfcl_answer", "check_call"]


class Unsupported(ValueError):
    """A ground truth BFCL's checker has no rule for."""


def answer_options(value: Any, top: bool = True) -> list[Any]:
    """A parameter's ground truth as BFCL's list of acceptable values; ``top``: a
    parameter's (whose dict answers hold lists again), else a dict member's (plain)."""
    if type(value) in _SCALARS:
        return [value]
    key = matcher_key(value)
    if key is None:
        return [_answer(value) if top else value]
    if key == "$any":
        return [_answer(option) if top else _plain(option) for option in value[key]]
    if key == "$optional":
        return [*answer_options(value[key], top), ""]
    if key == "$literal":
        return [value[key]]
    raise Unsupported(f"BFCL's checker has no rule like {key}")


def _plain(value: Any) -> Any:
    return value["$literal"] if matcher_key(value) == "$literal" else value


def _answer(value: Any) -> Any:
    """One acceptable value of a parameter: a dict's members (and those of a list of
    dicts) become lists of acceptable values; a member written as a plain list is taken
    as BFCL's own list."""
    kind = type(value)
    if kind in _SCALARS:  # (the commonest: no ABC check)
        return value
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        return {k: v if type(v) is list else answer_options(v, False) for k, v in value.items()}
    if kind is list:
        return [_answer(v) if isinstance(v, dict) else v for v in value]
    return value


def bfcl_answer(args: Any) -> dict[str, list[Any]]:
    """An expected call's arguments (agentloop's form) as BFCL's possible answer.

    >>> bfcl_answer({"base": {"$any": [10]}, "unit": {"$optional": {"$any": ["units"]}}})
    {'base': [10], 'unit': ['units', '']}
    """
    if not isinstance(args, dict):
        raise Unsupported("expected arguments are not an object")
    return {str(k): answer_options(v) for k, v in args.items()}


Failure = tuple[str, str]

# BFCL's PYTHON_TYPE_MAPPING ("any" is a string there), plus the JSON-schema names
# OpenAI tool schemas use, for rows without BFCL's own function docs.
_PY_TYPES: dict[str, type] = dict(
    string=str, integer=int, float=float, boolean=bool, array=list, tuple=list, dict=dict, any=str
)
_ALIASES = {"object": "dict", "number": "float"}


def _answer_type(options: Any) -> type | None:
    """The type of the first acceptable value that is not ``""`` (BFCL reads a variable's
    name from it)."""
    for option in options:
        if option != "":
            return type(option)
    return None


def _type_check(
    param: str,
    value: Any,
    options: Any,
    desc: str,
    expected: type,
    nested: type | None,
    answer_type: type | None,
) -> tuple[Failure | None, bool]:
    """(failure, is_variable) as BFCL's type_checker; nested types one level deep.
    ``answer_type``: ``_answer_type(options)``."""
    is_variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if nested is None:
            return None, is_variable
        elements: Any = value  # a list here (mypy narrowed it to `object`)
        for option in options:
            # An option that is not a list (e.g. "") passes the nested check, as in BFCL.
            if type(option) is not list:
                return None, is_variable
            inner = _answer_type(option)
            if all(
                _type_check(param, item, option, nested.__name__, nested, None, inner)[0] is None
                for item in elements
            ):
                return None, is_variable
        if answer_type is type(value):
            return (
                "type_error:nested",
                f"nested type of {param!r}: expected {desc} of {nested.__name__}, got {value!r}",
            ), True
    elif answer_type is not None and type(value) is answer_type:
        return None, True
    got = type(value).__name__
    return ("type_error:simple", f"type of {param!r}: expected {desc}, got {got}"), False


def _normal(x: Any) -> Any:
    return _norm(x) if type(x) is str else x


def _string(value: str, options: list[Any]) -> bool:
    """BFCL's string rule: equal after normalising both."""
    if value in options:
        return True
    mine = _norm(value)
    return any(type(o) is str and _norm(o) == mine for o in options)


def _list(param: str, value: list[Any], options: list[Any]) -> Failure | None:
    mine = [_normal(x) for x in value]
    for option in options:
        if isinstance(option, (list, str)) and mine == [_normal(y) for y in option]:
            return None
    return "value_error:list/tuple", _not_among(param, value, options)


def _dict(param: str, value: Any, options: list[Any]) -> Failure | None:
    failure: Failure = ("dict_checker:unclear", f"{param!r}: no acceptable dict")
    if not isinstance(value, dict):
        return "type_error:simple", f"type of {param!r}: expected dict, got {type(value).__name__}"
    for option in options:
        if option == "" or not isinstance(option, dict):
            continue
        found: Failure | None = None
        for key, item in value.items():
            if key not in option:
                found = ("value_error:dict_key", f"unexpected key {key!r} in {param!r}")
                break
            accepted = option[key] if isinstance(option[key], list) else [option[key]]
            if _normal(item) not in [_normal(a) for a in accepted]:
                found = ("value_error:dict_value", _not_among(f"{param}.{key}", item, accepted))
                break
        # BFCL looks for missing keys even after a value failed: a missing key wins.
        for key, accepted in option.items():
            if key not in value and "" not in accepted:
                found = ("value_error:dict_key", f"missing key {key!r} in {param!r}")
                break
        if found is None:
            return None
        failure = found
    return failure


def _list_of_dicts(param: str, value: list[Any], options: list[Any]) -> Failure | None:
    failure: Failure = ("list_dict_checker:unclear", f"{param!r}: no acceptable list")
    for option in options:
        if not isinstance(option, (list, str)) or len(value) != len(option):
            failure = ("value_error:list_dict_count", f"wrong number of dicts in {param!r}")
            continue
        found = next(
            (f for v, o in zip(value, option, strict=True) if (f := _dict(param, v, [o]))), None
        )
        if found is None:
            return None
        failure = found
    return failure


def _rule(details: Any) -> tuple[str, type | None, type | None]:
    """A parameter's BFCL type name, its Python type and its items' type."""
    details = details if type(details) is dict or isinstance(details, Mapping) else {}
    desc = str(details.get("type"))
    name = _ALIASES.get(desc, desc)
    nested = None
    if name in ("array", "tuple"):
        items = details.get("items")
        inner = str(items.get("type")) if isinstance(items, Mapping) else ""
        nested = _PY_TYPES.get(_ALIASES.get(inner, inner))
    return name, _PY_TYPES.get(name), nested


def _not_among(param: str, value: Any, options: list[Any]) -> str:
    return f"value of {param!r}: {value!r} is not among the acceptable ones {options!r}"


_NONE = object()


def check_call(
    doc: Mapping[str, Any],
    args: Any,
    expected: Mapping[str, Any],
    language: BfclLanguage | None = None,
) -> Failure | None:
    """BFCL's simple_function_checker after the name check: ``doc`` is the function's
    BFCL doc, ``expected`` the expected call's arguments (agentloop's ground truth form),
    ``language`` Java's or JavaScript's (``bfcl_language``), None for Python.
    Raises ``Unsupported`` on a matcher BFCL has no rule for.

    >>> doc = {"name": "f", "parameters": {"type": "dict", "required": ["x"], "properties": {
    ...     "x": {"type": "float"}, "unit": {"type": "string"}}}}
    >>> truth = {"x": {"$any": [10.0]}, "unit": {"$optional": {"$any": ["units"]}}}
    >>> check_call(doc, {"x": 10, "unit": "Units"}, truth)
    >>> check_call(doc, {"x": 10, "y": 1}, truth)
    ('simple_function_checker:unexpected_param', "unexpected parameter 'y'")
    """
    if not isinstance(args, dict):
        return "ast_decoder:decoder_failed", "arguments are not a JSON object"
    params = doc.get("parameters") or {}
    properties = params.get("properties") or {}
    for param in params.get("required") or ():
        if param not in args:
            return (
                "simple_function_checker:missing_required",
                f"missing required parameter {param!r}",
            )
    for param, value in args.items():
        spec = expected.get(param, _NONE)
        if spec is _NONE or param not in properties:
            return "simple_function_checker:unexpected_param", f"unexpected parameter {param!r}"
        if language is None:
            desc, kind, nested = _rule(properties[param])
        else:
            refused, value, desc, kind, nested = read_argument(
                language, param, value, properties[param]
            )
            if refused is not None:
                return refused
        failure = _check_value(
            param, value, answer_options(spec), desc, kind, nested, language is None
        )
        if failure is not None:
            return failure
    if len(expected) > len(args):  # every argument is among the expected ones by now
        for param, spec in expected.items():
            if param not in args and "" not in answer_options(spec):
                return "simple_function_checker:missing_optional", (
                    f"parameter {param!r} is missing and not optional"
                )
    return None


def _check_value(
    param: str,
    value: Any,
    options: list[Any],
    desc: str,
    expected: type | None,
    nested: Any,
    python: bool = True,
) -> Failure | None:
    """One argument's type and value, as BFCL's checker reads them."""
    if expected is None:  # BFCL's checker has no rule for it (it raises)
        return "type_error:unknown", f"type of {param!r}: unknown BFCL type {desc!r}"
    kind = type(value)
    if python and kind is int and desc == "float":  # Python's int -> float promotion
        value, kind = float(value), float
    elif kind is tuple and desc == "tuple":
        value, kind = list(value), list
    failure, is_variable = _type_check(
        param, value, options, desc, expected, nested, _answer_type(options)
    )
    if failure is not None:
        return failure
    if is_variable:
        if value not in options:
            return "value_error:others", _not_among(param, value, options)
    elif expected is str:
        if not _string(value, options):
            return "value_error:string", _not_among(param, value, options)
    elif expected is dict:
        return _dict(param, value, options)
    elif expected is list:
        return (_list_of_dicts if nested is dict else _list)(param, value, options)
    elif value not in options:
        return "value_error:others", _not_among(param, value, options)
    return None

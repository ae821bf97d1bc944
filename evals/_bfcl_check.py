"""BFCL's AST rules for one call (Python), reimplemented from its ``ast_checker``.

Works on BFCL's own answer form: each parameter maps to a list of acceptable values,
``""`` among them meaning "may be left out"; a dict answer maps each key to such a list.
Every check returns None when it passes, else ``(error_type, message)`` with BFCL's
error type, so nothing is formatted on success. Values compare with Python ``==`` where
BFCL's does (``1 == 1.0 == True`` inside ``in``), strings after ``bfcl_normalize``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._matcher_rules import bfcl_normalize as _norm

__all__ = ["Answer", "Failure", "check_call", "check_prepared"]

Failure = tuple[str, str]

# BFCL's PYTHON_TYPE_MAPPING ("any" is a string there), plus the JSON-schema names
# OpenAI tool schemas use, for rows without BFCL's own function docs.
_PY_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
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
            return ("type_error:nested", f"nested type of {param!r}: expected {desc} "
                    f"of {nested.__name__}, got {value!r}"), True  # fmt: skip
    elif answer_type is not None and type(value) is answer_type:
        return None, True
    got = type(value).__name__
    return ("type_error:simple", f"type of {param!r}: expected {desc}, got {got}"), False


def _normal(x: Any) -> Any:
    return _norm(x) if type(x) is str else x


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
        if found is None:
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


Rule = tuple[str, type | None, type | None]  # BFCL type name, its Python type, items'
_TABLES: dict[int, tuple[Any, tuple[Any, ...], dict[str, Rule]]] = {}


def _table(doc: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Rule]]:
    """(required, rule by parameter) of a function doc, read once per doc object: the
    same docs are checked for every sample and epoch of a row."""
    cached = _TABLES.get(id(doc))
    if cached is not None and cached[0] is doc:  # the doc is kept alive: ids stay unique
        return cached[1], cached[2]
    params = doc.get("parameters") or {}
    table: dict[str, Rule] = {}
    for param, details in (params.get("properties") or {}).items():
        details = details if isinstance(details, dict) else {}
        desc = str(details.get("type"))
        desc = _ALIASES.get(desc, desc)
        nested = None
        if desc in ("array", "tuple"):
            items = details.get("items")
            inner = str(items.get("type")) if isinstance(items, dict) else ""
            nested = _PY_TYPES.get(_ALIASES.get(inner, inner))
        table[param] = (desc, _PY_TYPES.get(desc), nested)
    required = tuple(params.get("required") or ())
    if len(_TABLES) >= 4096:
        _TABLES.clear()
    _TABLES[id(doc)] = (doc, required, table)
    return required, table


def _not_among(param: str, value: Any, options: list[Any]) -> str:
    return f"value of {param!r}: {value!r} is not among the acceptable ones {options!r}"


# Per parameter: BFCL type name, its Python type, items' type, acceptable values, their
# type as BFCL reads it, the strings among them and those normalized.
Step = tuple[str, type | None, type | None, list[Any], type | None, frozenset[str], frozenset[str]]


class Answer:
    """An expected call's BFCL answer, read once for checking: with a function doc,
    one step per parameter both declare (one lookup per argument)."""

    __slots__ = ("answer", "last", "needed")

    def __init__(self, answer: Mapping[str, list[Any]]) -> None:
        self.answer = answer
        self.needed = tuple(p for p, options in answer.items() if "" not in options)
        # (doc, its required parameters, steps) for the last doc: one tuple, so a
        # reader in another thread never mixes two docs' plans.
        self.last: tuple[Any, tuple[Any, ...], dict[str, Step]] = (None, (), {})

    def plan(self, doc: Mapping[str, Any]) -> tuple[Any, tuple[Any, ...], dict[str, Step]]:
        """``(doc, required parameters, steps)`` against ``doc``."""
        last = self.last
        if last[0] is not doc:
            required, table = _table(doc)
            steps: dict[str, Step] = {}
            for param, options in self.answer.items():
                if param in table:
                    strs = frozenset(o for o in options if type(o) is str)
                    norms = frozenset(_norm(o) for o in strs)
                    steps[param] = (*table[param], options, _answer_type(options), strs, norms)
            self.last = last = (doc, required, steps)
        return last


def check_call(
    doc: Mapping[str, Any], args: Any, answer: Mapping[str, list[Any]]
) -> Failure | None:
    """BFCL's simple_function_checker after the name check: ``doc`` is the function's
    BFCL doc, ``answer`` maps parameters to acceptable values.

    >>> doc = {"name": "f", "parameters": {"type": "dict", "required": ["x"], "properties": {
    ...     "x": {"type": "float"}, "unit": {"type": "string"}}}}
    >>> check_call(doc, {"x": 10, "unit": "Units"}, {"x": [10.0], "unit": ["units", ""]})
    >>> check_call(doc, {"x": 10, "y": 1}, {"x": [10.0]})
    ('simple_function_checker:unexpected_param', "unexpected parameter 'y'")
    """
    return check_prepared(doc, args, Answer(answer))


def check_prepared(doc: Mapping[str, Any], args: Any, answer: Answer) -> Failure | None:
    """:func:`check_call` on a prepared answer."""
    if type(args) is not dict and not isinstance(args, dict):
        return "ast_decoder:decoder_failed", "arguments are not a JSON object"
    plan = answer.last  # answer.plan(doc), without the call when it is cached
    _, required, steps = plan if plan[0] is doc else answer.plan(doc)
    for param in required:
        if param not in args:
            return (
                "simple_function_checker:missing_required",
                f"missing required parameter {param!r}",
            )
    for param, value in args.items():
        step = steps.get(param)
        if step is None:  # not in the doc or not in the answer
            return "simple_function_checker:unexpected_param", f"unexpected parameter {param!r}"
        desc, expected, nested, options, answer_type, strs, norms = step
        if expected is None:  # BFCL's checker has no rule for it (it raises)
            return "type_error:unknown", f"type of {param!r}: unknown BFCL type {desc!r}"
        if desc == "tuple" and type(value) is tuple:
            value = list(value)
        if desc == "float" and type(value) is int:  # Python's int -> float promotion
            value = float(value)
        if nested is None and type(value) is expected:  # _type_check's common case
            is_variable = answer_type is not None and answer_type is not expected
        else:
            failure, is_variable = _type_check(
                param, value, options, desc, expected, nested, answer_type
            )
            if failure is not None:
                return failure
        failure = None
        if is_variable:
            if value not in options:
                failure = "value_error:others", _not_among(param, value, options)
        elif expected is str:  # BFCL: == after normalizing both
            if value not in strs and _norm(value) not in norms:
                failure = "value_error:string", _not_among(param, value, options)
        elif expected is dict:
            failure = _dict(param, value, options)
        elif expected is list and nested is dict:
            failure = _list_of_dicts(param, value, options)
        elif expected is list:
            failure = _list(param, value, options)
        elif value not in options:
            failure = "value_error:others", _not_among(param, value, options)
        if failure is not None:
            return failure
    for param in answer.needed:
        if param not in args:
            return "simple_function_checker:missing_optional", (
                f"parameter {param!r} is missing and not optional"
            )
    return None

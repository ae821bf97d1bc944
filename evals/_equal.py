"""JSON value identity: the comparison every tool-call reward builds on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["kind_of", "values_equal"]

_MISSING = object()


def kind_of(x: Any) -> str:
    # bool first: True is an int to Python but never a number to JSON.
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int"
    if isinstance(x, float):
        return "float"
    if isinstance(x, str):
        return "str"
    if x is None:
        return "null"
    if isinstance(x, Mapping):
        return "object"
    if isinstance(x, (list, tuple)):
        return "array"
    return "other"


def values_equal(a: Any, b: Any, numeric: bool = False) -> bool:
    """JSON value identity, recursively: ``1 != 1.0`` and ``True != 1``.

    With ``numeric``, ints and floats compare by value (``1 == 1.0``); booleans
    are still never numbers. Key order never matters; NaN equals NaN so that a
    value always equals itself.

    >>> values_equal({"a": [1, 2]}, {"a": [1, 2.0]}), values_equal(1, 1.0, numeric=True)
    (False, True)
    >>> values_equal(True, 1, numeric=True)
    False
    """
    # Fast path for what json.loads produces: same exact type.
    kind = type(a)
    if kind is type(b):
        if kind is str or kind is int or kind is bool or a is None:
            return bool(a == b)
        if kind is dict:
            if len(a) != len(b):
                return False
            for key, value in a.items():
                other = b.get(key, _MISSING)
                leaf = type(value)
                # Same-typed str/int/bool leaves inline: most arguments are flat.
                if leaf is type(other) and (leaf is str or leaf is int or leaf is bool):
                    if value != other:
                        return False
                elif other is _MISSING or not values_equal(value, other, numeric):
                    return False
            return True
        if kind is list:
            if len(a) != len(b):
                return False
            for x, y in zip(a, b, strict=True):
                leaf = type(x)
                if leaf is type(y) and (leaf is str or leaf is int or leaf is bool):
                    if x != y:
                        return False
                elif not values_equal(x, y, numeric):
                    return False
            return True
        if kind is float:
            return bool(a == b or (a != a and b != b))
    return _slow_equal(a, b, numeric)


def _slow_equal(a: Any, b: Any, numeric: bool) -> bool:
    """Mixed or unusual types: subclasses, tuples, Mappings, int against float."""
    ka, kb = kind_of(a), kind_of(b)
    if ka != kb:
        return numeric and ka in ("int", "float") and kb in ("int", "float") and a == b
    if ka == "object":
        if len(a) != len(b):
            return False
        for key, value in a.items():
            if key not in b or not values_equal(value, b[key], numeric):
                return False
        return True
    if ka == "array":
        if len(a) != len(b):
            return False
        return all(values_equal(x, y, numeric) for x, y in zip(a, b, strict=True))
    if ka == "float":
        return bool(a == b or (a != a and b != b))
    try:
        return bool(a == b)
    except Exception:  # exotic objects with a raising __eq__ are simply unequal
        return False

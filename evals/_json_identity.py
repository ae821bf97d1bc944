"""JSON value identity: the comparison every tool-call reward builds on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["kind_of", "values_equal"]

# Exact types first; subclasses (and Mappings, tuples) fall through to isinstance.
_KINDS = {bool: "bool", int: "int", float: "float", str: "str", type(None): "null",
          dict: "object", list: "array", tuple: "array"}  # fmt: skip
_NUMBERS = ("int", "float")
_PLAIN = ("str", "int", "bool", "null")  # equal exactly when == says so


def kind_of(x: Any) -> str:
    """The JSON kind of a Python value: bool, int, float, str, null, object, array or other.

    >>> kind_of(True), kind_of(1), kind_of((1,)), kind_of(object())
    ('bool', 'int', 'array', 'other')
    """
    kind = _KINDS.get(type(x))
    if kind is not None:
        return kind
    for types, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"),
                        (Mapping, "object"), ((list, tuple), "array")):  # fmt: skip
        if isinstance(x, types):  # bool before int: True is never a JSON number
            return name
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
    ka = _KINDS.get(type(a)) or kind_of(a)
    kb = _KINDS.get(type(b)) or kind_of(b)
    if ka != kb:
        return numeric and ka in _NUMBERS and kb in _NUMBERS and a == b
    if ka in _PLAIN:
        return bool(a == b)
    if ka == "object":
        return len(a) == len(b) and all(
            key in b and values_equal(value, b[key], numeric) for key, value in a.items()
        )
    if ka == "array":
        return len(a) == len(b) and all(
            values_equal(x, y, numeric) for x, y in zip(a, b, strict=True)
        )
    if ka == "float":
        return bool(a == b or (a != a and b != b))
    try:
        return bool(a == b)
    except Exception:  # exotic objects with a raising __eq__ are simply unequal
        return False

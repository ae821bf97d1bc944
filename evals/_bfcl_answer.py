"""agentloop's ground truth read as BFCL's acceptable values.

A parameter's ground truth (``{"$any": [...]}``, wrapped in ``$optional`` when BFCL
lists ``""``; a plain value; ``$literal``) becomes BFCL's list of acceptable values,
``""`` among them meaning "may be left out". BFCL checks dicts one level deep: a dict
answer maps each key to such a list again.

The checker reads one parameter at a time, as it needs it, and nothing is remembered
between calls: a ground truth edited in place is read as it is now. A matcher BFCL has
no rule for fails the ground truth whenever its parameter is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._matchers import matcher_key

__all__ = ["Unsupported", "bfcl_answer", "options"]


_SCALARS = frozenset((str, int, float, bool, type(None)))


class Unsupported(ValueError):
    """A ground truth BFCL's checker has no rule for."""


def options(value: Any, top: bool = True) -> list[Any]:
    """A parameter's ground truth as BFCL's list of acceptable values; ``top``: a
    parameter's (whose dict answers hold lists again), else a dict member's (plain)."""
    if type(value) in _SCALARS:
        return [value]
    key = matcher_key(value)
    if key is None:
        return [_answer(value) if top else value]
    if key == "$any":
        return [_answer(o) if top else _plain(o) for o in value[key]]
    if key == "$optional":
        return [*options(value[key], top), ""]
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
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        return {k: v if type(v) is list else options(v, False) for k, v in value.items()}
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
    return {str(k): options(v) for k, v in args.items()}

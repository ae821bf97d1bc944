"""What makes a matcher well formed: the matcher keys and their parameters, BFCL's string
normaliser, and :func:`check_matchers` (every problem of a value, each with its path);
which values hold matchers (:func:`has_matchers`) and which are plain enough to be read
as written (:func:`read_in_place`).

Compiling (``agentloop.evals._matchers``) checks each matcher with the same rules as it builds it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "MATCHERS",
    "NORMALIZERS",
    "SCALARS",
    "bfcl_normalize",
    "check_matchers",
    "has_matchers",
    "is_number",
    "matcher_key",
    "node_problems",
    "read_in_place",
]

# BFCL's standardize_string: drop spaces and , . / - _ * ^, lower-case, ' -> ".
_BFCL_DROP = str.maketrans("", "", " ,./-_*^")


def bfcl_normalize(text: str) -> str:
    """BFCL's string rule: remove spaces and ``, . / - _ * ^``, lower-case, ``'`` -> ``"``.

    >>> bfcl_normalize("New York, NY"), bfcl_normalize("it's")
    ('newyorkny', 'it"s')
    """
    return text.translate(_BFCL_DROP).lower().replace("'", '"')


NORMALIZERS: dict[str, Callable[[str], str]] = {"bfcl": bfcl_normalize}
# Matcher key -> the parameter keys it accepts (None: any, passed to the function).
MATCHERS: dict[str, frozenset[str] | None] = {
    "$any": frozenset(),
    "$optional": frozenset(),
    "$regex": frozenset(),
    "$approx": frozenset({"abs", "rel"}),
    "$normalized": frozenset({"normalizer"}),
    "$match": None,
    "$literal": frozenset(),
}
# JSON's scalar types: plain values that are never matchers nor hold any.
SCALARS = frozenset((str, int, float, bool, type(None)))
_IMPORT_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def matcher_key(value: Any) -> str | None:
    """The ``$`` key of a matcher object, or None for a plain value."""
    if type(value) is not dict and not isinstance(value, Mapping):  # ABC checks are slow
        return None
    for key in value:
        if isinstance(key, str) and key.startswith("$"):
            return key
    return None


def node_problems(key: str, spec: Mapping[str, Any]) -> tuple[list[str], bool]:
    """What is wrong with one matcher object itself, and whether it is a known matcher
    (so that its operands are worth checking too)."""
    if len(spec) == 1 and (key == "$optional" or (key == "$any" and type(spec[key]) is list)):
        return [], True  # the common shapes, with nothing to check on the node itself
    dollars = [k for k in spec if isinstance(k, str) and k.startswith("$")]
    if len(dollars) > 1:
        return [f"more than one matcher key {dollars} (use $literal for a plain dict)"], False
    if key not in MATCHERS:
        return [f"unknown matcher {key!r}; valid: {', '.join(MATCHERS)}"], False
    out: list[str] = []
    allowed = MATCHERS[key]
    if allowed is not None and (extra := sorted(set(spec) - allowed - {key})):
        out.append(f"{key} takes no parameter(s) {extra}")
    operand = spec[key]
    if key == "$any" and not isinstance(operand, list):  # empty: nothing acceptable (BFCL)
        out.append("$any needs a list of values")
    elif key == "$regex":
        if not isinstance(operand, str):
            out.append("$regex needs a pattern string")
        else:
            try:
                re.compile(operand)
            except re.error as exc:
                out.append(f"$regex {operand!r} is not a valid pattern ({exc})")
    elif key == "$approx":
        if not is_number(operand):
            out.append("$approx needs a number")
        for name in ("abs", "rel"):
            if name in spec and not (is_number(spec[name]) and spec[name] >= 0):
                out.append(f"$approx {name} must be a number >= 0")
    elif key == "$normalized":
        if not isinstance(operand, str):
            out.append("$normalized needs a string")
        normalizer = spec.get("normalizer", "bfcl")
        if normalizer not in NORMALIZERS:
            out.append(f"unknown normalizer {normalizer!r}; valid: {', '.join(NORMALIZERS)}")
    elif key == "$match" and not (isinstance(operand, str) and _IMPORT_PATH.fullmatch(operand)):
        out.append(f"$match needs an import path 'package.module:function', got {operand!r}")
    return out, True


def _walk(value: Any, path: str, out: list[str]) -> None:
    if isinstance(value, Mapping):
        key = matcher_key(value)
        if key is None:
            for k, v in value.items():
                _walk(v, f"{path}.{k}" if path else str(k), out)
            return
        problems, known = node_problems(key, value)
        where = f"{path}: " if path else ""
        out += [where + problem for problem in problems]
        if not known:
            return
        if key == "$any" and isinstance(value[key], list):
            for i, option in enumerate(value[key]):
                _walk(option, f"{path}.$any[{i}]", out)
        elif key == "$optional":
            _walk(value[key], f"{path}.$optional", out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _walk(v, f"{path}[{i}]", out)


def check_matchers(value: Any, where: str = "") -> list[str]:
    """Problems with the matchers in ``value`` (a JSON value), each ``path: problem``.

    >>> check_matchers({"city": {"$anyy": ["Paris"]}}, "arguments")
    ["arguments.city: unknown matcher '$anyy'; valid: $any, $optional, $regex, $approx, \
$normalized, $match, $literal"]
    >>> check_matchers({"n": {"$approx": "3"}, "s": {"$regex": "("}, "ok": [1, {"$any": [1]}]})
    ['n: $approx needs a number', "s: $regex '(' is not a valid pattern (missing ), \
unterminated subpattern at position 0)"]
    """
    out: list[str] = []
    _walk(value, where, out)
    return out


def has_matchers(value: Any) -> bool:
    """True when ``value`` holds a matcher anywhere.

    >>> has_matchers({"a": [{"b": {"$any": [1, 2]}}]}), has_matchers({"a": [1]})
    (True, False)
    """
    kind = type(value)
    if kind is dict:  # the common case, flat JSON arguments: no recursion per scalar
        for key, member in value.items():
            if type(key) is str and key[:1] == "$":
                return True
            leaf = type(member)
            if leaf is not str and leaf is not int and leaf is not bool and has_matchers(member):
                return True
        return False
    if kind is list:
        return any(has_matchers(v) for v in value)
    if kind is str or kind is int or kind is float or value is None:
        return False
    if isinstance(value, Mapping):
        return matcher_key(value) is not None or any(has_matchers(v) for v in value.values())
    return isinstance(value, (list, tuple)) and any(has_matchers(v) for v in value)


def read_in_place(value: dict[Any, Any]) -> bool:
    """Whether a one-key object is a plain ``$any`` (options without matchers) or a plain
    ``$optional`` (around a scalar, a list without matchers or a plain ``$any``), which
    ``agentloop.evals._matchers.matches`` reads as written.

    >>> read_in_place({"$any": ["a", 1]}), read_in_place({"$any": [{"$regex": "a"}]})
    (True, False)
    """
    if "$any" in value:
        options = value["$any"]
    elif "$optional" in value:
        inner = value["$optional"]
        if type(inner) is not dict:
            return type(inner) in SCALARS or (type(inner) is list and not has_matchers(inner))
        if len(inner) != 1 or "$any" not in inner:
            return False
        options = inner["$any"]
    else:
        return False
    if type(options) is not list:
        return False
    for option in options:  # noqa: SIM110 (hot: a loop costs less than any())
        if type(option) not in SCALARS and has_matchers(option):
            return False
    return True

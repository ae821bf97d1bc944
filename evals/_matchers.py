"""Acceptable values in ground truth: ``{"$any": [...]}`` and the other matchers.

In expected arguments, a JSON object with exactly one key starting with ``$`` (plus
parameter keys without one) is a matcher; every other value means "exactly this".
:func:`check_matchers` lists what is wrong with a value (for line-level dataset
checks); :func:`compile_matchers` turns it into a tree :func:`matches` reads, once
per comparison, so the comparison itself never re-parses ``$`` keys. A value
without matchers compiles to itself and compares through ``values_equal``.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Mapping
from functools import lru_cache, partial
from typing import Any

from ._equal import values_equal

__all__ = [
    "COMPILED",
    "MATCHERS",
    "NORMALIZERS",
    "Matcher",
    "bfcl_normalize",
    "check_matchers",
    "compile_matchers",
    "has_matchers",
    "is_optional",
    "matches",
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
_IMPORT_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _close(value: Any, numeric: bool, *, want: float, rel: float, abs_: float) -> bool:
    return _is_number(value) and math.isclose(value, want, rel_tol=rel, abs_tol=abs_)


def _matcher_key(value: Any) -> str | None:
    """The ``$`` key of a matcher object, or None for a plain value."""
    if type(value) is not dict and not isinstance(value, Mapping):  # ABC checks are slow
        return None
    for key in value:
        if isinstance(key, str) and key.startswith("$"):
            return key
    return None


def _check_one(key: str, spec: Mapping[str, Any], path: str, out: list[str]) -> None:
    where = f"{path}: " if path else ""
    dollars = [k for k in spec if isinstance(k, str) and k.startswith("$")]
    if len(dollars) > 1:
        out.append(f"{where}more than one matcher key {dollars} (use $literal for a plain dict)")
        return
    if key not in MATCHERS:
        out.append(f"{where}unknown matcher {key!r}; valid: {', '.join(MATCHERS)}")
        return
    allowed = MATCHERS[key]
    if allowed is not None and (extra := sorted(set(spec) - allowed - {key})):
        out.append(f"{where}{key} takes no parameter(s) {extra}")
    operand = spec[key]
    if key == "$any":
        if not isinstance(operand, list):  # empty: no value is acceptable (BFCL has such)
            out.append(f"{where}$any needs a list of values")
        else:
            for i, option in enumerate(operand):
                _walk(option, f"{path}.$any[{i}]", out)
    elif key == "$optional":
        _walk(operand, f"{path}.$optional", out)
    elif key == "$regex":
        if not isinstance(operand, str):
            out.append(f"{where}$regex needs a pattern string")
        else:
            try:
                re.compile(operand)
            except re.error as exc:
                out.append(f"{where}$regex {operand!r} is not a valid pattern ({exc})")
    elif key == "$approx":
        if not _is_number(operand):
            out.append(f"{where}$approx needs a number")
        for name in ("abs", "rel"):
            if name in spec and not (_is_number(spec[name]) and spec[name] >= 0):
                out.append(f"{where}$approx {name} must be a number >= 0")
    elif key == "$normalized":
        if not isinstance(operand, str):
            out.append(f"{where}$normalized needs a string")
        normalizer = spec.get("normalizer", "bfcl")
        if normalizer not in NORMALIZERS:
            out.append(f"{where}unknown normalizer {normalizer!r}; valid: {', '.join(NORMALIZERS)}")
    elif key == "$match" and not (isinstance(operand, str) and _IMPORT_PATH.fullmatch(operand)):
        out.append(f"{where}$match needs an import path 'package.module:function', got {operand!r}")


def _walk(value: Any, path: str, out: list[str]) -> None:
    if isinstance(value, Mapping):
        key = _matcher_key(value)
        if key is not None:
            _check_one(key, value, path, out)
            return
        for k, v in value.items():
            _walk(v, f"{path}.{k}" if path else str(k), out)
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
        return _matcher_key(value) is not None or any(has_matchers(v) for v in value.values())
    return isinstance(value, (list, tuple)) and any(has_matchers(v) for v in value)


@lru_cache(maxsize=256)
def _resolve(path: str) -> Callable[..., Any]:
    module_name, _, attr = path.partition(":")
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"$match {path!r} cannot be imported: {exc}") from None
    if not callable(fn):
        raise ValueError(f"$match {path!r} is not callable")
    return fn  # type: ignore[no-any-return]


class Matcher:
    """One compiled matcher: ``test(value, numeric)`` says whether a value is acceptable."""

    __slots__ = ("key", "operand", "optional", "params", "spec", "test")

    def __init__(self, key: str, spec: Mapping[str, Any]) -> None:
        self.key, self.spec = key, spec
        self.params = {k: v for k, v in spec.items() if k != key}
        operand = spec[key]
        self.optional = key == "$optional"
        test: Callable[[Any, bool], bool]
        if key in ("$any", "$optional"):
            options = [compile_matchers(o) for o in (operand if key == "$any" else [operand])]
            self.optional = key == "$optional" or any(
                type(o) is Matcher and o.optional for o in options
            )
            test = lambda v, n: any(matches(v, o, n) for o in options)  # noqa: E731
        elif key == "$regex":
            pattern = re.compile(operand)
            test = lambda v, n: isinstance(v, str) and pattern.fullmatch(v) is not None  # noqa: E731
        elif key == "$approx":
            rel, abs_ = self.params.get("rel", 1e-9), self.params.get("abs", 0.0)
            test = partial(_close, want=operand, rel=rel, abs_=abs_)
        elif key == "$normalized":
            norm = NORMALIZERS[self.params.get("normalizer", "bfcl")]
            want = norm(operand)
            test = lambda v, n: isinstance(v, str) and norm(v) == want  # noqa: E731
        elif key == "$match":
            fn, params = _resolve(operand), self.params
            test = lambda v, n: bool(fn(v, **params))  # noqa: E731
        else:  # $literal
            test = lambda v, n: values_equal(v, operand, n)  # noqa: E731
        self.operand, self.test = operand, test

    def __repr__(self) -> str:
        return repr(dict(self.spec))


class _MatchDict(dict):  # type: ignore[type-arg]
    """An object holding matchers somewhere inside (plain dicts compare faster)."""


class _MatchList(list):  # type: ignore[type-arg]
    """A list holding matchers somewhere inside."""


# Types a compiled ground truth uses where matchers are: anything else is plain JSON.
COMPILED = frozenset((Matcher, _MatchDict, _MatchList))


def compile_matchers(value: Any) -> Any:
    """``value`` ready for :func:`matches`: itself when it holds no matcher; ValueError
    (one line, the first problem) on a bad matcher.

    >>> m = compile_matchers({"city": {"$normalized": "New York"}, "n": {"$optional": 1}})
    >>> matches({"city": "new-york"}, m), matches({"city": "NY", "n": 1}, m)
    (True, False)
    """
    if not has_matchers(value):
        return value
    problems = check_matchers(value)
    if problems:
        raise ValueError(problems[0])
    return _compile(value)


def _compile(value: Any) -> Any:
    if isinstance(value, Mapping):
        key = _matcher_key(value)
        if key is not None:
            return Matcher(key, value)
        return _MatchDict({k: _compile(v) for k, v in value.items()})
    if isinstance(value, list) and has_matchers(value):
        return _MatchList(_compile(v) for v in value)
    return value


def is_optional(expected: Any) -> bool:
    """True when an expected object member may be left out (``$optional``)."""
    return type(expected) is Matcher and expected.optional


def matches(value: Any, expected: Any, numeric: bool = False) -> bool:
    """Whether ``value`` is acceptable for a compiled ``expected``; plain values compare
    by ``values_equal`` (``numeric``: ``1 == 1.0``).

    >>> matches([1, "x"], compile_matchers([{"$any": [1, 2]}, {"$regex": "[a-z]"}]))
    True
    """
    kind = type(expected)
    if kind is Matcher:
        return bool(expected.test(value, numeric))
    if kind is _MatchDict:
        if not isinstance(value, Mapping):
            return False
        for key, want in expected.items():
            if key in value:
                if not matches(value[key], want, numeric):
                    return False
            elif not is_optional(want):
                return False
        return all(key in expected for key in value)
    if kind is _MatchList:
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(expected)
            and all(matches(v, e, numeric) for v, e in zip(value, expected, strict=True))
        )
    return values_equal(value, expected, numeric)

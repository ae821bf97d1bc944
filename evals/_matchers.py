"""Acceptable values in ground truth: ``{"$any": [...]}`` and the other matchers.

In expected arguments, a JSON object with exactly one key starting with ``$`` (plus
parameter keys without one) is a matcher; every other value means "exactly this".
:func:`check_matchers` lists what is wrong with a value (for line-level dataset
checks); :func:`compile_matchers` turns it into a tree :func:`matches` reads, once
per comparison. A value without matchers compiles to itself and compares through
``values_equal``; so do BFCL's common shapes, ``{"$any": [plain values]}`` and
``{"$optional": plain value or such an $any}``: :func:`matches` reads those in place,
which costs less than building a matcher for every argument of every ground truth.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from ._equal import values_equal
from ._matcher_rules import (
    MATCHERS,
    NORMALIZERS,
    SCALARS,
    bfcl_normalize,
    check_matchers,
    has_matchers,
    is_number,
    matcher_key,
    node_problems,
    read_in_place,
)

__all__ = [
    "COMPILED",
    "MATCHERS",
    "NORMALIZERS",
    "Matcher",
    "bfcl_normalize",
    "check_matchers",
    "compile_arguments",
    "compile_matchers",
    "has_matchers",
    "is_optional",
    "matches",
    "object_matches",
]


def _close(value: Any, numeric: bool, *, want: float, rel: float, abs_: float) -> bool:
    return is_number(value) and math.isclose(value, want, rel_tol=rel, abs_tol=abs_)


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


_NO_PARAMS: Mapping[str, Any] = {}


class Matcher:
    """One compiled matcher: ``accepts(value, numeric)`` says whether a value is acceptable.

    Built once per expected value and scored many times, so construction stays cheap:
    only what a test needs is prepared (a compiled pattern, a normalised string).
    """

    __slots__ = ("key", "operand", "optional", "options", "params", "prepared", "spec")

    def __init__(self, key: str, spec: Mapping[str, Any]) -> None:
        self.key, self.spec = key, spec
        self.params = _NO_PARAMS if len(spec) == 1 else {k: v for k, v in spec.items() if k != key}
        operand = self.operand = spec[key]
        self.optional = key == "$optional"
        self.options: list[Any] | None = None  # $any/$optional: compiled options; None: plain
        self.prepared: Any = None
        if key == "$any" or key == "$optional":
            raw = operand if key == "$any" else [operand]
            for option in raw:
                if type(option) not in SCALARS:
                    self.options = [_compile(o) for o in raw]
                    break
            else:  # BFCL's lists of plain values
                self.prepared = raw
            if self.options is not None:
                self.optional = self.optional or any(map(is_optional, self.options))
        elif key == "$regex":
            self.prepared = re.compile(operand)
        elif key == "$approx":
            self.prepared = (self.params.get("rel", 1e-9), self.params.get("abs", 0.0))
        elif key == "$normalized":
            norm = NORMALIZERS[self.params.get("normalizer", "bfcl")]
            self.prepared = (norm, norm(operand))
        elif key == "$match":
            self.prepared = _resolve(operand)

    def accepts(self, value: Any, numeric: bool) -> bool:
        key, prepared = self.key, self.prepared
        if key == "$any" or key == "$optional":
            if self.options is None:
                return any(values_equal(value, o, numeric) for o in prepared)
            return any(matches(value, o, numeric) for o in self.options)
        if key == "$regex":
            return isinstance(value, str) and prepared.fullmatch(value) is not None
        if key == "$approx":
            return _close(value, numeric, want=self.operand, rel=prepared[0], abs_=prepared[1])
        if key == "$normalized":
            return isinstance(value, str) and prepared[0](value) == prepared[1]
        if key == "$match":
            return bool(prepared(value, **self.params))
        return values_equal(value, self.operand, numeric)  # $literal

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
    try:
        return _compile(value)
    except _BadMatcher:  # rare: walk again for the problem's path and words
        raise ValueError(check_matchers(value)[0]) from None


class _BadMatcher(Exception):
    pass


def _compile(value: Any) -> Any:
    """One pass: checks each matcher as it builds it; plain parts come back as they are
    (the same object), so a container is rebuilt only when something inside changed."""
    kind = type(value)
    if kind in SCALARS:
        return value
    if kind is list:
        out = [v if type(v) in SCALARS else _compile(v) for v in value]
        changed = any(_holds_matcher(c, v) for c, v in zip(out, value, strict=True))
        return _MatchList(out) if changed else value
    if kind is not dict and not isinstance(value, Mapping):
        return value
    if kind is dict and len(value) == 1:  # the common matchers, well formed as they are
        if read_in_place(value):
            return value  # read in place by matches()
        if type(value.get("$any")) is list or "$optional" in value:
            return Matcher(next(iter(value)), value)
    key = matcher_key(value)
    if key is not None:
        if node_problems(key, value)[0]:
            raise _BadMatcher
        return Matcher(key, value)
    members = {k: v if type(v) in SCALARS else _compile(v) for k, v in value.items()}
    if any(_holds_matcher(members[k], v) for k, v in value.items()):
        return _MatchDict(members)
    return value


def _holds_matcher(compiled: Any, value: Any) -> bool:
    """Whether a member compiled to a matcher: a new object, or a plain $any/$optional
    kept as it is (its container must then be read by :func:`matches`, not compared)."""
    return compiled is not value or (
        type(value) is dict and len(value) == 1 and ("$any" in value or "$optional" in value)
    )


def compile_arguments(args: dict[Any, Any]) -> dict[Any, Any]:
    """An arguments object's members compiled: ``args`` itself when none changed (plain
    values and plain $any/$optional), else a new dict. Read it with :func:`object_matches`.

    >>> args = {"x": {"$any": [1, 2]}, "y": "a"}
    >>> compile_arguments(args) is args, object_matches({"x": 2, "y": "a"}, args, False)
    (True, True)
    """
    out = args
    for key, value in args.items():
        kind = type(value)
        if kind in SCALARS:
            continue
        if kind is dict and len(value) == 1 and read_in_place(value):
            continue
        try:
            compiled = _compile(value)
        except _BadMatcher:
            raise ValueError(check_matchers(args)[0]) from None
        if compiled is not value:
            if out is args:
                out = dict(args)
            out[key] = compiled
    return out


def is_optional(expected: Any) -> bool:
    """True when an expected object member may be left out (``$optional``)."""
    kind = type(expected)
    if kind is dict:  # compiled: a plain $optional read in place, or a plain value
        return len(expected) == 1 and "$optional" in expected
    return kind is Matcher and expected.optional


def object_matches(value: Any, expected: Mapping[Any, Any], numeric: bool) -> bool:
    """A compiled expected object: every member acceptable or optional, nothing else."""
    if type(value) is not dict and not isinstance(value, Mapping):
        return False
    present = 0
    for key, want in expected.items():
        got = value.get(key, _ABSENT)
        if got is _ABSENT:
            if not is_optional(want):
                return False
            continue
        present += 1
        kind = type(got)
        if type(want) is kind and (kind is str or kind is int):
            if got != want:  # the common plain leaf, inline
                return False
        elif type(want) is dict and len(want) == 1 and type(options := _options(want)) is list:
            for option in options:  # BFCL's acceptable values, inline
                if type(option) is kind and (kind is str or kind is int):
                    if option == got:
                        break
                elif values_equal(got, option, numeric):
                    break
            else:
                return False
        elif not matches(got, want, numeric):
            return False
    return present == len(value)  # no member that is not expected


_ABSENT = object()


def _options(want: dict[Any, Any]) -> Any:
    """The acceptable values of a one-key object read in place: a plain ``$any``, or one
    inside ``$optional`` (None otherwise: a plain value, or ``$optional`` around one)."""
    options = want.get("$any")
    if options is None and type(inner := want.get("$optional")) is dict and len(inner) == 1:
        return inner.get("$any")
    return options


def matches(value: Any, expected: Any, numeric: bool = False) -> bool:
    """Whether ``value`` is acceptable for a compiled ``expected``; plain values compare
    by ``values_equal`` (``numeric``: ``1 == 1.0``).

    >>> matches([1, "x"], compile_matchers([{"$any": [1, 2]}, {"$regex": "[a-z]"}]))
    True
    """
    kind = type(expected)
    if kind is dict and len(expected) == 1:  # a plain $any / $optional (see the module doc)
        options = _options(expected)
        if options is None and "$optional" in expected:
            return values_equal(value, expected["$optional"], numeric)
        if options is not None:
            for option in options:  # noqa: SIM110 (hot: a loop costs less than any())
                if values_equal(value, option, numeric):
                    return True
            return False
    if kind is Matcher:
        return expected.accepts(value, numeric)
    if kind is _MatchDict:
        return object_matches(value, expected, numeric)
    if kind is _MatchList:
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(expected)
            and all(matches(v, e, numeric) for v, e in zip(value, expected, strict=True))
        )
    return values_equal(value, expected, numeric)

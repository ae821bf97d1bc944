"""Acceptable values in ground truth: ``{"$any": [...]}`` and the other matchers, and the
JSON value identity every plain value compares by (:func:`values_equal`).

In expected arguments, a JSON object with a key starting with ``$`` (plus parameter keys
without one) is a matcher; every other value means "exactly this". An expected value is
compiled once into one immutable :class:`Matcher` tree (:func:`compile_matchers`), and
one function reads it (:func:`matches`). :func:`check_matchers` lists every problem of a
value with its path (for dataset checks); compiling applies the same rules, in the same
walk, and raises at the first problem.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

__all__ = [
    "MATCHERS",
    "NORMALIZERS",
    "Matcher",
    "bfcl_normalize",
    "check_matchers",
    "compile_matchers",
    "kind_of",
    "matcher_key",
    "matches",
    "values_equal",
]

# Exact types first; subclasses (and Mappings, tuples) fall through to isinstance.
_KINDS = {
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    type(None): "null",
    dict: "object",
    list: "array",
    tuple: "array",
}
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
    for types, name in (
        (bool, "bool"),
        (int, "int"),
        (float, "float"),
        (str, "str"),
        (Mapping, "object"),
        ((list, tuple), "array"),
    ):
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


class Matcher(NamedTuple):
    """An expected value compiled: what :func:`matches` reads.

    ``kind`` says how ``operand`` is read: ``exact`` (a value, compared by
    ``values_equal``), ``object`` (member matchers by key), ``array`` (item matchers),
    ``any`` (option matchers), ``one_of`` (scalar options, compared by ``values_equal``),
    ``regex`` (a compiled pattern), ``approx`` (number, rel, abs), ``normalized``
    (normaliser, normalised string) or ``match`` (function, parameters). ``$optional``
    compiles to its operand's matcher, marked ``optional``.
    """

    kind: str
    operand: Any
    source: Any
    """The value as written (shown in reasons)."""
    optional: bool = False
    """May be left out as an object member."""

    def __repr__(self) -> str:
        return repr(self.source)


def matcher_key(value: Any) -> str | None:
    """The ``$`` key of a matcher object, or None for a plain value."""
    kind = type(value)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):  # (lists: no ABC check)
        for key in value:
            if isinstance(key, str) and key[:1] == "$":
                return key
    return None


def _is_number(x: Any) -> bool:
    return kind_of(x) in ("int", "float")


def _node_problems(key: str, spec: Mapping[str, Any]) -> tuple[list[str], bool]:
    """What is wrong with one matcher object itself, and whether it is a known matcher
    (so that its operands are worth reading too)."""
    dollars = [k for k in spec if isinstance(k, str) and k[:1] == "$"] if len(spec) > 1 else []
    if len(dollars) > 1:
        return [f"more than one matcher key {dollars} (use $literal for a plain dict)"], False
    if key not in MATCHERS:
        return [f"unknown matcher {key!r}; valid: {', '.join(MATCHERS)}"], False
    out: list[str] = []
    allowed = MATCHERS[key]
    if len(spec) > 1 and allowed is not None and (extra := sorted(set(spec) - allowed - {key})):
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
        if not _is_number(operand):
            out.append("$approx needs a number")
        for name in ("abs", "rel"):
            if name in spec and not (_is_number(spec[name]) and spec[name] >= 0):
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


# Matcher(...) (any NamedTuple) runs a Python-level __new__ per node; this is the C one.
_new = tuple.__new__


class _BadMatcher(Exception):
    """Compiling met a problem (:func:`check_matchers` then names it, with its path)."""


_SCALARS = frozenset((str, int, float, bool, type(None)))


# Where a value is: the root's text, or (parent, step, member) — built as the walk goes
# down, and read as text only when a problem is reported.
Path = str | tuple[Any, Any, bool]


def _text(path: Path) -> str:
    """A path as text: ``a.b[0]``."""
    if isinstance(path, str):
        return path
    parent, step, member = path
    head = _text(parent)
    return (f"{head}.{step}" if head else str(step)) if member else f"{head}[{step}]"


def _compile(value: Any, path: Path, problems: list[str] | None, literal: bool = False) -> Matcher:
    """One walk: compiles ``value`` and checks each matcher as it reaches it, collecting
    the problems (``problems``: a list; ``path``: where ``value`` is) or raising
    :class:`_BadMatcher` at the first (None). A well-formed matcher's operands are
    compiled in turn."""
    kind = type(value)
    if kind in _SCALARS:
        return _new(Matcher, ("exact", value, value, False))
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        key = None if literal else matcher_key(value)
        if key is None:
            members = {k: _compile(v, (path, k, True), problems, literal) for k, v in value.items()}
            return _new(Matcher, ("object", MappingProxyType(members), value, False))
        operand = value[key]  # the common shapes below have nothing to check on the node
        if len(value) != 1 or not (key == "$optional" or (key == "$any" and type(operand) is list)):
            found, known = _node_problems(key, value)
            if found:
                if problems is None:
                    raise _BadMatcher
                where = _text(path)
                problems += [f"{where}: {p}" if where else p for p in found]
            if not known or (key == "$any" and not isinstance(operand, list)):
                return Matcher("exact", value, value)  # (only when checking: it raised otherwise)
        if key == "$any":
            for option in operand:
                if type(option) not in _SCALARS:
                    break
            else:  # BFCL's lists of acceptable values
                return _new(Matcher, ("one_of", tuple(operand), value, False))
            options = [
                _compile(o, (path, f"$any[{i}]", True), problems) for i, o in enumerate(operand)
            ]
            return _new(Matcher, ("any", tuple(options), value, any(o.optional for o in options)))
        if key == "$optional":  # the operand's matcher, which may be left out
            inner = _compile(operand, (path, "$optional", True), problems)
            return _new(Matcher, (inner.kind, inner.operand, value, True))
        if key == "$literal":
            return Matcher("exact", operand, value)
        if problems is not None:  # only checking: nothing more to read, nothing to import
            return Matcher("exact", value, value)
        params = {k: v for k, v in value.items() if k != key}
        if key == "$regex":
            return Matcher("regex", re.compile(operand), value)
        if key == "$approx":
            return Matcher(
                "approx", (operand, params.get("rel", 1e-9), params.get("abs", 0.0)), value
            )
        if key == "$normalized":
            norm = NORMALIZERS[params.get("normalizer", "bfcl")]
            return Matcher("normalized", (norm, norm(operand)), value)
        return Matcher("match", (_resolve(operand), MappingProxyType(params)), value)  # $match
    if kind is list or isinstance(value, tuple):
        items = [_compile(v, (path, i, False), problems, literal) for i, v in enumerate(value)]
        return _new(Matcher, ("array", tuple(items), value, False))
    return _new(Matcher, ("exact", value, value, False))


def compile_matchers(value: Any, *, literal: bool = False) -> Matcher:
    """``value`` compiled for :func:`matches`; ValueError (one line, the first problem) on
    a bad matcher. ``literal``: ``$`` keys are plain keys (JSON identity, no matchers).

    >>> m = compile_matchers({"city": {"$normalized": "New York"}, "n": {"$optional": 1}})
    >>> matches({"city": "new-york"}, m), matches({"city": "NY", "n": 1}, m)
    (True, False)
    """
    try:
        return _compile(value, "", None, literal)
    except _BadMatcher:
        raise ValueError(check_matchers(value)[0]) from None


def check_matchers(value: Any, where: str = "") -> list[str]:
    """Problems with the matchers in ``value`` (a JSON value), each ``path: problem``.

    >>> check_matchers({"city": {"$anyy": ["Paris"]}}, "arguments")
    ["arguments.city: unknown matcher '$anyy'; valid: $any, $optional, $regex, $approx, \
$normalized, $match, $literal"]
    >>> check_matchers({"n": {"$approx": "3"}, "s": {"$regex": "("}, "ok": [1, {"$any": [1]}]})
    ['n: $approx needs a number', "s: $regex '(' is not a valid pattern (missing ), \
unterminated subpattern at position 0)"]
    """
    problems: list[str] = []
    _compile(value, where, problems)
    return problems


def matches(value: Any, expected: Any, numeric: bool = False) -> bool:
    """Whether ``value`` is acceptable for ``expected`` (a :class:`Matcher`, or a value it
    compiles first); plain values compare by ``values_equal`` (``numeric``: ``1 == 1.0``).

    >>> matches([1, "x"], compile_matchers([{"$any": [1, 2]}, {"$regex": "[a-z]"}]))
    True
    >>> matches({"x": 1}, {"x": {"$optional": 2}}), matches({}, {"x": {"$optional": 2}})
    (False, True)
    """
    if type(expected) is not Matcher:
        expected = compile_matchers(expected)
    kind, operand, _source, _optional = expected
    if kind == "one_of":  # the commonest kind first (BFCL's lists of acceptable values)
        for option in operand:  # noqa: SIM110
            if values_equal(value, option, numeric):
                return True
        return False
    if kind == "exact":
        return values_equal(value, operand, numeric)
    if kind == "any":
        for option in operand:  # noqa: SIM110 (a loop: any() over a generator costs more)
            if matches(value, option, numeric):
                return True
        return False
    if kind == "object":
        if type(value) is not dict and not isinstance(value, Mapping):
            return False
        present = 0
        for key, member in operand.items():
            if key in value:
                if not matches(value[key], member, numeric):
                    return False
                present += 1
            elif not member.optional:
                return False
        return present == len(value)  # and no member that is not expected
    if kind == "array":
        if not isinstance(value, (list, tuple)) or len(value) != len(operand):
            return False
        for item, member in zip(value, operand, strict=True):  # (a loop: all() costs more)
            if not matches(item, member, numeric):
                return False
        return True
    if kind == "regex":
        return isinstance(value, str) and operand.fullmatch(value) is not None
    if kind == "approx":
        want, rel, abs_ = operand
        try:
            return _is_number(value) and math.isclose(value, want, rel_tol=rel, abs_tol=abs_)
        except OverflowError:  # an int too large for a float is close to no float
            return False
    if kind == "normalized":
        return isinstance(value, str) and operand[0](value) == operand[1]
    fn, params = operand  # match
    return bool(fn(value, **params))

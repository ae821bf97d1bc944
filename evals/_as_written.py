"""Expected arguments read as written, before anything is compiled (the common case).

Most ground truth holds only plain values and the matchers :mod:`agentloop.evals._matchers` reads
in place anyway: ``{"$any": [plain values]}`` and ``{"$optional": ...}`` around a plain
value or such an ``$any``. :func:`arguments_match` reads those as written and checks, as
it reads each expected member, that it is one of them; at the first member that is not,
it raises :class:`NotPlain`. A match reads every expected member, so when every expected
call pairs this way, compiling the expected side would have changed nothing and found
no bad matcher: ``tool_call_match`` compiles it only when some call does not pair.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._equal import values_equal
from ._matcher_rules import SCALARS, has_matchers
from ._matchers import compile_arguments, compile_matchers, matches, object_matches

__all__ = ["NotPlain", "arguments_match", "as_written_rule"]

_ABSENT = object()


class NotPlain(Exception):
    """An expected member holds a matcher that has to be compiled (or a malformed one)."""


def arguments_match(value: Any, expected: dict[Any, Any], numeric: bool) -> bool:
    """``object_matches(value, compile_arguments(expected), numeric)``, reading plain
    ``expected`` members as written; :class:`NotPlain` at the first other member read.

    >>> arguments_match({"x": 2, "y": "a"}, {"x": {"$any": [1, 2]}, "y": "a"}, False)
    True
    >>> arguments_match({"x": 2}, {"x": {"$optional": 2}, "z": {"$optional": 1}}, False)
    True
    >>> arguments_match({"x": "a"}, {"x": {"$regex": "a"}}, False)
    Traceback (most recent call last):
    ...
    agentloop.evals._as_written.NotPlain
    """
    if type(value) is not dict and not isinstance(value, Mapping):
        return False
    present = 0
    for key, want in expected.items():
        got = value.get(key, _ABSENT)
        kind = type(want)
        if kind is dict and len(want) == 1:
            options = want.get("$any")
            optional = False
            if options is None and "$optional" in want:
                options, optional = _optional_options(want["$optional"]), True
            if options is not None:
                if type(options) is not list:
                    raise NotPlain
                if got is _ABSENT and not optional:
                    return False
                found = got is _ABSENT  # an $optional left out
                present += not found
                got_kind = type(got)
                for option in options:  # every option is checked to be plain, not only
                    option_kind = type(option)  # those before the one that fits
                    if option_kind not in SCALARS and has_matchers(option):
                        raise NotPlain
                    if found:
                        continue
                    if option_kind is got_kind and (got_kind is str or got_kind is int):
                        found = option == got
                    else:
                        found = values_equal(got, option, numeric)
                if not found:
                    return False
                continue
        if kind not in SCALARS and has_matchers(want):
            raise NotPlain
        if got is _ABSENT:
            return False
        present += 1
        if type(got) is kind and (kind is str or kind is int):
            if got != want:
                return False
        elif not values_equal(got, want, numeric):
            return False
    return present == len(value)


def _optional_options(inner: Any) -> list[Any]:
    """The acceptable values of a plain ``$optional`` (see ``read_in_place``)."""
    kind = type(inner)
    if kind in SCALARS or kind is list:  # a list is checked to be plain as an option
        return [inner]
    if kind is dict and len(inner) == 1 and type(options := inner.get("$any")) is list:
        return options
    raise NotPlain


def as_written_rule(numeric: bool) -> Callable[[Any, Any], bool]:
    """The ``exact`` argument rule on expected arguments as written: an expected side
    that is not plain is compiled for that comparison (and raises if malformed)."""

    def rule(generated: Any, expected: Any) -> bool:
        if type(expected) is dict:
            try:
                return arguments_match(generated, expected, numeric)
            except NotPlain:
                return object_matches(generated, compile_arguments(expected), numeric)
        return matches(generated, compile_matchers(expected), numeric)

    return rule

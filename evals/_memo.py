"""What a reward derives from its ground truth or schemas, remembered per object.

A row's ground truth is scored again for every epoch and every reward, and a benchmark
scores the same rows many times: preparing it (compiling matchers, indexing schemas) is
most of a reward's work. The cache is keyed by the object's identity and keeps the
object (so its id cannot be reused) with a copy taken when it was prepared; a hit
also needs the object to still ``==`` that copy, so a ground truth changed in place is
prepared again rather than answered from stale work. ``==`` is Python's: a number
changed in place to an equal number of another type (``1`` to ``1.0``) is the one
change it does not see. The copy is a ``marshal`` round trip (C speed, JSON types
only); a value marshal cannot copy is not remembered.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Memo"]

T = TypeVar("T")

_LIMIT = 4096  # entries per memo; a full memo starts over (rows stream past once)


class Memo:
    """``memo(obj, build)``: ``build(obj)``, reused while ``obj`` is unchanged.

    Only plain dicts and lists are remembered; anything else is built every time.

    >>> memo = Memo()
    >>> truth = {"tool_calls": [{"name": "f", "arguments": {"x": 1}}]}
    >>> first = memo(truth, lambda t: [t["tool_calls"][0]["arguments"]["x"]])
    >>> memo(truth, lambda t: None) is first
    True
    >>> truth["tool_calls"][0]["arguments"]["x"] = 2
    >>> memo(truth, lambda t: [t["tool_calls"][0]["arguments"]["x"]])
    [2]
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[int, tuple[Any, Any, Any]] = {}

    def __call__(self, obj: Any, build: Callable[[Any], T]) -> T:
        kind = type(obj)
        if kind is not dict and kind is not list:
            return build(obj)
        entry = self._entries.get(id(obj))
        if entry is not None and entry[0] is obj and obj == entry[1]:
            return entry[2]  # type: ignore[no-any-return]
        built = build(obj)
        try:
            snapshot = marshal.loads(marshal.dumps(obj))
        except ValueError:  # not plain JSON data (an object inside): built every time
            return built
        if len(self._entries) >= _LIMIT:
            self._entries.clear()
        self._entries[id(obj)] = (obj, snapshot, built)
        return built

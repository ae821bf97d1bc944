"""Result fields built on first read.

A tool-call match decides its score from the pairing alone; the per-call diagnostics
cost as much again, and most readers (a run's summary, a benchmark) read only the
score. Such a field stores a :class:`Deferred` until someone reads it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

__all__ = ["BuiltOnRead", "Deferred"]


class Deferred(partial):  # type: ignore[type-arg]
    """A field value not built yet: a function and its arguments; calling it builds it.
    A ``functools.partial``: made and called in C."""

    __slots__ = ()


class BuiltOnRead:
    """The class attribute of a pydantic field whose stored value may be
    :class:`Deferred`: the first read builds the value and stores it in its place.

    As a data descriptor it is consulted before the instance ``__dict__``, where
    pydantic keeps field values; serialisation and the dunder methods that read
    ``__dict__`` directly have to build the value first (see ``RewardResult``).

    >>> class Box:
    ...     value = BuiltOnRead("value")
    >>> box = Box()
    >>> box.__dict__["value"] = Deferred(lambda: print("built") or 42)
    >>> box.value
    built
    42
    >>> box.value, box.__dict__["value"]
    (42, 42)
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:  # pydantic reads a class attribute as the field's default: none
            raise AttributeError(self.name)
        stored = obj.__dict__
        try:
            value = stored[self.name]
        except KeyError:  # model_construct without the field
            raise AttributeError(self.name) from None
        if type(value) is Deferred:
            value = stored[self.name] = value()
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = value

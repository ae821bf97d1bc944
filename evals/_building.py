"""Building results cheaply: instances without validating again (:func:`trusted`), and
field values built on first read (:class:`Deferred`, :class:`BuiltOnRead`).

A tool-call match decides its score from the pairing alone; the per-call diagnostics
cost as much again, and most readers (a run's summary, a benchmark) read only the
score. Such a field stores a :class:`Deferred` until someone reads it.
"""

from __future__ import annotations

from functools import partial
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["BuiltOnRead", "Deferred", "trusted"]

ModelT = TypeVar("ModelT", bound=BaseModel)
_new = object.__new__
# The instance slots' own setters: object.__setattr__ would look each one up first.
_SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
_set_dict, _set_fields, _set_extra, _set_private = (BaseModel.__dict__[s].__set__ for s in _SLOTS)


def trusted(cls: type[ModelT], fields: dict[str, Any]) -> ModelT:
    """An instance from values our own code produced, without validating them again.

    Rewards assemble their results from already-typed values, so validation would
    only repeat work; it was a third of ``exact_tool_match_reward``'s time.
    pydantic's ``model_construct`` is meant for this but, being Python, is slower
    than validation itself; this sets the same instance state directly. Every field
    must be given (nested models as instances). The tests check that each result
    type survives ``model_validate(model_dump())`` unchanged.

    >>> class Point(BaseModel):
    ...     x: int
    >>> trusted(Point, {"x": 1}) == Point(x=1)
    True
    """
    obj = _new(cls)
    _set_dict(obj, fields)
    _set_fields(obj, set(fields))
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


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

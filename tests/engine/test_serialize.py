"""Tool results become deterministic strings."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from decimal import Decimal

import pytest
from pydantic import BaseModel

from agentloop.engine._serialize import to_jsonable, tool_output_to_text, truncate


class Point(BaseModel):
    x: int
    when: dt.date


@dataclasses.dataclass
class Box:
    size: float
    tags: frozenset[str]


class Colour(enum.Enum):
    RED = "red"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain", "plain"),
        (3, "3"),
        (2.5, "2.5"),
        (True, "true"),
        (None, "null"),
        ({"b": 1, "a": [1, 2]}, '{"b": 1, "a": [1, 2]}'),
        ((1, "x"), '[1, "x"]'),
        (Point(x=1, when=dt.date(2024, 5, 1)), '{"x": 1, "when": "2024-05-01"}'),
        (Box(size=1.5, tags=frozenset({"b", "a"})), '{"size": 1.5, "tags": ["a", "b"]}'),
        (dt.datetime(2024, 1, 2, 3, 4, 5), '"2024-01-02T03:04:05"'),
        (b"bytes", "bytes"),
        (b"\xff\x00", "base64:/wA="),
        ({3, 1, 2}, "[1, 2, 3]"),
        ({"z", 1}, '["z", 1]'),
        (Colour.RED, '"red"'),
        (Decimal("1.10"), '"1.10"'),
        ({"ü": "é"}, '{"ü": "é"}'),
    ],
)
def test_serialization(value: object, expected: str) -> None:
    assert tool_output_to_text(value) == expected


def test_sets_serialize_the_same_whatever_their_insertion_order() -> None:
    a = {f"item{i}" for i in range(50)}
    b = set(reversed(sorted(a)))
    assert tool_output_to_text(a) == tool_output_to_text(b)


def test_unknown_objects_fall_back_to_str() -> None:
    class Thing:
        def __str__(self) -> str:
            return "a thing"

    assert to_jsonable(Thing()) == "a thing"


def test_truncation_marks_what_was_dropped() -> None:
    assert truncate("abcdef", 10) == "abcdef"
    assert truncate("abcdef", None) == "abcdef"
    assert truncate("abcdef", 3) == "abc\n[truncated: showing 3 of 6 characters]"
    assert tool_output_to_text("x" * 50, 10).startswith("x" * 10 + "\n[truncated")

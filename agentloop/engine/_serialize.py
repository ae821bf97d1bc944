"""Turn whatever a tool returns into the string that goes on the wire."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import json
from typing import Any

from pydantic import BaseModel

__all__ = ["DEFAULT_MAX_TOOL_OUTPUT_CHARS", "to_jsonable", "tool_output_to_text", "truncate"]

DEFAULT_MAX_TOOL_OUTPUT_CHARS = 20_000


def to_jsonable(value: Any) -> Any:
    """A JSON-compatible equivalent of ``value``, the same on every run.

    Sets become sorted lists (sorted by their JSON text, so mixed types sort too),
    bytes become text when they are UTF-8 and ``base64:...`` otherwise.
    """
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [to_jsonable(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))
    if isinstance(value, BaseModel):
        return to_jsonable(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_jsonable(dataclasses.asdict(value))
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return "base64:" + base64.b64encode(raw).decode("ascii")
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    return str(value)  # Decimal, UUID, paths and anything else: their text


def tool_output_to_text(value: Any, max_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS) -> str:
    """The wire text of a tool's result: strings as they are, everything else as JSON."""
    if isinstance(value, str):
        text = value
    elif type(value) is int:
        text = str(value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        text = to_jsonable(value)
    else:
        text = json.dumps(to_jsonable(value), ensure_ascii=False)
    return truncate(text, max_chars)


def truncate(text: str, max_chars: int | None) -> str:
    """Cut ``text`` to ``max_chars`` characters, saying how much was dropped."""
    if max_chars is None or len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}\n[truncated: showing {max_chars} of {len(text)} characters]"

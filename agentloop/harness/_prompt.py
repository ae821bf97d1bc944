"""The prompt a sample sends: a row's messages up to its recorded generation, as LangChain
can read them, with the config's ``system_prompt`` first.

A row's trailing assistant and tool messages are its recorded generation: generate mode
strips them (``prompt_messages``), score mode reads them as the model's replies
(``agentloop.harness._scoring``). Either way ``content: null`` becomes ``""`` and a call
without an id gets one (``wire_messages``).

The ``system_prompt`` is text, inline or ``@path`` of a file (whose digest a resume checks).
It goes to rows whose messages have no ``system`` or ``developer`` message: a row that
brings its own instructions keeps them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from agentloop._tool_calls import call_fields, decode_arguments, field
from agentloop.errors import ConfigError

__all__ = [
    "load_system_prompt",
    "prompt_inputs",
    "prompt_messages",
    "recorded_generation_start",
    "wire_messages",
    "with_system_prompt",
]

_INSTRUCTION_ROLES = frozenset({"system", "developer"})


def recorded_generation_start(messages: list[dict[str, Any]]) -> int:
    """Index where the recorded generation (trailing assistant/tool messages) begins."""
    start = len(messages)
    while start > 0 and messages[start - 1].get("role") in ("assistant", "tool"):
        start -= 1
    return start


def prompt_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages to send in generate mode (recorded generation stripped).

    ``content: null`` becomes ``""``: some OpenAI-compatible servers reject null.
    """
    return wire_messages(messages[: recorded_generation_start(messages)])


def wire_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Row messages as LangChain can read them: ``content: null`` becomes ``""``, and each
    tool call, read by the one reader of a call (any accepted shape; ``id`` and
    ``arguments`` are optional in a row), an OpenAI call with JSON arguments and an id
    (``call_<message>_<call>`` when it has none). Arguments that are not usable stay as
    written, for the reader of the reply to mark."""
    out = []
    for index, message in enumerate(messages):
        if message.get("content") is None:
            message = {**message, "content": ""}
        calls = message.get("tool_calls")
        if calls:
            message = {
                **message,
                "tool_calls": [_wire_call(c, index, i) for i, c in enumerate(calls)],
            }
        out.append(message)
    return out


def _wire_call(call: dict[str, Any], message: int, index: int) -> dict[str, Any]:
    name, raw = call_fields(call) or (None, None)
    args, problem = decode_arguments(raw)
    function = call.get("function") if isinstance(call.get("function"), dict) else None
    return {
        **(call if function is not None else {}),
        "type": "function",
        "id": field(call, "id") or f"call_{message}_{index}",
        "function": {
            **(function or {}),
            "name": name,
            "arguments": raw if problem is not None else json.dumps(args, ensure_ascii=False),
        },
    }


def _prompt_file(value: str) -> Path | None:
    return Path(value[1:]) if value.startswith("@") else None


def load_system_prompt(value: str | None, field: str = "system_prompt") -> str | None:
    """The prompt's text; ``ConfigError`` (one line, naming ``field``) for a missing,
    unreadable or empty one."""
    if value is None:
        return None
    path = _prompt_file(value)
    if path is None:
        text = value
    elif not path.is_file():
        raise ConfigError(f"{field}: file not found: {path}")
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{field}: cannot read {path}: {exc}") from None
    if not text.strip():
        where = f"the file {path}" if path is not None else "the text"
        raise ConfigError(f"{field}: {where} is empty")
    return text


def prompt_inputs(value: str | None, name: str = "system prompt") -> dict[str, dict[str, Any]]:
    """The prompt file as a run input (``run.json``'s ``inputs``), so a resume notices an
    edit; an inline prompt is part of the config and compared with it."""
    path = _prompt_file(value) if value is not None else None
    if path is None:
        return {}
    try:
        digest: str | None = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = None
    return {f"{name} {value}": {"file": str(path.resolve()), "sha256": digest}}


def with_system_prompt(messages: list[dict[str, Any]], prompt: str | None) -> list[dict[str, Any]]:
    """``messages`` with the prompt first, unless they carry a system or developer message."""
    if prompt is None or any(m.get("role") in _INSTRUCTION_ROLES for m in messages):
        return messages
    return [{"role": "system", "content": prompt}, *messages]

"""The config's ``system_prompt``: its text (inline, or ``@path`` of a file), the rows
it is added to, and the file's digest that a resume checks.

The prompt goes to rows whose messages have no ``system`` or ``developer`` message:
a row that brings its own instructions keeps them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from agentloop.errors import ConfigError

__all__ = ["load_system_prompt", "prompt_inputs", "with_system_prompt"]

_INSTRUCTION_ROLES = frozenset({"system", "developer"})


def _prompt_file(value: str) -> Path | None:
    return Path(value[1:]) if value.startswith("@") else None


def load_system_prompt(value: str | None) -> str | None:
    """The prompt's text; ``ConfigError`` (one line) for a missing, unreadable or empty one."""
    if value is None:
        return None
    path = _prompt_file(value)
    if path is None:
        text = value
    elif not path.is_file():
        raise ConfigError(f"system_prompt: file not found: {path}")
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"system_prompt: cannot read {path}: {exc}") from None
    if not text.strip():
        where = f"the file {path}" if path is not None else "the text"
        raise ConfigError(f"system_prompt: {where} is empty")
    return text


def prompt_inputs(value: str | None) -> dict[str, dict[str, Any]]:
    """The prompt file as a run input (``run.json``'s ``inputs``), so a resume notices an
    edit; an inline prompt is part of the config and compared with it."""
    path = _prompt_file(value) if value is not None else None
    if path is None:
        return {}
    try:
        digest: str | None = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = None
    return {f"system prompt {value}": {"file": str(path.resolve()), "sha256": digest}}


def with_system_prompt(messages: list[dict[str, Any]], prompt: str | None) -> list[dict[str, Any]]:
    """``messages`` with the prompt first, unless they carry a system or developer message."""
    if prompt is None or any(m.get("role") in _INSTRUCTION_ROLES for m in messages):
        return messages
    return [{"role": "system", "content": prompt}, *messages]

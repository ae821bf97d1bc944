"""``@file`` prompts: a config's ``system_prompt`` (or ``user.instructions``) is text, inline
or ``@path`` of a file, read once before the first sample; the file's digest is a run
input, so a resume notices an edit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from agentloop.errors import ConfigError

__all__ = ["load_system_prompt", "prompt_inputs"]


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

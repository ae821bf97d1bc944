"""Every exception agentloop raises on purpose.

    AgentloopError
    ├── ToolLoadError          a tool import path that does not resolve
    ├── ScriptExhaustedError   a scripted test model asked for more replies than it has
    ├── ModelSpecError         an unknown or malformed model spec string
    ├── ReplayMismatchError    a replayed request that has no matching recording
    ├── JudgeError             a reward's judge model that did not answer (after retries)
    ├── ConfigError            an evaluation config that does not validate
    └── DatasetError           a dataset file with bad lines

Errors that come from a user's input carry a one-line message naming the
file, line or field, so the CLI can print them without a traceback.
"""

from __future__ import annotations

__all__ = [
    "AgentloopError",
    "ConfigError",
    "DatasetError",
    "JudgeError",
    "ModelSpecError",
    "ReplayMismatchError",
    "ScriptExhaustedError",
    "ToolLoadError",
]


class AgentloopError(Exception):
    """Base class of every error agentloop raises deliberately."""


class ToolLoadError(AgentloopError):
    """A tool import path (``pkg.mod:name`` or ``./file.py:name``) did not resolve."""


class ScriptExhaustedError(AgentloopError):
    """A scripted chat model was called more times than it has replies."""


class ModelSpecError(AgentloopError):
    """A model spec string has an unknown prefix or a malformed value."""


class ReplayMismatchError(AgentloopError):
    """A replayed run received a request that its recording does not contain."""


class JudgeError(AgentloopError):
    """A reward's judge model could not be opened or did not answer, after its retries:
    that reward of that sample errors, with this message."""


class ConfigError(AgentloopError):
    """An evaluation config failed validation."""


class DatasetError(AgentloopError):
    """A dataset has invalid lines; the message lists them with file and line."""

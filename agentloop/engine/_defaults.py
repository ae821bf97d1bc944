"""The engine's defaults that a config reads: how long a tool call may run, and the
signals that end a conversation with a simulated user.

They live apart from the modules that apply them (``_dispatch``, ``_conversation``), which
import LangChain: reading a config, to run it or to report what is wrong with it, does not.
"""

from __future__ import annotations

__all__ = ["AGENT_STOP_SIGNALS", "DEFAULT_TOOL_TIMEOUT", "USER_STOP_SIGNALS"]

DEFAULT_TOOL_TIMEOUT = 60.0
"""Seconds a tool call may run (a hung tool never hangs a run); None turns it off."""

USER_STOP_SIGNALS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")
"""τ²-bench's user stop signals: goal reached, transferred to a human, out of scope."""
AGENT_STOP_SIGNALS = ("###STOP###",)
"""τ²-bench's agent stop signal."""

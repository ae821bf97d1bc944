"""The ``agentloop`` command: commands (``_commands``), the command line (``_parser``),
terminal display (``_display``), progress (``_progress``) and the demo (``_demo``)."""

from __future__ import annotations

from agentloop.cli._commands import main

__all__ = ["main"]

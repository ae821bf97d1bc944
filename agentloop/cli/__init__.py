"""The ``agentloop`` command: commands (``_commands``), the command line (``_parser``),
terminal display (``_display``), progress (``_progress``), the demo (``_demo``), the HTML
report (``_view``: its data ``_view_data``, its Jinja2 template under ``templates/``) and one
sample in the terminal (``_show``)."""

from __future__ import annotations

from agentloop.cli._commands import main

__all__ = ["main"]

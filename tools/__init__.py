"""Ready tools: small, deterministic and safe, one module each.

- :data:`calculator` — safe arithmetic by AST walk (sync ``@tool``).
- :data:`get_weather` — fixed weather table of ~20 cities (async ``@tool``).
- :data:`search` — FTS5 search over a bundled corpus of ~50 passages (sync ``@tool``).
- :class:`NotebookTool` — stateful keyed notes (class-based ``BaseTool``).

``ALL_TOOLS`` holds the stateless tools, which are safe to share; use
:func:`default_tools` to get them plus a fresh ``NotebookTool``, whose notes
must not leak between runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentloop.tools.calculator import calculator
from agentloop.tools.notebook import NotebookTool
from agentloop.tools.search import search
from agentloop.tools.weather import get_weather
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

__all__ = [
    "ALL_TOOLS",
    "NotebookTool",
    "calculator",
    "default_tools",
    "get_weather",
    "openai_tool_schemas",
    "search",
]

ALL_TOOLS: tuple[BaseTool, ...] = (calculator, get_weather, search)
"""The stateless ready tools; shared instances are safe."""


def default_tools() -> list[BaseTool]:
    """Every ready tool, with a fresh (empty) ``NotebookTool`` on each call."""
    return [*ALL_TOOLS, NotebookTool()]


def openai_tool_schemas(tools: Sequence[BaseTool] | None = None) -> list[dict[str, Any]]:
    """OpenAI function schemas (``{"type": "function", "function": {...}}``).

    Defaults to :func:`default_tools`; this is what a dataset row's ``tools``
    field holds and what ``bind_tools`` sends to the provider.
    """
    return [convert_to_openai_tool(t) for t in (default_tools() if tools is None else tools)]

"""Tests for the tools package surface: exports, default_tools and schemas."""

from __future__ import annotations

import agentloop.tools as tools
from agentloop.tools import ALL_TOOLS, NotebookTool, default_tools, openai_tool_schemas


def test_exports() -> None:
    for name in tools.__all__:
        assert hasattr(tools, name)
    assert [t.name for t in ALL_TOOLS] == ["calculator", "get_weather", "search"]


def test_default_tools_gives_fresh_notebook() -> None:
    first, second = default_tools(), default_tools()
    assert [t.name for t in first] == ["calculator", "get_weather", "search", "notebook"]
    assert isinstance(first[-1], NotebookTool)
    assert first[-1] is not second[-1]
    assert first[:3] == second[:3]  # stateless tools are shared


def test_tool_names_are_unique() -> None:
    names = [t.name for t in default_tools()]
    assert len(names) == len(set(names))


def test_openai_tool_schemas() -> None:
    schemas = openai_tool_schemas()
    assert [s["function"]["name"] for s in schemas] == [t.name for t in default_tools()]
    by_name = {s["function"]["name"]: s["function"] for s in schemas}
    assert all(s["type"] == "function" for s in schemas)
    assert by_name["get_weather"]["parameters"]["required"] == ["location"]
    assert by_name["calculator"]["parameters"]["required"] == ["expression"]
    assert by_name["search"]["parameters"]["required"] == ["query"]
    assert by_name["notebook"]["parameters"]["required"] == ["action"]
    assert all(s["description"] for s in by_name.values())


def test_openai_tool_schemas_subset() -> None:
    (schema,) = openai_tool_schemas([tools.calculator])
    assert schema["function"]["name"] == "calculator"

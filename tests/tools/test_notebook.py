"""Tests for agentloop.tools.notebook: actions, schema validation, state and async."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agentloop.tools.notebook import MAX_NOTES, NotebookInput, NotebookTool
from langchain_core.tools import ToolException
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ValidationError


def test_write_read_list_delete() -> None:
    notebook = NotebookTool()
    assert notebook.invoke({"action": "list"}) == "The notebook is empty."
    assert notebook.invoke({"action": "write", "key": "b", "text": "two"}) == (
        "Saved note 'b' (3 characters)."
    )
    notebook.invoke({"action": "write", "key": " a ", "text": "one"})
    assert notebook.invoke({"action": "list"}) == "2 note(s): a, b"
    assert notebook.invoke({"action": "read", "key": "a"}) == "one"
    notebook.invoke({"action": "write", "key": "a", "text": "uno"})  # replaces
    assert notebook.invoke({"action": "read", "key": "a"}) == "uno"
    assert notebook.invoke({"action": "delete", "key": "a"}) == "Deleted note 'a'."
    assert notebook.notes == {"b": "two"}


def test_empty_text_is_allowed_when_explicit() -> None:
    notebook = NotebookTool()
    notebook.invoke({"action": "write", "key": "blank", "text": ""})
    assert notebook.invoke({"action": "read", "key": "blank"}) == ""


def test_missing_note_lists_existing() -> None:
    notebook = NotebookTool()
    with pytest.raises(ToolException, match="no note named 'x'; existing notes: none"):
        notebook.invoke({"action": "read", "key": "x"})
    notebook.invoke({"action": "write", "key": "k", "text": "v"})
    with pytest.raises(ToolException, match="existing notes: k"):
        notebook.invoke({"action": "delete", "key": "x"})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"action": "write", "key": "k"}, "needs text"),
        ({"action": "write", "text": "t"}, "needs a non-empty key"),
        ({"action": "read"}, "needs a non-empty key"),
        ({"action": "delete", "key": "   "}, "needs a non-empty key"),
        ({"action": "shout", "key": "k"}, "action"),
        ({"action": "write", "key": "k" * 65, "text": "t"}, "at most 64"),
        ({"action": "write", "key": "k", "text": "t" * 2001}, "at most 2000"),
    ],
)
def test_schema_rejects_bad_arguments(args: dict[str, Any], message: str) -> None:
    notebook = NotebookTool()
    with pytest.raises(ValidationError, match=message):
        notebook.invoke(args)
    assert notebook.notes == {}


def test_full_notebook() -> None:
    notebook = NotebookTool()
    for i in range(MAX_NOTES):
        notebook.invoke({"action": "write", "key": f"n{i}", "text": "x"})
    notebook.invoke({"action": "write", "key": "n0", "text": "overwrite is fine"})
    with pytest.raises(ToolException, match="full"):
        notebook.invoke({"action": "write", "key": "one-more", "text": "x"})


def test_instances_do_not_share_state() -> None:
    first, second = NotebookTool(), NotebookTool()
    first.invoke({"action": "write", "key": "k", "text": "v"})
    assert second.notes == {}


def test_async_matches_sync() -> None:
    notebook = NotebookTool()

    async def main() -> list[str]:
        await asyncio.gather(
            *(
                notebook.ainvoke({"action": "write", "key": f"k{i}", "text": str(i)})
                for i in range(10)
            )
        )
        return [await notebook.ainvoke({"action": "read", "key": f"k{i}"}) for i in range(10)]

    assert asyncio.run(main()) == [str(i) for i in range(10)]
    assert notebook.invoke({"action": "read", "key": "k3"}) == "3"


def test_tool_call_round_trip() -> None:
    notebook = NotebookTool()
    call = {
        "name": "notebook",
        "args": {"action": "write", "key": "k", "text": "v"},
        "id": "call_9",
        "type": "tool_call",
    }
    message = asyncio.run(notebook.ainvoke(call))
    assert message.tool_call_id == "call_9"
    assert message.content == "Saved note 'k' (1 character)."


def test_explicit_schema() -> None:
    notebook = NotebookTool()
    assert notebook.args_schema is NotebookInput
    schema = convert_to_openai_tool(notebook)["function"]["parameters"]
    assert schema["required"] == ["action"]
    assert schema["properties"]["action"]["enum"] == ["write", "read", "list", "delete"]


def test_the_engine_reports_the_schemas_own_validation_as_invalid_arguments() -> None:
    from langchain_core.messages import AIMessage

    from agentloop import run_agent_sync
    from agentloop.testing import ScriptedChatModel

    write = AIMessage(
        content="",
        tool_calls=[{"name": "notebook", "args": {"action": "write", "key": "k"}, "id": "c1"}],
    )
    tool = NotebookTool()
    t = run_agent_sync(ScriptedChatModel([write, "done"]), [tool], "go")
    (call,) = t.tool_calls()
    assert call.status == "invalid_args" and call.error is not None
    assert "needs text" in call.error and tool.notes == {}

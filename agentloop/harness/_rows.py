"""One dataset row: what makes it valid, the ``Sample`` it becomes, its messages.

The row format is described in ``agentloop.harness._dataset``. A problem is reported
in words that name the field (``messages[2].tool_calls[0]: function.name is
missing``), every problem of a line at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from evals import check_matchers

__all__ = [
    "Mode",
    "Sample",
    "parse_line",
    "prompt_messages",
    "recorded_generation_start",
    "wire_messages",
]

Mode = Literal["generate", "score"]

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


@dataclass(frozen=True, slots=True)
class Sample:
    """One valid dataset row."""

    id: str
    line: int
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    ground_truth: dict[str, Any] | None = None
    answer: str | list[str] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools the row declares by schema."""
        return [t["function"]["name"] for t in self.tools]


def _check_tool_call(call: Any, where: str, problems: list[str]) -> None:
    if not isinstance(call, dict):
        problems.append(f"{where}: a tool call must be an object")
        return
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        problems.append(f"{where}: function.name is missing")
        return
    arguments = function.get("arguments", "{}")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            problems.append(f"{where}: function.arguments is not valid JSON")
            return
    if not isinstance(arguments, dict):
        problems.append(f"{where}: function.arguments must be a JSON object")


def _check_message(message: Any, where: str, problems: list[str]) -> None:
    if not isinstance(message, dict):
        problems.append(f"{where}: a message must be an object")
        return
    role = message.get("role")
    if role not in _ROLES:
        problems.append(f"{where}: role must be one of {', '.join(sorted(_ROLES))}, got {role!r}")
        return
    content = message.get("content")
    if content is not None and not isinstance(content, (str, list)):
        problems.append(f"{where}: content must be a string, a list of parts or null")
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        problems.append(f"{where}: a tool message needs a string tool_call_id")
    calls = message.get("tool_calls")
    if calls is not None:
        if role != "assistant" or not isinstance(calls, list):
            problems.append(f"{where}: tool_calls must be a list on an assistant message")
            return
        for i, call in enumerate(calls):
            _check_tool_call(call, f"{where}.tool_calls[{i}]", problems)


def _check_messages(row: dict[str, Any], mode: Mode, problems: list[str]) -> None:
    messages = row.get("messages")
    if messages is None:
        problems.append("missing 'messages'")
        return
    if not isinstance(messages, list) or not messages:
        problems.append("'messages' must be a non-empty list")
        return
    for i, message in enumerate(messages):
        _check_message(message, f"messages[{i}]", problems)
    if not problems and mode == "generate" and recorded_generation_start(messages) == 0:
        problems.append("messages: no user or system message to send (only a recorded reply)")


def _check_tools(tools: Any, problems: list[str]) -> None:
    if not isinstance(tools, list):
        problems.append("'tools' must be a list of function schemas")
        return
    seen: set[str] = set()
    for i, schema in enumerate(tools):
        function = schema.get("function") if isinstance(schema, dict) else None
        if not isinstance(schema, dict) or schema.get("type", "function") != "function":
            problems.append(f"tools[{i}]: expected {{'type': 'function', 'function': {{...}}}}")
        elif not isinstance(function, dict):
            problems.append(f"tools[{i}]: 'function' must be an object")
        elif not isinstance(function.get("name"), str) or not function["name"]:
            problems.append(f"tools[{i}]: the schema has no function name")
        elif function["name"] in seen:
            problems.append(f"tools[{i}]: duplicate tool name {function['name']!r}")
        elif not isinstance(function.get("parameters", {}), dict):
            problems.append(f"tools[{i}]: function.parameters must be an object")
        else:
            seen.add(function["name"])


def _check_expected_calls(calls: list[Any], problems: list[str]) -> None:
    """Acceptable-value matchers (``{"$any": [...]}``, ...) in expected arguments."""
    for i, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            function = call if isinstance(call, dict) else {}
        arguments = function.get("arguments")
        if isinstance(arguments, str) and "$" in arguments:
            try:
                arguments = json.loads(arguments)
            except ValueError:
                continue  # a raw string is compared as it is
        if isinstance(arguments, (dict, list)):
            problems += check_matchers(arguments, f"ground_truth.tool_calls[{i}].arguments")


def _check_fields(row: dict[str, Any], problems: list[str]) -> None:
    if "tools" in row and row["tools"] is not None:
        _check_tools(row["tools"], problems)
    truth = row.get("ground_truth")
    if truth is not None:
        if not isinstance(truth, dict):
            problems.append("'ground_truth' must be an object, e.g. {\"tool_calls\": [...]}")
        elif "tool_calls" in truth and not isinstance(truth["tool_calls"], list):
            problems.append("ground_truth.tool_calls must be a list")
        else:
            _check_expected_calls(truth.get("tool_calls") or [], problems)
    answer = row.get("answer")
    listed = isinstance(answer, list) and all(isinstance(a, str) for a in answer)
    if not (answer is None or isinstance(answer, str) or listed):
        problems.append("'answer' must be a string or a list of strings")
    if row.get("metadata") is not None and not isinstance(row["metadata"], dict):
        problems.append("'metadata' must be an object")
    sample_id = row.get("id")
    if sample_id is not None and (
        isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)) or sample_id == ""
    ):
        problems.append("'id' must be a non-empty string or an integer")


def parse_line(text: str, line: int, mode: Mode = "generate") -> Sample:
    """One line as a ``Sample``; raises ``ValueError`` saying everything wrong with it."""
    try:
        row = json.loads(text)
    except ValueError as exc:
        msg = getattr(exc, "msg", str(exc))
        raise ValueError(f"invalid JSON ({msg}, column {getattr(exc, 'colno', '?')})") from None
    if not isinstance(row, dict):
        raise ValueError(f"a line must be a JSON object, got {type(row).__name__}")
    problems: list[str] = []
    _check_messages(row, mode, problems)
    _check_fields(row, problems)
    if problems:
        raise ValueError("; ".join(problems))
    answer = row.get("answer")
    return Sample(
        id=str(row["id"]) if row.get("id") is not None else f"line-{line}",
        line=line,
        messages=row["messages"],
        tools=row.get("tools") or [],
        ground_truth=row.get("ground_truth"),
        answer=list(answer) if isinstance(answer, list) else answer,
        metadata=row.get("metadata") or {},
    )


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
    """Row messages as LangChain can read them: ``content: null`` becomes ``""``, and a
    tool call without an ``id`` or ``arguments`` (both optional in a row) gets a
    deterministic ``call_<message>_<call>`` id and ``"{}"``."""
    out = []
    for index, message in enumerate(messages):
        if message.get("content") is None:
            message = {**message, "content": ""}
        calls = message.get("tool_calls")
        if calls and any(not c.get("id") or "arguments" not in c["function"] for c in calls):
            message = {
                **message,
                "tool_calls": [_wire_call(c, index, i) for i, c in enumerate(calls)],
            }
        out.append(message)
    return out


def _wire_call(call: dict[str, Any], message: int, index: int) -> dict[str, Any]:
    function = call["function"]
    if "arguments" not in function:
        function = {**function, "arguments": "{}"}
    return {**call, "id": call.get("id") or f"call_{message}_{index}", "function": function}

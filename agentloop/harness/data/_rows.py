"""One dataset row: what makes it valid and the ``Sample`` it becomes (its messages as
they are sent: ``agentloop.harness.data._prompt``).

The row format is described in ``agentloop.harness.data._dataset``. A problem is reported
in words that name the field (``messages[2].tool_calls[0]: function.name is
missing``), every problem of a line at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from agentloop._tool_calls import read_call
from agentloop.evals import ExpectedCall, check_matchers, expected_calls
from agentloop.harness.data._prompt import recorded_generation_start

__all__ = ["ROW_FIELDS", "Mode", "Sample", "parse_line"]

Mode = Literal["generate", "score"]

ROW_FIELDS = (
    "id",
    "messages",
    "tools",
    "ground_truth",
    "answer",
    "metadata",
    "turns",
    "environment",
    "user_scenario",
    "depends_on",
)
"""The top-level fields agentloop reads from a row; any other is read by nothing."""

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
    turns: list[dict[str, Any]] = field(default_factory=list)
    """Turns 2..N: ``{"messages": [...], "tools": [name | schema, ...]}`` each."""
    environment: Any = None
    """The row's ``environment`` (initial state or config for the environment factory)."""
    user_scenario: Any = None
    """The row's ``user_scenario`` (any JSON): what a simulated user plays (config ``user:``).
    Such a row's ``messages`` are the opening of the conversation, kept as they are: they
    may be empty or end with the agent's message (then the user speaks first)."""
    expected_calls: tuple[ExpectedCall, ...] | None = None
    """The ground truth's calls compiled once, when the row is read, for every epoch's
    tool-call rewards (the reward input ``expected_calls``); None without a ground truth."""
    depends_on: tuple[str, ...] = ()
    """Ids of the rows that must have finished, in the same epoch and run directory,
    before this one starts (``agentloop.harness.run._dependencies``)."""
    unread: tuple[str, ...] = ()
    """The row's top-level fields that are not in ``ROW_FIELDS``: nothing reads them (not a
    reward, a tool factory nor a template: they see the row as ``ROW_FIELDS``)."""

    @property
    def conversation(self) -> bool:
        """The row is the opening of a conversation with a simulated user."""
        return self.user_scenario is not None

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools the row declares by schema."""
        return [t["function"]["name"] for t in self.tools]

    @property
    def later_tool_names(self) -> list[str]:
        """Names of the tools later turns add (by name or by schema), in turn order."""
        return [
            item if isinstance(item, str) else item["function"]["name"]
            for turn in self.turns
            for item in turn.get("tools") or []
        ]


def _check_tool_call(call: Any, where: str, problems: list[str]) -> None:
    """A call of the prompt history: read by the one reader (``agentloop._tool_calls``),
    and usable as sent (a name and object arguments)."""
    problem = read_call(call).problem
    if problem is not None:
        problems.append(f"{where}: {problem}")


def _check_message(
    message: Any, where: str, problems: list[str], model_output: bool = False
) -> None:
    """One message; ``model_output``: a recorded reply scored in ``mode: score``, whose
    calls are the model's as it made them (a malformed one is scored as such)."""
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
            if not model_output:
                _check_tool_call(call, f"{where}.tool_calls[{i}]", problems)
            elif not isinstance(call, dict):
                problems.append(f"{where}.tool_calls[{i}]: a tool call must be an object")


def _check_messages(row: dict[str, Any], mode: Mode, problems: list[str]) -> None:
    messages = row.get("messages")
    if messages is None:
        problems.append("missing 'messages'")
        return
    opening = row.get("user_scenario") is not None  # a conversation's opening, kept as is
    if not isinstance(messages, list) or not (messages or opening):
        problems.append("'messages' must be a non-empty list")
        return
    if opening and mode == "generate":
        for i, message in enumerate(messages):
            _check_message(message, f"messages[{i}]", problems)
        return
    readable = all(isinstance(m, dict) for m in messages)
    start = recorded_generation_start(messages) if mode == "score" and readable else len(messages)
    for i, message in enumerate(messages):
        _check_message(message, f"messages[{i}]", problems, model_output=i >= start)
    if not problems and mode == "generate" and recorded_generation_start(messages) == 0:
        problems.append("messages: no user or system message to send (only a recorded reply)")


def _check_tools(
    tools: Any, problems: list[str], where: str = "tools", names_allowed: bool = False
) -> None:
    if not isinstance(tools, list):
        problems.append(f"'{where}' must be a list of function schemas")
        return
    seen: set[str] = set()
    for i, schema in enumerate(tools):
        here = f"{where}[{i}]"
        if names_allowed and isinstance(schema, str):
            if not schema:
                problems.append(f"{here}: a tool name must not be empty")
            elif schema in seen:
                problems.append(f"{here}: duplicate tool name {schema!r}")
            seen.add(schema)
            continue
        function = schema.get("function") if isinstance(schema, dict) else None
        if not isinstance(schema, dict) or schema.get("type", "function") != "function":
            name = "a tool name or " if names_allowed else ""
            problems.append(f"{here}: expected {name}{{'type': 'function', 'function': {{...}}}}")
        elif not isinstance(function, dict):
            problems.append(f"{here}: 'function' must be an object")
        elif not isinstance(function.get("name"), str) or not function["name"]:
            problems.append(f"{here}: the schema has no function name")
        elif function["name"] in seen:
            problems.append(f"{here}: duplicate tool name {function['name']!r}")
        elif not isinstance(function.get("parameters", {}), dict):
            problems.append(f"{here}: function.parameters must be an object")
        else:
            seen.add(function["name"])


def _check_turns(turns: Any, mode: Mode, problems: list[str]) -> None:
    if not isinstance(turns, list):
        problems.append('\'turns\' must be a list of {"messages": [...], "tools": [...]}')
        return
    for i, turn in enumerate(turns):
        where = f"turns[{i}]"
        if not isinstance(turn, dict):
            problems.append(f"{where}: a turn must be an object")
            continue
        if unknown := sorted(set(turn) - {"messages", "tools"}):
            problems.append(f"{where}: unknown field(s) {unknown}; a turn has messages, tools")
        messages = turn.get("messages", [])
        if not isinstance(messages, list):
            problems.append(f"{where}.messages must be a list")
        else:
            # score mode: a turn's trailing assistant and tool messages are the model's replies
            readable = mode == "score" and all(isinstance(m, dict) for m in messages)
            start = recorded_generation_start(messages) if readable else len(messages)
            for j, message in enumerate(messages):
                here = f"{where}.messages[{j}]"
                _check_message(message, here, problems, model_output=j >= start)
        if turn.get("tools") is not None:
            _check_tools(turn["tools"], problems, f"{where}.tools", names_allowed=True)
        if not messages and not turn.get("tools"):
            problems.append(f"{where}: a turn needs messages or tools")


def _check_expected_calls(
    calls: list[Any], problems: list[str], where: str = "ground_truth.tool_calls"
) -> None:
    """Each expected call has a name, and its acceptable-value matchers (``{"$any": [...]}``,
    ...) are well formed. Arguments that are not a JSON object are compared as written."""
    for i, call in enumerate(calls):
        read = read_call(call)
        if read.name == "":
            problems.append(f"{where}[{i}]: {read.problem}")
        elif isinstance(read.args, (dict, list)):
            problems += check_matchers(read.args, f"{where}[{i}].arguments")


def _check_truth_turns(truth_turns: Any, row: dict[str, Any], problems: list[str]) -> None:
    turns = row.get("turns")
    count = len(turns) + 1 if isinstance(turns, list) else 1
    if not isinstance(truth_turns, list):
        problems.append('ground_truth.turns must be a list of {"tool_calls": [...]}')
        return
    if len(truth_turns) != count:
        problems.append(
            f"ground_truth.turns has {len(truth_turns)} entries; the row has "
            f"{count} turn(s) (messages, then each of turns)"
        )
    for k, entry in enumerate(truth_turns):
        calls = entry.get("tool_calls") if isinstance(entry, dict) else None
        if not isinstance(calls, list):
            problems.append(f'ground_truth.turns[{k}]: expected {{"tool_calls": [...]}}')
        else:
            _check_expected_calls(calls, problems, f"ground_truth.turns[{k}].tool_calls")


def _check_fields(row: dict[str, Any], mode: Mode, problems: list[str]) -> None:
    if "tools" in row and row["tools"] is not None:
        _check_tools(row["tools"], problems)
    if row.get("turns") is not None:
        _check_turns(row["turns"], mode, problems)
    truth = row.get("ground_truth")
    if truth is not None:
        if not isinstance(truth, dict):
            problems.append("'ground_truth' must be an object, e.g. {\"tool_calls\": [...]}")
        elif "tool_calls" in truth and not isinstance(truth["tool_calls"], list):
            problems.append("ground_truth.tool_calls must be a list")
        else:
            _check_expected_calls(truth.get("tool_calls") or [], problems)
            if "turns" in truth:
                _check_truth_turns(truth["turns"], row, problems)
    answer = row.get("answer")
    listed = isinstance(answer, list) and all(isinstance(a, str) for a in answer)
    if not (answer is None or isinstance(answer, str) or listed):
        problems.append("'answer' must be a string or a list of strings")
    if row.get("metadata") is not None and not isinstance(row["metadata"], dict):
        problems.append("'metadata' must be an object")
    depends = row.get("depends_on")
    if depends is not None and not (
        isinstance(depends, list) and all(isinstance(d, (str, int)) for d in depends)
    ):
        problems.append("'depends_on' must be a list of row ids")
    sample_id = row.get("id")
    if sample_id is not None and (
        isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)) or sample_id == ""
    ):
        problems.append("'id' must be a non-empty string or an integer")


class _NotJson(ValueError):
    pass


def _no_constant(name: str) -> Any:
    # Python's json reads NaN and Infinity (pandas writes them); JSON has neither.
    raise _NotJson(f"{name} is not JSON: write it as a string or null")


def parse_line(text: str, line: int, mode: Mode = "generate") -> Sample:
    """One line as a ``Sample``; raises ``ValueError`` saying everything wrong with it."""
    try:
        row = json.loads(text, parse_constant=_no_constant)
    except _NotJson as exc:
        raise ValueError(f"invalid JSON ({exc})") from None
    except ValueError as exc:
        msg = getattr(exc, "msg", str(exc))
        raise ValueError(f"invalid JSON ({msg}, column {getattr(exc, 'colno', '?')})") from None
    if not isinstance(row, dict):
        raise ValueError(f"a line must be a JSON object, got {type(row).__name__}")
    problems: list[str] = []
    _check_messages(row, mode, problems)
    _check_fields(row, mode, problems)
    if problems:
        raise ValueError("; ".join(problems))
    answer, truth = row.get("answer"), row.get("ground_truth")
    # A ground truth in turns holds no list of calls: a tool-call reward says why (and the
    # config check refuses the combination).
    in_turns = isinstance(truth, dict) and "turns" in truth and "tool_calls" not in truth
    try:  # compiled once here, for every epoch's rewards
        expected = None if truth is None or in_turns else expected_calls(truth)
    except ValueError as exc:  # checked above; only a $match import can still fail
        raise ValueError(f"ground_truth: {exc}") from None
    return Sample(
        id=str(row["id"]) if row.get("id") is not None else f"line-{line}",
        line=line,
        messages=row["messages"],
        tools=row.get("tools") or [],
        ground_truth=truth,
        answer=list(answer) if isinstance(answer, list) else answer,
        metadata=row.get("metadata") or {},
        turns=row.get("turns") or [],
        environment=row.get("environment"),
        user_scenario=row.get("user_scenario"),
        depends_on=tuple(str(d) for d in row.get("depends_on") or ()),
        expected_calls=expected,
        unread=tuple(k for k in row if k not in ROW_FIELDS),
    )

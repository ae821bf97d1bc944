"""Recorded runs, as replay reads them: per (sample, epoch) the requests and replies.

A results line (see ``agentloop.harness.rundir._files``) holds the trajectory and, since it is
written by the harness, a ``request`` signature (:func:`request_signature`) of what
the sample's requests carried besides messages. :class:`Recording` turns a line back
into the replies *as the provider sent them* (the engine rewrites some: replaced
call ids, calls recovered from text) and the OpenAI-format messages of each request.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from agentloop._records import RESULTS_FILE, latest_results
from agentloop.engine import (
    StepRecord,
    ToolCallRecord,
    Trajectory,
    format_content_tool_calls,
    message_to_openai,
    split_tools,
)
from agentloop.errors import ModelSpecError
from agentloop.models._responses import APIS

__all__ = [
    "Recording",
    "ReplayedModelError",
    "ReplayedTransientError",
    "load_recordings",
    "message_difference",
    "recorded_error",
    "request_signature",
    "short",
    "signature_difference",
    "tool_schemas",
]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _digest(value: Any) -> str:
    return hashlib.sha256(_canonical(value).encode()).hexdigest()[:16]


def short(value: Any, limit: int = 120) -> str:
    """Strings quoted, other values as JSON; cut to ``limit`` characters."""
    text = value if isinstance(value, str) else _canonical(value)
    text = text if len(text) <= limit else text[:limit] + "..."
    return repr(text) if isinstance(value, str) else text


def tool_schemas(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """OpenAI schemas of what ``run_agent`` binds (plain functions wrapped like it does)."""
    return [convert_to_openai_tool(t) for t in split_tools(tools)[1]]


def request_signature(
    tools: Sequence[Any],
    tool_choice: str | dict[str, Any] | None = None,
    parallel_tool_calls: bool = True,
    params: dict[str, Any] | None = None,
    api: str | None = None,
) -> dict[str, Any]:
    """What a sample's requests carry besides messages; stored per results line; with
    ``api`` when the config names the API (``model_options.api``, ``_responses``).

    The replay model computes the same from what it is bound with and compares.
    """
    schemas = tool_schemas(tools)
    signature = {
        "tools": [s.get("function", {}).get("name") for s in schemas],
        "tools_sha256": _digest(schemas),
        "tool_choice": tool_choice,
        "parallel_tool_calls": parallel_tool_calls,
        "params": json.loads(_canonical(params or {})),
    }
    return signature if api is None else {**signature, "api": api}


class ReplayedTransientError(Exception):
    """Stands for a recorded temporary error: retried at once (Retry-After: 0)."""

    status_code = 503
    response = SimpleNamespace(headers={"retry-after": "0"})


class ReplayedModelError(Exception):
    """Base of recorded model errors raised again; never retried (status 400)."""

    status_code = 400


def recorded_error(text: str) -> Exception:
    name, sep, message = text.partition(": ")
    if not sep or not name.isidentifier():
        return ReplayedModelError(text)
    return type(name, (ReplayedModelError,), {})(message)


def _as_provider_sent(reply: AIMessage, calls: list[ToolCallRecord]) -> AIMessage:
    """Undo the engine's rewrite of a reply: original ids, recovered calls back in text."""
    by_id = {c.id: c for c in calls}
    if calls and all(c.recovered for c in calls):
        text = format_content_tool_calls([(c.name, c.args or {}) for c in calls])
        update = {"content": text, "tool_calls": [], "invalid_tool_calls": []}
        return reply.model_copy(update=update)

    def original(call: Any) -> Any:
        record = by_id.get(call.get("id"))
        if record is not None and record.original_id is not None:
            return {**call, "id": record.original_id}
        return call

    return reply.model_copy(
        update={
            "tool_calls": [original(c) for c in reply.tool_calls],
            "invalid_tool_calls": [original(c) for c in reply.invalid_tool_calls],
        }
    )


@dataclass
class Recording:
    """One recorded (sample, epoch): the requests it made and the replies it got."""

    sample_id: str
    epoch: int
    trajectory: Trajectory
    request: dict[str, Any] | None = None
    prompts: list[list[dict[str, Any]]] = field(default_factory=list)
    """OpenAI-format messages of each model call."""
    replies: list[AIMessage] = field(default_factory=list)
    """The replies as the provider sent them (one fewer than prompts after an error)."""
    tool_results: dict[str, tuple[ToolMessage, ToolCallRecord]] = field(default_factory=dict)

    user_prompts: list[list[dict[str, Any]]] = field(default_factory=list)
    """A simulated user's side (``Trajectory.user_messages``): its model calls' messages."""
    user_replies: list[AIMessage] = field(default_factory=list)
    """The user model's replies as the provider sent them."""
    user_tool_results: dict[str, tuple[ToolMessage, ToolCallRecord]] = field(default_factory=dict)
    """The results of the user's own tool calls, by call id."""

    @classmethod
    def from_result(cls, line: dict[str, Any]) -> Recording:
        traj = Trajectory.model_validate(line["trajectory"])
        rec = cls(str(line["id"]), int(line["epoch"]), traj, line.get("request"))
        where = f"recording of sample {rec.sample_id!r} epoch {rec.epoch}"
        rec.prompts, rec.replies, rec.tool_results = _side(
            traj.messages, traj.steps, traj.stop_reason == "error", where
        )
        rec.user_prompts, rec.user_replies, rec.user_tool_results = _side(
            traj.user_messages,
            traj.user_steps,
            traj.stop_reason == "user_error",
            f"{where} (the user's side)",
        )
        return rec

    @property
    def retries(self) -> list[int]:
        return [step.retries for step in self.trajectory.steps]

    @property
    def user_retries(self) -> list[int]:
        return [step.retries for step in self.trajectory.user_steps]


def _side(
    messages: list[Any], steps: list[StepRecord], errored: bool, where: str
) -> tuple[
    list[list[dict[str, Any]]], list[AIMessage], dict[str, tuple[ToolMessage, ToolCallRecord]]
]:
    """One side's requests (OpenAI messages of each model call), the replies as the provider
    sent them, and its tool results by call id; ``errored``: its last call failed."""
    prompts: list[list[dict[str, Any]]] = []
    replies: list[AIMessage] = []
    answered = len(steps) - errored
    positions = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
    positions = positions[len(positions) - answered :] if answered > 0 else []
    if len(positions) != answered:
        raise ModelSpecError(
            f"{where} is inconsistent: {len(steps)} steps but {len(positions)} replies"
        )
    openai_messages = [message_to_openai(m) for m in messages]
    for step, pos in zip(steps, positions, strict=False):
        reply = messages[pos]
        assert isinstance(reply, AIMessage)
        prompts.append(openai_messages[:pos])
        replies.append(_as_provider_sent(reply, step.tool_calls))
    if errored:
        prompts.append(openai_messages)
    answers = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    results = {}
    for call in (c for step in steps for c in step.tool_calls):
        if call.id in answers:
            results[call.id] = (answers[call.id], call)
    return prompts, replies, results


def load_recordings(path: str | Path) -> dict[tuple[str, int], Recording]:
    """The recording of each (id, epoch): its latest result line (the rule of
    ``agentloop._records``), when that line has a trajectory."""
    file = Path(path)
    if file.is_dir():
        file = file / RESULTS_FILE
    if not file.is_file():
        raise ModelSpecError(
            f"replay: no recording at {path} (expected a run directory or a {RESULTS_FILE} file)"
        )
    recordings: dict[tuple[str, int], Recording] = {}
    for line in latest_results(file):
        if line.get("trajectory") is not None:
            rec = Recording.from_result(line)
            recordings[(rec.sample_id, rec.epoch)] = rec
    return recordings


def message_difference(
    recorded: list[dict[str, Any]], actual: list[dict[str, Any]], skip_tool_content: set[str]
) -> str | None:
    """Where two conversations first differ, or None when they are the same."""

    def comparable(m: dict[str, Any]) -> dict[str, Any]:
        if m.get("role") == "tool" and m.get("tool_call_id") in skip_tool_content:
            return {**m, "content": "(re-run tool output)"}
        return m

    for index, (want, got) in enumerate(zip(recorded, actual, strict=False)):
        want, got = comparable(want), comparable(got)
        if _canonical(want) == _canonical(got):
            continue
        fields = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
        first = fields[0]
        return (
            f"message {index} ({want.get('role')}) differs in {', '.join(fields)}: "
            f"recorded {short(want.get(first))}, requested {short(got.get(first))}"
        )
    if len(recorded) != len(actual):
        return f"the request has {len(actual)} messages, the recording {len(recorded)}"
    return None


def signature_difference(recorded: dict[str, Any], actual: dict[str, Any]) -> str | None:
    if recorded.get("tools") != actual.get("tools"):
        return f"bound tools differ: recorded {recorded.get('tools')}, now {actual.get('tools')}"
    if recorded.get("tools_sha256") != actual.get("tools_sha256"):
        return f"the schemas of the bound tools {actual.get('tools')} changed"
    for key in ("tool_choice", "parallel_tool_calls", "params"):
        if recorded.get(key) != actual.get(key):
            was, now = short(recorded.get(key)), short(actual.get(key))
            return f"{key} differs: recorded {was}, now {now}"
    was, now = (s.get("api") or APIS[0] for s in (recorded, actual))
    if was != now:
        return f"api differs: recorded {short(was)}, now {short(now)}"
    return None

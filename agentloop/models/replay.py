"""``replay:<run dir or results file>``: a recorded run, played back offline.

For each (sample, epoch) the replay model returns the recorded replies in order, and
before each one checks that the request is the recorded one: the conversation so far
(OpenAI format, so message ids and response metadata do not count), the bound tool
schemas, ``tool_choice`` and the sampling params (the last three when the results
line carries a ``request`` signature, see :func:`request_signature`). Any difference,
or a request past the end of the recording, raises ``ReplayMismatchError`` naming the
sample, the model call and what differs; the replay never improvises.

Recorded retries and model errors are replayed too (retries without waiting), so a
replayed run's results equal the original's apart from timings.

Tool results come from the recording (``replay_tools: recorded``, the default) through
:meth:`ReplaySource.dispatcher_for_sample`. With ``replay_tools: live`` the tools run
again; each output that differs from the recording is logged as a warning line and
listed by :meth:`ReplaySource.tool_differences`.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from agentloop.content_calls import format_content_tool_calls
from agentloop.dispatch import PendingCall, ToolDispatcher
from agentloop.errors import ModelSpecError, ReplayMismatchError
from agentloop.models.base import register_provider
from agentloop.results import RESULTS_FILE, iter_results
from agentloop.retry import RetryPolicy
from agentloop.serialize import DEFAULT_MAX_TOOL_OUTPUT_CHARS
from agentloop.trajectory import ToolCallRecord, Trajectory, message_to_openai

__all__ = [
    "Recording",
    "ReplayChatModel",
    "ReplayDispatcher",
    "ReplaySource",
    "load_recordings",
    "request_signature",
]

log = logging.getLogger("agentloop.replay")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _digest(value: Any) -> str:
    return hashlib.sha256(_canonical(value).encode()).hexdigest()[:16]


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else _canonical(value)
    return repr(text if len(text) <= limit else text[:limit] + "...")


def tool_schemas(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """OpenAI schemas of what ``run_agent`` binds (plain functions wrapped like it does)."""
    items = [t if isinstance(t, (BaseTool, dict)) else as_tool(t) for t in tools]
    return [convert_to_openai_tool(t) for t in items]


def request_signature(
    tools: Sequence[Any],
    tool_choice: str | dict[str, Any] | None = None,
    parallel_tool_calls: bool = True,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What a sample's requests carry besides messages; stored per results line.

    The replay model computes the same from what it is bound with and compares.
    """
    schemas = tool_schemas(tools)
    return {
        "tools": [s.get("function", {}).get("name") for s in schemas],
        "tools_sha256": _digest(schemas),
        "tool_choice": tool_choice,
        "parallel_tool_calls": parallel_tool_calls,
        "params": json.loads(_canonical(params or {})),
    }


class ReplayedTransientError(Exception):
    """Stands for a recorded temporary error: retried at once (Retry-After: 0)."""

    status_code = 503
    response = SimpleNamespace(headers={"retry-after": "0"})


class ReplayedModelError(Exception):
    """Base of recorded model errors raised again; never retried (status 400)."""

    status_code = 400


def _recorded_error(text: str) -> Exception:
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

    @classmethod
    def from_result(cls, line: dict[str, Any]) -> Recording:
        traj = Trajectory.model_validate(line["trajectory"])
        rec = cls(str(line["id"]), int(line["epoch"]), traj, line.get("request"))
        answered = len(traj.steps) - (traj.stop_reason == "error")
        positions = [i for i, m in enumerate(traj.messages) if isinstance(m, AIMessage)]
        positions = positions[len(positions) - answered :] if answered > 0 else []
        if len(positions) != answered:
            raise ModelSpecError(
                f"recording of sample {rec.sample_id!r} epoch {rec.epoch} is inconsistent: "
                f"{len(traj.steps)} steps but {len(positions)} replies"
            )
        openai_messages = [message_to_openai(m) for m in traj.messages]
        for step, pos in zip(traj.steps, positions, strict=False):
            reply = traj.messages[pos]
            assert isinstance(reply, AIMessage)
            rec.prompts.append(openai_messages[:pos])
            rec.replies.append(_as_provider_sent(reply, step.tool_calls))
        if traj.stop_reason == "error":
            rec.prompts.append(openai_messages)
        answers = {m.tool_call_id: m for m in traj.messages if isinstance(m, ToolMessage)}
        for call in traj.tool_calls():
            if call.id in answers:
                rec.tool_results[call.id] = (answers[call.id], call)
        return rec

    @property
    def retries(self) -> list[int]:
        return [step.retries for step in self.trajectory.steps]

    def where(self, call_index: int) -> str:
        return f"sample {self.sample_id!r} epoch {self.epoch}, model call {call_index + 1}"


def load_recordings(path: str | Path) -> dict[tuple[str, int], Recording]:
    """Every result line with a trajectory, by (id, epoch); the last line of a pair wins."""
    file = Path(path)
    if file.is_dir():
        file = file / RESULTS_FILE
    if not file.is_file():
        raise ModelSpecError(f"replay: no recording at {path} (expected a run directory "
                             f"or a {RESULTS_FILE} file)")  # fmt: skip
    recordings: dict[tuple[str, int], Recording] = {}
    for line in iter_results(file):
        if line.get("trajectory") is not None:
            rec = Recording.from_result(line)
            recordings[(rec.sample_id, rec.epoch)] = rec
    return recordings


def _message_difference(
    recorded: list[dict[str, Any]], actual: list[dict[str, Any]], skip_tool_content: set[str]
) -> str | None:
    """Where two conversations first differ, or None when they are the same."""

    def comparable(m: dict[str, Any]) -> dict[str, Any]:
        if m.get("role") == "tool" and m.get("tool_call_id") in skip_tool_content:
            return {**m, "content": "(re-run tool output)"}
        return m

    for index, (want, got) in enumerate(zip(recorded, actual, strict=False)):
        want, got = comparable(want), comparable(got)
        if _digest(want) == _digest(got):
            continue
        fields = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
        first = fields[0]
        return (
            f"message {index} ({want.get('role')}) differs in {', '.join(fields)}: "
            f"recorded {_short(want.get(first))}, requested {_short(got.get(first))}"
        )
    if len(recorded) != len(actual):
        return f"the request has {len(actual)} messages, the recording {len(recorded)}"
    return None


def _signature_difference(recorded: dict[str, Any], actual: dict[str, Any]) -> str | None:
    if recorded.get("tools") != actual.get("tools"):
        return f"bound tools differ: recorded {recorded.get('tools')}, now {actual.get('tools')}"
    if recorded.get("tools_sha256") != actual.get("tools_sha256"):
        return f"the schemas of the bound tools {actual.get('tools')} changed"
    for key in ("tool_choice", "parallel_tool_calls", "params"):
        if recorded.get(key) != actual.get(key):
            was, now = _short(recorded.get(key)), _short(actual.get(key))
            return f"{key} differs: recorded {was}, now {now}"
    return None


@dataclass
class _SampleState:
    diffs: list[str] = field(default_factory=list)
    changed_ids: set[str] = field(default_factory=set)


class ReplayChatModel(BaseChatModel):
    """Plays back one recorded sample; checks every request against the recording."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    sample_id: str
    epoch: int
    _recording: Recording | None = PrivateAttr(default=None)
    _params: dict[str, Any] = PrivateAttr(default_factory=dict)
    _state: _SampleState = PrivateAttr(default_factory=_SampleState)
    _report: Callable[[str], None] | None = PrivateAttr(default=None)
    _cursor: int = PrivateAttr(default=0)
    _attempts: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "agentloop-replay"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        # The recorded model description, so replayed trajectories name the same model.
        return dict(self._recording.trajectory.model) if self._recording else {}

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: str | dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:  # fmt: skip
        options = {"tool_choice": tool_choice} if tool_choice is not None else {}
        return self.bind(tools=tool_schemas(tools), **options, **kwargs)

    def _mismatch(self, call_index: int, what: str) -> ReplayMismatchError:
        where = (
            self._recording.where(call_index)
            if self._recording
            else f"sample {self.sample_id!r} epoch {self.epoch}, model call {call_index + 1}"
        )
        error = ReplayMismatchError(f"replay: {where}: {what}")
        if self._report is not None:
            self._report(str(error))
        return error

    def _check(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> Recording:
        k, rec = self._cursor, self._recording
        if rec is None:
            raise self._mismatch(k, "no recording for this sample and epoch")
        if rec.request is not None:
            actual = request_signature(
                kwargs.get("tools") or [],
                kwargs.get("tool_choice"),
                kwargs.get("parallel_tool_calls", True),
                self._params,
            )
            differs = _signature_difference(rec.request, actual)
            if differs:
                raise self._mismatch(k, differs)
        if k >= len(rec.prompts):
            raise self._mismatch(k, f"the recording has only {len(rec.prompts)} model call(s)")
        requested = [message_to_openai(m) for m in messages]
        differs = _message_difference(rec.prompts[k], requested, self._state.changed_ids)
        if differs:
            raise self._mismatch(k, differs)
        return rec

    def _next(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> ChatResult:
        rec = self._check(messages, kwargs)
        k = self._cursor
        if self._attempts < rec.retries[k]:
            self._attempts += 1
            raise ReplayedTransientError("replayed temporary error (recorded retry)")
        self._attempts = 0
        self._cursor += 1
        if k == len(rec.replies):
            raise _recorded_error(rec.trajectory.error or "recorded model error")
        # A copy: LangChain may stamp the returned message.
        return ChatResult(generations=[ChatGeneration(message=rec.replies[k].model_copy())])

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:  # fmt: skip
        return self._next(messages, kwargs)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:  # fmt: skip
        return self._next(messages, kwargs)


class ReplayDispatcher(ToolDispatcher):
    """Serves recorded tool results by call id, or re-runs the tools and compares."""

    def __init__(
        self,
        recording: Recording | None,
        state: _SampleState,
        tools: Sequence[Any],
        *,
        live: bool,
        timeout: float | None = None,
        max_output_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    ) -> None:
        runnable = [t if isinstance(t, BaseTool) else as_tool(t) for t in tools
                    if not isinstance(t, dict)]  # fmt: skip
        super().__init__(runnable, timeout=timeout, max_output_chars=max_output_chars)
        self.recording = recording
        self.state = state
        self.live = live

    def _recorded(self, call: PendingCall) -> tuple[ToolMessage, ToolCallRecord]:
        rec = self.recording
        found = rec.tool_results.get(call.id) if rec is not None else None
        where = f"sample {rec.sample_id!r} epoch {rec.epoch}" if rec else "a sample"
        if found is None:
            raise ReplayMismatchError(
                f"replay: {where}: tool call {call.id} ({call.name}) has no recorded result"
            )
        record = found[1]
        if (record.name, record.args, record.raw_args) != (call.name, call.args, call.raw_args):
            raise ReplayMismatchError(
                f"replay: {where}: tool call {call.id} differs from the recording: recorded "
                f"{record.name}({_short(record.args or record.raw_args)}), "
                f"now {call.name}({_short(call.args or call.raw_args)})"
            )
        return found[0].model_copy(), record.model_copy()

    def _compare(self, call: PendingCall, recorded: ToolMessage, rec_call: ToolCallRecord,
                 message: ToolMessage, record: ToolCallRecord) -> None:  # fmt: skip
        if (message.content, record.status) == (recorded.content, rec_call.status):
            return
        where = f"sample {self.recording.sample_id!r} epoch {self.recording.epoch}" if (
            self.recording) else "a sample"  # fmt: skip
        note = (
            f"replay: {where}: tool {call.name} (call {call.id}) output differs from the "
            f"recording: recorded {rec_call.status} {_short(recorded.content)}, "
            f"now {record.status} {_short(message.content)}"
        )
        log.warning(note)
        self.state.diffs.append(note)
        self.state.changed_ids.add(call.id)

    async def run(
        self, calls: Sequence[PendingCall], *, parallel: bool = True
    ) -> tuple[list[ToolMessage], list[ToolCallRecord]]:
        recorded = [self._recorded(c) for c in calls]
        if not self.live:
            return [r[0] for r in recorded], [r[1] for r in recorded]
        messages, records = await super().run(calls, parallel=parallel)
        for index, call in enumerate(calls):
            self._compare(call, *recorded[index], messages[index], records[index])
        return messages, records

    def refuse(
        self, calls: Sequence[PendingCall], max_rounds: int
    ) -> tuple[list[ToolMessage], list[ToolCallRecord]]:
        if self.live:
            return super().refuse(calls, max_rounds)
        recorded = [self._recorded(c) for c in calls]
        return [r[0] for r in recorded], [r[1] for r in recorded]


class ReplaySource:
    """Replay models (and tool results) for every recorded (sample, epoch)."""

    def __init__(self, path: str, params: dict[str, Any], options: dict[str, Any]) -> None:
        unknown = sorted(set(options) - {"replay_tools"})
        if unknown:
            raise ModelSpecError(
                f"unknown replay model option(s): {', '.join(unknown)}; known: replay_tools"
            )
        mode = options.get("replay_tools", "recorded")
        if mode not in ("recorded", "live"):
            raise ModelSpecError(f"replay_tools must be 'recorded' or 'live', not {mode!r}")
        self.path = path
        self.live_tools = mode == "live"
        self.params = dict(params)
        self.recordings = load_recordings(path)
        self.mismatches: list[str] = []
        """Every mismatch raised, in order (also raised into the sample)."""
        # Recorded retries are replayed at once, so a generous policy costs nothing.
        self.retry_policy = RetryPolicy(max_retries=1000, max_total_s=1e9)
        self._states: dict[tuple[str, int], _SampleState] = {}

    def _state(self, sample_id: str, epoch: int, fresh: bool = False) -> _SampleState:
        key = (sample_id, epoch)
        if fresh or key not in self._states:
            self._states[key] = _SampleState()
        return self._states[key]

    def for_sample(self, sample_id: str, epoch: int) -> ReplayChatModel:
        model = ReplayChatModel(sample_id=sample_id, epoch=epoch)
        model._recording = self.recordings.get((sample_id, epoch))
        model._params = self.params
        model._state = self._state(sample_id, epoch, fresh=True)
        model._report = self.mismatches.append
        return model

    def dispatcher_for_sample(
        self,
        sample_id: str,
        epoch: int,
        tools: Sequence[Any],
        *,
        timeout: float | None = None,
        max_output_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    ) -> ReplayDispatcher:
        return ReplayDispatcher(
            self.recordings.get((sample_id, epoch)),
            self._state(sample_id, epoch),
            tools,
            live=self.live_tools,
            timeout=timeout,
            max_output_chars=max_output_chars,
        )

    def tool_differences(self, sample_id: str, epoch: int) -> list[str]:
        """Warning lines for re-run tools whose output differed (``replay_tools: live``)."""
        state = self._states.get((sample_id, epoch))
        return list(state.diffs) if state else []

    async def aclose(self) -> None:
        return None


register_provider("replay", ReplaySource)

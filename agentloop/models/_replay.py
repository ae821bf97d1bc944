"""``replay:<run dir or results file>``: a recorded run, played back offline.

For each (sample, epoch) the replay model returns the recorded replies in order, and
before each one checks that the request is the recorded one: the conversation so far
(OpenAI format, so message ids and response metadata do not count), the bound tool
schemas, ``tool_choice`` and the sampling params (the last three when the results
line carries a ``request`` signature, see :func:`request_signature`). Any difference,
or a request past the end of the recording, raises ``ReplayMismatchError`` naming the
sample, the model call and what differs; the replay never improvises.

A multi-turn recording is checked turn by turn: each later turn's messages and the tools
it binds (``turn_tools`` in the signature) must be the recorded ones. Under AgentDojo's
``tool_filter`` the first request offers the recorded tools with ``tool_choice`` "none" and
later ones bind those its reply kept (the filter step's ``kept_tools``). A conversation with a
simulated user is replayed on both sides: ``user: {model: replay:<run dir>}`` plays the
recorded user (:meth:`ReplaySource.for_user`: its requests, checked against
``Trajectory.user_messages`` and the ``user`` signature, and its tool results), so a whole
conversation runs again offline.

Recorded retries and model errors are replayed too (retries without waiting), so a
replayed run's results equal the original's apart from timings.

Tool results come from the recording (``replay_tools: recorded``, the default) through
:meth:`ReplaySource.tool_executor` (the engine's ``RecordedToolResults``). With
``replay_tools: live`` the tools run again; each output that differs from the
recording is logged as a warning line and listed by :meth:`ReplaySource.tool_differences`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from pydantic import ConfigDict, PrivateAttr

from agentloop.engine import (
    ExecutorFactory,
    RecordedToolResults,
    RetryPolicy,
    ToolDispatcher,
    message_to_openai,
)
from agentloop.errors import ModelSpecError, ReplayMismatchError
from agentloop.models._base import ModelSource, ProviderFactory, check_param_names
from agentloop.models._local import LOCAL_OPTIONS
from agentloop.models._openai import OPENAI_OPTIONS
from agentloop.models._recording import (
    Recording,
    ReplayedTransientError,
    load_recordings,
    message_difference,
    recorded_error,
    request_signature,
    signature_difference,
    tool_schemas,
)

__all__ = [
    "FACTORIES",
    "SERVER_OPTIONS",
    "Recording",
    "ReplayChatModel",
    "ReplaySource",
    "load_recordings",
    "request_signature",
]

log = logging.getLogger("agentloop.replay")
SERVER_OPTIONS = OPENAI_OPTIONS | LOCAL_OPTIONS
"""Options of the models that talk to a server (``openai:``, ``local:``, the other providers'
being a subset): a config written for one keeps them when ``--model`` (or ``--set
user.model=``) swaps in an offline model, ``replay:`` or ``scripted:``, which ignores them."""


@dataclass
class _SampleState:
    diffs: list[str] = field(default_factory=list)
    changed_ids: set[str] = field(default_factory=set)


class ReplayChatModel(BaseChatModel):
    """Plays back one recorded sample; checks every request against the recording."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    sample_id: str
    epoch: int
    side: Literal["agent", "user"] = "agent"
    """Which side of a recorded conversation this model plays (``user``: the simulated user)."""
    _recording: Recording | None = PrivateAttr(default=None)
    _params: dict[str, Any] = PrivateAttr(default_factory=dict)
    _api: str | None = PrivateAttr(default=None)
    _state: _SampleState = PrivateAttr(default_factory=_SampleState)
    _report: Callable[[str], None] | None = PrivateAttr(default=None)
    _cursor: int = PrivateAttr(default=0)
    _attempts: int = PrivateAttr(default=0)
    _offered: list[Any] = PrivateAttr(default_factory=list)
    """The tools the ``tool_filter``'s request offered (see :meth:`_filtered`)."""

    @property
    def _llm_type(self) -> str:
        return "agentloop-replay"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        # The recorded model description, so replayed trajectories name the same model.
        return dict(self._recording.trajectory.model) if self._recording else {}

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        options = {"tool_choice": tool_choice} if tool_choice is not None else {}
        return self.bind(tools=tool_schemas(tools), **options, **kwargs)

    def _mismatch(self, call_index: int, what: str) -> ReplayMismatchError:
        call = "user model call" if self.side == "user" else "model call"
        where = f"sample {self.sample_id!r} epoch {self.epoch}, {call} {call_index + 1}"
        error = ReplayMismatchError(f"replay: {where}: {what}")
        if self._report is not None:
            self._report(str(error))
        return error

    def _side(
        self, rec: Recording
    ) -> tuple[list[list[dict[str, Any]]], list[AIMessage], list[int]]:
        if self.side == "user":
            return rec.user_prompts, rec.user_replies, rec.user_retries
        return rec.prompts, rec.replies, rec.retries

    def _expected_request(self, rec: Recording, call_index: int) -> dict[str, Any] | None:
        if rec.request is None:
            return None
        if self.side == "user":
            # Recorded without a simulated user: there is no user signature to compare.
            user: dict[str, Any] | None = rec.request.get("user")
            return user
        return _turn_request(rec, call_index)

    def _filtered(
        self, rec: Recording, call_index: int, expected: dict[str, Any], tools: list[Any]
    ) -> dict[str, Any]:
        """Under AgentDojo's ``tool_filter`` the filter's request (the first, its step's
        ``kept_tools`` set) offers the recorded tools with ``tool_choice`` "none"; later
        requests bind the kept ones of those (nothing kept: the model is called unbound)."""
        steps = rec.trajectory.steps
        kept = steps[0].kept_tools if steps else None
        if kept is None:
            return expected
        if call_index == 0:
            self._offered = list(tools)  # checked against the recorded tools just below
            return {**expected, "tool_choice": "none"}
        chosen = [t for t in self._offered if t.get("function", {}).get("name") in kept]
        now = request_signature(chosen)
        update = {"tools": now["tools"], "tools_sha256": now["tools_sha256"]}
        if not chosen:
            update |= {"tool_choice": None, "parallel_tool_calls": True}
        return {**expected, **update}

    def _check(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> Recording:
        k, rec = self._cursor, self._recording
        if rec is None:
            raise self._mismatch(k, "no recording for this sample and epoch")
        prompts = self._side(rec)[0]
        expected = self._expected_request(rec, k)
        if expected is not None:
            if self.side == "agent":
                expected = self._filtered(rec, k, expected, kwargs.get("tools") or [])
            actual = request_signature(
                kwargs.get("tools") or [],
                kwargs.get("tool_choice"),
                kwargs.get("parallel_tool_calls", True),
                self._params,
                self._api,
            )
            differs = signature_difference(expected, actual)
            if differs:
                raise self._mismatch(k, differs)
        if k >= len(prompts):
            side = "the user's side of the recording" if self.side == "user" else "the recording"
            raise self._mismatch(k, f"{side} has only {len(prompts)} model call(s)")
        requested = [message_to_openai(m) for m in messages]
        differs = message_difference(prompts[k], requested, self._state.changed_ids)
        if differs:
            raise self._mismatch(k, differs)
        return rec

    def _next(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> ChatResult:
        rec = self._check(messages, kwargs)
        _, replies, retries = self._side(rec)
        k = self._cursor
        if self._attempts < retries[k]:
            self._attempts += 1
            raise ReplayedTransientError("replayed temporary error (recorded retry)")
        self._attempts = 0
        self._cursor += 1
        if k == len(replies):
            raise recorded_error(rec.trajectory.error or "recorded model error")
        # A copy: LangChain may stamp the returned message.
        return ChatResult(generations=[ChatGeneration(message=replies[k].model_copy())])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._next(messages, kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._next(messages, kwargs)


def _turn_request(rec: Recording, call_index: int) -> dict[str, Any]:
    """The recorded request signature of a model call: a later turn binds its own tools."""
    assert rec.request is not None
    later = rec.request.get("turn_tools") or []
    turn = sum(1 for t in rec.trajectory.turns[1:] if t.step_start <= call_index)
    return {**rec.request, **later[turn - 1]} if 0 < turn <= len(later) else rec.request


class ReplaySource(ModelSource):
    """Replay models (and tool results) for every recorded (sample, epoch)."""

    def __init__(self, path: str, params: dict[str, Any], options: dict[str, Any]) -> None:
        # The config was written for the recorded model: its provider's options are
        # ignored here (``--model replay:...`` keeps the rest of the config as it is).
        unknown = sorted(set(options) - {"replay_tools", "latency"} - SERVER_OPTIONS)
        if unknown:
            raise ModelSpecError(
                f"unknown replay model option(s): {', '.join(unknown)}; known: replay_tools"
            )
        mode = options.get("replay_tools", "recorded")
        if mode not in ("recorded", "live"):
            raise ModelSpecError(f"replay_tools must be 'recorded' or 'live', not {mode!r}")
        check_param_names(params)
        self.path = path
        self.live_tools = mode == "live"
        self.params = dict(params)
        self.api: str | None = options.get("api")
        """The config's ``model_options.api``, compared with the recorded one."""
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
        return self._model(sample_id, epoch, "agent")

    def for_user(self, sample_id: str, epoch: int) -> ReplayChatModel:
        """The recorded simulated user's side of this sample."""
        return self._model(sample_id, epoch, "user")

    def _model(self, sample_id: str, epoch: int, side: Literal["agent", "user"]) -> ReplayChatModel:
        model = ReplayChatModel(sample_id=sample_id, epoch=epoch, side=side)
        model._recording = self.recordings.get((sample_id, epoch))
        model._params = self.params
        model._api = self.api if side == "agent" else None
        model._state = self._state(sample_id, epoch, fresh=True)
        model._report = self.mismatches.append
        return model

    def tool_executor(self, sample_id: str, epoch: int) -> ExecutorFactory:
        return self._tool_executor(sample_id, epoch, "agent")

    def user_tool_executor(self, sample_id: str, epoch: int) -> ExecutorFactory:
        return self._tool_executor(sample_id, epoch, "user")

    def _tool_executor(
        self, sample_id: str, epoch: int, side: Literal["agent", "user"]
    ) -> ExecutorFactory:
        recording = self.recordings.get((sample_id, epoch))
        state = self._state(sample_id, epoch)
        if recording is None:
            recorded = {}
        else:
            recorded = recording.user_tool_results if side == "user" else recording.tool_results

        def on_difference(call_id: str, note: str) -> None:
            log.warning(note)
            state.diffs.append(note)
            state.changed_ids.add(call_id)

        def wrap(dispatcher: ToolDispatcher) -> RecordedToolResults:
            return RecordedToolResults(
                dispatcher,
                recorded,
                live=self.live_tools,
                where=f"sample {sample_id!r} epoch {epoch}",
                on_difference=on_difference,
            )

        return wrap

    def tool_differences(self, sample_id: str, epoch: int) -> list[str]:
        """Warning lines for re-run tools whose output differed (``replay_tools: live``)."""
        state = self._states.get((sample_id, epoch))
        return list(state.diffs) if state else []

    async def aclose(self) -> None:
        return None


FACTORIES: dict[str, ProviderFactory] = {"replay": ReplaySource}
"""The ``replay:`` prefix (``agentloop.models._base`` reads it)."""

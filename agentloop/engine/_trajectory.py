"""The record of one agent run: messages, per-step timings and tool-call outcomes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, Literal

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage
from pydantic import BaseModel, ConfigDict, Field, field_serializer, model_validator

from agentloop.engine._wire import from_wire, is_wire, message_text, message_to_openai, to_wire

__all__ = [
    "FROM_CACHE",
    "Side",
    "StepRecord",
    "StopReason",
    "TokenUsage",
    "ToolCallRecord",
    "ToolCallStatus",
    "Trajectory",
    "TurnRecord",
    "message_to_openai",
]

ToolCallStatus = Literal[
    "ok",
    "error",
    "timeout",
    "invalid_args",
    "unknown_tool",
    "no_implementation",
    "malformed",
    "round_limit",
    "not_run",
]
StopReason = Literal[
    "final",
    "max_rounds",
    "tool_calls",
    "error",
    "time_limit",
    "token_limit",
    # a conversation with a simulated user (``agentloop.engine._conversation``)
    "user_stop",
    "agent_stop",
    "max_turns",
    "max_steps",
    "too_many_errors",
    "user_error",
]
Side = Literal["agent", "user"]
FROM_CACHE = "agentloop_from_cache"
"""The ``response_metadata`` key a response cache sets (true) on the replies it serves:
their step is recorded ``cached``."""
# Calls that were requested but never executed: they do not make a step a round.
_NOT_RUN = frozenset({"round_limit", "not_run"})


class TokenUsage(BaseModel):
    """Token counts as the model reported them (zero when it reported none), read from
    LangChain's ``usage_metadata`` (``from_usage_metadata``). The cached, cache-write and
    reasoning counts are parts of the input and output counts, not additions to them."""

    input_tokens: int = 0
    """Prompt tokens, those read from or written to the provider's prompt cache included."""
    output_tokens: int = 0
    """Completion tokens, reasoning tokens included (also where the provider reports them
    apart: see ``from_usage_metadata``)."""
    total_tokens: int = 0
    """Input plus output tokens."""
    cached_input_tokens: int = 0
    """Of ``input_tokens``, those the provider read from its prompt cache (billed at a
    lower rate): ``input_token_details.cache_read``."""
    reasoning_tokens: int = 0
    """Of ``output_tokens``, those the model spent reasoning: ``output_token_details.reasoning``."""
    cache_write_input_tokens: int = 0
    """Of ``input_tokens``, those the provider wrote to its prompt cache (billed at its
    cache-write rate): ``input_token_details.cache_creation``, or Anthropic's
    ``ephemeral_5m_input_tokens`` plus ``ephemeral_1h_input_tokens``. 0 in records made
    before it was kept."""
    cache_write_1h_input_tokens: int = 0
    """Of ``cache_write_input_tokens``, those written for an hour (Anthropic's
    ``ephemeral_1h_input_tokens``, billed at a rate of their own). 0 in records made
    before it was kept."""

    @classmethod
    def from_usage_metadata(cls, meta: Mapping[str, Any]) -> TokenUsage:
        """The counts of one reply's ``usage_metadata``, in LangChain's convention (the
        details are parts of ``input_tokens`` and ``output_tokens``). A provider that
        reports its reasoning tokens outside the completion tokens (xAI: ``total_tokens``
        is prompt + completion + reasoning) is read as one that includes them: its
        reasoning is added to ``output_tokens``, since it is billed as output."""
        inputs = meta.get("input_token_details") or {}
        outputs = meta.get("output_token_details") or {}
        input_tokens = meta.get("input_tokens") or 0
        output_tokens = meta.get("output_tokens") or 0
        total = meta.get("total_tokens") or 0
        reasoning = _part(outputs, "reasoning")
        if reasoning and (
            reasoning > output_tokens or total == input_tokens + output_tokens + reasoning
        ):
            output_tokens += reasoning
            total = max(total, input_tokens + output_tokens)
        # langchain-anthropic splits the writes by lifetime and then sets cache_creation
        # to 0; the larger reading holds whether or not an integration does so.
        one_hour = inputs.get("ephemeral_1h_input_tokens") or 0
        split = (inputs.get("ephemeral_5m_input_tokens") or 0) + one_hour
        return cls(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=total,
            cached_input_tokens=_part(inputs, "cache_read"),
            reasoning_tokens=reasoning,
            cache_write_input_tokens=max(inputs.get("cache_creation") or 0, split),
            cache_write_1h_input_tokens=one_hour,
        )

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cache_write_input_tokens=self.cache_write_input_tokens + other.cache_write_input_tokens,
            cache_write_1h_input_tokens=self.cache_write_1h_input_tokens
            + other.cache_write_1h_input_tokens,
        )


def _part(details: Mapping[str, Any], name: str) -> int:
    """A count of ``input_token_details`` or ``output_token_details``: langchain-openai
    names those of a request served at OpenAI's flex or priority tier with the tier first
    (``flex_cache_read``, ``priority_reasoning``)."""
    for key in (name, f"flex_{name}", f"priority_{name}"):
        if details.get(key):
            return int(details[key])
    return 0


class ToolCallRecord(BaseModel):
    """What happened to one tool call the model requested."""

    id: str
    """The call id on the wire (the one its ToolMessage carries)."""
    original_id: str | None = None
    """The provider's id when agentloop replaced a missing or duplicate one."""
    name: str
    """The tool name the model asked for."""
    args: dict[str, Any] | None = None
    """Parsed arguments; None when the provider reported them malformed."""
    raw_args: str | None = None
    """The unparsed argument text of a malformed call; for a call that ran, the text as the
    model sent it when only a lenient reader accepts it (blank, or a raw control character
    inside a string: LangChain reads it, BFCL's strict decoder does not)."""
    status: ToolCallStatus
    """ok, error (raised), timeout, invalid_args (schema), unknown_tool (not offered),
    no_implementation (offered by schema only, nothing to run), malformed (unparseable
    arguments), round_limit (not run: no rounds left) or not_run (a single-turn
    evaluation records calls without running them)."""
    duration_s: float = 0.0
    """Time spent executing the tool (0 when it was not run)."""
    error: str | None = None
    """Why the call did not succeed, as told to the model."""
    exception: str | None = None
    """The type of the exception a tool raised (``error`` status), e.g. ``KeyError``:
    the tool's own bug. None for a ``ToolException``, the tool telling the model
    something on purpose."""
    traceback: str | None = None
    """The last frames of that exception's traceback (a few lines)."""
    recovered: bool = False
    """True when the call was recovered from text content rather than native tool calls."""


class StepRecord(BaseModel):
    """One model call and the tool calls it requested. A step with tool calls is a round."""

    latency_s: float
    """Wall time of the model call, retries included."""
    wait_s: float = 0.0
    """Of ``latency_s``, the time the call's requests waited for their turn before they
    were sent (a client's ``max_concurrent_requests``: ``local:``'s one server slot); the
    model's own time is ``latency_s - wait_s``. 0 in records made before it was kept."""
    usage: TokenUsage | None = None
    """Token usage of this call, when the model reports it."""
    retries: int = 0
    """Temporary errors retried before the call succeeded."""
    cached: bool = False
    """The reply came from the response cache (``cache:``): no request was made, nothing
    was billed; ``usage`` is what the stored reply reported."""
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    """The requested calls, in request order."""
    kept_tools: list[str] | None = Field(default=None, exclude_if=lambda v: v is None)
    """Only on the step that asked AgentDojo's ``tool_filter`` (``run_agent``'s
    ``tool_filter``): the tools its reply kept, bound from then on (replay checks the
    later requests against them), ``[]`` when the call failed; absent on every other step."""


class TurnRecord(BaseModel):
    """Where one turn of a conversation starts in the record, and how it ended."""

    message_start: int
    """Index in ``Trajectory.messages`` of the turn's first message (0 for turn 1)."""
    step_start: int
    """Index in ``Trajectory.steps`` of the turn's first model call."""
    stop_reason: StopReason
    """Why the turn stopped (see ``Trajectory.stop_reason``)."""
    tools_added: list[str] = Field(default_factory=list)
    """Tools bound from this turn on that earlier turns did not have."""
    state: Any = None
    """The environment's snapshot after the turn (None without one)."""
    user_message_start: int | None = None
    """With a simulated user: index in ``Trajectory.user_messages`` where the user's part of
    this turn starts (the agent's texts shown to it, then its reply); None when the turn
    opened with the row's own messages."""
    user_step_start: int | None = None
    """With a simulated user: index in ``Trajectory.user_steps`` of the user's first model
    call of this turn (None as above)."""


class Trajectory(BaseModel):
    """Everything one run did; serializes to JSON and back unchanged.

    ``messages`` are stored as OpenAI chat dicts (see ``agentloop.engine._wire``);
    LangChain's own dumps, the format before, are read as well.
    """

    # Python's json accepts Infinity in tool arguments, so the record must keep it too.
    model_config = ConfigDict(ser_json_inf_nan="constants")

    messages: list[AnyMessage]
    """The whole conversation, input messages first; always a valid OpenAI conversation."""
    steps: list[StepRecord] = Field(default_factory=list)
    """One record per model call."""
    stop_reason: StopReason
    """final (answered), max_rounds (round cap reached), tool_calls (single-turn: the
    reply's calls were recorded, not run), error (model failed), time_limit or
    token_limit (the sample's limit was reached; it is scored on what it did). A
    conversation with a simulated user ends with user_stop or agent_stop (a stop signal in
    that side's text, see ``stop_signal``), max_turns, max_steps or too_many_errors (a
    conversation limit), user_error (the user's model failed), or as above."""
    final_answer: str | None = None
    """The text of the last assistant message, or None when there is none."""
    error: str | None = None
    """The model error that stopped the run (``stop_reason == "error"``)."""
    rounds: int = 0
    """Rounds run: model calls that requested tools whose calls were executed."""
    tool_calls_by_status: dict[str, int] = Field(default_factory=dict)
    """Count of tool calls per status."""
    usage: TokenUsage = Field(default_factory=TokenUsage)
    """Token usage summed over all model calls."""
    wall_time_s: float = 0.0
    """Wall time of the whole run."""
    model: dict[str, Any] = Field(default_factory=dict)
    """Model name and parameters where known; never credentials."""
    turns: list[TurnRecord] = Field(default_factory=list)
    """Turn boundaries of a multi-turn run (empty for a plain one-turn run)."""
    user_messages: list[AnyMessage] = Field(default_factory=list)
    """A simulated user's own view of the conversation (empty without one), a valid OpenAI
    conversation: its instructions as ``system``, the agent's texts as ``user``, its own
    replies as ``assistant`` (with its tool calls and reasoning), its tool results."""
    user_steps: list[StepRecord] = Field(default_factory=list)
    """One record per call of the simulated user's model (its tool calls included)."""
    user_usage: TokenUsage = Field(default_factory=TokenUsage)
    """Token usage summed over the simulated user's model calls."""
    stop_signal: str | None = None
    """The stop signal that ended a conversation (``user_stop``, ``agent_stop``)."""

    @classmethod
    def build(
        cls,
        messages: list[BaseMessage],
        steps: list[StepRecord],
        stop_reason: StopReason,
        *,
        error: str | None = None,
        wall_time_s: float = 0.0,
        model: dict[str, Any] | None = None,
        turns: list[TurnRecord] | None = None,
        user_messages: list[BaseMessage] | None = None,
        user_steps: list[StepRecord] | None = None,
        stop_signal: str | None = None,
    ) -> Trajectory:
        """Assemble a trajectory, deriving the totals from the steps."""
        statuses: Counter[str] = Counter()
        usage = TokenUsage()
        rounds = 0
        for step in steps:
            if step.usage is not None:
                usage = usage + step.usage
            rounds += any(c.status not in _NOT_RUN for c in step.tool_calls)
            statuses.update(c.status for c in step.tool_calls)
        # model_construct: the parts are already validated models, and this runs per sample.
        return cls.model_construct(
            messages=list(messages),
            steps=steps,
            stop_reason=stop_reason,
            final_answer=_last_answer(messages),
            error=error,
            rounds=rounds,
            tool_calls_by_status=dict(statuses),
            usage=usage,
            wall_time_s=wall_time_s,
            model=model or {},
            turns=turns or [],
            user_messages=list(user_messages or []),
            user_steps=list(user_steps or []),
            user_usage=sum((s.usage for s in user_steps or [] if s.usage), TokenUsage()),
            stop_signal=stop_signal,
        )

    @field_serializer("messages", "user_messages")
    def _store_messages(self, messages: list[BaseMessage]) -> list[dict[str, Any]]:
        return [to_wire(m) for m in messages]

    @model_validator(mode="before")
    @classmethod
    def _read_messages(cls, data: Any) -> Any:
        # Stored messages become LangChain dumps again (old lines already are), so
        # LangChain's own validation rebuilds the messages either way.
        if isinstance(data, dict):
            for key in ("messages", "user_messages"):
                if isinstance(data.get(key), list):
                    data = {**data, key: [from_wire(m) if is_wire(m) else m for m in data[key]]}
        return data

    def tool_calls(self) -> list[ToolCallRecord]:
        """All tool calls of all steps, in the order they were requested."""
        return [call for step in self.steps for call in step.tool_calls]

    def calls_in_order(self) -> list[tuple[Side, ToolCallRecord]]:
        """Every tool call of both sides, ``("agent" | "user", call)``, in the order they were
        requested: in each turn the simulated user's calls come before the agent's."""
        if not self.user_steps:
            return [("agent", call) for call in self.tool_calls()]
        found: list[tuple[Side, ToolCallRecord]] = []
        for k, here in enumerate(self.turns):
            if here.user_step_start is not None:
                later = [t.user_step_start for t in self.turns[k + 1 :]]
                end = next((s for s in later if s is not None), len(self.user_steps))
                for step in self.user_steps[here.user_step_start : end]:
                    found += [("user", call) for call in step.tool_calls]
            found += [("agent", call) for call in self.turn_tool_calls(k)]
        return found

    def turn_bounds(self, turn: int) -> tuple[slice, slice]:
        """(messages, steps) slices of turn ``turn`` (0-based); a run without turn records
        is one turn."""
        if not self.turns:
            if turn != 0:
                raise IndexError(f"turn {turn}: this trajectory has one turn")
            return slice(0, len(self.messages)), slice(0, len(self.steps))
        here = self.turns[turn]
        later = self.turns[turn + 1] if turn + 1 < len(self.turns) else None
        return (
            slice(here.message_start, later.message_start if later else len(self.messages)),
            slice(here.step_start, later.step_start if later else len(self.steps)),
        )

    def turn_tool_calls(self, turn: int) -> list[ToolCallRecord]:
        """The tool calls of one turn (0-based), in request order."""
        steps = self.steps[self.turn_bounds(turn)[1]]
        return [call for step in steps for call in step.tool_calls]

    def to_openai_messages(self) -> list[dict[str, Any]]:
        """The conversation as OpenAI chat-format dicts (JSON-string ``arguments``)."""
        return [message_to_openai(m) for m in self.messages]


def _last_answer(messages: list[BaseMessage]) -> str | None:
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return message_text(message.content)
    return None

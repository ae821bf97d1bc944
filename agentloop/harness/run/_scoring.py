"""From a dataset row to a scored result: recorded trajectories and rewards.

The tools a sample binds are ``ToolSet``'s (``agentloop.harness.run._tools``, re-exported here).

Shared by the runner (``agentloop.harness.run._runner``) and offline re-scoring
(``agentloop score``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, convert_to_messages

from agentloop._content import content_text
from agentloop._tool_calls import call_fields, lenient_texts, split_calls
from agentloop.engine import (
    ContentCallParser,
    StepRecord,
    ToolCallRecord,
    ToolCallStatus,
    Trajectory,
    TurnRecord,
)
from agentloop.errors import ConfigError
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.config._rewards import parse_rewards
from agentloop.harness.data._prompt import recorded_generation_start, wire_messages
from agentloop.harness.data._rows import Sample
from agentloop.harness.run._tools import ToolSet

if TYPE_CHECKING:
    from agentloop.evals import JudgeSpec
    from agentloop.harness.run._judges import SampleJudging

__all__ = ["RewardPlan", "ScoreOutcome", "ToolSet", "recorded_trajectory"]


def recorded_trajectory(
    sample: Sample, parse_content: ContentCallParser | None = None
) -> Trajectory:
    """The row's messages as a finished trajectory (``mode: score``), with one step per
    recorded assistant reply so tool-call rewards see its calls.

    A recorded call answered by a tool message is ``ok`` (``error`` when that message's
    status says so); one left unanswered (a single-turn record) is ``not_run``, and when
    the last reply has such calls the stop reason is ``tool_calls``. With
    ``parse_content`` (the run's ``parse_content_tool_calls``), a reply without native
    calls has the ``<tool_call>`` blocks of its text recorded as calls (``recovered``),
    answered in order by the tool messages that follow it. The messages stay as recorded.
    A multi-turn row's turns follow the first, each with its recorded replies (the
    trailing assistant and tool messages of its ``messages``) and a turn record.
    """
    segments = [sample.messages, *(turn.get("messages") or [] for turn in sample.turns)]
    messages = _as_messages([m for seg in segments for m in seg])
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    steps: list[StepRecord] = []
    turns: list[TurnRecord] = []
    offset = 0
    for segment in segments:
        turn = TurnRecord(message_start=offset, step_start=len(steps), stop_reason="final")
        for index in range(offset + recorded_generation_start(segment), offset + len(segment)):
            if isinstance(messages[index], AIMessage):
                steps.append(_recorded_step(messages, index, results, parse_content))
        if len(steps) > turn.step_start and any(
            c.status == "not_run" for c in steps[-1].tool_calls
        ):
            turn.stop_reason = "tool_calls"
        turns.append(turn)
        offset += len(segment)
    return Trajectory.build(
        messages, steps, turns[-1].stop_reason, turns=turns if sample.turns else None
    )


def _as_messages(rows: list[dict[str, Any]]) -> list[BaseMessage]:
    """LangChain messages of row messages; a recorded call that is not usable as made
    (arguments not JSON or not an object, no name) stays the model's malformed call. A
    reply with a call whose text is blank (read as ``{}``, but not JSON to a strict reader:
    BFCL's decoder) keeps its calls as written in ``additional_kwargs["tool_calls"]``, as
    agentloop's OpenAI client does."""
    wired = wire_messages(rows)
    unusable: dict[int, list[Any]] = {}
    sent: dict[int, list[Any]] = {}
    for index, message in enumerate(wired):
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not calls:
            continue
        keep, invalid = split_calls(calls)
        written = [(call_fields(c) or (None, None))[1] for c in rows[index]["tool_calls"]]
        if any(isinstance(text, str) and not text.strip() for text in written):
            sent[index] = [  # wired ids, texts as written
                {**c, "function": {**c["function"], "arguments": text}}
                for c, text in zip(calls, written, strict=True)
            ]
        if invalid:
            unusable[index] = invalid
            wired[index] = {**message, "tool_calls": keep}
    messages = list(convert_to_messages(wired))
    for index, invalid in unusable.items():
        ai = messages[index]
        assert isinstance(ai, AIMessage)
        ai.invalid_tool_calls = [*ai.invalid_tool_calls, *invalid]  # type: ignore[list-item]
    for index, calls in sent.items():
        messages[index].additional_kwargs["tool_calls"] = calls
    return messages


def _recorded_step(
    messages: list[BaseMessage],
    index: int,
    results: dict[str, ToolMessage],
    parse_content: ContentCallParser | None,
) -> StepRecord:
    message = messages[index]
    assert isinstance(message, AIMessage)
    calls = [
        (c["id"] or f"call_{index}_{i}", c["name"], c["args"])  # wire ids make `or` moot
        for i, c in enumerate(message.tool_calls)
    ]
    recovered = False
    if parse_content is not None and not calls and not message.invalid_tool_calls:
        calls = _calls_in_text(messages, index, parse_content)
        recovered = bool(calls)
    texts = lenient_texts(message)
    records = [
        ToolCallRecord(
            id=call_id,
            name=name,
            args=args,
            raw_args=texts.get(call_id),
            status=_status(results.get(call_id)),
            recovered=recovered,
        )
        for call_id, name, args in calls
    ]
    records += [
        ToolCallRecord(
            id=bad.get("id") or f"call_{index}_{len(calls) + i}",
            name=bad.get("name") or "",
            raw_args=bad.get("args"),
            status="malformed",
            error=bad.get("error"),
        )
        for i, bad in enumerate(message.invalid_tool_calls)
    ]
    return StepRecord(latency_s=0.0, tool_calls=records)


def _status(result: ToolMessage | None) -> ToolCallStatus:
    if result is None:
        return "not_run"
    return "error" if result.status == "error" else "ok"


def _calls_in_text(
    messages: list[BaseMessage], index: int, parse: ContentCallParser
) -> list[tuple[str, str, dict[str, Any]]]:
    """Calls written in a reply's text, each with the id of the tool message answering it
    (the ones right after the reply, in order); text calls carry no id of their own."""
    found = parse(content_text(messages[index].content))
    answers = []
    for message in messages[index + 1 :]:
        if not isinstance(message, ToolMessage):
            break
        answers.append(message.tool_call_id)
    return [
        (answers[i] if i < len(answers) else f"call_{index}_{i}", name, args)
        for i, (name, args) in enumerate(found)
    ]


@dataclass
class ScoreOutcome:
    """Reward results of one sample, JSON-ready. A reward that raised is in ``errors``
    only, one that does not apply in ``not_applicable`` only; the others' results stand."""

    scores: dict[str, Any]
    passed: dict[str, bool]
    errors: dict[str, str] = field(default_factory=dict)
    """Reward key -> what it raised (``Type: message``)."""
    not_applicable: dict[str, str] = field(default_factory=dict)
    """Reward key -> why it does not apply to the sample (``NotApplicable``)."""

    def error_text(self) -> str | None:
        """The results line's ``error`` when a reward raised: ``key: Type: message``, one
        per reward that raised, joined by ``; ``."""
        return "; ".join(f"{k}: {e}" for k, e in self.errors.items()) or None


class RewardPlan:
    """Validated reward specs, the pass threshold of each reward key, and the judge model
    of each reward that names one."""

    def __init__(self, rewards: Sequence[Any], thresholds: dict[str, float]) -> None:
        from agentloop.evals import judge_spec

        try:
            self.specs = parse_rewards(rewards)
        except ValueError as exc:
            raise ConfigError(f"rewards: {exc}") from None
        self.judges: dict[str, JudgeSpec] = {}
        """Reward key -> the judge model its config names (opened by the run)."""
        for spec in self.specs:
            described = judge_spec(spec.params) if spec.entry and spec.entry.judge else None
            if described is not None:
                self.judges[spec.key] = described
        self.thresholds: dict[str, float] = {}
        for spec in self.specs:
            own = spec.entry.pass_threshold if spec.entry is not None else None
            value = thresholds.get(spec.key, thresholds.get(spec.name, own))
            if value is not None:
                self.thresholds[spec.key] = value

    @classmethod
    def from_config(cls, config: EvalConfig) -> RewardPlan:
        return cls(config.rewards, config.pass_threshold)

    def asking_for(self, name: str) -> list[str]:
        """Keys of the configured rewards that ask for the input ``name`` (costly inputs
        are computed only when one does)."""
        from agentloop.evals import registered_rewards

        found = []
        for spec in self.specs:
            entry = spec.entry or registered_rewards().get(spec.name)
            if entry is not None and name in entry.inputs:
                found.append(spec.key)
        return found

    async def score(
        self,
        trajectory: Trajectory,
        sample_truth: Any,
        answer: Any,
        *,
        metadata: Mapping[str, Any] | None = None,
        row: Mapping[str, Any] | None = None,
        environment: Mapping[str, Any] | None = None,
        expected: Any = None,
        failed: Mapping[str, str] | None = None,
        judging: SampleJudging | None = None,
    ) -> ScoreOutcome:
        """Every reward on one trajectory, on the run's event loop (an async reward is
        awaited there). A reward that raises (or returns what cannot be a result) fails
        alone: its error is in ``errors``, the others are scored.

        ``metadata``, ``row`` (the dataset row as a dict) and ``environment`` (states and
        results, ``agentloop.harness.run._environment``) reach rewards that ask for them;
        ``expected``: the ground truth's calls compiled when the row was read; ``failed``:
        reward key -> error, for rewards not to call (an input they ask for could not be
        made); ``judging``: the sample's judges (``agentloop.harness.run._judges``), for
        rewards whose config names a judge model.
        """
        from agentloop.evals import ascore_sample

        errors = dict(failed or {})
        scores: dict[str, Any] = {}
        not_applicable: dict[str, str] = {}
        if specs := [spec for spec in self.specs if spec.key not in errors]:
            result = await ascore_sample(
                trajectory,
                sample_truth,
                specs,
                answer=answer,
                metadata=metadata,
                row=row,
                environment=environment,
                expected=expected,
                on_error="record",
                judges=judging.judge_for if judging is not None else None,
            )
            errors.update(result.errors)
            not_applicable = result.not_applicable
            for key, reward in result.results.items():
                try:
                    scores[key] = reward.model_dump(mode="json")
                except Exception as exc:  # details that cannot become JSON: its own error
                    errors[key] = f"{type(exc).__name__}: {exc}"
        passed = {
            k: scores[k]["score"] >= threshold
            for k, threshold in self.thresholds.items()
            if k in scores
        }
        ordered = {s.key: errors[s.key] for s in self.specs if s.key in errors}  # config order
        return ScoreOutcome(scores, passed, ordered, not_applicable)

"""From a dataset row to a scored result: tool binding, recorded trajectories, rewards.

Shared by the runner (``agentloop.harness._runner``) and offline re-scoring (``agentloop score``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, convert_to_messages
from langchain_core.tools import BaseTool

from agentloop.engine import (
    ContentCallParser,
    StepRecord,
    ToolCallRecord,
    ToolCallStatus,
    Trajectory,
    tool_factory,
)
from agentloop.errors import ConfigError, ToolLoadError
from agentloop.harness._config import EvalConfig
from agentloop.harness._rows import Sample, recorded_generation_start, wire_messages

__all__ = ["RewardPlan", "ScoreOutcome", "ToolSet", "recorded_trajectory"]


class ToolSet:
    """The configured tool implementations, by name; stateful ones made fresh per sample.

    A path naming a ``BaseTool`` class yields a new instance each time it is loaded, so
    it gets a factory (notes of a notebook never leak between samples); tool objects and
    plain functions are stateless as far as agentloop can tell and are shared.
    """

    def __init__(self, specs: Sequence[str]) -> None:
        self._make: dict[str, Callable[[], BaseTool]] = {}
        for spec in specs:
            make = tool_factory(spec)
            name = make().name
            if name in self._make:
                raise ToolLoadError(f"tool names must be unique; repeated: {name}")
            self._make[name] = make

    @property
    def names(self) -> list[str]:
        """Names of the configured tools, in config order."""
        return list(self._make)

    def single_turn(self, sample: Sample) -> bool:
        """True when the row declares tools by schema and none has an implementation."""
        return bool(sample.tools) and not any(n in self._make for n in sample.tool_names)

    def for_sample(self, sample: Sample) -> list[BaseTool | dict[str, Any]]:
        """What to bind: the row's schemas (implementations where configured), else all."""
        if not sample.tools:
            return [make() for make in self._make.values()]
        bound: list[BaseTool | dict[str, Any]] = []
        for schema in sample.tools:
            make = self._make.get(schema["function"]["name"])
            bound.append(make() if make is not None else schema)
        return bound


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
    """
    messages = list(convert_to_messages(wire_messages(sample.messages)))
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    steps = []
    for index in range(recorded_generation_start(sample.messages), len(messages)):
        message = messages[index]
        if not isinstance(message, AIMessage):
            continue
        calls = [
            (c["id"] or f"call_{index}_{i}", c["name"], c["args"])  # wire ids make `or` moot
            for i, c in enumerate(message.tool_calls)
        ]
        recovered = False
        if parse_content is not None and not calls and not message.invalid_tool_calls:
            calls = _calls_in_text(messages, index, parse_content)
            recovered = bool(calls)
        records = [
            ToolCallRecord(
                id=call_id, name=name, args=args, status=_status(results.get(call_id)),
                recovered=recovered,
            )
            for call_id, name, args in calls
        ]  # fmt: skip
        steps.append(StepRecord(latency_s=0.0, tool_calls=records))
    pending = bool(steps) and any(c.status == "not_run" for c in steps[-1].tool_calls)
    return Trajectory.build(messages, steps, "tool_calls" if pending else "final")


def _status(result: ToolMessage | None) -> ToolCallStatus:
    if result is None:
        return "not_run"
    return "error" if result.status == "error" else "ok"


def _calls_in_text(
    messages: list[BaseMessage], index: int, parse: ContentCallParser
) -> list[tuple[str, str, dict[str, Any]]]:
    """Calls written in a reply's text, each with the id of the tool message answering it
    (the ones right after the reply, in order); text calls carry no id of their own."""
    found = parse(_text(messages[index].content))
    answers = []
    for message in messages[index + 1 :]:
        if not isinstance(message, ToolMessage):
            break
        answers.append(message.tool_call_id)
    return [
        (answers[i] if i < len(answers) else f"call_{index}_{i}", name, args)
        for i, (name, args) in enumerate(found)
    ]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(
        b if isinstance(b, str) else str(b.get("text", ""))
        for b in content
        if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
    )


@dataclass
class ScoreOutcome:
    """Reward results of one sample, JSON-ready."""

    scores: dict[str, Any]
    passed: dict[str, bool]


class RewardPlan:
    """Validated reward specs and the pass threshold of each reward key."""

    def __init__(self, rewards: Sequence[Any], thresholds: dict[str, float]) -> None:
        from evals import parse_reward_specs, registered_rewards  # loaded on use (~60 ms)

        try:
            self.specs = parse_reward_specs(list(rewards))
        except ValueError as exc:
            raise ConfigError(f"rewards: {exc}") from None
        registry = registered_rewards()
        self.thresholds: dict[str, float] = {}
        for spec in self.specs:
            own = registry[spec.name].pass_threshold
            value = thresholds.get(spec.key, thresholds.get(spec.name, own))
            if value is not None:
                self.thresholds[spec.key] = value

    @classmethod
    def from_config(cls, config: EvalConfig) -> RewardPlan:
        return cls(config.rewards, config.pass_threshold)

    def score(self, trajectory: Trajectory, sample_truth: Any, answer: Any) -> ScoreOutcome:
        """Every reward on one trajectory; raises whatever a reward raises."""
        from evals import score_sample

        if not self.specs:
            return ScoreOutcome({}, {})
        result = score_sample(trajectory, sample_truth, self.specs, answer=answer)
        scores = {k: r.model_dump(mode="json") for k, r in result.results.items()}
        passed = {
            k: scores[k]["score"] >= threshold
            for k, threshold in self.thresholds.items()
            if k in scores
        }
        return ScoreOutcome(scores, passed)

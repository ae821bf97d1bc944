"""What state-based rewards receive: the agent's states and results, and the expected ones.

The expected side comes from executing the ground truth's calls (``ground_truth.turns``,
or ``ground_truth.tool_calls`` for a one-turn row) in a fresh environment from the same
factory, turn by turn, through the engine's dispatcher, so result texts are formed the
way the agent's were. Rewards ask for it with a parameter named ``environment``::

    {"states":           [the agent's snapshot after each turn],
     "expected_states":  [the snapshot after each turn's ground-truth calls] | None,
     "results":          [[texts of the agent's executed calls of each turn], ...],
     "expected_results": [[texts of each turn's ground-truth calls], ...] | None}

``None`` when the row has no ground truth of calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from agentloop.engine import Trajectory, TurnRecord
from agentloop.harness._environment import LiveEnvironment, run_calls
from agentloop.harness._rows import Sample

if TYPE_CHECKING:
    from agentloop.harness._sample import Prepared

__all__ = ["environment_input", "recorded_states"]

_EXECUTED = frozenset({"ok", "error", "timeout"})


def _expected_turns(truth: Any) -> list[Any] | None:
    if not isinstance(truth, dict):
        return None
    if isinstance(truth.get("turns"), list):
        return [entry.get("tool_calls") or [] for entry in truth["turns"]]
    if isinstance(truth.get("tool_calls"), list):
        return [truth["tool_calls"]]
    return None


def turn_results(trajectory: Trajectory) -> list[list[str]]:
    """Per turn, the result texts of the calls that ran (ok, error, timeout), in call order."""
    answers = {m.tool_call_id: m for m in trajectory.messages if isinstance(m, ToolMessage)}
    out = []
    for k in range(max(1, len(trajectory.turns))):
        texts = []
        for call in trajectory.turn_tool_calls(k):
            if call.status in _EXECUTED and call.id in answers:
                texts.append(str(answers[call.id].content))
        out.append(texts)
    return out


async def _execute(
    p: Prepared, sample: Sample, epoch: int, turns: list[Any], where: str
) -> tuple[list[Any], list[list[str]]]:
    assert p.environment is not None
    env: LiveEnvironment = p.environment.make(sample, epoch)
    bound = p.tools.for_sample(sample, epoch, env.tools)
    tools = [t for t in bound if isinstance(t, BaseTool)]
    cfg = p.config
    return await run_calls(
        env, tools, turns, where=where, timeout=cfg.tool_timeout,
        max_output_chars=cfg.max_tool_output_chars,
    )  # fmt: skip


async def environment_input(
    p: Prepared, sample: Sample, epoch: int, trajectory: Trajectory
) -> dict[str, Any]:
    """The ``environment`` reward input of one (sample, epoch) (see the module doc)."""
    expected = _expected_turns(sample.ground_truth)
    states, results = None, None
    if expected is not None:
        where = "ground_truth.turns" if "turns" in (sample.ground_truth or {}) else "ground_truth"
        states, results = await _execute(p, sample, epoch, expected, where)
    return {
        "states": [t.state for t in trajectory.turns],
        "expected_states": states,
        "results": turn_results(trajectory),
        "expected_results": results,
    }


async def recorded_states(p: Prepared, sample: Sample, epoch: int, trajectory: Trajectory) -> None:
    """Score mode: run a recorded conversation's calls again in a fresh environment, turn
    by turn, and record the state after each turn in ``trajectory.turns``."""
    if not trajectory.turns:
        trajectory.turns = [TurnRecord(message_start=0, step_start=0,
                                       stop_reason=trajectory.stop_reason)]  # fmt: skip
    calls = [
        [{"name": c.name, "arguments": c.args or {}} for c in trajectory.turn_tool_calls(k)]
        for k in range(len(trajectory.turns))
    ]
    states, _ = await _execute(p, sample, epoch, calls, "recorded turns")
    for record, state in zip(trajectory.turns, states, strict=True):
        record.state = state

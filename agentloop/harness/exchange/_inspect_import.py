"""An Inspect eval log's samples as a scored run directory
(``agentloop import inspect LOG OUTDIR --config CONFIG``).

The log is read by ``inspect_ai``'s ``read_eval_log`` (any Inspect task, any log format it
reads). Each sample (its ``id`` and ``epoch``) becomes a trajectory:

- its ``messages``, Inspect's chat messages as OpenAI chat messages: an assistant message's
  ``tool_calls`` (a call Inspect could not parse keeps its ``parse_error`` text as the
  malformed arguments), a tool message answering its ``tool_call_id`` (an ``error`` makes it
  an error result); the final answer is the last assistant message's text;
- one step per assistant message, each call ``ok`` (or ``error`` as its result says,
  ``malformed`` when unparsed); a user message after a reply opens a new turn;
- the stop reason: ``error`` for a sample with an ``error``, ``token_limit`` /
  ``time_limit`` for a token or time ``limit``, ``max_rounds`` for a message or turn limit,
  ``tool_calls`` when the last reply's calls went unanswered; with a config's simulated
  user (``user:``), ``user_stop`` / ``agent_stop`` when the last message is the user's
  holding one of its ``stop_signals`` / the agent's holding one of its
  ``agent_stop_signals``; else ``final``;
- its token usage, the sum of the sample's ``model_usage``.

A log that ``agentloop export inspect`` wrote carries what Inspect's messages cannot
(``metadata["agentloop"]``: steps, turns, stop reason, the simulated user's side): read
back, the trajectory is the exported one, so a round trip re-scores the same.

Each trajectory is scored by the config's rewards against the row of the config's dataset
with the sample's id, as a run of it would (``mode: score``'s rules: with an environment,
the recorded calls run again in a fresh one when the record holds no states, and the
ground truth's for rewards that ask for the environment; a judge answers from the replies
the export recorded, never a live call, as ``agentloop score``). A sample whose id the dataset
lacks, or that errored in the log, is an errored line (kind ``dataset`` / its recorded
kind, else ``model``). ``OUTDIR`` is a run directory (``run.json``, ``results.jsonl``,
``summary.json``): ``agentloop score``, ``view``, ``compare`` and ``show`` read it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from langchain_core.messages import BaseMessage

from agentloop.engine import Trajectory
from agentloop.engine._trajectory import (
    StepRecord,
    TokenUsage,
    ToolCallRecord,
    ToolCallStatus,
    TurnRecord,
)
from agentloop.errors import AgentloopError
from agentloop.harness.config._fields import EvalConfig, UserConfig
from agentloop.harness.data._dataset import iter_samples
from agentloop.harness.data._rows import Sample
from agentloop.harness.exchange._inspect_export import (
    AGENTLOOP_KEY,
    outside_a_loop,
    require_inspect,
)
from agentloop.harness.run._environment import recorded_states, rewards_environment
from agentloop.harness.run._judges import SampleJudging
from agentloop.harness.run._sample import Prepared, prepare
from agentloop.harness.run._tools import sample_row
from agentloop.harness.rundir._files import (
    HEADER_FILE,
    RESULTS_FILE,
    ResultWriter,
    encode_result,
    write_json_atomic,
)
from agentloop.harness.rundir._header import build_header
from agentloop.harness.stats._summary import RunSummary
from agentloop.harness.stats._summary_file import write_summary

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessage

__all__ = ["InspectImport", "import_inspect", "sample_trajectory", "wire_messages"]


def _wire_call(call: Any) -> dict[str, Any]:
    arguments = call.parse_error if call.parse_error else json.dumps(call.arguments)
    return {"id": call.id, "type": "function",
            "function": {"name": call.function, "arguments": arguments}}  # fmt: skip


def wire_messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """Inspect's chat messages as stored (OpenAI wire) messages; what an agentloop export
    kept in a message's ``metadata["agentloop"]`` is restored as it was."""
    out = []
    for message in messages:
        kept = (message.metadata or {}).get(AGENTLOOP_KEY)
        wire: dict[str, Any] = {"role": message.role, "content": message.text}
        if message.role == "assistant" and message.tool_calls:
            wire["tool_calls"] = [_wire_call(c) for c in message.tool_calls]
        if message.role == "tool":
            wire["tool_call_id"] = message.tool_call_id
            if message.error is not None:
                wire["content"] = message.text or message.error.message
                wire["langchain"] = {"status": "error"}
        if isinstance(kept, Mapping):
            wire.update(kept)
        out.append(wire)
    return out


def _steps(wire: list[dict[str, Any]]) -> tuple[list[StepRecord], list[TurnRecord]]:
    answered = {
        str(m.get("tool_call_id")): (m.get("langchain") or {}).get("status") == "error"
        for m in wire
        if m.get("role") == "tool"
    }
    steps: list[StepRecord] = []
    turns: list[TurnRecord] = [TurnRecord(message_start=0, step_start=0, stop_reason="final")]
    replied = False
    for index, message in enumerate(wire):
        role = message.get("role")
        if role == "user" and replied:  # a new turn: the user speaks after a reply
            turns.append(TurnRecord(message_start=index, step_start=len(steps),
                                    stop_reason="final"))  # fmt: skip
            replied = False
        if role != "assistant":
            continue
        replied = True
        calls = []
        for call in message.get("tool_calls") or []:
            text = call["function"]["arguments"]
            try:
                args = json.loads(text)
            except ValueError:
                args = None
            call_id = str(call["id"])
            status: ToolCallStatus = "not_run"  # no tool message answers it
            if not isinstance(args, dict):
                status = "malformed"
            elif call_id in answered:
                status = "error" if answered[call_id] else "ok"
            calls.append(
                ToolCallRecord(
                    id=call_id,
                    name=call["function"]["name"],
                    args=args if isinstance(args, dict) else None,
                    raw_args=None if isinstance(args, dict) else text,
                    status=status,
                )
            )
        steps.append(StepRecord(latency_s=0.0, tool_calls=calls))
    return steps, turns


_LIMITS = {"token": "token_limit", "time": "time_limit", "working": "time_limit",
           "message": "max_rounds", "turn": "max_rounds"}  # fmt: skip


def _signalled(wire: list[dict[str, Any]], user: UserConfig | None) -> tuple[str, str] | None:
    """With a simulated user: (stop reason, signal) when the conversation's last message is
    the user's holding one of its stop signals, or the agent's holding one of its."""
    said = [m for m in wire if m.get("role") in ("user", "assistant")]
    if user is None or not said:
        return None
    last = said[-1]
    text = str(last.get("content") or "")
    signals = user.stop_signals if last["role"] == "user" else user.agent_stop_signals
    signal = next((s for s in signals if s in text), None)
    if signal is None:
        return None
    return ("user_stop" if last["role"] == "user" else "agent_stop"), signal


def sample_trajectory(sample: EvalSample, user: UserConfig | None = None) -> Trajectory:
    """One Inspect sample's conversation as a trajectory (see the module); ``user``: the
    config's simulated user, whose stop signals say how a conversation ended."""
    wire = wire_messages(list(sample.messages))
    kept = (sample.metadata or {}).get(AGENTLOOP_KEY) or {}
    recorded = kept.get("trajectory") if isinstance(kept, Mapping) else None
    if isinstance(recorded, Mapping):  # an agentloop export: the record as it was
        return Trajectory.model_validate({**recorded, "messages": wire})
    steps, turns = _steps(wire)
    stop, signal = "final", None
    if sample.error is not None:
        stop = "error"
    elif sample.limit is not None and sample.limit.type in _LIMITS:
        stop = _LIMITS[sample.limit.type]
    elif steps and any(c.status == "not_run" for c in steps[-1].tool_calls):
        stop = "tool_calls"
    elif signalled := _signalled(wire, user):
        stop, signal = signalled
    turns[-1].stop_reason = stop  # type: ignore[assignment]
    usage = TokenUsage()
    for part in (sample.model_usage or {}).values():
        usage = usage + TokenUsage(
            input_tokens=part.input_tokens,
            output_tokens=part.output_tokens,
            total_tokens=part.total_tokens,
            cached_input_tokens=part.input_tokens_cache_read or 0,
            reasoning_tokens=part.reasoning_tokens or 0,
            cache_write_input_tokens=part.input_tokens_cache_write or 0,
        )
    trajectory = Trajectory.model_validate({"messages": wire, "stop_reason": "final"})
    built = Trajectory.build(
        list[BaseMessage](trajectory.messages),
        steps,
        stop,  # type: ignore[arg-type]
        error=sample.error.message if sample.error is not None else None,
        wall_time_s=float(sample.total_time or 0.0),
        turns=turns if len(turns) > 1 else None,
        stop_signal=signal,
    )
    built.usage = usage
    return built


@dataclass
class InspectImport:
    """What ``import_inspect`` wrote."""

    run_dir: Path
    summary: RunSummary
    samples: int
    """(sample, epoch) pairs imported."""
    unmatched: list[str]
    """Sample ids the config's dataset has no row for (each an errored line)."""


async def _line(
    p: Prepared,
    sample: EvalSample,
    rows: Mapping[str, Sample],
    model: str,
    user: UserConfig | None,
) -> tuple[str, bool]:
    kept = (sample.metadata or {}).get(AGENTLOOP_KEY) or {}
    trajectory = sample_trajectory(sample, user)
    sid, epoch = str(sample.id), int(sample.epoch)
    row = rows.get(sid)
    record: dict[str, Any] = {
        "id": sid, "epoch": epoch, "status": "ok", "error": None, "error_kind": None,
        "mode": "score", "single_turn": False, "request": None,
    }  # fmt: skip
    outcome = None
    if row is None:
        record.update(status="error", error=f"the dataset {p.config.dataset} has no row "
                      f"with id {sid!r}", error_kind="dataset")  # fmt: skip
    elif sample.error is not None:
        record.update(status="error", error=kept.get("error") or sample.error.message,
                      error_kind=kept.get("error_kind") or "model")  # fmt: skip
    else:
        if p.environment is not None and (
            not trajectory.turns or any(t.state is None for t in trajectory.turns)
        ):
            await recorded_states(p, row, epoch, trajectory)
        judging = SampleJudging.from_recording(
            {**kept, "id": sid, "epoch": epoch}, "agentloop import inspect calls no judge"
        )
        asking = p.rewards.asking_for("environment")
        environment, failed = await rewards_environment(p, asking, row, epoch, trajectory)
        outcome = await p.rewards.score(
            trajectory, row.ground_truth, row.answer, metadata=row.metadata,
            row=sample_row(row), environment=environment, expected=row.expected_calls,
            failed=failed, judging=judging,
        )  # fmt: skip
        if outcome.errors:
            record.update(status="error", error=outcome.error_text(), error_kind="reward")
    record.update(
        stop_reason=trajectory.stop_reason,
        rounds=trajectory.rounds,
        tool_calls_by_status=trajectory.tool_calls_by_status,
        usage=trajectory.usage.model_dump(),
        cost_usd=kept.get("cost_usd") if isinstance(kept, Mapping) else None,
        cost_unknown=None,
        scores=outcome.scores if outcome else {},
        passed=outcome.passed if outcome else {},
        reward_errors=outcome.errors if outcome else {},
        not_applicable=outcome.not_applicable if outcome else {},
        wall_time_s=float(sample.total_time or 0.0),
        started_at=sample.started_at,
        answer=row.answer if row else None,
        ground_truth=row.ground_truth if row else None,
        metadata={**(row.metadata if row else {}), "inspect_model": model},
    )
    if outcome is not None and p.rewards.judges:
        record.update(judging.fields())
    if record["cost_usd"] is None:
        record["cost_unknown"] = "not in the Inspect log"
    return encode_result(record, trajectory.model_dump_json(), p.scrub), row is None


def import_inspect(
    log_path: str | Path,
    outdir: str | Path,
    config: EvalConfig,
    config_path: str | None = None,
) -> InspectImport:
    """The log's samples scored by ``config``'s rewards against its dataset, written as the
    run directory ``outdir`` (see the module)."""
    require_inspect()
    from inspect_ai.log import read_eval_log

    source, folder = Path(log_path), Path(outdir)
    if not source.is_file():
        raise AgentloopError(f"{source}: no such Inspect log")
    if (folder / HEADER_FILE).exists():
        raise AgentloopError(f"{folder}: already a run directory; give a new OUTDIR")
    try:
        log = outside_a_loop(read_eval_log, str(source))
    except Exception as exc:
        raise AgentloopError(f"{source}: not an Inspect log Inspect reads: {exc}") from None
    samples = list(log.samples or [])
    if not samples:
        raise AgentloopError(f"{source}: the log has no samples (written with log_samples off?)")
    user = config.user
    config = config.model_copy(update={"mode": "score", "agent": None, "user": None})
    p = prepare(config, config_path)
    ids = {str(s.id) for s in samples}
    rows = {s.id: s for s in iter_samples(config.dataset, config.mode) if s.id in ids}
    header = build_header(config, config_path, p.scan, len(ids))
    model = log.eval.model
    header.update(
        model=model,
        planned={"samples": len(ids), "epochs": max(s.epoch for s in samples),
                 "results": len(samples)},
        imported={"format": "inspect", "log": str(source.resolve()), "task": log.eval.task,
                  "eval_id": log.eval.eval_id},
    )  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    write_json_atomic(folder / HEADER_FILE, header, p.scrub)
    unmatched: list[str] = []

    async def write_all() -> None:
        with ResultWriter(folder / RESULTS_FILE) as writer:
            for sample in samples:
                line, missing = await _line(p, sample, rows, model, user)
                writer.write(line)
                if missing:
                    unmatched.append(str(sample.id))

    anyio.run(write_all)
    summary = write_summary(folder, header, p.scrub)
    return InspectImport(folder, summary, len(samples), sorted(set(unmatched)))

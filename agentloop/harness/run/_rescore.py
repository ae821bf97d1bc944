"""Re-scoring a finished run offline with other or changed rewards (``agentloop score``).

The recorded trajectories are read back from ``results.jsonl`` (the latest line of
each (id, epoch)) and scored again; nothing is generated. The new lines go to
``results.rescored-<ts>.jsonl`` beside the old file, with their summary in
``summary.rescored-<ts>.json``; the original files are left untouched.

A reward that asks for the ``environment`` input gets what the line recorded (the states
after each turn, the call results) when the row has no ground-truth calls; a run whose
rows do have them (the expected side runs them in a fresh environment) is refused.

No model is asked either: a reward's judge is answered by the replies its line recorded
(``judge_calls``: the same reward, draw and request), and a request the line does not have
fails that reward (``ReplayMismatchError``), never a live call. To grade again with a live
judge (a changed template, another judge model), run the rows again with ``mode: score``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio

from agentloop.engine import Trajectory
from agentloop.errors import AgentloopError
from agentloop.harness.run._environment import executes_ground_truth, recorded_environment
from agentloop.harness.run._judges import SampleJudging
from agentloop.harness.run._scoring import RewardPlan
from agentloop.harness.rundir._files import (
    RESULTS_FILE,
    ResultWriter,
    Scrubber,
    encode_result,
    latest_results,
    summary_name,
)
from agentloop.harness.rundir._header import read_header
from agentloop.harness.stats._summary import RunSummary
from agentloop.harness.stats._summary_file import write_summary

__all__ = ["rescore_line", "rescore_run"]


async def rescore_line(
    line: Mapping[str, Any], plan: RewardPlan, scrub: Scrubber, *, environment: bool = False
) -> str:
    """One result line scored again (model errors and crashes are kept as they were). As
    in a run, a reward that raises is that reward's error (``reward_errors``, and the line
    errored with kind ``reward``); the other rewards' scores stand. Judges answer from the
    line's recorded replies (see the module doc). ``environment``: the run had one, so
    rewards asking for its input get the recorded part of it."""
    record = {k: v for k, v in line.items() if k != "trajectory"}
    raw = line.get("trajectory")
    rescorable = raw is not None and (
        line.get("status") == "ok" or line.get("error_kind") == "reward"
    )
    if rescorable:
        trajectory = Trajectory.model_validate(raw)
        judging = SampleJudging.from_recording(line, "agentloop score calls no judge")
        outcome = await plan.score(
            trajectory,
            line.get("ground_truth"),
            line.get("answer"),
            metadata=line.get("metadata"),
            row=_row(line),
            environment=recorded_environment(trajectory) if environment else None,
            judging=judging,
        )
        error = outcome.error_text()
        record.update(
            status="ok" if error is None else "error",
            error=error,
            error_kind=None if error is None else "reward",
            scores=outcome.scores,
            passed=outcome.passed,
            reward_errors=outcome.errors,
            not_applicable=outcome.not_applicable,
        )
        for name in _JUDGE_FIELDS:
            record.pop(name, None)
        if plan.judges:
            record.update(judging.fields())
    return encode_result(record, json.dumps(raw) if raw is not None else None, scrub)


_JUDGE_FIELDS = ("judge_calls", "judge_usage", "judge_cost_usd", "judge_cost_unknown")


def _row(line: Mapping[str, Any]) -> dict[str, Any]:
    """What a result line keeps of its dataset row (its messages and tools are not kept)."""
    return {k: line.get(k) for k in ("id", "ground_truth", "answer", "metadata")}


def _claim_stamp(run_dir: Path, stamp: str) -> str:
    """``stamp`` (suffixed ``-2``, ``-3``... if taken) with its results file created empty.

    Created exclusively: the writer appends, so two re-scores in the same second
    must never share a file (each would count the other's lines).
    """
    for n in range(1, 1000):
        candidate = stamp if n == 1 else f"{stamp}-{n}"
        try:
            (run_dir / f"results.rescored-{candidate}.jsonl").open("x").close()
        except FileExistsError:
            continue
        return candidate
    raise AgentloopError(f"{run_dir}: cannot create a re-scored results file for {stamp}")


def rescore_run(
    run_dir: Path,
    rewards: Sequence[Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    now: datetime | None = None,
) -> tuple[Path, RunSummary]:
    """Score a run's trajectories again; returns the new results file and its summary."""
    header = read_header(run_dir)
    source = run_dir / RESULTS_FILE
    if not source.is_file():
        raise AgentloopError(f"{run_dir}: no {RESULTS_FILE} to re-score")
    config = dict(header.get("config") or {})
    specs = list(rewards) if rewards else list(config.get("rewards") or [])
    if not specs:
        raise AgentloopError(f"{run_dir}: the run has no rewards; pass --rewards")
    thresholds = config.get("pass_threshold") or {}
    plan = RewardPlan(specs, thresholds)
    asking = plan.asking_for("environment")
    if asking:  # before any file is created
        lines = latest_results(source)  # read to the end: the file is closed after it
        ran = [line["id"] for line in lines if executes_ground_truth(line.get("ground_truth"))]
        if ran:
            raise AgentloopError(
                f"{run_dir}: {', '.join(asking)} need(s) the environment input, which for "
                f"{ran[0]!r} runs its ground-truth calls in a fresh environment; a results "
                "file cannot rebuild that: pass --rewards without them, or run the rows again "
                "with mode: score"
            )
    with_env = bool(asking) and config.get("environment") is not None  # as the run had it
    names = {s.name for s in plan.specs} | {s.key for s in plan.specs}
    stamp = _claim_stamp(run_dir, (now or datetime.now()).strftime("%Y%m%d-%H%M%S"))
    target = run_dir / f"results.rescored-{stamp}.jsonl"
    scrub = Scrubber(environ)

    async def rescore_all() -> None:
        with ResultWriter(target) as writer:
            for line in latest_results(source):  # one line per pair: a retry's, if retried
                writer.write(await rescore_line(line, plan, scrub, environment=with_env))

    anyio.run(rescore_all)
    config.update(rewards=specs, pass_threshold={k: v for k, v in thresholds.items() if k in names})
    summary = write_summary(
        run_dir,
        {**header, "config": config},
        scrub,
        results_name=target.name,
        summary_name=str(summary_name(target.name)),
    )
    return target, summary

"""The evaluation runner: a config in, a run directory of streamed results out.

``run_eval`` validates everything up front (dataset, rewards, tools, model spec),
creates the run directory (or reopens one to resume), then a fixed pool of
``concurrency`` workers pulls (sample, epoch) pairs from one stream over the
dataset. Each finished pair is written to ``results.jsonl`` at once; the summary is
computed from that file at the end. One failing sample is recorded as an errored
result and never stops the others.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from langchain_core.tools import BaseTool

from agentloop.engine import ContentCallParser, Trajectory, run_agent
from agentloop.errors import AgentloopError
from agentloop.harness._config import EvalConfig
from agentloop.harness._dataset import (
    DatasetScan,
    Sample,
    iter_samples,
    prompt_messages,
    scan_dataset,
)
from agentloop.harness._reporting import Reporter, SilentProgress
from agentloop.harness._results import RESULTS_FILE, ResultWriter, Scrubber, encode_result, utc_now
from agentloop.harness._rundir import open_run, write_summary
from agentloop.harness._scoring import RewardPlan, ToolSet, recorded_trajectory
from agentloop.harness._stats import RunSummary
from agentloop.models import ModelSource

__all__ = ["Prepared", "RunOutcome", "prepare", "run_eval", "run_eval_sync"]


@dataclass
class Prepared:
    """Everything validated before the first sample runs."""

    config: EvalConfig
    config_path: str | None
    scan: DatasetScan
    rewards: RewardPlan
    tools: ToolSet
    parser: ContentCallParser | None
    scrub: Scrubber
    requests: dict[tuple[str, ...], dict[str, Any]] = field(default_factory=dict)
    """Request signatures by tool set (computing tool schemas per sample is wasteful)."""


@dataclass
class RunOutcome:
    """Where a run wrote its files, and how it went."""

    run_dir: Path
    summary: RunSummary
    new_results: int = 0
    skipped: int = 0
    """Results already present (a resume) and not run again."""

    @property
    def exit_code(self) -> int:
        """0 when the run passed its fail_on_error rule, 1 when it failed it."""
        return 1 if self.summary.failed else 0


def _content_parser(config: EvalConfig) -> ContentCallParser | None:
    if not config.parse_content_tool_calls:
        return None
    # Imported only when asked for: most runs talk to servers that parse calls themselves.
    from agentloop.engine import parse_content_tool_calls

    return parse_content_tool_calls


def prepare(
    config: EvalConfig,
    config_path: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Prepared:
    """Validate dataset, rewards, tools and the content parser; raise on the first bad one."""
    scan = scan_dataset(config.dataset, config.mode)
    if scan.valid == 0 or not config.skip_invalid:
        scan.raise_if_invalid()
    return Prepared(
        config=config,
        config_path=config_path,
        scan=scan,
        rewards=RewardPlan.from_config(config),
        tools=ToolSet(config.tools),
        parser=_content_parser(config),
        scrub=Scrubber(environ),
    )


def _planned_samples(p: Prepared) -> int:
    limit = p.config.limit
    return p.scan.valid if limit is None else min(limit, p.scan.valid)


def _pairs(p: Prepared, done: set[tuple[str, int]]) -> Iterator[tuple[Sample, int]]:
    """(sample, epoch) pairs still to run, streamed from the dataset in file order."""
    samples = iter_samples(p.config.dataset, p.config.mode)
    for index, sample in enumerate(samples):
        if p.config.limit is not None and index >= p.config.limit:
            return
        for epoch in range(1, p.config.epochs + 1):
            if (sample.id, epoch) not in done:
                yield sample, epoch


class _NoModel(ModelSource):
    """The model source of ``mode: score``: nothing is generated."""

    def for_sample(self, sample_id: str, epoch: int) -> Any:
        raise AgentloopError("score mode does not call a model")


@asynccontextmanager
async def _model_source(config: EvalConfig) -> AsyncIterator[ModelSource]:
    if config.mode == "score" or config.model is None:
        yield _NoModel()
        return
    from agentloop.models import open_model

    async with open_model(config.model, config.model_params, config.model_options) as source:
        yield source


class _SampleError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _request(p: Prepared, tools: list[BaseTool | dict[str, Any]]) -> dict[str, Any]:
    """The request signature replay checks (tools, tool_choice, params); cached per tool set."""
    from agentloop.models import request_signature

    key = tuple(t.name if isinstance(t, BaseTool) else json.dumps(t, sort_keys=True) for t in tools)
    if key not in p.requests:
        cfg = p.config
        p.requests[key] = request_signature(
            tools, cfg.tool_choice, cfg.parallel_tool_calls, cfg.model_params
        )
    return p.requests[key]


async def _generate(
    p: Prepared, source: ModelSource, sample: Sample, epoch: int, record: dict[str, Any]
) -> Trajectory:
    cfg = p.config
    try:
        model = source.for_sample(sample.id, epoch)
    except Exception as exc:
        raise _SampleError("model", f"{type(exc).__name__}: {exc}") from exc
    tools = p.tools.for_sample(sample)
    record["request"] = _request(p, tools)
    trajectory = await run_agent(
        model,
        tools,
        prompt_messages(sample.messages),
        max_rounds=cfg.max_rounds,
        single_turn=record["single_turn"],
        tool_timeout=cfg.tool_timeout,
        parallel_tool_calls=cfg.parallel_tool_calls,
        tool_execution=cfg.tool_execution,
        tool_choice=cfg.tool_choice,
        max_tool_output_chars=cfg.max_tool_output_chars,
        retry=source.retry_policy,
        parse_content_tool_calls=p.parser or False,
        tool_executor=source.tool_executor(sample.id, epoch),
    )
    # replay with replay_tools: live reports tools whose output changed since the recording
    if found := source.tool_differences(sample.id, epoch):
        record["replay_tool_diffs"] = found
    return trajectory


async def _run_sample(
    p: Prepared, source: ModelSource, sample: Sample, epoch: int
) -> tuple[str, bool]:
    """Run, score and encode one (sample, epoch); every failure becomes an error line."""
    started, started_at = time.perf_counter(), utc_now()
    single = p.tools.single_turn(sample)
    record: dict[str, Any] = {
        "id": sample.id,
        "epoch": epoch,
        "status": "ok",
        "error": None,
        "error_kind": None,
        "mode": p.config.mode,
        "single_turn": single,
        "request": None,
    }
    trajectory: Trajectory | None = None
    scores, passed = {}, {}
    try:
        if p.config.mode == "score":
            trajectory = recorded_trajectory(sample, p.parser)
        else:
            trajectory = await _generate(p, source, sample, epoch, record)
        if trajectory.stop_reason == "error":
            raise _SampleError("model", trajectory.error or "model error")
        try:
            outcome = p.rewards.score(trajectory, sample.ground_truth, sample.answer)
        except Exception as exc:
            raise _SampleError("reward", f"{type(exc).__name__}: {exc}") from exc
        scores, passed = outcome.scores, outcome.passed
    except _SampleError as exc:
        record.update(status="error", error=str(exc), error_kind=exc.kind)
    except Exception as exc:  # a crash in a tool wrapper or the loop: contained
        record.update(status="error", error=f"{type(exc).__name__}: {exc}", error_kind="crash")
    record.update(_trajectory_fields(trajectory))
    record.update(
        scores=scores,
        passed=passed,
        wall_time_s=round(time.perf_counter() - started, 6),
        started_at=started_at,
        answer=sample.answer,
        ground_truth=sample.ground_truth,
        metadata=sample.metadata,
    )
    return encode_result(record, _trajectory_json(trajectory, record), p.scrub), (
        record["status"] != "ok"
    )


def _trajectory_json(trajectory: Trajectory | None, record: dict[str, Any]) -> str | None:
    """The trajectory as JSON; one that cannot be encoded errors its sample, not the run."""
    if trajectory is None:
        return None
    try:
        return trajectory.model_dump_json()
    except Exception as exc:
        record.update(
            status="error",
            error=f"the trajectory cannot be saved as JSON: {type(exc).__name__}: {exc}",
            error_kind="crash",
            scores={},
            passed={},
        )
        return None


def _trajectory_fields(trajectory: Trajectory | None) -> dict[str, Any]:
    if trajectory is None:
        return {"stop_reason": None, "rounds": None, "tool_calls_by_status": {}, "usage": {}}
    return {
        "stop_reason": trajectory.stop_reason,
        "rounds": trajectory.rounds,
        "tool_calls_by_status": trajectory.tool_calls_by_status,
        "usage": trajectory.usage.model_dump(),
    }


async def _execute(
    p: Prepared,
    source: ModelSource,
    pairs: Iterator[tuple[Sample, int]],
    writer: ResultWriter,
    reporter: Reporter,
) -> None:
    """A fixed pool of workers pulling from one shared stream of pairs."""

    async def worker() -> None:
        # next() never awaits, so workers can share one plain iterator safely.
        for sample, epoch in pairs:
            line, errored = await _run_sample(p, source, sample, epoch)
            writer.write(line)
            reporter.advance(errored)

    async with anyio.create_task_group() as group:
        for _ in range(p.config.concurrency):
            group.start_soon(worker)


async def run_eval(
    config: EvalConfig,
    *,
    config_path: str | None = None,
    resume: str | Path | None = None,
    reporter: Reporter | None = None,
    environ: Mapping[str, str] | None = None,
    announce: Callable[[Path], None] | None = None,
    allow_changed: bool = False,
) -> RunOutcome:
    """Run (or resume) an evaluation and write its run directory; see the module doc.

    ``announce`` is called with the run directory before the first sample runs.
    ``allow_changed`` resumes even though tool code or the model's script or recording
    changed since the run started (recorded in run.json).
    """
    p = prepare(config, config_path, environ)
    samples = _planned_samples(p)
    resume_dir = Path(resume) if resume is not None else None
    # The model opens first: a bad spec or option leaves no empty run directory behind.
    async with _model_source(config) as source:
        opened = open_run(
            config, config_path, p.scan, samples, p.scrub, resume_dir, allow_changed=allow_changed
        )
        # The run directory stays locked (one writer) until its summary is written.
        with opened as (run_dir, header, done):
            if announce is not None:
                announce(run_dir)
            total = samples * config.epochs
            reporter = reporter or SilentProgress()
            reporter.start(total, min(len(done), total))
            with ResultWriter(run_dir / RESULTS_FILE, fsync=config.fsync) as writer:
                try:
                    await _execute(p, source, _pairs(p, done), writer, reporter)
                finally:
                    reporter.close()
            summary = write_summary(run_dir, header, p.scrub)
    return RunOutcome(run_dir, summary, new_results=writer.count, skipped=len(done))


def run_eval_sync(config: EvalConfig, **options: Any) -> RunOutcome:
    """``run_eval`` for synchronous callers."""
    result: RunOutcome = anyio.run(lambda: run_eval(config, **options))
    return result

"""The evaluation runner: a config in, a run directory of streamed results out.

``run_eval`` validates everything up front (dataset, rewards, tools, model spec),
creates the run directory (or reopens one to resume), then streams (sample, epoch)
pairs over the selected rows (``agentloop.harness.data._selection``) to the config's
executor: a pool of ``concurrency`` tasks here, or Ray workers
(``agentloop.harness.run._executor``). Each finished pair is written by this process to
``results.jsonl`` at once; the summary is computed from that file at the end. One
failing sample is recorded as an errored result and never stops the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from agentloop.errors import AgentloopError
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.data._rows import Sample
from agentloop.harness.data._selection import iter_selected
from agentloop.harness.run._executor import open_executor
from agentloop.harness.run._otel_live import LiveTraces
from agentloop.harness.run._reporting import Reporter, SilentProgress
from agentloop.harness.run._sample import Prepared, prepare
from agentloop.harness.rundir._files import RESULTS_FILE, ResultWriter, latest_status
from agentloop.harness.rundir._header import open_run
from agentloop.harness.stats._summary import RunSummary
from agentloop.harness.stats._summary_file import write_summary

__all__ = ["RunOutcome", "run_eval", "run_eval_sync"]

_log = logging.getLogger("agentloop")


@dataclass
class RunOutcome:
    """Where a run wrote its files, and how it went."""

    run_dir: Path
    summary: RunSummary
    new_results: int = 0
    skipped: int = 0
    """Results already present (a resume) and not run again."""
    retried: int = 0
    """Errored results run again (a resume with ``retry_errors``)."""
    nothing_to_do: bool = False
    """A resume found every result present (with ``retry_errors``: none errored), so
    nothing ran; the summary was written again."""

    @property
    def exit_code(self) -> int:
        """0 when the run passed, 1 when it failed (every result errored, or its
        fail_on_error rule)."""
        return 1 if self.summary.failed else 0


def _pairs(p: Prepared, done: set[tuple[str, int]]) -> Iterator[tuple[Sample, int]]:
    """(sample, epoch) pairs still to run, streamed from the selected rows in run order."""
    for sample in iter_selected(p.config, p.selection):
        for epoch in range(1, p.config.epochs + 1):
            if (sample.id, epoch) not in done:
                yield sample, epoch


async def run_eval(
    config: EvalConfig,
    *,
    config_path: str | None = None,
    resume: str | Path | None = None,
    reporter: Reporter | None = None,
    environ: Mapping[str, str] | None = None,
    announce: Callable[[Path], None] | None = None,
    allow_changed: bool = False,
    retry_errors: bool = False,
    warn: Callable[[str], None] | None = None,
) -> RunOutcome:
    """Run (or resume) an evaluation and write its run directory; see the module doc.

    ``announce`` is called with the run directory before the first sample runs; ``warn``
    with each warning of the checks before it (one line each: ground truth that can never
    match, ...), once; without it they are logged (logger ``agentloop``).
    ``allow_changed`` resumes even though tool code or the model's script or recording
    changed since the run started (recorded in run.json). ``retry_errors`` (with
    ``resume``) runs again the pairs whose latest result errored; their new lines
    supersede the old ones, which stay in the file.
    """
    if retry_errors and resume is None:
        raise AgentloopError("retry_errors needs a run directory to resume")
    p = prepare(config, config_path, environ)
    for warning in p.warnings:
        (warn or _log.warning)(warning)
    samples = p.selection.count
    resume_dir = Path(resume) if resume is not None else None
    live = LiveTraces.open(config.otel, p.scrub)  # a missing SDK: refused before any run
    # The executor opens first: a bad model spec, endpoint or worker leaves no run directory.
    async with open_executor(p, environ) as executor:
        opened = open_run(
            config,
            config_path,
            p.scan,
            samples,
            p.scrub,
            resume_dir,
            allow_changed=allow_changed,
            retry_errors=retry_errors,
            base_url=executor.endpoint,
            user_base_url=executor.user_endpoint,
        )
        # The run directory stays locked (one writer) until its summary is written.
        with opened as (run_dir, header, done):
            total = samples * config.epochs
            if resume_dir is not None and len(done) >= total:  # the same pairs: all done
                summary = write_summary(run_dir, header, p.scrub)
                return RunOutcome(run_dir, summary, skipped=len(done), nothing_to_do=True)
            if announce is not None:
                announce(run_dir)
            if p.environment is not None and config.executor == "local":
                p.environment.keep_state_in(run_dir)
            if p.dependencies is not None and resume_dir is not None:  # written ones count
                p.dependencies.resume_from(latest_status(run_dir / RESULTS_FILE), done)
            reporter = reporter or SilentProgress()
            reporter.start(total, min(len(done), total))
            if live is not None:
                live.start(header)
            with ResultWriter(run_dir / RESULTS_FILE, fsync=config.fsync) as writer:

                def deliver(line: str, errored: bool) -> None:
                    writer.write(line)
                    if live is not None:
                        live.send(line)
                    reporter.advance(errored)

                try:
                    await executor.run(_pairs(p, done), deliver)
                finally:
                    reporter.close()
                    if live is not None:  # flushed in a thread: the event loop keeps going
                        await anyio.to_thread.run_sync(live.close, warn or _log.warning)
            summary = write_summary(run_dir, header, p.scrub)
            retried = header["resumed_at"][-1].get("retry_errors", 0) if retry_errors else 0
    return RunOutcome(
        run_dir, summary, new_results=writer.count, skipped=len(done), retried=retried
    )


def run_eval_sync(config: EvalConfig, **options: Any) -> RunOutcome:
    """``run_eval`` for synchronous callers."""
    result: RunOutcome = anyio.run(lambda: run_eval(config, **options))
    return result

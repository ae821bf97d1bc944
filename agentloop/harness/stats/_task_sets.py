"""The benchmark task set a run scored, and the rule that runs over different task sets are
not compared unless asked (``agentloop compare --across-task-sets``).

A τ²-bench run records its task set in ``run.json`` (``dataset.task_set``) and in each row's
``metadata.task_set`` (``agentloop.benchmarks.tau2._data``). A τ²-bench run from before task
sets were recorded read τ²-bench's files from before 1.0 (the only ones agentloop read then):
task set ``0.2``. Other datasets have no task set and are never refused here (their files'
digests are compared with a warning, ``agentloop.harness.stats._compare``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentloop._records import iter_results
from agentloop.benchmarks import LEGACY_TASK_SET, tau2_domain
from agentloop.errors import AgentloopError
from agentloop.harness.rundir._files import HEADER_FILE, RESULTS_FILE, read_json

__all__ = ["check_task_sets", "run_task_set"]

ACROSS_FLAG = "--across-task-sets"


def run_task_set(path: str | Path) -> str | None:
    """The task set of a run directory or results file: its ``run.json``'s, else its first
    result's ``metadata.task_set``; None when it scored no benchmark task set."""
    target = Path(path)
    header = (target if target.is_dir() else target.parent) / HEADER_FILE
    if header.is_file():
        dataset = read_json(header).get("dataset") or {}
        if dataset.get("task_set"):
            return str(dataset["task_set"])
        is_tau2 = tau2_domain(str(dataset.get("path") or "")) is not None
        return LEGACY_TASK_SET if is_tau2 else None
    results = target / RESULTS_FILE if target.is_dir() else target
    for line in iter_results(results):
        task_set = (line.get("metadata") or {}).get("task_set")
        return str(task_set) if task_set else None
    return None


def check_task_sets(
    paths: Sequence[str | Path], labels: Sequence[str], *, across: bool = False
) -> list[str]:
    """``AgentloopError`` (one line) when the runs scored different task sets, unless
    ``across``: then the warning to show with the comparison (none when they agree)."""
    known = [
        (label, task_set)
        for label, p in zip(labels, paths, strict=True)
        if (task_set := run_task_set(p)) is not None
    ]
    if len({task_set for _, task_set in known}) < 2:
        return []
    listed = ", ".join(f"{label}: {task_set}" for label, task_set in known)
    if not across:
        raise AgentloopError(
            f"the runs scored different τ²-bench task sets ({listed}): the same task id holds "
            f"other criteria; {ACROSS_FLAG} compares them anyway"
        )
    return [
        f"the runs scored different τ²-bench task sets ({listed}): the same task id may hold "
        "other criteria"
    ]

"""The summary file of a run directory (``summary.json``, or one per results file): one
results file summarized and written atomically, with the benchmarks' own figures and, for
an incomplete run, how to finish it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentloop._records import superseded_results
from agentloop.harness.rundir._files import (
    RESULTS_FILE,
    SUMMARY_FILE,
    Scrubber,
    index_results,
    latest_results,
    utc_now,
    write_json_atomic,
)
from agentloop.harness.rundir._header import configured_rewards, reward_directions
from agentloop.harness.stats._benchmarks import benchmark_figures
from agentloop.harness.stats._summary import RunSummary, summarize

__all__ = ["write_summary"]


def write_summary(
    run_dir: Path,
    header: Mapping[str, Any],
    scrub: Scrubber,
    results_name: str = RESULTS_FILE,
    summary_name: str = SUMMARY_FILE,
) -> RunSummary:
    """Summarize one results file of the run and write the summary atomically.

    A run with fewer results than planned (killed, or still running) is marked
    ``complete: false`` and says how to finish it.
    """
    config = header.get("config", {})
    planned = header.get("planned", {}).get("results")
    index = index_results(run_dir / results_name)
    summary = summarize(
        latest_results(run_dir / results_name, index),
        superseded=superseded_results(run_dir / results_name, index),
        epochs=int(config.get("epochs", 1)),
        invalid_lines=header.get("dataset", {}).get("invalid_lines", []),
        fail_on_error=config.get("fail_on_error", False),
        planned=int(planned) if planned is not None else None,
        rewards=configured_rewards(header),
        better=reward_directions(header),
        dataset=config.get("dataset"),
        cluster_by=config.get("cluster_by"),
    )
    summary.benchmarks = benchmark_figures(
        configured_rewards(header),
        header,
        lambda: latest_results(run_dir / results_name, index),
        str(run_dir),
    )
    if not summary.complete:
        summary.notes.insert(
            0,
            f"INCOMPLETE: {summary.results} of {summary.planned} results; finish with: "
            f"agentloop run --resume {run_dir}",
        )
    if summary.errored and results_name == RESULTS_FILE:
        summary.notes.append(
            f"run the errored result(s) again with: agentloop run --resume {run_dir} --retry-errors"
        )
    data = summary.model_dump(mode="json")
    data["run"] = {
        "name": header.get("name"),
        "model": header.get("model"),
        "results_file": results_name,
        "written_at": utc_now(),
    }
    write_json_atomic(run_dir / summary_name, data, scrub)
    return summary

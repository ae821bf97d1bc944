"""The figures a public benchmark's own scorer reports, for a run scored with that
benchmark's rewards, kept in ``summary.json`` (``benchmarks``) and printed with the summary:

- ``agentdojo`` (the run has ``agentdojo_utility``): AgentDojo's table, utility, utility under
  attack and targeted attack success rate per suite and over all suites
  (``agentloop.benchmarks.agentdojo._summary``);
- ``tau2`` (the run has ``tau2_verdict``): per domain, τ²-bench's average reward and pass^k
  as τ²-bench's metrics count them (infrastructure errors left out) beside agentloop's rule
  (an errored trial failed), and whether the run compares with τ²-bench's leaderboard
  (``agentloop.benchmarks.tau2._summary``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["benchmark_figures", "format_benchmark_figures"]

AGENTDOJO_REWARD = "agentloop.benchmarks:agentdojo_utility"
TAU2_REWARD = "agentloop.benchmarks:tau2_verdict"


def benchmark_figures(
    rewards: Sequence[str],
    header: Mapping[str, Any],
    results: Callable[[], Iterable[Mapping[str, Any]]],
    run: str,
) -> dict[str, Any]:
    """Benchmark name -> its figures (JSON) for a run whose configured ``rewards`` include
    the benchmark's; ``results`` gives the run's latest results (read once per benchmark)."""
    found: dict[str, Any] = {}
    if AGENTDOJO_REWARD in rewards:
        from agentloop.benchmarks.agentdojo._summary import agentdojo_tables

        tables = agentdojo_tables(results())
        if tables is not None:
            found["agentdojo"] = tables.model_dump(mode="json")
    if TAU2_REWARD in rewards:
        from agentloop.benchmarks.tau2._summary import tau2_domains

        domains = tau2_domains(header, results(), run)
        if domains:
            found["tau2"] = [d.model_dump(mode="json") for d in domains]
    return found


def format_benchmark_figures(benchmarks: Mapping[str, Any]) -> list[str]:
    """The figures as the benchmark commands print them (``agentloop agentdojo summary``,
    ``agentloop tau2 summary``), a text per benchmark."""
    texts = []
    if "agentdojo" in benchmarks:
        from agentloop.benchmarks.agentdojo._summary import (
            AgentDojoSummary,
            format_agentdojo_summary,
        )

        texts.append(
            format_agentdojo_summary(AgentDojoSummary.model_validate(benchmarks["agentdojo"]))
        )
    if "tau2" in benchmarks:
        from agentloop.benchmarks.tau2._summary import Tau2Summary, format_tau2_summary

        texts.append(
            format_tau2_summary(Tau2Summary.model_validate({"domains": benchmarks["tau2"]}))
        )
    return texts

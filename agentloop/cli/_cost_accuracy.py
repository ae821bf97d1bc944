"""The accuracy-cost table of runs compared (``agentloop compare``), one per reward, the
Pareto-optimal runs marked (``agentloop.harness.stats._pareto``)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.markup import escape
from rich.table import Table

from agentloop.harness.stats._pareto import CostAccuracy

__all__ = ["cost_accuracy_tables"]

OPTIMAL = "yes"


def _usd(value: float | None) -> str:
    return "-" if value is None else f"{value:.6f}"


def cost_accuracy_tables(found: Sequence[CostAccuracy]) -> list[Table]:
    """A table per reward: each run's score, cost, cost per pass and whether it is on the
    Pareto front; a run without cost data is said so, not placed."""
    tables = []
    for entry in found:
        table = Table(title=escape(f"{entry.reward}: accuracy and cost"), title_justify="left")
        for column in ("run", "score", "cost (USD)", "cost/pass (USD)", "Pareto-optimal"):
            table.add_column(column, justify="left" if column == "run" else "right")
        for row in entry.rows:
            front = OPTIMAL if row.pareto else "no" if row.pareto is False else "not placed"
            table.add_row(
                row.label,
                "-" if row.score is None else f"{row.score:.3f}",
                _usd(row.cost_usd),
                _usd(row.cost_per_pass_usd),
                front,
            )
        better = "lower" if entry.better == "lower" else "higher"
        reasons = [f"{row.label}: {row.not_placed}" for row in entry.rows if row.not_placed]
        table.caption = (
            f"Pareto-optimal: no other run costs no more with a score no worse ({better} is "
            "better), and less or better on one; cost = the agent's requests (judges apart)"
            + "".join(f"\nnot placed: {escape(reason)}" for reason in reasons)
        )
        tables.append(table)
    return tables

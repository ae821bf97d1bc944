"""The summary's reliability across epochs, cost per pass and errors by cause, as tables
(``agentloop summary``, the end of ``agentloop run``)."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from agentloop.harness import RunSummary
from agentloop.harness.stats._causes import CAUSES
from agentloop.harness.stats._reliability import ReliabilityFigures

__all__ = ["cause_table", "cost_per_pass", "reliability_table"]

COUNTED_FAILED = "counted failed"
LEFT_OUT = "left out"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def cost_per_pass(summary: RunSummary) -> str | None:
    """Each reward's cost per pass, as the run table's row; None when the run cost nothing
    known (unknown, or 0: a scripted or replayed run) or no reward has a pass verdict."""
    if not summary.cost_usd or not summary.cost_per_pass_usd:
        return None
    return ", ".join(
        f"{key}: {'-' if usd is None else f'{usd:.6f}'}"
        for key, usd in summary.cost_per_pass_usd.items()
    )


def _row(figures: ReliabilityFigures) -> list[str]:
    most = max(figures.pass_hat_k, default=None)
    return [
        f"{figures.repeated_tasks} of {figures.tasks}",
        _share(figures.flip_rate),
        _share(figures.always_passed_share),
        _share(figures.never_passed_share),
        _share(figures.consistency),
        "-" if most is None or most < 2 else f"pass^{most} {figures.pass_hat_k[most]:.3f}",
    ]


def reliability_table(summary: RunSummary) -> Table | None:
    """Per reward with a pass verdict: flip rate, always and never passed, consistency and
    the largest pass^k over tasks with two trials or more; errored trials counted failed,
    and left out on a row of their own when there are any. None without a repeated task
    (one epoch)."""
    shown = {
        key: found
        for key, found in summary.reliability.items()
        if found.errors_counted_failed.repeated_tasks
    }
    if not shown:
        return None
    table = Table(title="Reliability across epochs", title_justify="left")
    headers = ("reward", "errors", "tasks ≥2 trials", "flip rate", "always passed")
    for column in (*headers, "never passed", "consistency", "pass^k"):
        table.add_column(column, justify="left" if column in ("reward", "errors") else "right")
    for key, found in shown.items():
        table.add_row(escape(key), COUNTED_FAILED, *_row(found.errors_counted_failed))
        if found.without_verdict:
            table.add_row(escape(key), LEFT_OUT, *_row(found.errors_left_out))
    table.caption = (
        "over tasks with ≥2 trials: flip rate = tasks both passed and failed, always/never "
        "passed = the rest; consistency = the chance two trials of a task agree. errors "
        f"{COUNTED_FAILED}: a trial without a verdict (errored, missing) failed (agentloop's "
        f"rule); {LEFT_OUT}: dropped (τ²-bench's)"
    )
    return table


def cause_table(summary: RunSummary) -> Table | None:
    """Errored results and failed tool calls by who caused them; None when there are none."""
    causes = summary.error_causes
    if not any(causes.results.values()) and not any(causes.tool_calls.values()):
        return None
    table = Table(title="Errors by cause", title_justify="left")
    for column in ("cause", "errored results", "failed tool calls"):
        table.add_column(column, justify="left" if column == "cause" else "right")
    for cause in CAUSES:
        table.add_row(
            cause, str(causes.results.get(cause, 0)), str(causes.tool_calls.get(cause, 0))
        )
    return table

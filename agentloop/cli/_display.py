"""What the terminal shows: the summary tables of a run and the comparison of two runs.

Sample ids, paths, reward keys and error messages are data: printed escaped, so that
"[...]" in them is not rich markup; and masked by the caller's ``Scrubber``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agentloop._secrets import Scrubber
from agentloop.harness import Comparison, LatencyStats, RunSummary
from agentloop.harness._stats import JudgeTotals

__all__ = ["print_comparison", "print_summary", "usd"]


def _reward_table(summary: RunSummary) -> Table:
    ks = sorted({k for r in summary.rewards.values() for k in r.pass_at_k})
    table = Table(title="Rewards", title_justify="left")
    for column in ("reward", "score", "scored mean", "± se", "errored", "samples", "pass rate"):
        table.add_column(column, justify="left" if column == "reward" else "right")
    for k in ks:
        table.add_column(f"pass@{k}", justify="right")
        table.add_column(f"pass^{k}", justify="right")
    for key, stats in summary.rewards.items():
        row = [escape(key), f"{stats.headline:.3f}", f"{stats.mean:.3f}", f"{stats.stderr:.3f}"]
        row += [str(stats.errored), str(stats.count)]
        row.append("-" if stats.pass_rate is None else f"{stats.pass_rate:.3f}")
        for k in ks:
            row.append(f"{stats.pass_at_k[k]:.3f}" if k in stats.pass_at_k else "-")
            row.append(f"{stats.pass_hat_k[k]:.3f}" if k in stats.pass_hat_k else "-")
        table.add_row(*row)
    if any(r.pass_rate is not None for r in summary.rewards.values()):
        table.caption = PASS_RULE
        table.caption_justify = "left"
    return table


PASS_RULE = (
    "pass rate, pass@k, pass^k: over every planned trial, an errored one counting as failed"
)


def _counts(counts: Mapping[Any, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in counts.items()) or "-"


def _spread(stats: LatencyStats) -> str:
    return f"p50 {stats.p50:.3f}, p90 {stats.p90:.3f}, max {stats.max:.3f}"


def _run_table(summary: RunSummary) -> Table:
    table = Table(title="Run", title_justify="left", show_header=False)
    table.add_column("what")
    table.add_column("value")
    lat = summary.latency
    tok = summary.tokens
    rows = [
        (
            "results",
            f"{summary.results} ({summary.samples} samples), ok {summary.ok}, "
            f"errored {summary.errored}"
            + (f" ({_counts(summary.errors_by_kind)})" if summary.errored else ""),
        ),
        ("single-turn", str(summary.single_turn)),
        ("stop reasons", _counts(summary.stop_reasons)),
        ("tool calls", _counts(summary.tool_calls_by_status)),
        (
            "rounds",
            f"mean {summary.rounds.get('mean', 0):.2f}, max {summary.rounds.get('max', 0):g}",
        ),
        (
            "tokens",
            f"in {tok.get('input_tokens', 0)} ({tok.get('cached_input_tokens', 0)} cached), "
            f"out {tok.get('output_tokens', 0)} ({tok.get('reasoning_tokens', 0)} reasoning)",
        ),
        (
            "cost (USD)",
            usd(summary.cost_usd) + (f" ({summary.cost_unknown})" * bool(summary.cost_unknown)),
        ),
        ("model retries", str(summary.model_retries)),
        *([("judge", _judge(summary.judge))] if summary.judge is not None else []),
        (
            "latency (s)",
            f"p50 {lat.p50:.3f}, p90 {lat.p90:.3f}, p99 {lat.p99:.3f}, max {lat.max:.3f}",
        ),
        ("model calls (s)", f"{_spread(summary.model_time)} (the model's own time)"),
    ]
    wait = summary.request_wait
    if summary.request_wait_total_s > 0:
        rows.append((
            "waiting (s)",
            f"{_spread(wait)}, total {summary.request_wait_total_s:.1f} "
            "(requests queued for a free slot: max_concurrent_requests)",
        ))  # fmt: skip
    if summary.cache:
        rows.append(("cache", f"{summary.cache['hits']} hits, {summary.cache['misses']} misses"))
    if not summary.complete:
        rows.insert(1, ("INCOMPLETE", f"{summary.results} of {summary.planned} results"))
    if summary.failure:
        rows.append(("FAILED", summary.failure))
    for what, value in rows:
        table.add_row(escape(what), escape(value))
    return table


_ERROR_KINDS_SHOWN = 5
_MESSAGE_CHARS = 120


def _error_table(summary: RunSummary) -> Table:
    """The errored results by kind, most frequent first: count, first ids, first message."""
    table = Table(title="Errors", title_justify="left")
    table.add_column("kind", no_wrap=True)
    table.add_column("results", justify="right", no_wrap=True)
    table.add_column("first samples")
    table.add_column("first error", overflow="fold")
    kinds = sorted(summary.errors_by_kind.items(), key=lambda item: (-item[1], item[0]))
    for kind, count in kinds[:_ERROR_KINDS_SHOWN]:
        example = summary.error_examples.get(kind)
        ids = ", ".join(example.sample_ids) if example else "-"
        message = " ".join((example.first_error if example else "-").split())
        if len(message) > _MESSAGE_CHARS:
            message = message[: _MESSAGE_CHARS - 3] + "..."
        table.add_row(escape(kind), str(count), escape(ids), escape(message))
    if len(kinds) > _ERROR_KINDS_SHOWN:
        rest = sum(count for _, count in kinds[_ERROR_KINDS_SHOWN:])
        table.add_row(f"{len(kinds) - _ERROR_KINDS_SHOWN} more kinds", str(rest), "", "")
    return table


def _exception_table(summary: RunSummary) -> Table:
    """Tools that raised (their own bugs), by tool and exception type, most frequent first."""
    table = Table(title="Tool exceptions", title_justify="left")
    table.add_column("tool: exception", no_wrap=True)
    table.add_column("calls", justify="right", no_wrap=True)
    for what, count in summary.tool_exceptions.items():
        table.add_row(escape(what), str(count))
    return table


def _metadata_tables(summary: RunSummary) -> list[Table]:
    """Per broken-down metadata key: each value's results, errored ones and reward scores."""
    tables = []
    for key, groups in summary.by_metadata.items():
        table = Table(title=escape(f"Rewards by metadata.{key}"), title_justify="left")
        table.add_column(escape(key))
        for column in ("results", "errored", *summary.rewards):
            table.add_column(escape(column), justify="right")
        for value, group in groups.items():
            scores = [f"{group.scores[r]:.3f}" for r in summary.rewards if r in group.scores]
            table.add_row(escape(value), str(group.results), str(group.errored), *scores)
        tables.append(table)
    return tables


def _masked(summary: RunSummary, scrub: Scrubber | None) -> RunSummary:
    if scrub is None:
        return summary
    return RunSummary.model_validate(scrub.obj(summary.model_dump(mode="json")))


def print_summary(
    summary: RunSummary, console: Console | None = None, *, scrub: Scrubber | None = None
) -> None:
    """Print the reward, run and error tables, then the warnings and notes (masked with
    ``scrub``)."""
    out = console or Console(emoji=False)
    summary = _masked(summary, scrub)
    if summary.rewards:
        out.print(_reward_table(summary))
    for table in _metadata_tables(summary):
        out.print(table)
    out.print(_run_table(summary))
    if summary.errored:
        out.print(_error_table(summary))
    if summary.tool_exceptions:
        out.print(_exception_table(summary))
    for warning in summary.warnings:
        out.print(f"warning: {warning}", markup=False, highlight=False, soft_wrap=True)
    for note in summary.notes:
        # soft_wrap: paths and commands stay whole for copying (the terminal wraps them).
        out.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    for line in summary.invalid_lines[:20]:
        out.print(f"  skipped {line}", markup=False, highlight=False, soft_wrap=True)


def _judge(judge: JudgeTotals) -> str:
    """The judges' requests, tokens and cost (apart from the agent's), in one line."""
    tok = judge.tokens
    cost = usd(judge.cost_usd) + (f" ({judge.cost_unknown})" * bool(judge.cost_unknown))
    counts = [f"retried {judge.retries}"] + [
        f"{n} {what}"
        for n, what in ((judge.replayed, "replayed"), (judge.cached, "cached"),
                        (judge.failed, "failed"))
        if n
    ]  # fmt: skip
    return (
        f"{judge.requests} requests ({', '.join(counts)}), tokens in "
        f"{tok.get('input_tokens', 0)}, out {tok.get('output_tokens', 0)}, cost (USD) {cost}"
    )


def usd(value: float | None) -> str:
    """A cost as printed: ``unknown`` when it is not known (never 0)."""
    if value is None:
        return "unknown"
    return f"{value:.4f}" if value >= 1 else f"{value:.6f}"


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def print_comparison(
    cmp: Comparison,
    console: Console | None = None,
    limit: int = 30,
    *,
    scrub: Scrubber | None = None,
) -> None:
    """Print the deltas and up to ``limit`` changed samples (masked with ``scrub``)."""
    out = console or Console(emoji=False)
    if scrub is not None and scrub.secrets:
        cmp = Comparison.model_validate(scrub.obj(cmp.model_dump(mode="json")))
    table = Table(title=escape(f"A = {cmp.a}\nB = {cmp.b}"), title_justify="left")
    for column in ("reward", "A", "B", "B - A"):
        table.add_column(column, justify="left" if column == "reward" else "right")
    for d in cmp.rewards:
        table.add_row(escape(d.reward), _fmt(d.a), _fmt(d.b), _fmt(d.delta, signed=True))
    table.add_row(
        "errored",
        str(cmp.summary_a.errored),
        str(cmp.summary_b.errored),
        f"{cmp.summary_b.errored - cmp.summary_a.errored:+d}",
    )
    cost_a, cost_b = cmp.summary_a.cost_usd, cmp.summary_b.cost_usd
    delta = f"{cost_b - cost_a:+.6f}" if cost_a is not None and cost_b is not None else "-"
    table.add_row("cost (USD)", usd(cost_a), usd(cost_b), delta)
    out.print(table)
    for warning in cmp.warnings:
        out.print(f"warning: {warning}", markup=False, highlight=False, soft_wrap=True)
    if cmp.only_in_a or cmp.only_in_b:
        out.print(f"results only in A: {cmp.only_in_a}, only in B: {cmp.only_in_b}")
    if not cmp.changed:
        out.print("no sample changed score")
        return
    changes = Table(title=f"{len(cmp.changed)} changed score(s)", title_justify="left")
    for column in ("id", "epoch", "reward", "A", "B"):
        changes.add_column(column)
    for c in cmp.changed[:limit]:
        changes.add_row(escape(c.id), str(c.epoch), escape(c.reward), _fmt(c.a), _fmt(c.b))
    out.print(changes)
    if len(cmp.changed) > limit:
        out.print(f"... and {len(cmp.changed) - limit} more")

"""What the terminal shows: the summary tables of a run and the comparison of two runs.

Sample ids, paths, reward keys and error messages are data: printed escaped, so that
"[...]" in them is not rich markup; and masked by the caller's ``Scrubber``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from agentloop._secrets import Scrubber
from agentloop.cli._cost_accuracy import cost_accuracy_tables
from agentloop.cli._reliability_tables import cause_table, cost_per_pass, reliability_table
from agentloop.harness import Comparison, LatencyStats, RunSummary
from agentloop.harness.stats._compare import MultiComparison, RewardDelta
from agentloop.harness.stats._error_bars import MIN_CLUSTERS, Interval
from agentloop.harness.stats._power import PowerPlan
from agentloop.harness.stats._summary import JudgeTotals

__all__ = [
    "ci",
    "clustering",
    "print_comparison",
    "print_comparisons",
    "print_power",
    "print_summary",
    "usd",
]


def ci(interval: Interval | None) -> str:
    """An interval as printed: ``[low, high]``; ``n/a`` when none could be given (too few
    clusters); ``-`` in a summary written before agentloop computed intervals."""
    if interval is None:
        return "-"
    if interval.low is None or interval.high is None:
        return "n/a"
    return f"[{interval.low:.3f}, {interval.high:.3f}]"


def clustering(clustered_by: str | None) -> str:
    """How the standard errors treat results, in words."""
    if clustered_by is None:
        return "unclustered (every result independent)"
    if clustered_by == "id":
        return "clustered by sample id (its epochs)"
    return f"clustered by {clustered_by} (cluster_by)"


def _interval_rule(summary: RunSummary) -> str | None:
    """What the score's interval is, and why one is n/a."""
    intervals = [r.interval for r in summary.rewards.values() if r.interval is not None]
    if not intervals:
        return None
    rule = (
        "95% CI of the score, over the same results (errored and missing ones as 0): "
        "Wilson's for 0/1 scores, else score ± t·SE; standard errors "
        + clustering(summary.clustered_by)
    )
    if any(i.low is None and i.clusters < MIN_CLUSTERS for i in intervals):
        rule += f"; n/a: fewer than {MIN_CLUSTERS} independent units, too few for an interval"
    return rule


def _reward_table(summary: RunSummary) -> Table:
    # with several epochs, pass@k and pass^k have their own table, with their intervals
    several = any(len(r.pass_at_k_interval) > 1 for r in summary.rewards.values())
    ks = [] if several else sorted({k for r in summary.rewards.values() for k in r.pass_at_k})
    table = Table(title="Rewards", title_justify="left")
    columns = (
        "reward",
        "score",
        "95% CI",
        "scored mean",
        "± se",
        "errored",
        "samples",
        "pass rate",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "reward" else "right")
    for k in ks:
        table.add_column(f"pass@{k}", justify="right")
        table.add_column(f"pass^{k}", justify="right")
    for key, stats in summary.rewards.items():
        scored = (stats.mean, stats.stderr) if stats.count else (None, None)
        row = [escape(key), _score(stats.headline), ci(stats.interval), *map(_score, scored)]
        row += [str(stats.errored), str(stats.count)]
        row.append("-" if stats.pass_rate is None else f"{stats.pass_rate:.3f}")
        for k in ks:
            row.append(f"{stats.pass_at_k[k]:.3f}" if k in stats.pass_at_k else "-")
            row.append(f"{stats.pass_hat_k[k]:.3f}" if k in stats.pass_hat_k else "-")
        table.add_row(*row)
    captions = [_interval_rule(summary)]
    if lower := [key for key, r in summary.rewards.items() if r.better == "lower"]:
        captions.append(
            f"lower is better: {', '.join(lower)} (a score of 1 is the bad outcome, e.g. an "
            "attack that succeeded)"
        )
    if any(r.pass_rate is not None for r in summary.rewards.values()):
        captions.append(PASS_RULE)
    if any(captions):
        table.caption = "\n".join(c for c in captions if c)
    return table


def _pass_table(summary: RunSummary) -> Table | None:
    """pass@k and pass^k with their intervals, when a run has several epochs (with one,
    pass@1 is the pass rate, whose interval is the score's for a 0/1 reward)."""
    rewards = {key: r for key, r in summary.rewards.items() if len(r.pass_at_k_interval) > 1}
    if not rewards:
        return None
    table = Table(title="Pass rate, pass@k and pass^k", title_justify="left")
    for column in ("reward", "measure", "value", "95% CI"):
        table.add_column(column, justify="right" if column in ("value", "95% CI") else "left")
    for key, stats in rewards.items():
        rate = stats.pass_rate or 0.0
        table.add_row(escape(key), "pass rate", f"{rate:.3f}", ci(stats.pass_rate_interval))
        for k in sorted(k for k in stats.pass_at_k if k > 1):
            for name, values, intervals in (
                ("pass@", stats.pass_at_k, stats.pass_at_k_interval),
                ("pass^", stats.pass_hat_k, stats.pass_hat_k_interval),
            ):
                table.add_row(escape(key), f"{name}{k}", f"{values[k]:.3f}", ci(intervals.get(k)))
    table.caption = (
        "pass@1 = pass^1 = the pass rate (Wilson's interval); pass@k and pass^k for k ≥ 2: "
        "a bootstrap over tasks (their clusters resampled, 2000 draws, seed 0); n/a: fewer "
        f"than {MIN_CLUSTERS} independent units, or no spread between tasks"
    )
    return table


PASS_RULE = "pass rate, pass@k, pass^k: over every planned trial, an errored one counting as failed"


def _counts(counts: Mapping[Any, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in counts.items()) or "-"


def _spread(stats: LatencyStats) -> str:
    return f"p50 {stats.p50:.3f}, p90 {stats.p90:.3f}, max {stats.max:.3f}"


def _tokens(tok: dict[str, int]) -> str:
    written = tok.get("cache_write_input_tokens", 0)
    cached = f"{tok.get('cached_input_tokens', 0)} cached" + (
        f", {written} written to the cache" if written else ""
    )
    return (
        f"in {tok.get('input_tokens', 0)} ({cached}), "
        f"out {tok.get('output_tokens', 0)} ({tok.get('reasoning_tokens', 0)} reasoning)"
    )


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
        ("tokens", _tokens(tok)),
        (
            "cost (USD)",
            usd(summary.cost_usd) + (f" ({summary.cost_unknown})" * bool(summary.cost_unknown)),
        ),
        *([("cost per pass (USD)", per_pass)] if (per_pass := cost_per_pass(summary)) else []),
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
        rows.append(
            (
                "waiting (s)",
                f"{_spread(wait)}, total {summary.request_wait_total_s:.1f} "
                "(requests queued for a free slot: max_concurrent_requests)",
            )
        )
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
            scores = [
                f"{group.scores[r]:.3f}"
                + (f" {ci(group.intervals[r])}" if r in group.intervals else "")
                for r in summary.rewards
                if r in group.scores
            ]
            table.add_row(escape(value), str(group.results), str(group.errored), *scores)
        if any(g.intervals for g in groups.values()):
            # within a value of the cluster_by key, its samples are the clusters
            several = "id" if summary.results > summary.samples else None
            how = several if key == _cluster_key(summary) else summary.clustered_by
            table.caption = (
                f"each score with its 95% interval ({clustering(how)}); n/a: fewer than "
                f"{MIN_CLUSTERS} independent units"
            )
        tables.append(table)
    return tables


def _cluster_key(summary: RunSummary) -> str | None:
    """The metadata key ``cluster_by`` named, if any."""
    clustered = summary.clustered_by or ""
    return clustered.removeprefix("metadata.") if clustered.startswith("metadata.") else None


_WIDEST = 10_000  # a table off a terminal: as wide as its cells, reward names whole


def _show(out: Console, table: Table) -> None:
    """Print a table, then its caption as plain lines (a caption would wrap to the
    table's width, and these explain what the numbers are). Off a terminal (a CI log, a
    pipe) the table takes the width its cells need, past the console's."""
    caption, table.caption = table.caption, None
    width = out.width
    if not out.is_terminal:
        needed = Measurement.get(out, out.options.update(max_width=_WIDEST), table).maximum
        out.width = max(width, needed)
    try:
        out.print(table)
    finally:
        out.width = width
    for line in str(caption or "").splitlines():
        out.print(line, markup=False, highlight=False, soft_wrap=True)


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
        _show(out, _reward_table(summary))
    passes = _pass_table(summary)
    if passes is not None:
        _show(out, passes)
    if (reliable := reliability_table(summary)) is not None:
        _show(out, reliable)
    for table in _metadata_tables(summary):
        _show(out, table)
    if summary.benchmarks:
        from agentloop.harness.stats._benchmarks import format_benchmark_figures

        for text in format_benchmark_figures(summary.benchmarks):
            out.print(text, markup=False, highlight=False, soft_wrap=True)
    _show(out, _run_table(summary))
    if summary.errored:
        _show(out, _error_table(summary))
    if (causes := cause_table(summary)) is not None:
        _show(out, causes)
    if summary.tool_exceptions:
        _show(out, _exception_table(summary))
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
        for n, what in (
            (judge.replayed, "replayed"),
            (judge.cached, "cached"),
            (judge.failed, "failed"),
        )
        if n
    ]
    return (
        f"{judge.requests} requests ({', '.join(counts)}), tokens in "
        f"{tok.get('input_tokens', 0)}, out {tok.get('output_tokens', 0)}, cost (USD) {cost}"
    )


def usd(value: float | None) -> str:
    """A cost as printed: ``unknown`` when it is not known (never 0)."""
    if value is None:
        return "unknown"
    return f"{value:.4f}" if value >= 1 else f"{value:.6f}"


def _score(value: float | None) -> str:
    """A headline as printed: ``n/a`` when the reward applies to no result."""
    return "n/a" if value is None else f"{value:.3f}"


def _headline(summary: RunSummary, key: str) -> str:
    """A run's headline of ``key`` in a comparison: ``-`` when the run lacks the reward."""
    stats = summary.rewards.get(key)
    return "-" if stats is None else _score(stats.headline)


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
        table.add_row(
            escape(d.reward),
            _headline(cmp.summary_a, d.reward),
            _headline(cmp.summary_b, d.reward),
            _fmt(d.delta, signed=True),
        )
    table.add_row(
        "errored",
        str(cmp.summary_a.errored),
        str(cmp.summary_b.errored),
        f"{cmp.summary_b.errored - cmp.summary_a.errored:+d}",
    )
    cost_a, cost_b = cmp.summary_a.cost_usd, cmp.summary_b.cost_usd
    delta = f"{cost_b - cost_a:+.6f}" if cost_a is not None and cost_b is not None else "-"
    table.add_row("cost (USD)", usd(cost_a), usd(cost_b), delta)
    _show(out, table)
    paired = _paired_table(cmp)
    if paired is not None:
        _show(out, paired)
    for d in cmp.rewards:
        if d.paired is not None and d.paired.note:
            out.print(
                f"note: {d.reward}: {d.paired.note}", markup=False, highlight=False, soft_wrap=True
            )
    for table in cost_accuracy_tables(cmp.cost_accuracy):
        _show(out, table)
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
    _show(out, changes)
    if len(cmp.changed) > limit:
        out.print(f"... and {len(cmp.changed) - limit} more")


def p_value(p: float | None) -> str:
    """A p-value as printed: 4 decimals, ``<0.0001`` below that, ``-`` when none."""
    if p is None:
        return "-"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _difference_ci(d: RewardDelta) -> str:
    paired = d.paired
    if paired is None or paired.low is None or paired.high is None:
        return "n/a"
    return f"[{paired.low:+.3f}, {paired.high:+.3f}]"


def _pairing(cmp: Comparison) -> str:
    """How the runs were paired, and what was left unpaired, in words."""
    if cmp.pairing == "sample means":
        how, unit = "each sample's mean over its epochs (the runs' epochs differ)", "sample(s)"
    else:
        how, unit = "the results both runs have (id and epoch)", "result(s)"
    unpaired = ""
    if cmp.paired_only_in_a or cmp.paired_only_in_b:
        unpaired = (
            f"; not paired: {cmp.paired_only_in_a} {unit} only in {cmp.label_a}, "
            f"{cmp.paired_only_in_b} only in {cmp.label_b}"
        )
    return f"paired on {how}, standard errors {clustering(cmp.clustered_by)}{unpaired}"


_TEST_RULE = (
    "p: two-sided; McNemar exact: every pair a lone 0/1 result (the discordant pairs "
    "against an even split); paired t: on the clustered standard error of the differences "
    "(clusters - 1 degrees of freedom); verdict at 95%; detectable: the smallest difference "
    "this comparison detects with 80% power at the 5% level; n/a: fewer than "
    f"{MIN_CLUSTERS} independent units"
)


def _paired_table(cmp: Comparison) -> Table | None:
    """Each reward's paired difference, its interval, test and verdict."""
    deltas = [d for d in cmp.rewards if d.paired is not None]
    if not deltas:
        return None
    a, b = cmp.label_a, cmp.label_b
    table = Table(title=escape(f"Paired difference {b} - {a}"), title_justify="left")
    for column in ("reward", "pairs", f"{b} - {a}", "95% CI", "p", "test", "verdict", "detectable"):
        table.add_column(escape(column), justify="left" if column == "reward" else "right")
    for d in deltas:
        paired = d.paired
        assert paired is not None
        table.add_row(
            escape(d.reward),
            str(paired.pairs),
            f"{paired.mean:+.3f}",
            _difference_ci(d),
            p_value(paired.p_value),
            paired.test,
            escape(d.verdict or "-"),
            _fmt(paired.detectable),
        )
    table.caption = f"{_pairing(cmp)}\n{_TEST_RULE}"
    return table


def print_comparisons(
    multi: MultiComparison, console: Console | None = None, *, scrub: Scrubber | None = None
) -> None:
    """Several runs: their headline scores, then per reward every pair's paired difference
    with its Holm-adjusted p-value and verdict (masked with ``scrub``)."""
    out = console or Console(emoji=False)
    if scrub is not None and scrub.secrets:
        multi = MultiComparison.model_validate(scrub.obj(multi.model_dump(mode="json")))
    for label, run in zip(multi.labels, multi.runs, strict=True):
        out.print(f"{label} = {run}", markup=False, highlight=False, soft_wrap=True)
    keys = list(dict.fromkeys(k for s in multi.summaries for k in s.rewards))
    scores = Table(title="Scores", title_justify="left")
    scores.add_column("reward")
    for label in multi.labels:
        scores.add_column(label, justify="right")
    for key in keys:
        cells = []
        for summary in multi.summaries:
            stats = summary.rewards.get(key)
            cells.append("-" if stats is None else f"{_score(stats.headline)} {ci(stats.interval)}")
        scores.add_row(escape(key), *cells)
    _show(out, scores)
    for key in keys:
        table = Table(title=escape(f"{key}: paired differences"), title_justify="left")
        for column in ("pair", "pairs", "difference", "95% CI", "p", "p (Holm)", "verdict"):
            table.add_column(column, justify="left" if column == "pair" else "right")
        for pair in multi.pairs:
            for d in pair.rewards:
                if d.reward != key or d.paired is None:
                    continue
                table.add_row(
                    f"{pair.label_b} - {pair.label_a}",
                    str(d.paired.pairs),
                    f"{d.paired.mean:+.3f}",
                    _difference_ci(d),
                    p_value(d.paired.p_value),
                    p_value(d.p_adjusted),
                    escape(d.verdict or "-"),
                )
        table.caption = f"p (Holm): adjusted with {multi.correction}; {_TEST_RULE}"
        _show(out, table)
    for table in cost_accuracy_tables(multi.cost_accuracy):
        _show(out, table)
    for pair in multi.pairs:
        for warning in pair.warnings:
            out.print(
                f"warning: {pair.label_a} vs {pair.label_b}: {warning}",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
        if pair.paired_only_in_a or pair.paired_only_in_b:
            out.print(
                f"{pair.label_b} - {pair.label_a}: {_pairing(pair)}",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )


def print_power(
    plan: PowerPlan, console: Console | None = None, *, scrub: Scrubber | None = None
) -> None:
    """The power figures per reward: the detectable difference now, the samples needed for
    ``delta`` (masked with ``scrub``)."""
    out = console or Console(emoji=False)
    if scrub is not None and scrub.secrets:
        plan = PowerPlan.model_validate(scrub.obj(plan.model_dump(mode="json")))
    runs = "\n".join(f"{label} = {run}" for label, run in zip("AB", plan.runs, strict=False))
    title = f"{runs}\nPower {plan.power:g} at α = {plan.alpha:g} (two-sided)"
    table = Table(title=escape(title), title_justify="left")
    columns = ["reward", "units", "sd A", "sd B", "correlation", "sd B - A", "detectable"]
    if plan.delta is not None:
        columns += [f"needed for {plan.delta:g}", "unpaired"]
    for column in columns:
        table.add_column(escape(column), justify="left" if column == "reward" else "right")
    for row in plan.rows:
        cells = [
            escape(row.reward),
            str(row.units),
            _fmt(row.sd_a),
            _fmt(row.sd_b),
            _fmt(row.correlation),
            _fmt(row.sd_difference),
            _fmt(row.detectable),
        ]
        if plan.delta is not None:
            cells += [_count(row.needed), _count(row.needed_unpaired)]
        table.add_row(*cells)
    caption = [
        "units: independent samples (each with its epochs) or cluster_by values; sd: of one "
        "unit's score, SE·√units; detectable: the smallest difference the observed units "
        "detect; normal approximation (Miller, Adding Error Bars to Evals, section 5)"
    ]
    if plan.delta is not None:
        caption.append(
            f"needed for {plan.delta:g}: units (the same samples in both runs, paired); "
            "unpaired: units per run if the runs had different samples"
        )
    if plan.correlation_assumed is not None:
        caption.append(
            f"one run: B assumed as variable as A, correlation {plan.correlation_assumed:g} "
            "assumed (--correlation; two runs of similar models on the same samples are "
            "usually positively correlated, which is what pairing gains)"
        )
    table.caption = "\n".join(caption)
    _show(out, table)
    for row in plan.rows:
        if row.note:
            out.print(f"{row.reward}: {row.note}", markup=False, highlight=False, soft_wrap=True)
    for note in plan.notes:
        out.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"

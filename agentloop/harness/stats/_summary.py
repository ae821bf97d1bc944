"""Statistics over a results file: means, pass@k, tool calls, tokens, latency.

Everything is computed from result lines (``agentloop.harness.rundir._files``), the latest
of each (id, epoch) (``agentloop._records.latest_results``: a retried pair counts
once, as retried), so a summary written after a resume equals the one an uninterrupted
run would have written, and ``agentloop summary RUN_DIR`` recomputes it at any time.

Every configured reward has its statistics, even when nothing scored it. A reward's
headline score counts every planned (sample, epoch): a result without its score (the
result errored, the reward itself raised, or the result is missing) scores 0 in it, as
BFCL counts a failed entry, so a model whose failures show up as errors does not score
higher. A reward that raises fails alone: the result errors (kind ``reward``) and the
sample's other rewards keep their scores. Beside the headline, the mean over scored
results: each sample's scored epochs are averaged first, then the mean and its standard
error (sample standard deviation / sqrt(n)) are taken over samples, so repeating epochs
does not shrink the error bar artificially.

A result a reward does not apply to (it returned ``NotApplicable``) is left out of all of
that reward's figures, above the line and below it; a reward that applies to no result has
no headline (None, not 0).

pass@k and pass^k use the unbiased estimators over a sample's n planned epochs of
which c passed: pass@k = 1 - C(n-c, k) / C(n, k) (at least one of k passes) and
pass^k = C(c, k) / C(n, k) (all k pass), averaged over every planned sample. They count
the trials the headline counts: an errored or missing epoch is a failed trial, and a
sample with no result at all fails every trial (as τ²-bench's leaderboard can only count
runs without such errors, a run that has them says so). The pass rate likewise: passed
results over planned ones.

Per reward with a pass verdict, reliability across epochs (``_reliability``: flip rate,
always and never passed, consistency, pass^k, errors counted failed and left out) and the
cost per passed result; errors split by who caused them (``_causes``).

Rewards are also broken down by the dataset rows' ``metadata`` (e.g. BFCL's
``bfcl_category``): per value of each key that groups samples (see
``RunSummary.by_metadata`` for which keys are chosen).

Every one of those figures has its 95% interval (``agentloop.harness.stats._error_bars``, after
Miller's "Adding Error Bars to Evals"), computed on the same trials as the figure: the
headline's over every planned result, errored and missing ones as 0, clustered by sample
id when there are several epochs, or by the metadata key ``cluster_by`` names (a sample
without it is its own cluster), cut to the scores' range [0, 1]; the pass rate's by
Wilson's interval; pass@k's and pass^k's by a bootstrap over tasks (their clusters), seeded.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from agentloop.harness.stats._breakdown import (
    MetadataGroup,
    MetadataTally,
    cluster_label,
    sample_label,
)
from agentloop.harness.stats._causes import ErrorCauses, ErrorCauseTally
from agentloop.harness.stats._error_bars import (
    ClusterTotals,
    Interval,
    bootstrap_intervals,
    mean_interval,
)
from agentloop.harness.stats._estimators import pass_at_k, pass_hat_k, percentile
from agentloop.harness.stats._reliability import RewardReliability, TaskTrials, reliability

__all__ = [
    "ErrorExamples",
    "JudgeTotals",
    "LatencyStats",
    "RewardStats",
    "RunSummary",
    "failure_reason",
    "summarize",
]


class RewardStats(BaseModel):
    """One reward over the run."""

    better: Literal["higher", "lower"] = "higher"
    """Which way the score is good, as the reward declares it
    (``agentloop.evals.lower_is_better``): ``higher`` (1 is the good outcome), or
    ``lower`` (1 is the bad one: AgentDojo's security, 1 when the attack succeeded)."""
    headline: float | None
    """The run's score: the mean over every planned (sample, epoch) the reward applies to,
    an errored or missing one scoring 0 (as BFCL counts it). The figure to quote and
    compare. None when the reward applies to no result: no figure (not 0)."""
    mean: float
    """Mean over samples of each sample's mean score over its scored epochs (errored
    results left out; see ``errored``)."""
    errored: int = 0
    """Results that count 0 in ``headline`` because they have no score of this reward:
    the result errored before scoring, this reward raised, or the result is missing."""
    not_applicable: int = 0
    """Results this reward does not apply to (it returned ``NotApplicable``): left out of
    every figure of this reward, numerators and denominators alike, as if not planned (a
    result that errored before scoring cannot say so, and counts as ``errored``)."""
    stderr: float
    """Standard error of that mean (0 with fewer than two samples)."""
    count: int
    """Samples with at least one scored epoch."""
    results: int
    """Scored (sample, epoch) results."""
    pass_rate: float | None = None
    """Fraction of planned results that passed (an errored or missing one failed); None
    without a pass threshold, or when the reward applies to no result."""
    pass_at_k: dict[int, float] = Field(default_factory=dict)
    """k -> unbiased pass@k, for k from 1 to the number of epochs (to the fewest results
    the reward applies to of a sample, when it skips some), over every planned sample, an
    errored or missing epoch counting as a failed trial."""
    pass_hat_k: dict[int, float] = Field(default_factory=dict)
    """k -> unbiased pass^k (every one of k epochs passes), counted as ``pass_at_k``."""
    interval: Interval | None = None
    """95% confidence interval of ``headline``, over the same planned results (errored
    and missing ones as 0): Wilson's when every score is 0 or 1, else headline ± t·SE cut
    to [0, 1], the standard error clustered (see ``RunSummary.clustered_by``). None in
    summaries written before agentloop computed it."""
    pass_rate_interval: Interval | None = None
    """95% interval of ``pass_rate`` (Wilson's, over the effective number of trials)."""
    pass_at_k_interval: dict[int, Interval] = Field(default_factory=dict)
    """k -> 95% interval of ``pass_at_k[k]``: a bootstrap over tasks (their clusters
    resampled, 2000 draws, seed 0); for k = 1, the pass rate's interval."""
    pass_hat_k_interval: dict[int, Interval] = Field(default_factory=dict)
    """k -> 95% interval of ``pass_hat_k[k]``, as ``pass_at_k_interval``."""


class LatencyStats(BaseModel):
    """Percentiles of a time in seconds: a sample's wall time (model, tools and scoring),
    or a model call's own time or wait (see the field that holds it)."""

    p50: float = 0.0
    p90: float = 0.0
    p99: float = 0.0
    mean: float = 0.0
    max: float = 0.0


_EXAMPLE_IDS = 3  # sample ids kept per error kind
_EXAMPLE_CHARS = 500  # characters kept of an error message


class ErrorExamples(BaseModel):
    """The first errored results of one kind, to show what went wrong without the file."""

    first_error: str
    """The first result's error message (cut at 500 characters)."""
    sample_ids: list[str] = Field(default_factory=list)
    """Ids of the first few samples with such an error (3 at most)."""


class RunSummary(BaseModel):
    """What a run did, computed from its results lines."""

    results: int = 0
    """Results (sample x epoch), the latest line of each."""
    superseded: int = 0
    """Older lines of retried (sample, epoch) pairs, replaced by the latest (not counted)."""
    samples: int = 0
    """Distinct sample ids."""
    ok: int = 0
    """Results that ran and were scored."""
    errored: int = 0
    """Results that failed (model error, crash, reward error): excluded from means."""
    errors_by_kind: dict[str, int] = Field(default_factory=dict)
    """Errored results per kind: model, crash, reward."""
    error_examples: dict[str, ErrorExamples] = Field(default_factory=dict)
    """Per error kind: the first message and the first sample ids."""
    error_causes: ErrorCauses = Field(default_factory=ErrorCauses)
    """Errored results and failed tool calls by who caused them: the model, a tool, the
    environment, the infrastructure (``agentloop.harness.stats._causes``)."""
    single_turn: int = 0
    """Results scored as single-turn tool-call evaluations (nothing executed)."""
    rewards: dict[str, RewardStats] = Field(default_factory=dict)
    """Reward key -> statistics."""
    reliability: dict[str, RewardReliability] = Field(default_factory=dict)
    """Reward key -> its tasks' flip rate, always and never passed shares, consistency and
    pass^k across epochs, errors counted failed and left out
    (``agentloop.harness.stats._reliability``); for the rewards with a pass verdict."""
    cost_per_pass_usd: dict[str, float | None] = Field(default_factory=dict)
    """Reward key -> ``cost_usd`` over the results that passed it; None when the cost is
    unknown or nothing passed. For the rewards with a pass verdict."""
    tool_calls_by_status: dict[str, int] = Field(default_factory=dict)
    """Tool calls per status over all results."""
    tool_exceptions: dict[str, int] = Field(default_factory=dict)
    """``tool: ExceptionType`` -> calls where the tool raised that (its own bug, not a
    ``ToolException``), over all results."""
    tokens: dict[str, int] = Field(default_factory=dict)
    """input_tokens, output_tokens, total_tokens, cached_input_tokens (of input_tokens, read
    from the provider's prompt cache), cache_write_input_tokens (of input_tokens, written to
    it; of those, cache_write_1h_input_tokens for an hour) and reasoning_tokens (of
    output_tokens), as the model reported them: over all results, and over the attempts
    that retries superseded. Replies served from the response cache count here too (see
    ``cost_usd``)."""
    cost_usd: float | None = 0.0
    """USD billed for the run's requests: the sum of the results' ``cost_usd`` and of the
    attempts that retries superseded (replies served from the response cache cost 0).
    None when any of them has an unknown cost (``cost_unknown`` says why): never a
    partial sum."""
    cost_unknown: str | None = None
    """Why ``cost_usd`` is None: how many results have no known cost, the first one's
    reason, and what the others cost."""
    model_retries: int = 0
    """Model requests retried after a temporary error (429, 5xx, connection errors,
    timeouts): the sum of the trajectories' ``steps[].retries``."""
    judge: JudgeTotals | None = None
    """What the rewards' judge models did (requests, tokens, cost), apart from the agent's
    ``tokens`` and ``cost_usd``; None when no reward of the run asks a judge."""
    cache: dict[str, int] = Field(default_factory=dict)
    """With ``cache:``: ``hits`` and ``misses`` of the response cache over all results
    (empty when the run used none)."""
    latency: LatencyStats = Field(default_factory=LatencyStats)
    """Percentiles of sample wall time."""
    model_time: LatencyStats = Field(default_factory=LatencyStats)
    """Percentiles of one model call's own time (its ``latency_s`` less its ``wait_s``,
    retries included), over the model calls of all results (a simulated user's too)."""
    request_wait: LatencyStats = Field(default_factory=LatencyStats)
    """Percentiles of the time one model call waited for its turn before its request was
    sent (``wait_s``: a client's ``max_concurrent_requests``, e.g. ``local:``'s one server
    slot), over the same calls; all 0 when nothing limited the requests."""
    request_wait_total_s: float = 0.0
    """The waits of ``request_wait`` added up (seconds)."""
    rounds: dict[str, float] = Field(default_factory=dict)
    """mean and max tool rounds per result."""
    rounds_histogram: dict[int, int] = Field(default_factory=dict)
    """rounds used -> results."""
    stop_reasons: dict[str, int] = Field(default_factory=dict)
    """stop_reason -> results."""
    clustered_by: str | None = None
    """What the intervals take as one independent unit: ``id`` (a sample: its epochs are
    one cluster), ``metadata.<key>`` (``cluster_by``: the samples sharing a value are one
    cluster), or None (one epoch: every result is independent)."""
    by_metadata: dict[str, dict[str, MetadataGroup]] = Field(default_factory=dict)
    """Metadata key -> value -> its results' scores. The keys broken down are those that
    group samples: every value a string, number, boolean or null (not a list or an object),
    2 to 20 distinct values (a missing key counting as the value ``(not set)``), and fewer
    distinct values than samples (a key unique to each sample, such as a source id, groups
    nothing). Values are sorted as text."""
    benchmarks: dict[str, Any] = Field(default_factory=dict)
    """A public benchmark's own figures, for a run scored with its rewards: ``agentdojo``
    (AgentDojo's table) and ``tau2`` (τ²-bench's metrics per domain); see
    ``agentloop.harness.stats._benchmarks``. Empty otherwise."""
    invalid_lines: list[str] = Field(default_factory=list)
    """Dataset lines skipped as invalid (``file:line: what``)."""
    planned: int | None = None
    """Results the run planned (samples x epochs); None when not known."""
    complete: bool = True
    """False when fewer results than planned are present (a killed or running run)."""
    failed: bool = False
    """True when the run failed: every result errored, or its fail_on_error rule."""
    failure: str | None = None
    """Why the run failed."""
    notes: list[str] = Field(default_factory=list)
    """Things a reader must know, e.g. that errored results are excluded from means."""
    warnings: list[str] = Field(default_factory=list)
    """Signs that the run measured something else than meant, with their likely causes:
    e.g. tools were offered and no sample made a tool call."""


def _everything_errored(summary: RunSummary) -> str | None:
    """Why a run with results, every one errored, fails whatever its ``fail_on_error``
    (None when it does not): it measured nothing it was meant to."""
    if not summary.results or summary.errored < summary.results:
        return None
    kinds = ", ".join(f"{k}: {n}" for k, n in summary.errors_by_kind.items())
    return f"every result errored ({summary.errored} of {summary.results}; {kinds})"


def failure_reason(rule: bool | int | float, errored: int, total: int) -> str | None:
    """Why the run fails under ``fail_on_error`` (None when it does not)."""
    if rule is False or errored == 0:
        return None
    if rule is True:
        return f"{errored} result(s) errored and fail_on_error is true"
    if isinstance(rule, int):
        if errored > rule:
            return f"{errored} result(s) errored, more than fail_on_error={rule}"
        return None
    fraction = errored / total if total else 0.0
    if fraction > rule:
        return f"{fraction:.1%} of results errored, more than fail_on_error={rule}"
    return None


class _Accumulator:
    """Folds result lines one at a time; holds per-sample tallies, not the lines."""

    def __init__(self, cluster_by: str | None = None) -> None:
        self.summary = RunSummary()
        self.cluster_by = cluster_by
        self.cluster_of: dict[str, str] = {}  # sample id -> its cluster's label
        self.unclustered: set[str] = set()  # samples without the cluster_by key
        self.results_of: Counter[str] = Counter()  # sample id -> its results
        self.fractional: set[str] = set()  # rewards with a score other than 0 or 1
        self.scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.passes: dict[str, dict[str, list[int]]] = defaultdict(dict)
        self.ids: set[str] = set()
        self.walls: list[float] = []
        self.model_times: list[float] = []  # per model call: own time
        self.waits: list[float] = []  # per model call: time waiting for a request slot
        self.rounds: Counter[int] = Counter()
        self.counters: dict[str, Counter[str]] = defaultdict(Counter)
        self.metadata = MetadataTally(cluster_by)
        self.offered = 0  # ok results offered tools to call, and not expected to refrain
        self.cost = _CostTally()
        self.judge = _JudgeTally()
        self.causes = ErrorCauseTally()
        # reward -> sample -> its results the reward does not apply to
        self.not_applicable: dict[str, Counter[str]] = defaultdict(Counter)
        self.not_applicable_results: Counter[str] = Counter()
        self.not_applicable_reason: dict[str, str] = {}  # reward -> the first reason

    def add(self, line: Mapping[str, Any]) -> None:
        s = self.summary
        s.results += 1
        sample = str(line["id"])
        self.ids.add(sample)
        self.results_of[sample] += 1
        if sample not in self.cluster_of:
            self.cluster_of[sample] = cluster_label(line, self.cluster_by)
            if self.cluster_by is not None and self.cluster_of[sample] == sample_label(line):
                self.unclustered.add(sample)
        self.walls.append(float(line.get("wall_time_s") or 0.0))
        if line.get("single_turn"):
            s.single_turn += 1
        self.counters["tools"].update(line.get("tool_calls_by_status") or {})
        self.counters["tokens"].update(line.get("usage") or {})
        self.cost.add(line)
        self.judge.add(line)
        self.causes.add(line)
        self.counters["cache"].update(line.get("cache") or {})
        trajectory = line.get("trajectory") or {}
        steps = trajectory.get("steps") or []
        s.model_retries += sum(int(step.get("retries") or 0) for step in steps)
        for step in (*steps, *(trajectory.get("user_steps") or [])):
            latency, wait = float(step.get("latency_s") or 0.0), float(step.get("wait_s") or 0.0)
            self.model_times.append(max(latency - wait, 0.0))
            self.waits.append(wait)
        self.counters["exceptions"].update(
            f"{call.get('name')}: {call['exception']}"
            for step in steps
            for call in step.get("tool_calls") or []
            if call.get("exception")
        )
        if line.get("stop_reason"):
            self.counters["stop"][line["stop_reason"]] += 1
        if line.get("rounds") is not None:  # None: crashed before any trajectory
            self.rounds[int(line.get("rounds") or 0)] += 1
        self.metadata.add(line)
        if line.get("status") != "ok":
            s.errored += 1
            kind = line.get("error_kind") or "unknown"
            self.counters["errors"][kind] += 1
            example = s.error_examples.get(kind)
            if example is None:
                message = str(line.get("error") or "(no message)")[:_EXAMPLE_CHARS]
                example = s.error_examples[kind] = ErrorExamples(first_error=message)
            if len(example.sample_ids) < _EXAMPLE_IDS and sample not in example.sample_ids:
                example.sample_ids.append(sample)
        else:
            s.ok += 1
            if _offered_tools(line.get("request")) and not _expects_no_call(
                line.get("ground_truth")
            ):
                self.offered += 1
        # an errored result has the scores of the rewards that did not raise (none else)
        for key, result in (line.get("scores") or {}).items():
            score = float(result["score"])
            self.scores[key][sample].append(score)
            if score not in (0.0, 1.0):
                self.fractional.add(key)
        for key, ok in (line.get("passed") or {}).items():
            tally = self.passes[key].setdefault(sample, [0, 0])
            tally[0] += 1
            tally[1] += bool(ok)
        for key, reason in (line.get("not_applicable") or {}).items():
            self.not_applicable[key][sample] += 1
            self.not_applicable_results[key] += 1
            self.not_applicable_reason.setdefault(key, str(reason))

    def units(self, epochs: int, counted: int) -> list[_Unit]:
        """Every counted result's place, sorted by sample id: each sample's results and
        the missing ones of an incomplete run (a known sample's first, up to ``epochs``;
        then samples with no result at all, ``epochs`` each, each its own cluster)."""
        missing = counted - sum(self.results_of.values())
        units: list[_Unit] = []
        for sample in sorted(self.ids):
            slots = self.results_of[sample]
            fill = min(max(epochs - slots, 0), max(missing, 0))
            missing -= fill
            units.append((sample, self.cluster_of[sample], slots + fill))
        while missing > 0:
            size = min(max(epochs, 1), missing)
            units.append((None, f"missing:{len(units)}", size))
            missing -= size
        return units

    def intervals(self, key: str, stats: RewardStats, units: list[_Unit]) -> None:
        """The 95% intervals of a reward's headline, pass rate, pass@k and pass^k, over
        the trials each counts (``units``)."""
        scores = self.scores[key]
        if not units:
            stats.interval = Interval(note="this reward applies to no result: no figure")
            return
        stats.interval = mean_interval(
            _cluster_totals(units, lambda sample: scores.get(sample, ())),
            binary=key not in self.fractional,
        )
        passes = self.passes.get(key)
        if passes is None:
            return
        passed = {sample: tally[1] for sample, tally in passes.items()}
        stats.pass_rate_interval = mean_interval(
            _cluster_totals(units, lambda sample: [1.0] * passed.get(sample, 0)), binary=True
        )
        # pass@1 is the pass rate when every sample counts as many trials; when the reward
        # skips some, it is a mean over samples, with a bootstrap interval as pass@k's
        equal = len({size for _, _, size in units}) == 1
        if equal:
            stats.pass_at_k_interval[1] = stats.pass_hat_k_interval[1] = stats.pass_rate_interval
        ks = range(2 if equal else 1, _most_k(units) + 1)
        if not ks:
            return
        clusters: dict[str, tuple[int, list[float]]] = {}
        for sample, label, n in units:
            c = passed.get(sample, 0) if sample is not None else 0
            row = [pass_at_k(n, c, k) for k in ks] + [pass_hat_k(n, c, k) for k in ks]
            tasks, sums = clusters.get(label, (0, [0.0] * len(row)))
            clusters[label] = (tasks + 1, [a + b for a, b in zip(sums, row, strict=True)])
        found = bootstrap_intervals([clusters[label] for label in sorted(clusters)])
        for j, k in enumerate(ks):
            stats.pass_at_k_interval[k] = found[j]
            stats.pass_hat_k_interval[k] = found[len(ks) + j]

    def reward(self, key: str, units: list[_Unit]) -> RewardStats:
        """A reward's figures over the results ``units`` count (its applicable ones)."""
        planned = sum(size for _, _, size in units)
        per_sample = [sum(v) / len(v) for v in self.scores[key].values()]
        n = len(per_sample)
        mean = sum(per_sample) / n if n else 0.0
        var = sum((x - mean) ** 2 for x in per_sample) / (n - 1) if n > 1 else 0.0
        scored = sum(len(v) for v in self.scores[key].values())
        total = sum(sum(v) for v in self.scores[key].values())
        stats = RewardStats(
            headline=total / planned if planned else None,
            mean=mean,
            errored=max(planned - scored, 0),
            stderr=math.sqrt(var / n) if n > 1 else 0.0,
            count=n,
            results=scored,
        )
        passes = self.passes.get(key)
        if passes is not None and planned:
            # Every counted trial of every sample: one without a pass verdict (errored, the
            # reward raised, missing) failed, as it scores 0 in the headline.
            passed = [(passes[s][1] if s in passes else 0, size) for s, _, size in units]
            stats.pass_rate = sum(c for c, _ in passed) / planned
            for k in range(1, _most_k(units) + 1):
                stats.pass_at_k[k] = sum(pass_at_k(n, c, k) for c, n in passed) / len(units)
                stats.pass_hat_k[k] = sum(pass_hat_k(n, c, k) for c, n in passed) / len(units)
        return stats

    def finish(self, epochs: int, planned: int | None, rewards: Sequence[str]) -> RunSummary:
        s = self.summary
        s.samples = len(self.ids)
        # Every planned result counts in the headline; a killed run's missing ones too.
        counted = max(planned or 0, s.results)
        keys = dict.fromkeys([*rewards, *self.scores])  # configured first, scored ones too
        units = self.units(epochs, counted)
        for key in keys:
            # the results this reward applies to, above the line and below it alike
            applicable = _applicable(units, self.not_applicable[key])
            stats = s.rewards[key] = self.reward(key, applicable)
            self.intervals(key, stats, applicable)
            if (passes := self.passes.get(key)) is not None and applicable:
                s.reliability[key] = reliability(
                    _task_trials(size, passes.get(sample) if sample else None)
                    for sample, _, size in applicable
                )
            if found := self.not_applicable_results[key]:
                stats.not_applicable = found
                s.notes.append(
                    f"{key} does not apply to {found} result(s), left out of its figures: "
                    f"{self.not_applicable_reason[key]}"
                )
        if self.cluster_by is not None:
            s.clustered_by = f"metadata.{self.cluster_by}"
        elif epochs > 1 or any(n > 1 for n in self.results_of.values()):
            s.clustered_by = "id"
        self.cluster_notes(s)
        s.tool_calls_by_status = dict(sorted(self.counters["tools"].items()))
        s.tool_exceptions = dict(self.counters["exceptions"].most_common())
        tokens = self.counters["tokens"]
        s.tokens = {k: int(tokens.get(k, 0)) for k in _TOKEN_KEYS}
        if self.counters["cache"]:
            s.cache = {k: int(self.counters["cache"].get(k, 0)) for k in ("hits", "misses")}
        s.errors_by_kind = dict(sorted(self.counters["errors"].items()))
        s.error_causes = self.causes.result()
        s.error_examples = dict(sorted(s.error_examples.items()))
        s.stop_reasons = dict(sorted(self.counters["stop"].items()))
        s.latency = _percentiles(self.walls)
        s.model_time = _percentiles(self.model_times)
        s.request_wait = _percentiles(self.waits)
        s.request_wait_total_s = sum(self.waits)
        total_rounds = sum(r * n for r, n in self.rounds.items())
        counted = sum(self.rounds.values())
        s.rounds = {
            "mean": total_rounds / counted if counted else 0.0,
            "max": float(max(self.rounds, default=0)),
        }
        s.rounds_histogram = dict(sorted(self.rounds.items()))
        s.by_metadata = self.metadata.groups(list(s.rewards), s.samples)
        if self.offered and not sum(self.counters["tools"].values()):
            s.warnings.append(_no_calls_warning(self.offered))
        return s

    def cluster_notes(self, s: RunSummary) -> None:
        """What the reader must know of ``cluster_by``: samples without the key."""
        if self.cluster_by is None or not self.unclustered:
            return
        key = f"metadata.{self.cluster_by}"
        if len(self.unclustered) == len(self.ids):
            s.warnings.append(
                f"cluster_by: no result has {key} (a misspelt key?): each sample is its own "
                "cluster, as without cluster_by"
            )
        else:
            s.notes.append(
                f"{len(self.unclustered)} sample(s) have no {key} (cluster_by): each is its "
                "own cluster in the intervals"
            )


_Unit = tuple[str | None, str, int]
"""A sample's place in the intervals: (its id, None for a sample with no result; its
cluster's label; the results it counts)."""


def _applicable(units: Sequence[_Unit], skipped: Counter[str]) -> list[_Unit]:
    """``units`` less the results a reward does not apply to (``skipped``, by sample): a
    sample keeps its other results, and is gone when none is left. A unit without a sample
    (missing results) stays as it is."""
    kept = []
    for sample, label, size in units:
        left = size - skipped[sample] if sample is not None else size
        if left > 0:
            kept.append((sample, label, left))
    return kept


def _task_trials(size: int, tally: list[int] | None) -> TaskTrials:
    """A sample's trials of a reward: ``size`` counted, ``tally`` its [verdicts, passed]."""
    verdicts, passed = tally or (0, 0)
    return TaskTrials(size, verdicts, passed)


def _most_k(units: Sequence[_Unit]) -> int:
    """The largest k of pass@k and pass^k: the fewest trials a sample counts (its epochs,
    less those the reward does not apply to), so that every sample has k of them."""
    return min((size for _, _, size in units), default=0)


def _cluster_totals(
    units: Sequence[_Unit], values_of: Callable[[str], Sequence[float]]
) -> list[ClusterTotals]:
    """Per cluster: (results, sum, sum of squares), a missing or unscored result as 0;
    each sample's values added in sorted order, so the order its epochs finished in does
    not move the last bits."""
    totals: dict[str, list[float]] = {}
    for sample, label, slots in units:
        values = sorted(values_of(sample)) if sample is not None else ()
        entry = totals.setdefault(label, [0, 0.0, 0.0])
        entry[0] += slots
        entry[1] += sum(values)
        entry[2] += sum(v * v for v in values)
    return [(int(n), total, squares) for n, total, squares in totals.values()]


def _percentiles(values: list[float]) -> LatencyStats:
    """p50, p90, p99, mean and max of ``values`` (all 0 without any)."""
    ordered = sorted(values)
    if not ordered:
        return LatencyStats()
    return LatencyStats(
        p50=percentile(ordered, 0.5),
        p90=percentile(ordered, 0.9),
        p99=percentile(ordered, 0.99),
        mean=sum(ordered) / len(ordered),
        max=ordered[-1],
    )


_TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cached_input_tokens",
    "cache_write_input_tokens",
    "cache_write_1h_input_tokens",
    "reasoning_tokens",
)


class JudgeTotals(BaseModel):
    """What a run's judges did (``agentloop.harness.run._judges``), over its results lines and
    the attempts that retries superseded (spent too)."""

    requests: int = 0
    """Judge requests made or read (the lines' ``judge_calls``)."""
    replayed: int = 0
    """Of those, replies read from a recording (a replayed run, ``agentloop score``)."""
    cached: int = 0
    """Of those, replies served from the response cache."""
    failed: int = 0
    """Of those, requests that failed after their retries (their reward errored)."""
    retries: int = 0
    """Temporary errors retried (429, 5xx, timeouts) on the judges' requests."""
    tokens: dict[str, int] = Field(default_factory=dict)
    """The judges' token counts added up (the keys of ``RunSummary.tokens``)."""
    cost_usd: float | None = 0.0
    """USD billed for the judges' requests, not in ``RunSummary.cost_usd``; None when any
    is unknown (``cost_unknown``), never a partial sum. Replayed and cached replies cost 0."""
    cost_unknown: str | None = None
    """Why ``cost_usd`` is None: how many results have no known judge cost, the first one's
    reason."""


class _JudgeTally:
    """Folds results lines' judge fields (``judge_calls``, ``judge_usage``,
    ``judge_cost_usd``) into :class:`JudgeTotals`; None when no line has them."""

    def __init__(self) -> None:
        self.totals = JudgeTotals()
        self.seen = False
        self.usd = 0.0
        self.unknown = 0
        self.reason: str | None = None
        self.tokens: Counter[str] = Counter()

    def add(self, line: Mapping[str, Any]) -> None:
        if "judge_calls" not in line:
            return
        self.seen = True
        totals = self.totals
        for call in line.get("judge_calls") or []:
            totals.requests += 1
            totals.replayed += bool(call.get("replayed"))
            totals.cached += bool(call.get("cached"))
            totals.failed += call.get("reply") is None
            totals.retries += int(call.get("retries") or 0)
        self.tokens.update(line.get("judge_usage") or {})
        if line.get("judge_calls") and line.get("judge_cost_usd") is None:
            self.unknown += 1
            self.reason = self.reason or str(line.get("judge_cost_unknown"))
        else:
            self.usd += float(line.get("judge_cost_usd") or 0.0)

    def result(self) -> JudgeTotals | None:
        if not self.seen:
            return None
        totals = self.totals
        totals.tokens = {k: int(self.tokens.get(k, 0)) for k in _TOKEN_KEYS}
        if self.unknown:
            totals.cost_usd = None
            totals.cost_unknown = (
                f"{self.unknown} result(s) have no known judge cost: {self.reason}"
            )
        else:
            totals.cost_usd = round(self.usd, 10)
        return totals


class _CostTally:
    """USD over result lines, and the lines whose cost is unknown."""

    def __init__(self) -> None:
        self.usd = 0.0
        self.lines = 0
        self.unknown = 0
        self.reason: str | None = None

    def add(self, line: Mapping[str, Any]) -> None:
        self.lines += 1
        if "cost_usd" not in line:
            reason: str | None = "the result was written before agentloop recorded costs"
        else:
            reason = None if line["cost_usd"] is not None else str(line.get("cost_unknown"))
        if reason is None:
            self.usd += float(line["cost_usd"])
            return
        self.unknown += 1
        self.reason = self.reason or reason

    def settle(self, summary: RunSummary) -> None:
        if not self.unknown:
            summary.cost_usd, summary.cost_unknown = round(self.usd, 10), None
            return
        summary.cost_usd = None
        summary.cost_unknown = (
            f"{self.unknown} of {self.lines} result(s) have no known cost: {self.reason}"
            + (f"; the others cost {self.usd:.6f} USD" if self.unknown < self.lines else "")
        )


def _offered_tools(request: Mapping[str, Any] | None) -> bool:
    """Whether a generate-mode request bound tools the model was allowed to call."""
    if not request or request.get("tool_choice") == "none":
        return False
    turns = request.get("turn_tools") or []
    return bool(request.get("tools")) or any(turn.get("tools") for turn in turns)


def _expects_no_call(ground_truth: Any) -> bool:
    """Whether the row's expected answer is to call no tool (``"tool_calls": []``, as in
    BFCL's irrelevance categories): making none is then right, not a sign of trouble."""
    return (
        isinstance(ground_truth, Mapping)
        and ground_truth.get("tool_calls") == []
        and not ground_truth.get("turns")
    )


def _no_calls_warning(offered: int) -> str:
    return (
        f"no sample made a tool call, though {offered} result(s) were offered tools: the "
        "model answered without them. Likely causes: tool_choice (unset or auto lets the "
        "model skip tools; tool_choice: required forces a call), or the model or its server "
        "does not support tool calling (a chat template or handler without tools)"
    )


def summarize(
    lines: Iterable[Mapping[str, Any]],
    *,
    epochs: int = 1,
    invalid_lines: Iterable[str] = (),
    fail_on_error: bool | int | float = False,
    planned: int | None = None,
    superseded: Iterable[Mapping[str, Any]] = (),
    rewards: Sequence[str] = (),
    dataset: str | None = None,
    cluster_by: str | None = None,
    better: Mapping[str, str] | None = None,
) -> RunSummary:
    """The summary of result lines (streamed: lines are folded, not kept), one per (id,
    epoch); ``planned`` is the number of results a finished run has; ``superseded`` are
    the older lines that retries replaced: counted, and their tokens count in
    ``tokens`` (spent, even if superseded); ``rewards``: the configured reward keys, each
    in ``rewards`` even when no result has its score (keys found in the lines follow);
    ``dataset``: the config's (a τ²-bench run's notes say more); ``cluster_by``: the
    config's metadata key whose values cluster samples in the intervals; ``better``:
    reward key -> ``lower`` for the rewards whose lower score is better (the run header's
    ``reward_better``)."""
    acc = _Accumulator(cluster_by)
    for line in lines:
        acc.add(line)
    summary = acc.finish(epochs, planned, rewards)
    for key, way in (better or {}).items():
        if key in summary.rewards and way == "lower":
            summary.rewards[key].better = "lower"
    # Tokens are what was spent: attempts that retries superseded count too.
    extra: Counter[str] = Counter()
    replaced = 0
    for line in superseded:
        replaced += 1
        extra.update(line.get("usage") or {})
        acc.cost.add(line)
        acc.judge.add(line)
    for key in summary.tokens:
        summary.tokens[key] += int(extra.get(key, 0))
    acc.cost.settle(summary)
    for key, found in summary.reliability.items():
        cost = summary.cost_usd
        summary.cost_per_pass_usd[key] = (
            cost / found.passed if cost is not None and found.passed else None
        )
    summary.judge = acc.judge.result()
    summary.planned = planned
    summary.complete = planned is None or summary.results >= planned
    summary.invalid_lines = list(invalid_lines)
    summary.superseded = replaced
    if summary.errored:
        summary.notes.append(
            f"{summary.errored} errored result(s) score 0 in each reward's score (the "
            "headline) where they have none (a reward that raised has none; the others keep "
            "theirs), and count as failed trials in the pass rate, pass@k and pass^k; the "
            "mean over scored results leaves them out"
        )
        if str(dataset or "").startswith("tau2:"):
            summary.notes.append(
                "not comparable with τ²-bench's leaderboard while results errored: τ²-bench "
                "counts only runs without infrastructure errors (run them again with "
                "--retry-errors)"
            )
    if summary.single_turn:
        summary.notes.append(
            f"{summary.single_turn} result(s) are single-turn tool-call evaluations: the first "
            "reply's calls were scored and not executed"
        )
    if replaced:
        summary.notes.append(
            f"{replaced} older result line(s) were superseded by retries (the latest counts)"
        )
    if summary.invalid_lines:
        summary.notes.append(f"{len(summary.invalid_lines)} invalid dataset line(s) were skipped")
    summary.failure = _everything_errored(summary) or failure_reason(
        fail_on_error, summary.errored, summary.results
    )
    summary.failed = summary.failure is not None
    return summary

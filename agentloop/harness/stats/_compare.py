"""Comparing runs (``agentloop compare A B [C ...]``): reward deltas, paired differences
with a verdict, and the samples whose score changed.

The headline deltas are the two runs' headline scores. Beside them, each reward's
*paired* difference (Miller, "Adding Error Bars to Evals", section 4; the statistics are
``agentloop.harness.stats._error_bars``'s): the runs are paired on the results both have, by
(id, epoch) when their epochs agree, else by sample (each sample's mean over its epochs);
a result counts as the headline counts it (errored, or without this reward's score: 0).
The difference's standard error is clustered as the summary's intervals are (by sample id,
or by ``cluster_by``), its p-value is McNemar's exact test when every pair is a lone 0/1
result on both sides, a paired t test otherwise, and the verdict says which run is better
at 95%, or that the difference is not significant. With more than two runs every pair is
compared and the p-values are adjusted with Holm's method over the pairs, per reward.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agentloop._records import superseded_results
from agentloop.errors import AgentloopError
from agentloop.harness.rundir._files import (
    HEADER_FILE,
    RESULTS_FILE,
    index_results,
    latest_results,
    read_json,
    summary_name,
)
from agentloop.harness.rundir._header import configured_rewards, not_a_run, reward_directions
from agentloop.harness.stats._error_bars import (
    LEVEL,
    PairedDifference,
    holm,
    paired_difference,
)
from agentloop.harness.stats._pareto import CostAccuracy, cost_accuracy
from agentloop.harness.stats._summary import RunSummary, summarize
from agentloop.harness.stats._task_sets import check_task_sets

__all__ = [
    "ChangedSample",
    "Comparison",
    "MultiComparison",
    "RewardDelta",
    "compare_many",
    "compare_runs",
    "resolve_results",
    "summarize_run",
]

NO_DIFFERENCE = "no significant difference at 95%"


class RewardDelta(BaseModel):
    """One reward's headline score (errored results count 0) in both runs; a run that
    configured the reward has its score, 0 when every result errored. With its paired
    difference and the verdict."""

    reward: str
    better: Literal["higher", "lower"] = "higher"
    """Which way the reward's score is good (``RewardStats.better``): with ``lower``, the
    run with the lower score is the better one in ``verdict``."""
    a: float | None
    b: float | None
    delta: float | None
    """b - a, when both runs have the reward."""
    paired: PairedDifference | None = None
    """B − A over the results both runs have, paired (see ``Comparison.pairing``): its
    interval, test and p-value; None when a run lacks the reward or nothing pairs."""
    p_adjusted: float | None = None
    """With more than two runs: the p-value adjusted with Holm's method over every pair of
    runs (this reward's); with two, the p-value itself."""
    verdict: str | None = None
    """``B better``, ``A better`` (the runs' labels; for a lower-is-better reward, the run
    with the lower score), ``no significant difference at 95%``, or why there is none (too
    few samples)."""


class ChangedSample(BaseModel):
    """A (sample, epoch) whose score differs; None means no score (the result errored
    before scoring, or this reward raised) or no result."""

    id: str
    epoch: int
    reward: str
    a: float | None
    b: float | None


class Comparison(BaseModel):
    """Run B measured against run A."""

    a: str
    b: str
    label_a: str = "A"
    label_b: str = "B"
    summary_a: RunSummary
    summary_b: RunSummary
    rewards: list[RewardDelta] = Field(default_factory=list)
    changed: list[ChangedSample] = Field(default_factory=list)
    only_in_a: int = 0
    only_in_b: int = 0
    pairing: str | None = None
    """How the paired differences pair the runs: ``id and epoch`` (the runs' epochs agree)
    or ``sample means`` (they differ: each sample's mean over its epochs)."""
    paired_only_in_a: int = 0
    """Units (results, or samples with ``sample means``) only in A: not paired."""
    paired_only_in_b: int = 0
    """Units only in B: not paired."""
    clustered_by: str | None = None
    """What the paired standard errors take as one independent unit: ``id``,
    ``metadata.<key>`` (``cluster_by``) or None (every pair independent)."""
    warnings: list[str] = Field(default_factory=list)
    """What makes the comparison doubtful: different datasets, rewards scored in one run
    only (those are not compared per sample)."""
    cost_accuracy: list[CostAccuracy] = Field(default_factory=list)
    """Per reward: each run's score and cost, the Pareto-optimal runs marked
    (``agentloop.harness.stats._pareto``)."""


class MultiComparison(BaseModel):
    """Every pair of several runs, the p-values corrected for the number of pairs."""

    runs: list[str]
    labels: list[str]
    """The runs' labels, in order: A, B, C, ..."""
    summaries: list[RunSummary]
    pairs: list[Comparison]
    """Each pair (earlier run as A, later as B), without its summaries (see ``summaries``)."""
    correction: str
    """How the p-values were adjusted."""
    cost_accuracy: list[CostAccuracy] = Field(default_factory=list)
    """Per reward: each run's score and cost, the Pareto-optimal runs marked."""


def _dataset_digest(path: str | Path) -> tuple[str, str] | None:
    """(dataset path, sha256) from the run.json beside the results, if there is one."""
    target = Path(path)
    header = (target if target.is_dir() else target.parent) / HEADER_FILE
    if not header.is_file():
        return None
    dataset = read_json(header).get("dataset") or {}
    return str(dataset.get("path")), str(dataset.get("sha256"))


def _warnings(a: _Run, b: _Run, known: list[bool]) -> list[str]:
    found = []
    data_a, data_b = _dataset_digest(a.path), _dataset_digest(b.path)
    if data_a and data_b and data_a[1] != data_b[1]:
        found.append(
            f"the runs used different datasets ({a.label}: {data_a[0]} sha256 "
            f"{data_a[1][:12]}..., {b.label}: {data_b[0]} sha256 {data_b[1][:12]}...): the "
            "same id may be another task"
        )
    summary_a, summary_b = a.summary, b.summary
    for run in (a, b):
        if not run.summary.complete:
            found.append(
                incomplete(run.label, run.summary) + "; the paired difference pairs "
                "the results both runs have"
            )
    for key in sorted(summary_a.rewards.keys() - summary_b.rewards.keys()):
        if known[1]:  # B's rewards are known, and this is not one
            found.append(
                f"reward {key} is only in {a.label}: its scores are not compared per sample"
            )
    for key in sorted(summary_b.rewards.keys() - summary_a.rewards.keys()):
        if known[0]:
            found.append(
                f"reward {key} is only in {b.label}: its scores are not compared per sample"
            )
    if a.cluster_by and b.cluster_by and a.cluster_by != b.cluster_by:
        found.append(
            f"the runs cluster by different keys ({a.label}: {a.cluster_by}, {b.label}: "
            f"{b.cluster_by}): the paired standard errors cluster by {a.cluster_by}"
        )
    return found


def incomplete(label: str, summary: RunSummary) -> str:
    """What a reader must know of an incomplete run's figures."""
    return (
        f"{label} is incomplete ({summary.results} of {summary.planned} results): its scores "
        "count the missing results as 0, as its summary does"
    )


def _compared(key: str, summaries: list[RunSummary], known: list[bool]) -> bool:
    """A reward is compared per sample unless a run whose rewards are known lacks it (a
    results file alone with nothing scored, every result errored, is compared as
    errored)."""
    return all(key in s.rewards or not k for s, k in zip(summaries, known, strict=True))


def _configured(results: Path) -> list[str]:
    """The reward keys a results file was scored with: its run's config for
    ``results.jsonl``, the re-score's own summary for a re-scored file (none when the
    file is alone)."""
    if results.name == RESULTS_FILE:
        header = results.parent / HEADER_FILE
        return configured_rewards(read_json(header)) if header.is_file() else []
    name = summary_name(results.name)
    written = results.parent / name if name is not None else None
    return list(read_json(written).get("rewards") or {}) if written and written.is_file() else []


def _better(results: Path) -> dict[str, str]:
    header = results.parent / HEADER_FILE
    return reward_directions(read_json(header)) if header.is_file() else {}


def _config(results: Path) -> dict[str, Any]:
    header = results.parent / HEADER_FILE
    return dict(read_json(header).get("config") or {}) if header.is_file() else {}


def resolve_results(path: str | Path) -> tuple[Path, int]:
    """A run directory's results file (or a results file itself) and the run's epochs:
    its config's, or, for a results file alone, the highest epoch it holds."""
    target = Path(path)
    run_dir = target if target.is_dir() else target.parent
    results = target / RESULTS_FILE if target.is_dir() else target
    if not results.is_file():
        raise not_a_run(target, f"no results file ({RESULTS_FILE}) found")
    if (run_dir / HEADER_FILE).is_file():
        return results, int(read_json(run_dir / HEADER_FILE).get("config", {}).get("epochs", 1))
    index = index_results(results)
    return results, max((int(line["epoch"]) for line in latest_results(results, index)), default=1)


def _planned(results: Path) -> int | None:
    """The results the run planned (the run.json beside the file, as its summary reads
    it); None for a results file alone (it counts what it holds)."""
    header = results.parent / HEADER_FILE
    if not header.is_file():
        return None
    planned = read_json(header).get("planned", {}).get("results")
    return int(planned) if planned is not None else None


def _scores(line: dict[str, Any]) -> dict[str, float]:
    """The scores a result has: an errored one has those of the rewards that did not
    raise (none when it errored before scoring)."""
    return {k: float(v["score"]) for k, v in (line.get("scores") or {}).items()}


@dataclass
class _Run:
    """One run as a comparison reads it: its summary and its latest results' scores."""

    path: str
    label: str
    epochs: int
    configured: list[str]
    summary: RunSummary
    cluster_by: str | None
    scores: dict[tuple[str, int], dict[str, float]] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    """Sample id -> its metadata (the first result's), for ``cluster_by``."""
    not_applicable: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    """(sample, epoch) -> the rewards that do not apply to it (left out of their pairs)."""

    def applies(self, key: str, pair: tuple[str, int]) -> bool:
        return key not in self.not_applicable.get(pair, ())

    @property
    def known(self) -> bool:
        """Whether the run's rewards are known: from its config, else from what it scored."""
        return bool(self.configured) or self.summary.ok > 0


def _load(path: str | Path, label: str) -> _Run:
    results, epochs = resolve_results(path)
    index = index_results(results)
    configured = _configured(results)
    config = _config(results)
    cluster_by = config.get("cluster_by")
    # as the run's summary counts: its planned results, a missing one as 0
    summary = summarize(
        latest_results(results, index),
        epochs=epochs,
        superseded=superseded_results(results, index),
        rewards=configured,
        cluster_by=cluster_by,
        planned=_planned(results),
        better=_better(results),
    )
    run = _Run(str(path), label, epochs, configured, summary, cluster_by)
    for line in latest_results(results, index):
        sample, epoch = str(line["id"]), int(line["epoch"])
        run.scores[(sample, epoch)] = _scores(line)
        if skipped := line.get("not_applicable"):
            run.not_applicable[(sample, epoch)] = set(skipped)
        run.metadata.setdefault(sample, line.get("metadata"))
    return run


def _label(sample: str, metadata: Any, cluster_by: str | None) -> str:
    """A sample's cluster, as the summary's intervals take it."""
    if cluster_by is None or not isinstance(metadata, dict) or cluster_by not in metadata:
        return f"id:{sample}"
    return "value:" + json.dumps(metadata[cluster_by], sort_keys=True, ensure_ascii=False)


def _units(a: _Run, b: _Run, key: str, cluster_by: str | None) -> list[tuple[object, float, float]]:
    """The paired units of a reward: (cluster label, A's score, B's score), a result
    without the reward's score counting 0, one it does not apply to (in either run) left
    out."""
    if a.epochs == b.epochs:
        return [
            (
                _label(sample, a.metadata.get(sample), cluster_by),
                a.scores[(sample, epoch)].get(key, 0.0),
                b.scores[(sample, epoch)].get(key, 0.0),
            )
            for sample, epoch in sorted(a.scores.keys() & b.scores.keys())
            if a.applies(key, (sample, epoch)) and b.applies(key, (sample, epoch))
        ]
    means_a, means_b = _sample_means(a, key), _sample_means(b, key)
    return [
        (_label(s, a.metadata.get(s), cluster_by), means_a[s], means_b[s])
        for s in sorted(means_a.keys() & means_b.keys())
    ]


def _unpaired(a: _Run, b: _Run) -> tuple[int, int]:
    """Units only in A and only in B: results, or samples when the epochs differ."""
    if a.epochs == b.epochs:
        keys_a, keys_b = set(a.scores), set(b.scores)
        return len(keys_a - keys_b), len(keys_b - keys_a)
    ids_a, ids_b = {s for s, _ in a.scores}, {s for s, _ in b.scores}
    return len(ids_a - ids_b), len(ids_b - ids_a)


def _sample_means(run: _Run, key: str) -> dict[str, float]:
    sums: dict[str, list[float]] = {}
    for (sample, epoch), scores in run.scores.items():
        if not run.applies(key, (sample, epoch)):
            continue
        entry = sums.setdefault(sample, [0.0, 0.0])
        entry[0] += scores.get(key, 0.0)
        entry[1] += 1
    return {sample: total / n for sample, (total, n) in sums.items()}


def verdict(delta: RewardDelta, label_a: str, label_b: str) -> str | None:
    """The verdict in words from the (adjusted) p-value at 95%."""
    paired = delta.paired
    if paired is None:
        return None
    p = delta.p_adjusted if delta.p_adjusted is not None else paired.p_value
    if p is None:
        return f"no verdict: {paired.note}" if paired.note else "no verdict"
    if p >= 1 - LEVEL:
        return NO_DIFFERENCE
    b_higher = paired.mean > 0
    return f"{label_b} better" if b_higher == (delta.better == "higher") else f"{label_a} better"


def _compare(a: _Run, b: _Run) -> Comparison:
    summary_a, summary_b = a.summary, b.summary
    known = [a.known, b.known]
    keys = list(dict.fromkeys([*summary_a.rewards, *summary_b.rewards]))
    compared = [key for key in keys if _compared(key, [summary_a, summary_b], known)]
    cluster_by = a.cluster_by or b.cluster_by
    deltas = []
    for key in keys:
        ma = summary_a.rewards[key].headline if key in summary_a.rewards else None
        mb = summary_b.rewards[key].headline if key in summary_b.rewards else None
        ways = {s.rewards[key].better for s in (summary_a, summary_b) if key in s.rewards}
        delta = RewardDelta(
            reward=key,
            better="lower" if "lower" in ways else "higher",
            a=ma,
            b=mb,
            delta=mb - ma if ma is not None and mb is not None else None,
        )
        if key in compared and ma is not None and mb is not None:
            units = _units(a, b, key, cluster_by)
            if units:
                binary = all(x in (0.0, 1.0) and y in (0.0, 1.0) for _, x, y in units)
                delta.paired = paired_difference(units, binary=binary)
                delta.p_adjusted = delta.paired.p_value
        delta.verdict = verdict(delta, a.label, b.label)
        deltas.append(delta)
    changed: list[ChangedSample] = []
    for pair in sorted(a.scores.keys() & b.scores.keys(), key=_file_order(b)):
        sa, sb = a.scores[pair], b.scores[pair]
        for key in compared:
            va, vb = sa.get(key), sb.get(key)
            if va != vb:
                changed.append(ChangedSample(id=pair[0], epoch=pair[1], reward=key, a=va, b=vb))
    common = len(a.scores.keys() & b.scores.keys())
    only = _unpaired(a, b)
    several = a.epochs > 1 or b.epochs > 1
    return Comparison(
        a=a.path,
        b=b.path,
        label_a=a.label,
        label_b=b.label,
        summary_a=summary_a,
        summary_b=summary_b,
        rewards=deltas,
        changed=changed,
        only_in_a=len(a.scores) - common,
        only_in_b=len(b.scores) - common,
        pairing="id and epoch" if a.epochs == b.epochs else "sample means",
        paired_only_in_a=only[0],
        paired_only_in_b=only[1],
        clustered_by=f"metadata.{cluster_by}" if cluster_by else ("id" if several else None),
        warnings=_warnings(a, b, known),
    )


def _file_order(run: _Run) -> Any:
    """Sort key: the order of B's results file (changed samples are listed so)."""
    order = {pair: n for n, pair in enumerate(run.scores)}
    return order.__getitem__


def compare_runs(a: str | Path, b: str | Path, *, across_task_sets: bool = False) -> Comparison:
    """Per-reward deltas, paired differences with a verdict, and every (sample, epoch,
    reward) whose score changed.

    Each side is its latest line per (sample, epoch) (a retried pair as retried). Runs over
    different benchmark task sets are refused unless ``across_task_sets``
    (``agentloop.harness.stats._task_sets``).
    """
    noted = check_task_sets([a, b], ["A", "B"], across=across_task_sets)
    comparison = _compare(_load(a, "A"), _load(b, "B"))
    comparison.warnings[:0] = noted
    comparison.cost_accuracy = cost_accuracy(
        ["A", "B"], [str(a), str(b)], [comparison.summary_a, comparison.summary_b]
    )
    return comparison


def summarize_run(path: str | Path) -> RunSummary:
    """A run's summary as ``compare`` computes it (its latest results, its config's
    rewards and ``cluster_by``)."""
    return _load(path, "A").summary


def _labels(count: int) -> list[str]:
    letters = string.ascii_uppercase
    return [letters[i] if i < len(letters) else f"R{i + 1}" for i in range(count)]


def compare_many(paths: Sequence[str | Path], *, across_task_sets: bool = False) -> MultiComparison:
    """Every pair of ``paths`` compared (the earlier run as A), each reward's p-values
    adjusted with Holm's method over the pairs and the verdicts taken from them. Runs over
    different benchmark task sets are refused unless ``across_task_sets``."""
    if len(paths) < 2:
        raise AgentloopError("compare needs at least two runs")
    labels = _labels(len(paths))
    noted = check_task_sets(paths, labels, across=across_task_sets)
    runs = [_load(path, label) for path, label in zip(paths, labels, strict=True)]
    pairs = [_compare(runs[i], runs[j]) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    keys = list(dict.fromkeys(d.reward for pair in pairs for d in pair.rewards))
    for key in keys:
        deltas = [d for pair in pairs for d in pair.rewards if d.reward == key]
        adjusted = holm([d.paired.p_value if d.paired else None for d in deltas])
        for delta, p in zip(deltas, adjusted, strict=True):
            delta.p_adjusted = p
    for pair in pairs:
        pair.warnings[:0] = noted
        for delta in pair.rewards:
            delta.verdict = verdict(delta, pair.label_a, pair.label_b)
    return MultiComparison(
        runs=[str(p) for p in paths],
        labels=labels,
        summaries=[run.summary for run in runs],
        pairs=pairs,
        correction=f"Holm's method over the {len(pairs)} pairs of runs, per reward",
        cost_accuracy=cost_accuracy(labels, [str(p) for p in paths], [run.summary for run in runs]),
    )

"""BFCL accuracy of finished runs, aggregated the way BFCL's leaderboard table does.

A category's accuracy is the fraction of its results whose ``bfcl_verdict`` score is
1.0; an errored result, or one without that score, is a failure. The groups follow
``bfcl_eval.eval_checker.eval_runner_helper.generate_leaderboard_csv`` (bfcl-eval
2026.3.23):

- Non-Live AST: unweighted mean of simple, multiple, parallel, parallel_multiple, where
  simple is the unweighted mean of simple_python, simple_java and simple_javascript;
- Live AST: mean of live_simple, live_multiple, live_parallel, live_parallel_multiple
  weighted by their row counts;
- Irrelevance: unweighted mean of irrelevance and live_irrelevance;
- Relevance: live_relevance (shown, but not part of BFCL's overall);
- Multi-Turn: unweighted mean of multi_turn_base, _miss_func, _miss_param, _long_context,
  scored by ``bfcl_multi_turn_verdict`` (shown when one of them ran);
- Agentic: unweighted mean of web search (unweighted: web_search_base,
  web_search_no_snippet) and memory (unweighted: memory_kv, memory_vector,
  memory_rec_sum), scored by ``bfcl_agentic_verdict``;
- Overall: Non-Live 10, Live 10, Irrelevance 10, Multi-Turn 30, Agentic 40, divided by
  100. Format sensitivity is not part of it: BFCL reports its accuracy per prompt format,
  their max delta and standard deviation apart (``_format_spread``).

Two figures where categories are missing. BFCL counts a category not run as 0 (and, in
Live's weighted mean, with all its entries): its figure is ``bfcl_accuracy`` /
``bfcl_overall``. agentloop's own (``accuracy`` / ``overall``) is computed over the
categories and groups that ran, and marked partial with what is missing. With every
category run they are equal. A category run in part (``--limit``, ``sample_ids``, a run
not finished) is marked partial too, with how many of its entries were run (BFCL, run
so, scores the entries it has): the run's header (``run.json``) says how many rows its
dataset has (``dataset: bfcl:<category>``), or that the run selected fewer rows than its
dataset held.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentloop._records import RESULTS_FILE, latest_results
from agentloop.benchmarks.bfcl._data import BFCL_CATEGORIES
from agentloop.benchmarks.bfcl._format_sensitivity import FORMAT_SENSITIVITY
from agentloop.benchmarks.bfcl._format_spread import (
    FormatSpread,
    format_of,
    format_spread,
    format_spread_lines,
)
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES
from agentloop.benchmarks.bfcl._package import bfcl_data_dir
from agentloop.errors import AgentloopError, DatasetError
from agentloop.evals import BFCL_PROMPT_FORMATS

__all__ = [
    "AGENTIC_CATEGORIES",
    "BfclSummary",
    "CategoryScore",
    "GroupScore",
    "format_bfcl_summary",
    "summarize_bfcl",
]

VERDICT = "bfcl_verdict"
MULTI_TURN_VERDICT = "agentloop.benchmarks:bfcl_multi_turn_verdict"
AGENTIC_VERDICT = "agentloop.benchmarks:bfcl_agentic_verdict"

AGENTIC_CATEGORIES = (
    "web_search_base",
    "web_search_no_snippet",
    "memory_kv",
    "memory_vector",
    "memory_rec_sum",
)
"""BFCL v4's agentic categories (web search, memory), scored by ``AGENTIC_VERDICT``."""
_MEMORY = AGENTIC_CATEGORIES[2:]

# A group's formula: a category, or (how, parts) with how "mean" (unweighted) or
# "rows" (weighted by row counts), as generate_leaderboard_csv composes them.
Formula = Any
_GROUPS: tuple[tuple[str, Formula], ...] = (
    (
        "Non-Live AST",
        (
            "mean",
            (
                ("mean", ("simple_python", "simple_java", "simple_javascript")),
                "multiple",
                "parallel",
                "parallel_multiple",
            ),
        ),
    ),
    (
        "Live AST",
        ("rows", ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")),
    ),
    ("Irrelevance", ("mean", ("irrelevance", "live_irrelevance"))),
    ("Relevance", ("mean", ("live_relevance",))),
    ("Multi-Turn", ("mean", MULTI_TURN_CATEGORIES)),
    ("Agentic", ("mean", (("mean", AGENTIC_CATEGORIES[:2]), ("mean", AGENTIC_CATEGORIES[2:])))),
)
_ALL = BFCL_CATEGORIES + MULTI_TURN_CATEGORIES + AGENTIC_CATEGORIES
# group -> BFCL's weight in the overall (out of 100)
_OVERALL = {"Non-Live AST": 10, "Live AST": 10, "Irrelevance": 10, "Multi-Turn": 30, "Agentic": 40}
_SHOWN_WHEN_RUN = ("Multi-Turn", "Agentic")  # single-turn runs alone read as before


@dataclass
class CategoryScore:
    """One category's results."""

    category: str
    total: int = 0
    correct: int = 0
    errored: int = 0
    """Results with status error (counted as failures)."""
    unscored: int = 0
    """Results without a bfcl_verdict score (counted as failures)."""
    entries: int | None = None
    """The category's entries in the dataset its run read (``bfcl:<category>``), when known."""
    subset: bool = False
    """A run of it selected fewer rows than its dataset held (its size is not known)."""
    ids: set[str] = field(default_factory=set)
    """The distinct entries run."""
    by_format: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Format sensitivity: (correct, total) per prompt format."""
    not_comparable: int = 0
    """Results whose data was not obtained as BFCL obtains it (web searches replayed from
    a file): their verdict says ``leaderboard_comparable: false``."""

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def coverage(self) -> str | None:
        """How much of the category was run, when not all of it: ``N of M entries``."""
        if self.entries is not None and len(self.ids) < self.entries:
            return f"{len(self.ids)} of {self.entries} entries"
        if self.subset and self.entries is None:
            return f"{len(self.ids)} entries, a subset of its run's dataset"
        return None


@dataclass(frozen=True)
class GroupScore:
    """A group of categories, as the leaderboard aggregates it."""

    name: str
    accuracy: float | None
    """None when none of its categories ran."""
    missing: tuple[str, ...] = ()
    """Member categories without results (the accuracy is over the others)."""
    partial: tuple[str, ...] = ()
    """Member categories run in part, as ``category: N of M entries``."""
    bfcl_accuracy: float | None = None
    """BFCL's figure: a member not run counts as 0 (in a weighted mean, with all its
    entries). None when that cannot be told: a weighted member missing and BFCL's data
    not found to count its entries."""


@dataclass
class BfclSummary:
    categories: dict[str, CategoryScore]
    groups: list[GroupScore]
    overall: float | None
    overall_missing: tuple[str, ...]
    """Groups (or their categories) the overall lacks."""
    notes: list[str] = field(default_factory=list)
    overall_partial: tuple[str, ...] = ()
    """Categories of the overall run in part (``category: N of M entries``)."""
    bfcl_overall: float | None = None
    """BFCL's overall, what is missing counted as 0 (``GroupScore.bfcl_accuracy``)."""
    format_sensitivity: FormatSpread | None = None
    """BFCL's format-sensitivity figures, when that category ran (not in the overall)."""


def _results_file(path: Path) -> Path:
    file = path / RESULTS_FILE if path.is_dir() else path
    if not file.is_file():
        raise AgentloopError(f"{path}: not a run directory or results file (no {RESULTS_FILE})")
    return file


def _selection(file: Path) -> tuple[str | None, int | None, bool]:
    """What the run's header (``run.json`` beside ``file``) says of its selection: its
    ``bfcl:<category>`` (None for another dataset or no header), its dataset's rows, and
    whether it selected fewer rows than that (``--limit``, ``sample_ids``)."""
    header_file = file.parent / "run.json"
    if not header_file.is_file():
        return None, None, False
    try:
        header = json.loads(header_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None, False
    dataset = header.get("dataset") or {}
    rows, selected = dataset.get("valid_rows"), (header.get("planned") or {}).get("samples")
    rows = rows if isinstance(rows, int) else None
    subset = rows is not None and isinstance(selected, int) and selected < rows
    path = str(dataset.get("path") or "")
    return (path.removeprefix("bfcl:") if path.startswith("bfcl:") else None), rows, subset


def _category_of(record: dict[str, Any]) -> str | None:
    category = (record.get("metadata") or {}).get("bfcl_category")
    if isinstance(category, str):
        return category
    # an edited export may have lost its metadata: BFCL ids start with the category
    sample_id = str(record.get("id"))
    found = [c for c in _ALL if sample_id.startswith(f"{c}_")]
    return max(found, key=len) if found else None


def _tally(paths: Iterable[Path], scores: dict[str, CategoryScore], notes: list[str]) -> None:
    for path in paths:
        file = _results_file(path)
        own, rows, subset = _selection(file)
        ok = verdicts = others = 0
        key = VERDICT
        for record in latest_results(file):
            category = _category_of(record)
            if category is None:
                others += 1
                continue
            if "_prereq_" in str(record.get("id")):  # memory: BFCL scores only questions
                continue
            score = scores.setdefault(category, CategoryScore(category))
            score.total += 1
            score.ids.add(str(record.get("id")))
            if category == own:
                score.entries = _dataset_entries(category) if category in _MEMORY else rows
            score.subset = score.subset or subset
            key = _verdict_key(category)
            verdict = (record.get("scores") or {}).get(key)
            if isinstance(verdict, dict) and _not_comparable(verdict):
                score.not_comparable += 1
            if isinstance(verdict, dict) and verdict.get("score") is not None:
                # an errored result keeps the verdict when another reward raised
                ok, verdicts = ok + 1, verdicts + 1
                score.correct += verdict["score"] == 1.0
            elif record.get("status") == "error":
                score.errored += 1
            else:
                score.unscored += 1
                ok += 1
            _count_format(score, record, verdict)
        if ok and not verdicts:
            raise AgentloopError(
                f"{path}: no result has a {key} score; add it with: agentloop score "
                f"RUN_DIR --rewards {key}, then summarise the results.rescored-*.jsonl file"
            )
        if others:
            notes.append(f"{path}: {others} result(s) are not BFCL rows (left out)")


def _count_format(score: CategoryScore, record: dict[str, Any], verdict: Any) -> None:
    """A format-sensitivity result counted in its prompt format (a failure without a
    verdict of 1.0)."""
    fmt = format_of(str(record.get("id"))) if score.category == FORMAT_SENSITIVITY else None
    if fmt is not None:
        correct, total = score.by_format.get(fmt, (0, 0))
        passed = isinstance(verdict, dict) and verdict.get("score") == 1.0
        score.by_format[fmt] = (correct + passed, total + 1)


def _verdict_key(category: str) -> str:
    if category in MULTI_TURN_CATEGORIES:
        return MULTI_TURN_VERDICT
    return AGENTIC_VERDICT if category in AGENTIC_CATEGORIES else VERDICT


def _not_comparable(verdict: dict[str, Any]) -> bool:
    details = verdict.get("details")
    return isinstance(details, dict) and details.get("leaderboard_comparable") is False


Figure = tuple[float, int]  # (accuracy, rows)


def _combine(how: str, values: list[Figure]) -> Figure:
    rows = sum(n for _, n in values)
    if how == "rows":  # BFCL's calculate_weighted_accuracy
        return (sum(a * n for a, n in values) / rows if rows else 0.0), rows
    return sum(a for a, _ in values) / len(values), rows  # calculate_unweighted_accuracy


def _ran(formula: Formula, scores: dict[str, CategoryScore]) -> Figure | None:
    """agentloop's figure: over the parts that ran; None when none did."""
    if isinstance(formula, str):
        score = scores.get(formula)
        return (score.accuracy, score.total) if score is not None and score.total else None
    how, parts = formula
    found = [f for f in (_ran(p, scores) for p in parts) if f is not None]
    return _combine(how, found) if found else None


def _dataset_entries(category: str) -> int | None:
    """The entries of a category in BFCL's data, or None when its file is not found."""
    if category in _MEMORY:  # its questions, one file for every backend (not the prereqs)
        category = "memory"
    try:
        path = bfcl_data_dir() / f"BFCL_v4_{category}.json"
        with path.open(encoding="utf-8") as handle:
            return sum(1 for line in handle if line.strip())
    except (DatasetError, OSError):
        return None


def _as_bfcl(formula: Formula, scores: dict[str, CategoryScore]) -> Figure | None:
    """BFCL's figure: a category not run is 0 with its dataset's entries (get_category_score)."""
    if isinstance(formula, str):
        ran = _ran(formula, scores)
        if ran is not None:
            return ran
        entries = _dataset_entries(formula)
        return None if entries is None else (0.0, entries)
    how, parts = formula
    values = [_as_bfcl(p, scores) for p in parts]
    if how == "rows" and any(v is None for v in values):
        return None  # the weights of the missing are unknown
    return _combine(how, [v if v is not None else (0.0, 0) for v in values])


def _categories(formula: Formula) -> tuple[str, ...]:
    if isinstance(formula, str):
        return (formula,)
    return tuple(c for part in formula[1] for c in _categories(part))


def _group(name: str, formula: Formula, scores: dict[str, CategoryScore]) -> GroupScore:
    members = _categories(formula)
    present = [scores[c] for c in members if c in scores and scores[c].total]
    missing = tuple(c for c in members if c not in scores or not scores[c].total)
    theirs = _as_bfcl(formula, scores)
    bfcl = theirs[0] if theirs is not None else None
    ours = _ran(formula, scores)
    if ours is None:
        return GroupScore(name, None, missing, bfcl_accuracy=bfcl)
    partial = tuple(f"{s.category}: {s.coverage}" for s in present if s.coverage)
    return GroupScore(name, ours[0], missing, partial, bfcl)


def summarize_bfcl(paths: Sequence[str | Path]) -> BfclSummary:
    """BFCL accuracy per category, per leaderboard group and overall, over run
    directories (or results files); the latest result of each (id, epoch) counts."""
    scores: dict[str, CategoryScore] = {}
    notes: list[str] = []
    _tally([Path(p) for p in paths], scores, notes)
    if not scores:
        raise AgentloopError("no BFCL results in " + ", ".join(str(p) for p in paths))
    every = [_group(name, formula, scores) for name, formula in _GROUPS]
    counted = [g for g in every if g.name in _OVERALL and g.accuracy is not None]
    lacking = [g.name for g in every if g.name in _OVERALL and g.accuracy is None]
    lacking += [c for g in counted for c in g.missing]
    weights = sum(_OVERALL[g.name] for g in counted)
    overall = (
        sum((g.accuracy or 0.0) * _OVERALL[g.name] for g in counted) / weights if counted else None
    )
    theirs = [g.bfcl_accuracy for g in every if g.name in _OVERALL]
    # BFCL's calculate_percentage_weighted_accuracy: the weights normalised to sum to 1
    bfcl_overall = None
    if all(a is not None for a in theirs):
        total = sum(_OVERALL.values())
        bfcl_overall = sum(
            (g.bfcl_accuracy or 0.0) * (_OVERALL[g.name] / total)
            for g in every
            if g.name in _OVERALL
        )
    else:
        notes.append(
            "BFCL's overall is not shown: a Live category is missing and BFCL's data "
            "(its entry counts) was not found"
        )
    groups = [g for g in every if g.name not in _SHOWN_WHEN_RUN or g.accuracy is not None]
    order = {c: i for i, c in enumerate(_ALL)}
    ordered = dict(sorted(scores.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    for s in ordered.values():
        if s.unscored:
            notes.append(f"{s.category}: {s.unscored} result(s) without a {VERDICT} score")
        if s.not_comparable:
            notes.append(
                f"{s.category}: {s.not_comparable} result(s) from recorded searches, not live: "
                "not comparable with BFCL's leaderboard, nor is a figure that includes them"
            )
    partial = tuple(p for g in counted for p in g.partial)
    summary = BfclSummary(ordered, groups, overall, tuple(lacking), notes, partial, bfcl_overall)
    if FORMAT_SENSITIVITY in scores:
        formats = BFCL_PROMPT_FORMATS
        summary.format_sensitivity = format_spread(scores[FORMAT_SENSITIVITY].by_format, formats)
    return summary


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def _partial(missing: Sequence[str], run_in_part: Sequence[str], bfcl: float | None = None) -> str:
    """``  (partial: no a, b; c: 5 of 400 entries; BFCL: 12.50%, ...)``, or nothing when
    whole; BFCL's figure is said when something is missing."""
    parts = ([f"no {', '.join(missing)}"] if missing else []) + list(run_in_part)
    if missing and bfcl is not None:
        parts.append(f"BFCL: {_pct(bfcl)}, counting them as 0")
    return f"  (partial: {'; '.join(parts)})" if parts else ""


def format_bfcl_summary(summary: BfclSummary) -> str:
    """The summary as a plain-text table."""
    lines = [f"{'category':<24} {'rows':>6} {'correct':>8} {'errored':>8} {'accuracy':>9}"]
    for s in summary.categories.values():
        lines.append(
            f"{s.category:<24} {s.total:>6} {s.correct:>8} {s.errored:>8} {_pct(s.accuracy):>9}"
            + (f"  (partial: {s.coverage})" if s.coverage else "")
            + ("  (not comparable: recorded searches)" if s.not_comparable else "")
        )
    lines.append("")
    for g in summary.groups:
        if g.accuracy is None:
            continue
        partial = _partial(g.missing, g.partial, g.bfcl_accuracy)
        lines.append(f"{g.name:<24} {_pct(g.accuracy):>9}{partial}")
    lines.append(
        f"{'Overall':<24} {_pct(summary.overall):>9}"
        + _partial(summary.overall_missing, summary.overall_partial, summary.bfcl_overall)
    )
    if summary.format_sensitivity is not None:
        lines += ["", *format_spread_lines(summary.format_sensitivity)]
    lines.extend(f"note: {n}" for n in summary.notes)
    return "\n".join(lines)

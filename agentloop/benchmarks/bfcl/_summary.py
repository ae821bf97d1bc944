"""BFCL accuracy of finished runs, aggregated the way BFCL's leaderboard table does.

A category's accuracy is the fraction of its results whose ``bfcl_verdict`` score is
1.0; an errored result, or one without that score, is a failure. The groups follow
``bfcl_eval.eval_checker.eval_runner_helper.generate_leaderboard_csv``:

- Non-Live AST: unweighted mean of simple, multiple, parallel, parallel_multiple
  (BFCL's "simple" also averages in Java and JavaScript; here it is simple_python);
- Live AST: mean of live_simple, live_multiple, live_parallel, live_parallel_multiple
  weighted by their row counts;
- Irrelevance: unweighted mean of irrelevance and live_irrelevance;
- Relevance: live_relevance (shown, but not part of BFCL's overall);
- Multi-Turn: unweighted mean of multi_turn_base, _miss_func, _miss_param, _long_context,
  scored by ``bfcl_multi_turn_verdict`` (shown when one of them ran);
- Overall: BFCL weighs Non-Live 10, Live 10, Irrelevance 10, Multi-Turn 30 (and agentic
  40, which agentloop does not run): the weighted mean over the groups that ran.

BFCL shows a group with a category not run as N/A and counts the category as 0; here a
group is computed over the categories present and marked partial. A category run in part
(``--limit``, ``sample_ids``, a run not finished) is marked partial too, with how many of
its entries were run: the run's header (``run.json``) says how many rows its dataset has
(``dataset: bfcl:<category>``), or that the run selected fewer rows than its dataset held.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentloop._records import RESULTS_FILE, latest_results
from agentloop.benchmarks.bfcl._data import BFCL_CATEGORIES
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES
from agentloop.errors import AgentloopError

__all__ = ["BfclSummary", "CategoryScore", "GroupScore", "format_bfcl_summary", "summarize_bfcl"]

VERDICT = "bfcl_verdict"
MULTI_TURN_VERDICT = "agentloop.benchmarks:bfcl_multi_turn_verdict"

# (group, member categories, weighted by rows?)
_GROUPS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("Non-Live AST", ("simple_python", "multiple", "parallel", "parallel_multiple"), False),
    (
        "Live AST",
        ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"),
        True,
    ),
    ("Irrelevance", ("irrelevance", "live_irrelevance"), False),
    ("Relevance", ("live_relevance",), False),
    ("Multi-Turn", MULTI_TURN_CATEGORIES, False),
)
_ALL = BFCL_CATEGORIES + MULTI_TURN_CATEGORIES
# group -> BFCL's weight in the overall
_OVERALL = {"Non-Live AST": 10, "Live AST": 10, "Irrelevance": 10, "Multi-Turn": 30}


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
        for record in latest_results(file):
            category = _category_of(record)
            if category is None:
                others += 1
                continue
            score = scores.setdefault(category, CategoryScore(category))
            score.total += 1
            score.ids.add(str(record.get("id")))
            if category == own:
                score.entries = rows
            score.subset = score.subset or subset
            key = MULTI_TURN_VERDICT if category in MULTI_TURN_CATEGORIES else VERDICT
            verdict = (record.get("scores") or {}).get(key)
            if isinstance(verdict, dict) and verdict.get("score") is not None:
                # an errored result keeps the verdict when another reward raised
                ok, verdicts = ok + 1, verdicts + 1
                score.correct += verdict["score"] == 1.0
            elif record.get("status") == "error":
                score.errored += 1
            else:
                score.unscored += 1
                ok += 1
        if ok and not verdicts:
            raise AgentloopError(
                f"{path}: no result has a {VERDICT} score; add it with: agentloop score "
                f"RUN_DIR --rewards {VERDICT}, then summarise the results.rescored-*.jsonl file"
            )
        if others:
            notes.append(f"{path}: {others} result(s) are not BFCL rows (left out)")


def _group(name: str, members: tuple[str, ...], weighted: bool, scores: dict) -> GroupScore:
    present = [scores[c] for c in members if c in scores and scores[c].total]
    missing = tuple(c for c in members if c not in scores or not scores[c].total)
    if not present:
        return GroupScore(name, None, missing)
    if weighted:
        accuracy = sum(s.correct for s in present) / sum(s.total for s in present)
    else:
        accuracy = sum(s.accuracy for s in present) / len(present)
    partial = tuple(f"{s.category}: {s.coverage}" for s in present if s.coverage)
    return GroupScore(name, accuracy, missing, partial)


def summarize_bfcl(paths: Sequence[str | Path]) -> BfclSummary:
    """BFCL accuracy per category, per leaderboard group and overall, over run
    directories (or results files); the latest result of each (id, epoch) counts."""
    scores: dict[str, CategoryScore] = {}
    notes: list[str] = []
    _tally([Path(p) for p in paths], scores, notes)
    if not scores:
        raise AgentloopError("no BFCL results in " + ", ".join(str(p) for p in paths))
    groups = [_group(name, members, weighted, scores) for name, members, weighted in _GROUPS]
    # single-turn runs alone read as before: Multi-Turn shows once one of its categories ran
    groups = [g for g in groups if g.name != "Multi-Turn" or g.accuracy is not None]
    counted = [g for g in groups if g.name in _OVERALL and g.accuracy is not None]
    lacking = [g.name for g in groups if g.name in _OVERALL and g.accuracy is None]
    lacking += [c for g in counted for c in g.missing]
    weights = sum(_OVERALL[g.name] for g in counted)
    overall = (
        sum((g.accuracy or 0.0) * _OVERALL[g.name] for g in counted) / weights if counted else None
    )
    order = {c: i for i, c in enumerate(_ALL)}
    ordered = dict(sorted(scores.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    for s in ordered.values():
        if s.unscored:
            notes.append(f"{s.category}: {s.unscored} result(s) without a {VERDICT} score")
    partial = tuple(p for g in counted for p in g.partial)
    return BfclSummary(ordered, groups, overall, tuple(lacking), notes, partial)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def _partial(missing: Sequence[str], run_in_part: Sequence[str]) -> str:
    """``  (partial: no a, b; c: 5 of 400 entries)``, or nothing when whole."""
    parts = ([f"no {', '.join(missing)}"] if missing else []) + list(run_in_part)
    return f"  (partial: {'; '.join(parts)})" if parts else ""


def format_bfcl_summary(summary: BfclSummary) -> str:
    """The summary as a plain-text table."""
    lines = [f"{'category':<24} {'rows':>6} {'correct':>8} {'errored':>8} {'accuracy':>9}"]
    for s in summary.categories.values():
        lines.append(
            f"{s.category:<24} {s.total:>6} {s.correct:>8} {s.errored:>8} {_pct(s.accuracy):>9}"
            + (f"  (partial: {s.coverage})" if s.coverage else "")
        )
    lines.append("")
    for g in summary.groups:
        if g.accuracy is None:
            continue
        lines.append(f"{g.name:<24} {_pct(g.accuracy):>9}{_partial(g.missing, g.partial)}")
    lines.append(
        f"{'Overall':<24} {_pct(summary.overall):>9}"
        + _partial(summary.overall_missing, summary.overall_partial)
    )
    lines.extend(f"note: {n}" for n in summary.notes)
    return "\n".join(lines)

"""Comparing two runs (``agentloop compare A B``): reward deltas and changed samples."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agentloop._records import superseded_results
from agentloop.errors import AgentloopError
from agentloop.harness._run_files import (
    HEADER_FILE,
    RESULTS_FILE,
    index_results,
    latest_results,
    read_json,
    summary_name,
)
from agentloop.harness._rundir import configured_rewards
from agentloop.harness._stats import RunSummary, summarize

__all__ = [
    "ChangedSample",
    "Comparison",
    "RewardDelta",
    "compare_runs",
    "resolve_results",
]


class RewardDelta(BaseModel):
    """One reward's headline score (errored results count 0) in both runs; a run that
    configured the reward has its score, 0 when every result errored."""

    reward: str
    a: float | None
    b: float | None
    delta: float | None
    """b - a, when both runs have the reward."""


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
    summary_a: RunSummary
    summary_b: RunSummary
    rewards: list[RewardDelta] = Field(default_factory=list)
    changed: list[ChangedSample] = Field(default_factory=list)
    only_in_a: int = 0
    only_in_b: int = 0
    warnings: list[str] = Field(default_factory=list)
    """What makes the comparison doubtful: different datasets, rewards scored in one run
    only (those are not compared per sample)."""


def _dataset_digest(path: str | Path) -> tuple[str, str] | None:
    """(dataset path, sha256) from the run.json beside the results, if there is one."""
    target = Path(path)
    header = (target if target.is_dir() else target.parent) / HEADER_FILE
    if not header.is_file():
        return None
    dataset = read_json(header).get("dataset") or {}
    return str(dataset.get("path")), str(dataset.get("sha256"))


def _warnings(
    a: str | Path, b: str | Path, summary_a: RunSummary, summary_b: RunSummary, known: list[bool]
) -> list[str]:
    found = []
    data_a, data_b = _dataset_digest(a), _dataset_digest(b)
    if data_a and data_b and data_a[1] != data_b[1]:
        found.append(
            f"the runs used different datasets (A: {data_a[0]} sha256 {data_a[1][:12]}..., "
            f"B: {data_b[0]} sha256 {data_b[1][:12]}...): the same id may be another task"
        )
    for key in sorted(summary_a.rewards.keys() - summary_b.rewards.keys()):
        if known[1]:  # B's rewards are known, and this is not one
            found.append(f"reward {key} is only in A: its scores are not compared per sample")
    for key in sorted(summary_b.rewards.keys() - summary_a.rewards.keys()):
        if known[0]:
            found.append(f"reward {key} is only in B: its scores are not compared per sample")
    return found


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


def resolve_results(path: str | Path) -> tuple[Path, int]:
    """A run directory's results file (or a results file itself) and the run's epochs."""
    target = Path(path)
    run_dir = target if target.is_dir() else target.parent
    results = target / RESULTS_FILE if target.is_dir() else target
    if not results.is_file():
        raise AgentloopError(f"{path}: no results file ({RESULTS_FILE}) found")
    epochs = 1
    if (run_dir / HEADER_FILE).is_file():
        epochs = int(read_json(run_dir / HEADER_FILE).get("config", {}).get("epochs", 1))
    return results, epochs


def _scores(line: dict[str, Any]) -> dict[str, float]:
    """The scores a result has: an errored one has those of the rewards that did not
    raise (none when it errored before scoring)."""
    return {k: float(v["score"]) for k, v in (line.get("scores") or {}).items()}


def compare_runs(a: str | Path, b: str | Path) -> Comparison:
    """Per-reward mean deltas and every (sample, epoch, reward) whose score changed.

    Each side is its latest line per (sample, epoch) (a retried pair as retried).
    """
    path_a, epochs_a = resolve_results(a)
    path_b, epochs_b = resolve_results(b)
    index_a, index_b = index_results(path_a), index_results(path_b)
    configured_a, configured_b = _configured(path_a), _configured(path_b)
    summary_a = summarize(
        latest_results(path_a, index_a), epochs=epochs_a,
        superseded=superseded_results(path_a, index_a), rewards=configured_a,
    )  # fmt: skip
    summary_b = summarize(
        latest_results(path_b, index_b), epochs=epochs_b,
        superseded=superseded_results(path_b, index_b), rewards=configured_b,
    )  # fmt: skip
    # A run's rewards are known from its config, else from the results it scored.
    known = [bool(configured_a) or summary_a.ok > 0, bool(configured_b) or summary_b.ok > 0]
    keys = list(dict.fromkeys([*summary_a.rewards, *summary_b.rewards]))
    deltas = []
    for key in keys:
        ma = summary_a.rewards[key].headline if key in summary_a.rewards else None
        mb = summary_b.rewards[key].headline if key in summary_b.rewards else None
        delta = mb - ma if ma is not None and mb is not None else None
        deltas.append(RewardDelta(reward=key, a=ma, b=mb, delta=delta))
    compared = [key for key in keys if _compared(key, [summary_a, summary_b], known)]
    # Only A's scores are held (small per line); B is streamed against them.
    held = {(str(x["id"]), int(x["epoch"])): _scores(x) for x in latest_results(path_a, index_a)}
    changed: list[ChangedSample] = []
    only_b = 0
    for line in latest_results(path_b, index_b):
        pair = (str(line["id"]), int(line["epoch"]))
        if pair not in held:
            only_b += 1
            continue
        sa, sb = held.pop(pair), _scores(line)
        for key in compared:
            va, vb = sa.get(key), sb.get(key)
            if va != vb:
                changed.append(ChangedSample(id=pair[0], epoch=pair[1], reward=key, a=va, b=vb))
    return Comparison(
        a=str(a),
        b=str(b),
        summary_a=summary_a,
        summary_b=summary_b,
        rewards=deltas,
        changed=changed,
        only_in_a=len(held),
        only_in_b=only_b,
        warnings=_warnings(a, b, summary_a, summary_b, known),
    )

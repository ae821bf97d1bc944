"""Rewards broken down by the rows' metadata: per value of each key that groups samples
(``RunSummary.by_metadata``), each value's results, errored ones, mean score and interval,
tallied as result lines stream by (memory bounded by the keys that group)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from agentloop.harness.stats._error_bars import ClusterTotals, Interval, mean_interval

__all__ = [
    "MAX_METADATA_VALUES",
    "NOT_SET",
    "MetadataGroup",
    "MetadataTally",
    "cluster_label",
    "metadata_value",
    "sample_label",
]

MAX_METADATA_VALUES = 20
"""A metadata key with more distinct values than this is not broken down."""
NOT_SET = "(not set)"
"""The group of the samples whose metadata lacks the key."""


class MetadataGroup(BaseModel):
    """The results whose metadata has one value of one key."""

    results: int
    """Results (sample x epoch) with this value."""
    errored: int
    """Of those, results that errored (they score 0 in ``scores``)."""
    scores: dict[str, float] = Field(default_factory=dict)
    """Reward key -> mean score over these results, an errored one scoring 0 (as the
    headline counts it; results the run never wrote are not in any group), those the
    reward does not apply to left out (a reward that applies to none is absent)."""
    intervals: dict[str, Interval] = Field(default_factory=dict)
    """Reward key -> 95% interval of its score here, as ``RewardStats.interval`` (for the
    key ``cluster_by`` names, each group's results are clustered by sample id)."""


def metadata_value(metadata: Any, key: str) -> str | None:
    """The text of ``metadata[key]`` that groups results: a string as it is, a number,
    boolean or null as JSON, ``NOT_SET`` when the key is absent; None when the value is
    a list or an object (such a key is not broken down)."""
    if not isinstance(metadata, Mapping) or key not in metadata:
        return NOT_SET
    value = metadata[key]
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    return None


def sample_label(line: Mapping[str, Any]) -> str:
    return f"id:{line['id']}"


def cluster_label(line: Mapping[str, Any], cluster_by: str | None) -> str:
    """The cluster a result belongs to: its sample, or its value of ``cluster_by``
    (non-scalar values as JSON; a result without the key: its sample)."""
    metadata = line.get("metadata")
    if cluster_by is None or not isinstance(metadata, Mapping) or cluster_by not in metadata:
        return sample_label(line)
    return "value:" + json.dumps(metadata[cluster_by], sort_keys=True, ensure_ascii=False)


class MetadataTally:
    """Per metadata key and value: results, errored ones and score sums. A key stops
    being tallied as soon as it cannot be broken down (a list or object value, or too many
    values), so memory stays bounded by the keys that group."""

    def __init__(self, cluster_by: str | None = None) -> None:
        self.cluster_by = cluster_by
        self.all = _Tally()  # every result so far: a key first seen late starts from it
        self.keys: dict[str, dict[str, _Tally]] = {}
        self.dropped: set[str] = set()

    def add(self, line: Mapping[str, Any]) -> None:
        metadata = line.get("metadata")
        if isinstance(metadata, Mapping):
            for key in metadata:
                if key not in self.keys and key not in self.dropped:
                    # the results before this one lacked the key
                    self.keys[key] = {NOT_SET: self.all.copy()} if self.all.results else {}
        label = cluster_label(line, self.cluster_by)
        self.all.add(line, label)
        for key in list(self.keys):
            value = metadata_value(metadata, key)
            values = self.keys[key]
            if value is None or (value not in values and len(values) >= MAX_METADATA_VALUES):
                self.dropped.add(key)
                del self.keys[key]
                continue
            # within one value of the cluster key, the samples are the clusters
            values.setdefault(value, _Tally()).add(
                line, sample_label(line) if key == self.cluster_by else label
            )

    def groups(self, rewards: list[str], samples: int) -> dict[str, dict[str, MetadataGroup]]:
        return {
            key: {
                value: MetadataGroup(
                    results=t.results,
                    errored=t.errored,
                    scores={r: t.sums[r] / t.counted(r) for r in rewards if t.counted(r)},
                    intervals={
                        r: mean_interval(t.totals(r), binary=r not in t.fractional)
                        for r in rewards
                        if t.counted(r)
                    },
                )
                for value, t in sorted(values.items())
            }
            for key, values in self.keys.items()
            if 2 <= len(values) < samples
        }


class _Tally:
    """Results, errored results and score sums of a group, and per cluster of it (for
    its intervals): results, and each reward's sum and sum of squares."""

    def __init__(self) -> None:
        self.results = 0
        self.errored = 0
        self.sums: defaultdict[str, float] = defaultdict(float)
        self.cluster_results: Counter[str] = Counter()
        self.cluster_sums: defaultdict[str, dict[str, list[float]]] = defaultdict(dict)
        self.fractional: set[str] = set()  # rewards with a score other than 0 or 1
        self.not_applicable: defaultdict[str, Counter[str]] = defaultdict(Counter)

    def add(self, line: Mapping[str, Any], label: str) -> None:
        self.results += 1
        self.cluster_results[label] += 1
        if line.get("status") != "ok":
            self.errored += 1
        for reward in line.get("not_applicable") or {}:  # per cluster: not counted
            self.not_applicable[reward][label] += 1
        for reward, result in (line.get("scores") or {}).items():
            score = float(result["score"])
            self.sums[reward] += score
            entry = self.cluster_sums[reward].setdefault(label, [0.0, 0.0])
            entry[0] += score
            entry[1] += score * score
            if score not in (0.0, 1.0):
                self.fractional.add(reward)

    def counted(self, reward: str) -> int:
        """Results ``reward`` applies to."""
        return self.results - sum(self.not_applicable[reward].values())

    def totals(self, reward: str) -> list[ClusterTotals]:
        """Per cluster: (results, sum, sum of squares) of ``reward``, unscored as 0; the
        results it does not apply to left out."""
        sums = self.cluster_sums.get(reward, {})
        skipped = self.not_applicable[reward]
        return [
            (n - skipped[label], *sums.get(label, (0.0, 0.0)))
            for label, n in self.cluster_results.items()
            if n > skipped[label]
        ]

    def copy(self) -> _Tally:
        twin = _Tally()
        twin.results, twin.errored = self.results, self.errored
        twin.sums.update(self.sums)
        twin.cluster_results.update(self.cluster_results)
        for reward, clusters in self.cluster_sums.items():
            twin.cluster_sums[reward] = {label: list(v) for label, v in clusters.items()}
        twin.fractional = set(self.fractional)
        for reward, skipped in self.not_applicable.items():
            twin.not_applicable[reward].update(skipped)
        return twin

"""Which dataset rows a run takes, and in which order: ``sample_ids``, ``shuffle``, ``limit``.

Selection first (ids or globs against each valid row's id), then the order (file
order, or shuffled), then ``limit`` takes the first N. ``select_rows`` runs before
anything else, so an id or glob that matches no row stops the run at once.

The dataset is streamed, never held: a selection holds line numbers, and a shuffled
run reads each row at its byte offset when its turn comes. Shuffling sorts rows by
sha256(seed, id), not by Python's ``random`` or ``hash``: the same seed gives the same
order on every machine and Python version, whatever the file's order.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from agentloop.benchmarks import agentdojo_suite, bfcl_category, tau2_domain
from agentloop.errors import ConfigError
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.data._dataset import DatasetScan, iter_samples
from agentloop.harness.data._rows import Sample, parse_line

__all__ = ["Selection", "iter_selected", "select_rows", "shuffle_key"]

_GLOB_CHARS = frozenset("*?[")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Selection:
    """The rows a run takes."""

    count: int
    """Rows to run (``limit`` applied)."""
    lines: list[int] | None = None
    """Their dataset line numbers in run order; None: the first ``count`` valid rows."""
    shuffled: bool = False


def shuffle_key(seed: int, sample_id: str) -> int:
    """A row's place in a shuffled run: the first 8 bytes of sha256(seed, id)."""
    digest = hashlib.sha256(f"{seed}\0{sample_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class _Matcher:
    """``sample_ids`` as exact ids (a set lookup) and globs; remembers which matched."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = list(dict.fromkeys(patterns))
        self.exact = {p for p in self.patterns if not _GLOB_CHARS & set(p)}
        self.globs = [p for p in self.patterns if p not in self.exact]
        self.matched: set[str] = set()

    def __call__(self, sample_id: str) -> bool:
        # an id may itself hold glob characters ("a[1]"): equal text matches too
        hits = [g for g in self.globs if g == sample_id or fnmatchcase(sample_id, g)]
        if sample_id in self.exact:
            hits.append(sample_id)
        self.matched.update(hits)
        return bool(hits)

    def unmatched(self) -> list[str]:
        return [p for p in self.patterns if p not in self.matched]


def select_rows(config: EvalConfig, scan: DatasetScan) -> Selection:
    """The selection of a config; ``ConfigError`` naming every id or glob matching no row."""
    limit = config.limit
    if not config.sample_ids and not config.shuffle:
        return Selection(scan.valid if limit is None else min(limit, scan.valid))
    match = _Matcher(config.sample_ids) if config.sample_ids else None
    rows = (s for s in iter_samples(config.dataset, config.mode) if match is None or match(s.id))
    if config.shuffle:
        seed = config.seed or 0
        keyed = ((shuffle_key(seed, s.id), s.line) for s in rows)
        # nsmallest keeps only `limit` rows' keys in memory while streaming
        ordered = sorted(keyed) if limit is None else heapq.nsmallest(limit, keyed)
        lines = [line for _, line in ordered]
    else:
        lines = [s.line for s in rows]
        lines = lines if limit is None else lines[:limit]
    if match is not None and match.unmatched():
        names = ", ".join(repr(p) for p in match.unmatched())
        raise ConfigError(f"sample_ids: no row of {config.dataset} has an id matching {names}")
    return Selection(len(lines), lines, config.shuffle)


def iter_selected(config: EvalConfig, selection: Selection) -> Iterator[Sample]:
    """The selected rows as samples, in run order (streamed)."""
    if selection.lines is None:
        for index, sample in enumerate(iter_samples(config.dataset, config.mode)):
            if index >= selection.count:
                return
            yield sample
    elif not selection.shuffled:
        wanted, left = set(selection.lines), len(selection.lines)
        for sample in iter_samples(config.dataset, config.mode):
            if left == 0:
                return
            if sample.line in wanted:
                left -= 1
                yield sample
    elif any(f(config.dataset) is not None for f in (bfcl_category, tau2_domain, agentdojo_suite)):
        # no file to seek in: pick by line
        wanted = set(selection.lines)
        rows = {s.line: s for s in iter_samples(config.dataset, config.mode) if s.line in wanted}
        yield from (rows[line] for line in selection.lines)
    else:
        yield from _read_at_offsets(Path(config.dataset), selection.lines, config)


def _read_at_offsets(path: Path, lines: list[int], config: EvalConfig) -> Iterator[Sample]:
    """Rows by line number in the given order, each read at its byte offset."""
    wanted, offsets = set(lines), {}
    with path.open("rb") as handle:
        position = 0
        for number, raw in enumerate(handle, start=1):
            if number in wanted:
                offsets[number] = position
            position += len(raw)
        for number in lines:
            handle.seek(offsets[number])
            raw = handle.readline()
            if number == 1:
                raw = raw.removeprefix(_BOM)  # skipped by the dataset reader too
            # valid when selected (the dataset's sha256 is checked before a resume)
            yield parse_line(raw.decode("utf-8"), number, config.mode)

"""The results-line file of a run directory, read by the harness and by replay.

Neither layer owns it alone: the harness writes ``results.jsonl``, replay (a model
provider, below the harness) reads recordings from it. See ``agentloop.harness`` for
the line format.

The file is append-only: re-running an errored (id, epoch) (``--retry-errors``)
appends a new line instead of rewriting the old one, so a kill can never damage a
finished result. **The latest line of a pair wins**: :func:`latest_results` is that
rule, and every reader of results (summary, compare, rescore, replay, resume, any
viewer) reads through it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentloop.errors import AgentloopError

__all__ = [
    "RESULTS_FILE",
    "ResultIndex",
    "index_results",
    "iter_results",
    "latest_results",
    "latest_status",
    "superseded_results",
]

RESULTS_FILE = "results.jsonl"

Pair = tuple[str, int]

# The harness writes ``{"id": ..., "epoch": N, ...}`` first: reading just that prefix
# lets the index pass skip parsing long trajectories. Anything else is parsed whole.
_KEY = re.compile(rb'\{"id": ("(?:[^"\\]|\\.)*"), "epoch": (\d+)[,}]')


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """Complete, non-blank lines with their line numbers; stops at a torn last line."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                return  # torn by a kill mid-write: not a result
            if raw.strip():
                yield number, raw


def _record(path: Path, number: int, raw: bytes) -> dict[str, Any]:
    try:
        record = json.loads(raw)
    except ValueError:
        raise AgentloopError(f"{path}:{number}: corrupt result line") from None
    if not isinstance(record, dict) or "id" not in record or "epoch" not in record:
        raise AgentloopError(f"{path}:{number}: not a result record")
    return record


def iter_results(path: Path) -> Iterator[dict[str, Any]]:
    """Every complete result line, superseded ones included; a torn last line (no
    newline) is ignored. Readers of a run want :func:`latest_results`."""
    for number, raw in _lines(path):
        yield _record(path, number, raw)


def _pair(path: Path, number: int, raw: bytes) -> Pair:
    match = _KEY.match(raw)
    if match is not None:
        return json.loads(match[1]), int(match[2])
    record = _record(path, number, raw)
    return str(record["id"]), int(record["epoch"])


@dataclass(frozen=True)
class ResultIndex:
    """Where each (id, epoch)'s latest line is: pair -> line number (no line is held)."""

    latest: dict[Pair, int]
    superseded_lines: tuple[int, ...]
    """Line numbers of the older lines of retried pairs (replaced by a later line)."""
    lines: int
    """Result lines read, superseded ones included."""
    last_line: int
    """Line number of the last one read (lines appended later are not indexed)."""

    @property
    def superseded(self) -> int:
        """Older lines replaced by a later line of the same pair (a retry)."""
        return self.lines - len(self.latest)


def index_results(path: Path) -> ResultIndex:
    """Read a results file once and note the latest line of each (id, epoch)."""
    latest: dict[Pair, int] = {}
    older: list[int] = []
    lines = last = 0
    for number, raw in _lines(path):
        replaced = latest.get(pair := _pair(path, number, raw))
        if replaced is not None:
            older.append(replaced)
        latest[pair] = number
        lines, last = lines + 1, number
    return ResultIndex(latest, tuple(older), lines, last)


def superseded_results(path: Path, index: ResultIndex) -> Iterator[dict[str, Any]]:
    """The older lines of retried pairs: not results any more, but what they spent
    (tokens) was spent."""
    wanted = set(index.superseded_lines)
    if not wanted:
        return
    for number, raw in _lines(path):
        if number > index.last_line:
            return
        if number in wanted:
            yield _record(path, number, raw)


def latest_results(path: Path, index: ResultIndex | None = None) -> Iterator[dict[str, Any]]:
    """The effective results: for each (id, epoch) its latest line, in file order.

    Two passes: the first (``index``, computed when not given) finds the latest line of
    each pair, the second yields those lines, so lines are streamed, never all held.
    Lines appended after the index was made are left out: what is read is a snapshot.
    """
    index = index or index_results(path)
    wanted = set(index.latest.values())
    for number, raw in _lines(path):
        if number > index.last_line:
            return
        if number in wanted:
            yield _record(path, number, raw)


def latest_status(path: Path) -> dict[Pair, str]:
    """(id, epoch) -> status (``ok`` / ``error``) of its effective result."""
    return {(str(r["id"]), int(r["epoch"])): str(r.get("status")) for r in latest_results(path)}

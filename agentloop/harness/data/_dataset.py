"""Evaluation datasets: JSONL, one task per line, validated line by line and streamed.

A line is an object in the format of the tool-calling reference::

    {"id": "q1",                              # optional; default "line-<N>"
     "messages": [{"role": "user", ...}, ...],  # OpenAI chat format, required
     "tools": [{"type": "function", "function": {"name": ..., ...}}],  # optional
     "ground_truth": {"tool_calls": [...]},    # optional, for tool-call rewards
     "answer": "Paris" | ["Paris", "paris"],    # optional, for QA rewards
     "metadata": {...},                         # optional, copied to results
     "turns": [{"messages": [...], "tools": [...]}, ...],  # optional: turns 2..N
     "environment": {...}}                      # optional: the environment's initial state

A multi-turn row lists its later turns in ``turns``: each turn's ``messages`` (user
messages, possibly ``[]``) are appended after the previous turn ends, and its ``tools``
become available from that turn on: a string names a configured or environment tool
held back until then, a schema adds that tool (implemented when one of that name is
configured). ``ground_truth`` then holds ``{"turns": [{"tool_calls": [...]}, ...]}``,
one entry per turn, the first turn's first. ``environment`` is any JSON; the config's
environment factory reads it from the row (``agentloop.harness.run._environment``).

Other top-level fields are read by nothing: the run warns about each before the first
sample (``agentloop.harness.data._row_fields``). The trailing assistant and tool messages after
the last user or system message are the *recorded generation*: ``mode: score``
scores them as they are, ``mode: generate`` strips them and asks the model anew; the
same holds for each later turn's messages.

``scan_dataset`` reads the file once (sha256, every problem, the count of valid rows);
``iter_samples`` streams it again for the run, so rows are never all held. A UTF-8 byte
order mark at the start of the file (some Windows editors write one) is skipped.

``bfcl:<category>`` instead of a path reads a BFCL category through
``agentloop.benchmarks``: the lines ``agentloop bfcl export`` would write, line N
being row N, so the rows and the sha256 are those of the exported file. ``tau2:<domain>``
(``tau2:<domain>@<task set>``) reads a τ²-bench domain the same way
(``agentloop.benchmarks.tau2._data``), ``agentdojo:<suite>`` (``?version=...&attack=...``) an
AgentDojo suite (``agentloop.benchmarks.agentdojo._rows``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentloop.benchmarks import (
    agentdojo_lines,
    agentdojo_suite,
    bfcl_category,
    bfcl_data_dir,
    bfcl_lines,
    check_agentdojo_source,
    check_bfcl_category,
    check_tau2_domain,
    check_tau2_options,
    tau2_data_dir,
    tau2_domain,
    tau2_lines,
    tau2_retrieval_config,
    tau2_task_set,
)
from agentloop.errors import DatasetError
from agentloop.harness.data._row_fields import RowFields
from agentloop.harness.data._row_tools import RowTools
from agentloop.harness.data._rows import Mode, Sample, parse_line

__all__ = ["DatasetScan", "LineProblem", "iter_samples", "scan_dataset"]

_MAX_LISTED = 50  # bad lines listed in one error message


@dataclass(frozen=True, slots=True)
class LineProblem:
    """Why one line of a dataset is invalid."""

    file: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.what}"


@dataclass(slots=True)
class DatasetScan:
    """The result of reading a dataset once: digest, counts and every problem."""

    path: str
    sha256: str
    valid: int
    problems: list[LineProblem]
    tool_names: set[str] = field(default_factory=set)
    """Names of the tool schemas the valid rows declare (to check ``tool_choice``)."""
    row_tools: RowTools = field(default_factory=RowTools)
    """What the valid rows bind and expect (``agentloop.harness.data._row_tools``)."""
    row_fields: RowFields = field(default_factory=RowFields)
    """Which fields the valid rows have (``agentloop.harness.data._row_fields``)."""

    def raise_if_invalid(self) -> None:
        """Raise ``DatasetError`` when there is nothing to run or a line is bad (each bad
        line listed as ``file:line: what``)."""
        if not self.problems:
            if self.valid == 0:
                raise DatasetError(f"{self.path}: the dataset has no rows")
            return
        shown = [str(p) for p in self.problems[:_MAX_LISTED]]
        more = len(self.problems) - len(shown)
        if more:
            shown.append(f"... and {more} more")
        if self.valid == 0:  # skip_invalid cannot help: say so rather than suggest it
            head = f"{self.path}: no valid rows; {len(self.problems)} invalid line(s)"
        else:
            head = (
                f"{self.path}: {len(self.problems)} invalid line(s) "
                "(fix them, or set skip_invalid: true to run the rest)"
            )
        raise DatasetError("\n".join([head, *shown]))


_BOM = b"\xef\xbb\xbf"


def _lines(path: Path) -> Iterator[tuple[int, bytes, bytes]]:
    """(number, raw bytes for the digest, the line's text bytes without a leading BOM)."""
    suite = agentdojo_suite(str(path))
    if suite is not None:
        for number, text in enumerate(agentdojo_lines(suite), start=1):
            raw = text.encode("utf-8")
            yield number, raw, raw
        return
    category, domain = bfcl_category(str(path)), tau2_domain(str(path))
    if category is not None or domain is not None:
        lines = (
            bfcl_lines(category)
            if category is not None
            else tau2_lines(
                str(domain),
                task_set=tau2_task_set(str(path)),
                retrieval_config=tau2_retrieval_config(str(path)),
            )
        )
        for number, text in enumerate(lines, start=1):
            raw = text.encode("utf-8")
            yield number, raw, raw
        return
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            yield number, raw, raw.removeprefix(_BOM) if number == 1 else raw


def _decode(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _walk(path: Path, mode: Mode, digest: Any = None) -> Iterator[Sample | LineProblem]:
    """Every non-blank line as a Sample or a LineProblem; duplicate ids are problems."""
    name = str(path)
    first_line: dict[str, int] = {}
    for number, raw, content in _lines(path):
        if digest is not None:
            digest.update(raw)
        text = _decode(content)
        if text is None:
            yield LineProblem(name, number, "not valid UTF-8")
            continue
        if not text.strip():
            continue
        try:
            sample = parse_line(text, number, mode)
        except ValueError as exc:
            yield LineProblem(name, number, str(exc))
            continue
        if sample.id in first_line:
            yield LineProblem(
                name, number, f"duplicate id {sample.id!r} (first on line {first_line[sample.id]})"
            )
            continue
        first_line[sample.id] = number
        yield sample


def _open_check(path: Path) -> None:
    category = bfcl_category(str(path))
    if category is not None:  # one-line errors before any row is read
        check_bfcl_category(category)
        bfcl_data_dir()
        return
    domain = tau2_domain(str(path))
    if domain is not None:
        check_tau2_domain(domain)
        check_tau2_options(domain, tau2_retrieval_config(str(path)))
        tau2_data_dir(task_set=tau2_task_set(str(path)))
        return
    suite = agentdojo_suite(str(path))
    if suite is not None:
        check_agentdojo_source(suite)
        return
    if not path.is_file():
        raise DatasetError(f"dataset not found: {path}")


def scan_dataset(path: str | Path, mode: Mode = "generate") -> DatasetScan:
    """Read the whole dataset once: its sha256, how many rows are valid, every problem."""
    file = Path(path)
    _open_check(file)
    digest = hashlib.sha256()
    valid, problems = 0, []
    names: set[str] = set()
    row_tools, row_fields = RowTools(), RowFields()
    for item in _walk(file, mode, digest):
        if isinstance(item, LineProblem):
            problems.append(item)
        else:
            valid += 1
            names.update(item.tool_names)
            row_tools.add(item)
            row_fields.add(item)
    return DatasetScan(str(file), digest.hexdigest(), valid, problems, names, row_tools, row_fields)


def iter_samples(path: str | Path, mode: Mode = "generate") -> Iterator[Sample]:
    """Stream the valid rows in file order (invalid lines are skipped)."""
    file = Path(path)
    _open_check(file)
    for item in _walk(file, mode):
        if isinstance(item, Sample):
            yield item

"""BFCL's categories read from its own package, as agentloop dataset rows (single-turn
here, multi-turn through ``_multi``).

The data comes from ``bfcl-eval`` (``bfcl_eval/data/BFCL_v4_<category>.json`` and
``possible_answer/``; JSON Lines despite the name), installed with ``pip install
--no-deps`` because its dependencies pull torch: by a user into the environment, or by
``make`` into its own folder ``<prefix>/bfcl-eval`` (``pip install --no-deps --target``),
outside site-packages, where pip's dependency check does not see a package missing its
dependencies. ``AGENTLOOP_BFCL_DATA`` (or a ``data_dir`` argument) points at another
directory of the same layout instead.

``bfcl_lines`` is the one serialisation: ``agentloop bfcl export`` writes these lines
and ``dataset: bfcl:<category>`` reads them, so both give the same rows and sha256.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentloop.benchmarks.bfcl._convert import bfcl_row
from agentloop.benchmarks.bfcl._format_sensitivity import (
    FORMAT_SENSITIVITY,
    format_sensitivity_rows,
)
from agentloop.benchmarks.bfcl._memory import check_memory_category, memory_rows
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES, bfcl_multi_turn_row
from agentloop.benchmarks.bfcl._package import bfcl_data_dir
from agentloop.benchmarks.bfcl._web_search import WEB_SEARCH_CATEGORIES, bfcl_web_search_row
from agentloop.errors import DatasetError

__all__ = [
    "BFCL_CATEGORIES",
    "BFCL_PREFIX",
    "NO_CALL_CATEGORIES",
    "bfcl_category",
    "bfcl_lines",
    "bfcl_rows",
    "check_bfcl_category",
    "export_bfcl",
]

BFCL_PREFIX = "bfcl:"


BFCL_CATEGORIES = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)
"""The single-turn categories; ``MULTI_TURN_CATEGORIES`` are the others agentloop reads."""
NO_CALL_CATEGORIES = frozenset({"irrelevance", "live_irrelevance", "live_relevance"})
"""Categories without a possible-answer file: the expected calls are ``[]``."""


def bfcl_category(dataset: str) -> str | None:
    """The category of a ``bfcl:<category>`` dataset source; None for a file path."""
    return dataset[len(BFCL_PREFIX) :] if dataset.startswith(BFCL_PREFIX) else None


def check_bfcl_category(category: str) -> None:
    """``DatasetError`` (one line, listing the known ones) for an unknown category."""
    every = (*BFCL_CATEGORIES, *MULTI_TURN_CATEGORIES, *WEB_SEARCH_CATEGORIES, FORMAT_SENSITIVITY)
    if category.startswith("memory_"):
        check_memory_category(category)  # an unknown backend, or what memory_vector lacks
        return
    if category not in every:
        known = ", ".join(every)
        raise DatasetError(f"unknown BFCL category {category!r}; known: {known}")


def _read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(f"BFCL data file not found: {path}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                raise DatasetError(f"{path}:{number}: not a JSON object") from None
            if not isinstance(entry, dict) or "id" not in entry:
                raise DatasetError(f"{path}:{number}: not a BFCL entry (no id)")
            yield entry


def bfcl_rows(category: str, data_dir: str | Path | None = None) -> Iterator[dict[str, Any]]:
    """The rows of a category, in BFCL's order."""
    if category == FORMAT_SENSITIVITY:
        yield from _format_sensitivity_rows(bfcl_data_dir(data_dir))
        return
    check_bfcl_category(category)
    if category.startswith("memory_"):
        yield from memory_rows(category, data_dir)
        return
    directory = bfcl_data_dir(data_dir)
    # both web-search categories read one file (BFCL renames the ids)
    name = f"BFCL_v4_{'web_search' if category in WEB_SEARCH_CATEGORIES else category}.json"
    answers: dict[str, list[Any]] = {}  # multi-turn: per turn, a list of call strings
    if category not in NO_CALL_CATEGORIES:
        answers = {
            str(a["id"]): a.get("ground_truth") or []
            for a in _read_jsonl(directory / "possible_answer" / name)
        }
    for entry in _read_jsonl(directory / name):
        answer = None
        if category not in NO_CALL_CATEGORIES:
            answer = answers.get(str(entry["id"]))
            if answer is None:
                raise DatasetError(f"{directory / name}: no possible answer for {entry['id']!r}")
        if category in MULTI_TURN_CATEGORIES:
            yield bfcl_multi_turn_row(entry, category, answer or [])
        elif category in WEB_SEARCH_CATEGORIES:
            yield bfcl_web_search_row(entry, category, answer or [])
        else:
            yield bfcl_row(entry, category, answer)


def _format_sensitivity_rows(directory: Path) -> Iterator[dict[str, Any]]:
    """BFCL's ``load_format_sensitivity_test_cases``: the listed entries of each source
    category (in the file's order of categories, each category's own order of entries)."""
    path = directory / f"BFCL_v4_{FORMAT_SENSITIVITY}.json"
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"BFCL data file not found: {path}") from None
    except ValueError:
        raise DatasetError(f"{path}: not JSON") from None
    index = 0
    for source, ids in listed.items():
        if not ids:  # BFCL skips a category listed empty
            continue
        if source not in BFCL_CATEGORIES or source in NO_CALL_CATEGORIES:
            raise DatasetError(f"{path}: {source!r} is not a category with expected calls")
        name = f"BFCL_v4_{source}.json"
        answers = {
            str(a["id"]): a.get("ground_truth") or []
            for a in _read_jsonl(directory / "possible_answer" / name)
        }
        wanted = set(ids)
        for entry in _read_jsonl(directory / name):
            if entry["id"] in wanted:
                answer = answers.get(str(entry["id"]))
                if answer is None:
                    where = directory / name
                    raise DatasetError(f"{where}: no possible answer for {entry['id']!r}")
                yield from format_sensitivity_rows(entry, answer, source, index)
                index += 1


def bfcl_lines(category: str, data_dir: str | Path | None = None) -> Iterator[str]:
    """The rows of a category as dataset lines (JSON and a newline)."""
    for row in bfcl_rows(category, data_dir):
        yield json.dumps(row, ensure_ascii=False) + "\n"


def export_bfcl(category: str, out: str | Path, data_dir: str | Path | None = None) -> int:
    """Write a category as a JSONL dataset file; returns the number of rows."""
    lines = list(bfcl_lines(category, data_dir))  # every error before the file is touched
    path = Path(out)
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(lines)
    return len(lines)

"""The results-line file of a run directory, read by the harness and by replay.

Neither layer owns it alone: the harness writes ``results.jsonl``, replay (a model
provider, below the harness) reads recordings from it. See ``agentloop.harness`` for
the line format.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentloop.errors import AgentloopError

__all__ = ["RESULTS_FILE", "iter_results"]

RESULTS_FILE = "results.jsonl"


def iter_results(path: Path) -> Iterator[dict[str, Any]]:
    """Every complete result line; a torn last line (no newline) is ignored."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                return  # torn by a kill mid-write: not a result
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except ValueError:
                raise AgentloopError(f"{path}:{number}: corrupt result line") from None
            if not isinstance(record, dict) or "id" not in record or "epoch" not in record:
                raise AgentloopError(f"{path}:{number}: not a result record")
            yield record

"""BFCL's own leaderboard aggregation of per-category accuracies. Runs in ``.venv-bfcl``.

Reads JSON from stdin: ``[{"name", "scores": {category: {"accuracy", "total_count"}}}]``,
the leaderboard table one model's evaluation fills (``eval_runner.record_result``); a
category left out is one not evaluated. Each goes through
``eval_runner_helper.generate_leaderboard_csv``, unmodified, into a folder of its own;
writes JSON to stdout: ``{name: {csv file: {column: cell}}}``, the cells as BFCL writes
them (``"12.34%"``, ``"N/A"``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sys
import tempfile
from pathlib import Path

from bfcl_eval.eval_checker.eval_runner_helper import generate_leaderboard_csv

MODEL = "gpt-4o-2024-11-20-FC"  # any model BFCL knows; its name has no "_"
FILES = ("data_overall", "data_non_live", "data_live", "data_multi_turn", "data_agentic")


def main() -> int:
    scenarios = json.loads(sys.stdin.read())
    out = {}
    for scenario in scenarios:
        folder = Path(tempfile.mkdtemp(prefix="bfcl-overall-"))
        table = {MODEL: {c: dict(v) for c, v in scenario["scores"].items()}}
        with contextlib.redirect_stdout(io.StringIO()):  # its progress line
            generate_leaderboard_csv(table, folder)
        cells = {}
        for name in FILES:
            with (folder / f"{name}.csv").open(encoding="utf-8") as handle:
                cells[name] = next(csv.DictReader(handle))
        out[scenario["name"]] = cells
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Agreement of ``agentloop bfcl summary``'s BFCL figures with BFCL's own leaderboard
aggregation, on sets of runs with categories missing.

Each scenario is a set of per-category results (rows run, rows passed) over BFCL v4's
22 scored categories, some left out: every category run; what agentloop runs (no
agentic); the Python single-turn categories alone; one category alone; and seeded
random subsets with random counts. Both sides see the same numbers:

- BFCL's: ``bench/bfcl_overall_checker.py`` in ``.venv-bfcl`` puts them in the
  leaderboard table its evaluation fills (accuracy, total count per category) and runs
  ``generate_leaderboard_csv`` unmodified; its CSV cells are the figures;
- agentloop's: a ``results.jsonl`` with as many results per category (verdict 1.0 for the
  passed ones), read by ``summarize_bfcl``; its ``bfcl_overall`` and each group's
  ``bfcl_accuracy``, formatted as BFCL formats them (``{:.2f}%``).

Compared: Overall, Non-Live, Live, Multi-Turn and Agentic overall accuracies (BFCL shows
them whatever is missing, a missing category counted 0), Irrelevance and Relevance, and
BFCL's "N/A" marks: a group BFCL shows N/A (a member missing) is one agentloop marks
partial, and where BFCL shows a figure agentloop's own figure (over what ran) equals it.

Run: ``.venv/bin/python bench/bfcl_overall_agreement.py [--random N]`` (needs
``make .venv-bfcl``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_cases import BFCL_PYTHON, default_data_dir  # noqa: E402

from agentloop.benchmarks.bfcl._data import BFCL_CATEGORIES  # noqa: E402
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES  # noqa: E402
from agentloop.benchmarks.bfcl._summary import (  # noqa: E402
    AGENTIC_CATEGORIES,
    MULTI_TURN_VERDICT,
    VERDICT,
    summarize_bfcl,
)

WORKER = ROOT / "bench" / "bfcl_overall_checker.py"
ALL = BFCL_CATEGORIES + MULTI_TURN_CATEGORIES + AGENTIC_CATEGORIES
# (BFCL's CSV file, its column) -> agentloop's group (None: the overall)
FIGURES = {
    ("data_overall", "Overall Acc"): None,
    ("data_non_live", "Non-Live Overall Acc"): "Non-Live AST",
    ("data_live", "Live Overall Acc"): "Live AST",
    ("data_multi_turn", "Multi Turn Overall Acc"): "Multi-Turn",
    ("data_agentic", "Agentic Overall Acc"): "Agentic",
}
# columns BFCL shows "N/A" when a member is missing -> agentloop's group
MARKED = {
    ("data_non_live", "AST Summary"): "Non-Live AST",
    ("data_live", "AST Summary"): "Live AST",
    ("data_overall", "Irrelevance Detection"): "Irrelevance",
    ("data_overall", "Relevance Detection"): "Relevance",
}
Counts = dict[str, tuple[int, int]]


def entries(data: Path, category: str) -> int:
    path = data / f"BFCL_v4_{category}.json"
    if not path.is_file():  # the agentic files are shared by several categories
        return 100
    return sum(1 for line in path.open(encoding="utf-8") if line.strip())


def scenarios(data: Path, seed: int, count: int) -> list[tuple[str, Counts]]:
    rng = random.Random(seed)
    sizes = {c: entries(data, c) for c in ALL}

    def run(categories: tuple[str, ...] | list[str]) -> Counts:
        out = {}
        for c in categories:
            total = rng.randint(1, sizes[c])
            out[c] = (total, rng.randint(0, total))
        return out

    fixed = [
        ("every category", run(ALL)),
        ("no agentic (what agentloop runs)", run(BFCL_CATEGORIES + MULTI_TURN_CATEGORIES)),
        ("Python single-turn only", run([c for c in BFCL_CATEGORIES if "java" not in c])),
        ("simple_python alone", run(["simple_python"])),
        ("live_simple alone", run(["live_simple"])),
        ("all passed", {c: (sizes[c], sizes[c]) for c in ALL}),
        ("all failed, one row each", {c: (1, 0) for c in ALL}),
        # a half at the rounding digit: 2 of 16 in the overall's last place
        ("Live and Irrelevance", {"live_parallel": (16, 2), "irrelevance": (8, 3)}),
    ]
    randoms = []
    for k in range(count):
        kept = [c for c in ALL if rng.random() < 0.6] or ["multiple"]
        randoms.append((f"random {k}", run(kept)))
    return fixed + randoms


def bfcl_cells(items: list[tuple[str, Counts]]) -> dict[str, Any]:
    payload = [
        {
            "name": name,
            "scores": {c: {"accuracy": ok / n, "total_count": n} for c, (n, ok) in counts.items()},
        }
        for name, counts in items
    ]
    proc = subprocess.run(
        [str(BFCL_PYTHON), str(WORKER)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"BFCL worker failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def agentloop_summary(counts: Counts, folder: Path) -> Any:
    lines = []
    for category, (n, ok) in counts.items():
        key = MULTI_TURN_VERDICT if category in MULTI_TURN_CATEGORIES else VERDICT
        for i in range(n):
            score = {"score": 1.0 if i < ok else 0.0, "reason": "", "details": {}}
            lines.append(
                {
                    "id": f"{category}_{i}",
                    "epoch": 1,
                    "status": "ok",
                    "metadata": {"bfcl_category": category},
                    "scores": {key: score},
                }
            )
    path = folder / "results.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return summarize_bfcl([path])


def pct(value: float | None) -> str:
    return "N/A" if value is None else f"{value * 100:.2f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--random", type=int, default=40, help="random scenarios")
    parser.add_argument("--seed", type=int, default=44)
    args = parser.parse_args(argv)
    data = default_data_dir()
    os.environ["AGENTLOOP_BFCL_DATA"] = str(data)  # the entry counts BFCL reads
    items = scenarios(data, args.seed, args.random)
    started = time.perf_counter()
    theirs = bfcl_cells(items)
    took = time.perf_counter() - started
    checks: dict[str, list[int]] = {}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, (name, counts) in enumerate(items):
            folder = Path(tmp) / str(k)
            folder.mkdir()
            summary = agentloop_summary(counts, folder)
            groups = {g.name: g for g in summary.groups}
            cells = theirs[name]
            for (file, column), group in FIGURES.items():
                if group is None:
                    ours = summary.bfcl_overall
                else:
                    found = groups.get(group)  # hidden when none of it ran: 0 then
                    ours = found.bfcl_accuracy if found is not None else 0.0
                agree = pct(ours) == cells[file][column]
                checks.setdefault(column, [0, 0])
                checks[column][0] += 1
                checks[column][1] += agree
                if not agree:
                    failures.append((name, column, cells[file][column], pct(ours)))
            for (file, column), group in MARKED.items():
                cell = cells[file][column]
                found = groups.get(group)
                partial = found is None or bool(found.missing)
                own = None if found is None else found.accuracy
                agree = partial if cell == "N/A" else (not partial and pct(own) == cell)
                label = f"{column} ({file})"
                checks.setdefault(label, [0, 0])
                checks[label][0] += 1
                checks[label][1] += agree
                if not agree:
                    failures.append((name, label, cell, f"{pct(own)} partial={partial}"))
            if not summary.overall_missing:  # every category: both figures are one
                agree = pct(summary.overall) == cells["data_overall"]["Overall Acc"]
                checks.setdefault("Overall, every category run (own figure)", [0, 0])
                checks["Overall, every category run (own figure)"][0] += 1
                checks["Overall, every category run (own figure)"][1] += agree
    print(f"{len(items)} scenarios ({args.random} random, seed {args.seed}); "
          f"BFCL's aggregation took {took:.1f}s in .venv-bfcl (imports included)\n")  # fmt: skip
    print(f"{'figure':<52} {'cases':>6} {'agree':>6}")
    for column, (n, agree) in checks.items():
        print(f"{column:<52} {n:>6} {agree:>6}")
    total = sum(n for n, _ in checks.values())
    agreed = sum(a for _, a in checks.values())
    print(f"\nOVERALL {agreed}/{total} figures agree")
    for name, column, bfcl, ours in failures[:20]:
        print(f"- {name}: {column}: BFCL {bfcl}, agentloop {ours}")
    return 0 if agreed == total else 1


if __name__ == "__main__":
    from bench_page import publish

    raise SystemExit(publish("bfcl-overall-agreement", main))

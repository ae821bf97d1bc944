"""BFCL multi-turn through ``agentloop run``: a scripted model replaying BFCL's ground truth
passes every entry; the same script without the last call of each entry fails every entry.

For each category, writes two scripts (``scripted:`` model files: per sample id, one
reply per ground-truth call, each a single tool call, and ``Done.`` to end each turn;
a turn of more than 20 calls, which two ``long_context`` entries have, gets the fewest
calls per reply that keep it within BFCL's 20 steps),
runs ``agentloop run configs/bfcl/<category>.yaml --model scripted:<script>`` for each
(the real command line: dataset ``bfcl:<category>``, the BFCL environment, sequential
tools, 20 rounds per turn), and counts the results whose
``agentloop.benchmarks:bfcl_multi_turn_verdict`` score is 1.0.

Run: ``make bfcl-multi-turn`` or ``.venv/bin/python bench/bfcl_multi_turn_scripted.py
[--categories a,b] [--limit N] [--concurrency N] [--out DIR]`` (default DIR:
``runs/bfcl-multi-turn``). Exit status 0 when the figures are N/N and 0/N.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentloop.benchmarks.bfcl._data import bfcl_rows  # noqa: E402
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES  # noqa: E402
from agentloop.benchmarks.bfcl._summary import MULTI_TURN_VERDICT  # noqa: E402

MAX_STEPS = 20  # BFCL's MAXIMUM_STEP_LIMIT (a 21st step would end the conversation)


def script(rows: list[dict[str, Any]], drop_last: bool) -> dict[str, list[Any]]:
    """Per sample id, the replies replaying the ground truth (without its last call)."""
    scripts: dict[str, list[Any]] = {}
    for row in rows:
        turns = [list(t["tool_calls"]) for t in row["ground_truth"]["turns"]]
        if drop_last:
            last = max(i for i, calls in enumerate(turns) if calls)
            turns[last] = turns[last][:-1]
        replies: list[Any] = []
        for number, calls in enumerate(turns):
            size = -(-len(calls) // MAX_STEPS) or 1  # within BFCL's step limit per turn
            for start in range(0, len(calls), size):
                step = calls[start : start + size]
                replies.append({"role": "assistant", "content": "", "tool_calls": [
                    {"id": f"call_{number}_{start + k}", "type": "function",
                     "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                    for k, c in enumerate(step)
                ]})  # fmt: skip
            replies.append("Done.")
        scripts[row["id"]] = replies
    return scripts


def run(category: str, script_file: Path, out: Path, limit: int, concurrency: int) -> Path:
    before = set(out.glob("*"))
    command = [
        str(ROOT / ".venv" / "bin" / "agentloop"),
        "run",
        str(ROOT / "configs" / "bfcl" / f"{category}.yaml"),
        "--model",
        f"scripted:{script_file}",
        "--output-dir",
        str(out),
        "--concurrency",
        str(concurrency),
        "--no-preflight",
    ]
    if limit:
        command += ["--limit", str(limit)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    created = sorted(set(out.glob("*")) - before)
    if not created:
        raise SystemExit(f"agentloop run made no run directory:\n{done.stdout}\n{done.stderr}")
    return created[-1]


def passes(run_dir: Path) -> tuple[int, int]:
    """(results scored 1.0 by the verdict, results)."""
    scores = []
    for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        verdict = (record.get("scores") or {}).get(MULTI_TURN_VERDICT) or {}
        scores.append(verdict.get("score") == 1.0)
    return sum(scores), len(scores)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--categories", default=",".join(MULTI_TURN_CATEGORIES))
    parser.add_argument("--limit", type=int, default=0, help="entries per category (0: all)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "runs" / "bfcl-multi-turn"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ok = True
    for category in args.categories.split(","):
        rows = list(bfcl_rows(category))[: args.limit or None]
        figures = []
        for kind, drop_last in (("ground truth", False), ("last call dropped", True)):
            file = out / f"{category}.{'dropped' if drop_last else 'truth'}.script.json"
            file.write_text(json.dumps(script(rows, drop_last)), encoding="utf-8")
            start = time.perf_counter()
            run_dir = run(category, file, out, args.limit, args.concurrency)
            passed, total = passes(run_dir)
            seconds = time.perf_counter() - start
            figures.append(f"{kind}: {passed}/{total} pass ({seconds:.0f} s, {run_dir.name})")
            ok &= total == len(rows) and passed == (0 if drop_last else total)
        print(f"{category:<26} " + "; ".join(figures))
    return 0 if ok else 1


if __name__ == "__main__":
    from bench_page import publish

    raise SystemExit(publish("bfcl-multi-turn-scripted", main))

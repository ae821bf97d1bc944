"""Agreement of agentloop's ``bfcl_verdict`` with BFCL's own checker, case by case.

For every entry of BFCL's single-turn categories, ``bfcl_perturb`` (Python) or
``bfcl_literals`` (Java, JavaScript: the arguments as literal strings) makes the
canonical answer and systematic perturbations of it (decoded model outputs). Each
case gets two verdicts:

- BFCL's: ``bench/bfcl_checker.py`` in the separate ``.venv-bfcl`` (``make .venv-bfcl``),
  one process per category, BFCL's loaders and ``ast_checker`` unmodified;
- agentloop's: ``agentloop.evals.bfcl_verdict`` on the case as an OpenAI assistant message with
  tool calls (names ``.`` -> ``_``, arguments as JSON text), against the row that
  ``agentloop.benchmarks.bfcl_rows`` makes of that entry.

Prints agreement per category, per perturbation and overall, and the first
disagreements; writes every disagreement (``disagreements.jsonl``: case, both
verdicts, both reasons) and ``summary.json`` under ``--out``. Target: >= 99.9% overall.

``--speed K`` then times both checkers on the canonical cases, each in its own process
(BFCL's worker with ``--time``, agentloop's in this one), K alternating trials, and
prints the best µs of CPU time per case of each and the ratio; also agentloop's general
``tool_call_match(order="unordered", schema=row tools)`` on the same messages and rows,
as a run calls it (the row's ground truth compiled when the row is read, as BFCL's worker
reads its possible answers before timing), and, for information, on the raw ground truth.
A regression guard: with ``--speed-only`` (what ``make bench`` runs) the exit status is
1 when any agentloop figure takes more than 2x BFCL's time per case on the same input.

Run: ``make bfcl-agreement`` or ``.venv/bin/python bench/bfcl_agreement.py [--categories
a,b] [--limit N] [--perturbations args_,...] [--mode fc|prompt] [--speed K [--speed-only]]
[--out DIR]``
(default DIR: ``runs/bfcl-agreement``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_cases import (  # noqa: E402
    bfcl_verdicts,
    default_data_dir,
    make_cases,
    prepared,
    score_agentloop,
)
from bfcl_literals import LANGUAGE_CATEGORIES  # noqa: E402
from bfcl_perturb import CATEGORIES as PYTHON_CATEGORIES  # noqa: E402
from bfcl_speed import speed  # noqa: E402

from agentloop.benchmarks.bfcl._data import bfcl_rows  # noqa: E402

CATEGORIES = PYTHON_CATEGORIES[:1] + LANGUAGE_CATEGORIES + PYTHON_CATEGORIES[1:]
KNOWN = {
    "greedy_pairing": "BFCL pairs parallel calls greedily and rejects this order, yet passes "
    "another order of the same calls; agentloop pairs by maximum matching",
}


def known_difference(bfcl: dict[str, Any], ours: dict[str, Any]) -> str | None:
    """The documented cause of a disagreement, when it is a known one."""
    if ours["valid"] and not bfcl["valid"] and bfcl.get("passes_reordered"):
        return "greedy_pairing"
    return None


def table(title: str, counts: dict[str, list[int]]) -> None:
    print(f"\n{title:<34} {'cases':>7} {'agree':>7} {'%':>8}  bfcl-pass")
    for key in sorted(counts, key=lambda k: (-counts[k][0], k)):
        n, agree, passed = counts[key]
        print(f"{key:<34} {n:>7} {agree:>7} {100 * agree / n:>8.3f}  {passed:>7}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--categories", default=",".join(CATEGORIES))
    parser.add_argument("--limit", type=int, default=None, help="entries per category")
    parser.add_argument("--mode", choices=("fc", "prompt"), default="fc")
    parser.add_argument("--out", default=str(ROOT / "runs" / "bfcl-agreement"))
    parser.add_argument(
        "--data", default=None, help="BFCL data dir (default: .venv-bfcl's bfcl_eval/data)"
    )
    parser.add_argument("--show", type=int, default=10, help="disagreements printed")
    parser.add_argument(
        "--perturbations", default="", help="only the kinds starting so (comma-separated)"
    )
    parser.add_argument(
        "--speed", type=int, default=0, metavar="K", help="also time both, K trials"
    )
    parser.add_argument("--speed-only", action="store_true", help="only the timing (--speed K)")
    args = parser.parse_args(argv)
    categories = [c for c in args.categories.split(",") if c]
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown:
        raise SystemExit(f"unknown categories {unknown}; known: {', '.join(CATEGORIES)}")
    data = Path(args.data) if args.data else default_data_dir()
    out = Path(args.out)
    (out / "cases").mkdir(parents=True, exist_ok=True)
    if args.speed_only:
        timed = speed(categories, out, data, args.speed or 3, args.mode, args.limit)
        return 0 if timed["within_guard"] else 1
    by_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    by_pert: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    disagreements: list[dict[str, Any]] = []
    kinds: Counter[str] = Counter()
    known: Counter[str | None] = Counter()
    with (out / "disagreements.jsonl").open("w", encoding="utf-8") as dis:
        for category in categories:
            started = time.perf_counter()
            cases = make_cases(category, data, args.limit)
            if args.perturbations:
                kept = tuple(args.perturbations.split(","))
                cases = [c for c in cases if c["perturbation"].startswith(kept)]
            cases_file = out / "cases" / f"{category}.jsonl"
            cases_file.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
            theirs = bfcl_verdicts(cases_file, args.mode)
            rows = {r["id"]: r for r in bfcl_rows(category, data)}
            ours = score_agentloop(prepared(cases, rows))
            for case in cases:
                b, a = theirs[case["case_id"]], ours[case["case_id"]]
                agree = b["valid"] == a["valid"]
                for counts in (by_cat[category], by_pert[case["perturbation"]], by_cat["ALL"]):
                    counts[0] += 1
                    counts[1] += agree
                    counts[2] += bool(b["valid"])
                if not agree:
                    record = {
                        "case_id": case["case_id"],
                        "category": category,
                        "perturbation": case["perturbation"],
                        "bfcl_valid": b["valid"],
                        "bfcl_error_type": b.get("error_type"),
                        "bfcl_error": b.get("error"),
                        "agentloop_valid": a["valid"],
                        "agentloop_error_type": a.get("error_type"),
                        "agentloop_reason": a["reason"],
                        "known": known_difference(b, a),
                        "output": case["output"],
                    }
                    known[record["known"]] += 1
                    kinds[f"{case['perturbation']}: bfcl={b['valid']} agentloop={a['valid']}"] += 1
                    disagreements.append(record)
                    dis.write(json.dumps(record, default=str) + "\n")
            n, agree, _ = by_cat[category]
            took = time.perf_counter() - started
            print(f"{category:<24} {n:>6} cases {agree / n:9.4%} agree ({took:.1f}s)", flush=True)
    total = by_cat.pop("ALL")
    table("category", by_cat)
    table("perturbation", by_pert)
    print(
        f"\nOVERALL {total[1]}/{total[0]} = {100 * total[1] / total[0]:.4f}% agree "
        f"(mode {args.mode}); "
        f"{len(disagreements)} disagreements -> {out / 'disagreements.jsonl'}"
    )
    explained = sum(n for k, n in known.items() if k)
    for name, count in known.items():
        if name:
            print(f"  {count:>6} of them a known difference: {name} ({KNOWN[name]})")
    rest = total[1] + explained
    print(
        f"  agreement apart from known differences: {rest}/{total[0]} "
        f"= {100 * rest / total[0]:.4f}%"
    )
    for kind, count in kinds.most_common(20):
        print(f"  {count:>6}  {kind}")
    disagreements.sort(key=lambda r: r["known"] is not None)
    for record in disagreements[: args.show]:
        bfcl_error = (record["bfcl_error"] or [""])[0]
        print(f"- {record['case_id']} [{record['known'] or 'UNEXPLAINED'}]")
        print(f"    bfcl={record['bfcl_valid']} {record['bfcl_error_type']}: {bfcl_error[:160]}")
        print(f"    agentloop={record['agentloop_valid']}: {record['agentloop_reason'][:160]}")
        print(f"    output: {json.dumps(record['output'], default=str)[:200]}")
    summary: dict[str, Any] = {
        "mode": args.mode,
        "limit": args.limit,
        "overall": {"cases": total[0], "agree": total[1], "rate": total[1] / total[0]},
        "known_differences": {k: n for k, n in known.items() if k},
        "unexplained_disagreements": known.get(None, 0),
        "categories": {
            k: {"cases": v[0], "agree": v[1], "bfcl_pass": v[2]} for k, v in by_cat.items()
        },
        "perturbations": {
            k: {"cases": v[0], "agree": v[1], "bfcl_pass": v[2]} for k, v in by_pert.items()
        },
    }
    if args.speed:
        summary["speed"] = speed(categories, out, data, args.speed, args.mode, args.limit)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0  # the speed guard is printed (and in summary.json); --speed-only exits on it


if __name__ == "__main__":
    from bench_page import publish

    page = "bfcl-speed" if "--speed-only" in sys.argv else "bfcl-agreement"
    raise SystemExit(publish(page, main))

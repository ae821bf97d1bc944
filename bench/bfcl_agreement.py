"""Agreement of agentloop's ``bfcl_verdict`` with BFCL's own checker, case by case.

For every entry of BFCL's single-turn Python categories, ``bfcl_perturb`` makes the
canonical answer and systematic perturbations of it (decoded model outputs). Each
case gets two verdicts:

- BFCL's: ``bench/bfcl_checker.py`` in the separate ``.venv-bfcl`` (``make .venv-bfcl``),
  one process per category, BFCL's loaders and ``ast_checker`` unmodified;
- agentloop's: ``evals.bfcl_verdict`` on the case as an OpenAI assistant message with
  tool calls (names ``.`` -> ``_``, arguments as JSON text), against the row that
  ``agentloop.benchmarks.bfcl_rows`` makes of that entry.

Prints agreement per category, per perturbation and overall, and the first
disagreements; writes every disagreement (``disagreements.jsonl``: case, both
verdicts, both reasons) and ``summary.json`` under ``--out``. Target: >= 99.9% overall.

``--speed K`` then times both checkers on the canonical cases, each in its own process
(BFCL's worker with ``--time``, agentloop's in this one), K alternating trials, and
prints the best µs per case of each and the ratio; also agentloop's general
``tool_call_match(order="unordered", schema=row tools)`` on the same messages and rows.

Run: ``make bfcl-agreement`` or ``.venv/bin/python bench/bfcl_agreement.py [--categories
a,b] [--limit N] [--mode fc|prompt] [--speed K [--speed-only]] [--out DIR]``
(default DIR: ``runs/bfcl-agreement``).
"""

from __future__ import annotations

import argparse
import glob
import inspect
import json
import os
import platform
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_perturb import CATEGORIES, RELEVANCE_CATEGORIES, cases_for_entry  # noqa: E402

from agentloop.benchmarks import bfcl_rows, openai_name  # noqa: E402
from evals import bfcl_verdict, tool_call_match  # noqa: E402

BFCL_PYTHON = ROOT / ".venv-bfcl" / "bin" / "python"
WORKER = ROOT / "bench" / "bfcl_checker.py"
NO_CALL_TEXT = "I cannot help with that using the functions I have."


def default_data_dir() -> Path:
    """BFCL's data: $AGENTLOOP_BFCL_DATA, else the package installed in .venv-bfcl."""
    if os.environ.get("AGENTLOOP_BFCL_DATA"):
        return Path(os.environ["AGENTLOOP_BFCL_DATA"])
    found = sorted(glob.glob(str(ROOT / ".venv-bfcl/lib/python*/site-packages/bfcl_eval/data")))
    if not found:
        raise SystemExit("BFCL data not found: run `make .venv-bfcl` (or set AGENTLOOP_BFCL_DATA)")
    return Path(found[0])


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def make_cases(category: str, data: Path, limit: int | None) -> list[dict[str, Any]]:
    entries = read_jsonl(data / f"BFCL_v4_{category}.json")[:limit]
    answers: dict[str, Any] = {}
    if category not in RELEVANCE_CATEGORIES:
        answers = {
            a["id"]: a["ground_truth"]
            for a in read_jsonl(data / "possible_answer" / f"BFCL_v4_{category}.json")
        }
    return [case for e in entries for case in cases_for_entry(e, answers.get(e["id"]), category)]


def bfcl_verdicts(cases_file: Path, mode: str) -> dict[str, dict[str, Any]]:
    """BFCL's verdicts from the worker in .venv-bfcl (one process for the file)."""
    proc = subprocess.run(
        [str(BFCL_PYTHON), str(WORKER), "--mode", mode, str(cases_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"BFCL worker failed on {cases_file}:\n{proc.stderr[-3000:]}")
    verdicts = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return {v["case_id"]: v for v in verdicts}


def assistant_message(output: list[dict[str, Any]], raw: list[list[str]] | None) -> dict[str, Any]:
    """The case as an OpenAI assistant message (what agentloop records for a model);
    ``raw``: the calls' argument texts as given."""
    if not output and raw is None:
        return {"role": "assistant", "content": NO_CALL_TEXT}
    calls = []
    pairs = raw if raw is not None else [[n, json.dumps(a)] for c in output for n, a in c.items()]
    for k, (name, text) in enumerate(pairs):
        calls.append(
            {
                "id": f"call_{k}",
                "type": "function",
                "function": {"name": openai_name(name), "arguments": text},
            }
        )
    return {"role": "assistant", "content": None, "tool_calls": calls}


_PARAMS = set(inspect.signature(bfcl_verdict).parameters)


def verdict_kwargs(messages: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any]:
    """``bfcl_verdict``'s arguments for a case, for whichever signature it has."""
    kwargs: dict[str, Any] = {"ground_truth": row.get("ground_truth")}
    if "metadata" in _PARAMS:
        kwargs["metadata"] = row.get("metadata")
    if "row" in _PARAMS:
        kwargs["row"] = row
    target = "trajectory" if "trajectory" in _PARAMS else "messages"
    kwargs[target] = messages
    return kwargs


def agentloop_verdict(messages: list[dict[str, Any]], row: dict[str, Any]) -> Any:
    return bfcl_verdict(**verdict_kwargs(messages, row))


def prepared(
    cases: list[dict[str, Any]], rows: dict[str, Any]
) -> list[tuple[dict[str, Any], list[Any], dict[str, Any]]]:
    out = []
    for case in cases:
        row = rows[case["id"]]
        messages = [*row["messages"], assistant_message(case["output"], case.get("raw"))]
        out.append((case, messages, row))
    return out


def score_agentloop(
    items: list[tuple[dict[str, Any], list[Any], dict[str, Any]]],
) -> dict[str, dict[str, Any]]:
    verdicts = {}
    for case, messages, row in items:
        try:
            result = agentloop_verdict(messages, row)
            details = getattr(result, "details", None)
            verdicts[case["case_id"]] = {
                "valid": result.score >= 1.0,
                "reason": result.reason,
                "error_type": getattr(details, "error_type", None),
            }
        except Exception as exc:  # a crash is a verdict to report, not a reason to stop
            verdicts[case["case_id"]] = {
                "valid": None,
                "reason": f"exception {type(exc).__name__}: {exc}",
                "error_type": "exception",
            }
    return verdicts


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


def speed(
    categories: list[str], out: Path, data: Path, trials: int, mode: str, limit: int | None
) -> dict[str, Any]:
    """Best-of-K µs/case on the canonical cases, each checker in its own process, alternating."""
    canon = [
        c
        for cat in categories
        for c in make_cases(cat, data, limit)
        if c["perturbation"] in ("canonical", "call_required_args")
    ]
    cats = list(dict.fromkeys(c["category"] for c in canon))
    rows = {r["id"]: r for cat in cats for r in bfcl_rows(cat, data)}
    items = prepared(canon, rows)
    path = out / "speed" / "canonical.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(c) + "\n" for c in canon), encoding="utf-8")
    # Arguments bound before timing, as BFCL's worker prepares its inputs: the signature
    # probing in verdict_kwargs is the bench's, not bfcl_verdict's.
    bound = [verdict_kwargs(messages, row) for _case, messages, row in items]
    check = decode_check = ours_best = match_best = float("inf")
    for _ in range(trials):  # alternating: BFCL's process, then ours, so both see the same load
        proc = subprocess.run(
            [str(BFCL_PYTHON), str(WORKER), "--mode", mode, "--time", "2", str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        timed = json.loads(proc.stdout)
        check = min(check, *timed["check_s"])
        decode_check = min(decode_check, *timed["decode_check_s"])
        for _ in range(2):  # as many timings per trial as BFCL's worker (--time 2)
            start = time.perf_counter()
            for kwargs in bound:
                bfcl_verdict(**kwargs)
            ours_best = min(ours_best, time.perf_counter() - start)
        start = time.perf_counter()
        for _case, messages, row in items:
            tool_call_match(
                messages, row.get("ground_truth"), order="unordered", schema=row.get("tools")
            )
        match_best = min(match_best, time.perf_counter() - start)
    n = len(items)
    bfcl_us = check / n * 1e6
    bfcl_decode_us = decode_check / n * 1e6
    ours_us = ours_best / n * 1e6
    match_us = match_best / n * 1e6
    result = {
        "cases": n,
        "trials": trials,
        "bfcl_check_us_per_case": bfcl_us,
        "bfcl_decode_check_us_per_case": bfcl_decode_us,
        "agentloop_us_per_case": ours_us,
        "ratio_agentloop_over_bfcl_check": ours_us / bfcl_us,
        "ratio_agentloop_over_bfcl_decode_check": ours_us / bfcl_decode_us,
        "tool_call_match_us_per_case": match_us,
        "machine": machine(),
    }
    print(f"\nspeed on {n} canonical cases, best of {trials} alternating trials, {mode} mode")
    print(f"  machine: {result['machine']}")
    print(f"  BFCL ast_checker alone         : {bfcl_us:8.1f} µs/case")
    print(f"  BFCL decode_ast + ast_checker  : {bfcl_decode_us:8.1f} µs/case")
    print(
        f"  agentloop bfcl_verdict (OpenAI messages in): {ours_us:8.1f} µs/case "
        f"(x{ours_us / bfcl_us:.2f} / x{ours_us / bfcl_decode_us:.2f})"
    )
    print(
        f"  agentloop tool_call_match(order='unordered', schema=tools): {match_us:8.1f} µs/case "
        f"(x{match_us / bfcl_us:.2f} / x{match_us / bfcl_decode_us:.2f})"
    )
    return result


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            names = [
                line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")
            ]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cpus, {platform.system()}, Python {platform.python_version()}"


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
        speed(categories, out, data, args.speed or 3, args.mode, args.limit)
        return 0
    by_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    by_pert: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    disagreements: list[dict[str, Any]] = []
    kinds: Counter[str] = Counter()
    known: Counter[str | None] = Counter()
    with (out / "disagreements.jsonl").open("w", encoding="utf-8") as dis:
        for category in categories:
            started = time.perf_counter()
            cases = make_cases(category, data, args.limit)
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

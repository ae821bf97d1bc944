"""Timing BFCL's checker against agentloop's ``bfcl_verdict`` and ``tool_call_match``.

Each trial is two fresh processes on the same canonical cases, in alternation so both
see the same machine load: BFCL's worker (``.venv-bfcl``, ``bfcl_checker.py --time``)
and agentloop's (this file run as a script, ``--time``). On this VM one process can run
the same loop 30% or more slower than another, for its whole life, so both sides get
the same treatment; the best time of each over the trials is reported in µs per case.
Both sides time CPU time (``time.process_time``), not wall time: on a shared machine a
process waiting for a core would otherwise be charged for other people's work.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agentloop.evals import bfcl_verdict, expected_calls, tool_call_match
from bfcl_cases import BFCL_PYTHON, WORKER, make_cases, prepared, verdict_kwargs

from agentloop.benchmarks.bfcl._convert import openai_name
from agentloop.benchmarks.bfcl._data import bfcl_rows

__all__ = ["machine", "speed"]

_KEYS = ("verdict", "decoded", "match", "match_raw")
GUARD = 2.0  # at most this many times BFCL's time per case, on the same input


def speed(
    categories: list[str], out: Path, data: Path, trials: int, mode: str, limit: int | None
) -> dict[str, Any]:
    """Best-of-K µs/case on the canonical cases, each checker in its own process, alternating;
    ``within_guard``: every agentloop figure within ``GUARD`` times BFCL's."""
    canon = [
        c
        for cat in categories
        for c in make_cases(cat, data, limit)
        if c["perturbation"] in ("canonical", "call_required_args")
    ]
    path = out / "speed" / "canonical.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(c) + "\n" for c in canon), encoding="utf-8")
    best = dict.fromkeys(("check", "decode", *_KEYS), float("inf"))
    for _ in range(trials):  # alternating: BFCL's process, then ours, so both see the same load
        timed = _run([str(BFCL_PYTHON), str(WORKER), "--mode", mode, "--time", "2", str(path)])
        best["check"] = min(best["check"], *timed["check_s"])
        best["decode"] = min(best["decode"], *timed["decode_check_s"])
        ours = _run([sys.executable, __file__, "--time", "2", "--data", str(data), str(path)])
        for key in _KEYS:
            best[key] = min(best[key], *ours[key])
    n = len(canon)
    us = {key: value / n * 1e6 for key, value in best.items()}
    bfcl_us, bfcl_decode_us = us["check"], us["decode"]
    result = {
        "cases": n,
        "trials": trials,
        "bfcl_check_us_per_case": bfcl_us,
        "bfcl_decode_check_us_per_case": bfcl_decode_us,
        "agentloop_us_per_case": us["verdict"],
        "ratio_agentloop_over_bfcl_check": us["verdict"] / bfcl_us,
        "ratio_agentloop_over_bfcl_decode_check": us["verdict"] / bfcl_decode_us,
        "agentloop_decoded_us_per_case": us["decoded"],
        "ratio_agentloop_decoded_over_bfcl_check": us["decoded"] / bfcl_us,
        "tool_call_match_us_per_case": us["match"],
        "tool_call_match_raw_truth_us_per_case": us["match_raw"],
        "machine": machine(),
    }
    print(f"\nspeed on {n} canonical cases, best of {trials} alternating trials (CPU time), {mode}")
    print(f"  machine: {result['machine']}")
    print(f"  BFCL ast_checker alone         : {bfcl_us:8.1f} µs/case (calls decoded)")
    print(f"  BFCL decode_ast + ast_checker  : {bfcl_decode_us:8.1f} µs/case (JSON arguments)")
    print("  agentloop, on the same inputs (x ratio to BFCL on that input):")
    lines = (
        ("bfcl_verdict, calls decoded                 ", "decoded", bfcl_us),
        ("bfcl_verdict, OpenAI messages (JSON)        ", "verdict", bfcl_decode_us),
        ("tool_call_match(order='unordered', schema=), OpenAI messages", "match", bfcl_decode_us),
    )
    for label, key, reference in lines:
        print(f"    {label}: {us[key]:8.1f} µs/case (x{us[key] / reference:.2f})")
    raw = us["match_raw"]  # not guarded: a run compiles the ground truth when it reads the row
    print(f"    (tool_call_match with the ground truth compiled per call: {raw:8.1f} µs/case, "
          f"x{raw / bfcl_decode_us:.2f})")
    # The regression guard: each of agentloop's checkers within 2x BFCL's time on its input.
    worst = max(us[key] / reference for _label, key, reference in lines)
    result["within_guard"] = worst <= GUARD
    verdict = "ok" if result["within_guard"] else "FAILED"
    print(f"  guard: every ratio <= {GUARD:.0f}x BFCL's: {verdict} (worst x{worst:.2f})")
    return result


def _decoded_calls(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's calls as ``{"name", "arguments"}`` with the arguments as objects;
    a case given as argument text (``raw``) keeps it, as BFCL's decoding would see it."""
    if case.get("raw") is not None:
        return [{"name": openai_name(n), "arguments": text} for n, text in case["raw"]]
    return [{"name": openai_name(n), "arguments": a} for c in case["output"] for n, a in c.items()]


def _parsed(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _run(command: list[str]) -> dict[str, Any]:
    proc = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def timing(cases: list[dict[str, Any]], data: Path, trials: int) -> dict[str, list[float]]:
    """CPU seconds per trial over all cases, for each of agentloop's checkers (``_KEYS``)."""
    cats = list(dict.fromkeys(c["category"] for c in cases))
    rows = {r["id"]: r for cat in cats for r in bfcl_rows(cat, data)}
    # Inputs as a run has them, and as BFCL's worker has its own: parsed from JSON (a
    # dataset line, a recorded reply). Objects the converter built lie scattered in
    # memory, which alone made agentloop's checkers 5-15% slower.
    items = [
        (case, _parsed(messages), _parsed(row)) for case, messages, row in prepared(cases, rows)
    ]
    # Arguments bound before timing, as BFCL's worker prepares its inputs: the signature
    # probing in verdict_kwargs is the bench's, not bfcl_verdict's.
    bound = [verdict_kwargs(messages, row) for _case, messages, row in items]
    # The input BFCL's ast_checker alone gets: the calls, their arguments decoded.
    decoded = [
        {**kwargs, "trajectory": _decoded_calls(case)}
        for kwargs, (case, _m, _r) in zip(bound, items, strict=True)
    ]
    # tool_call_match as a run calls it: the ground truth compiled once, when the row is read
    # (as BFCL's worker reads its possible answers before timing); and on the raw ground truth.
    match = [
        (messages, expected_calls(row.get("ground_truth")), row.get("tools"))
        for _c, messages, row in items
    ]
    raw = [(messages, row.get("ground_truth"), row.get("tools")) for _c, messages, row in items]
    out: dict[str, list[float]] = {key: [] for key in _KEYS}
    for _ in range(trials):
        start = time.process_time()
        for kwargs in bound:
            bfcl_verdict(**kwargs)
        out["verdict"].append(time.process_time() - start)
        start = time.process_time()
        for kwargs in decoded:
            bfcl_verdict(**kwargs)
        out["decoded"].append(time.process_time() - start)
        start = time.process_time()
        for messages, truth, tools in match:
            tool_call_match(messages, truth, order="unordered", schema=tools)
        out["match"].append(time.process_time() - start)
        start = time.process_time()
        for messages, truth, tools in raw:
            tool_call_match(messages, truth, order="unordered", schema=tools)
        out["match_raw"].append(time.process_time() - start)
    return out


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
    """The agentloop side of one trial: time each checker on the cases, print JSON."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("cases", help="JSONL cases (written by speed())")
    parser.add_argument("--time", type=int, default=2, metavar="N", help="timings per checker")
    parser.add_argument("--data", required=True, help="BFCL data dir")
    args = parser.parse_args(argv)
    text = Path(args.cases).read_text(encoding="utf-8")
    cases = [json.loads(line) for line in text.splitlines() if line.strip()]
    print(json.dumps(timing(cases, Path(args.data), args.time)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

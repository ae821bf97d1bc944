"""Timing BFCL's checker against agentloop's ``bfcl_verdict`` and ``tool_call_match``.

Each checker runs in its own process (BFCL's worker in ``.venv-bfcl`` with ``--time``,
agentloop's here) on the same canonical cases, in alternating trials so both see the
same machine load; the best time of each is reported in µs per case.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

from bfcl_cases import BFCL_PYTHON, WORKER, make_cases, prepared, verdict_kwargs

from agentloop.benchmarks import bfcl_rows
from evals import bfcl_verdict, tool_call_match

__all__ = ["machine", "speed"]


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

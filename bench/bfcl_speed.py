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

from agentloop.benchmarks import bfcl_rows, openai_name
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
    # The input BFCL's ast_checker alone gets: the calls, their arguments decoded.
    decoded = [
        {**kwargs, "trajectory": _decoded_calls(case)}
        for kwargs, (case, _m, _r) in zip(bound, items, strict=True)
    ]
    match = [(messages, row.get("ground_truth"), row.get("tools")) for _c, messages, row in items]
    best = dict.fromkeys(("check", "decode", "verdict", "decoded", "match"), float("inf"))
    for _ in range(trials):  # alternating: BFCL's process, then ours, so both see the same load
        proc = subprocess.run(
            [str(BFCL_PYTHON), str(WORKER), "--mode", mode, "--time", "2", str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        timed = json.loads(proc.stdout)
        best["check"] = min(best["check"], *timed["check_s"])
        best["decode"] = min(best["decode"], *timed["decode_check_s"])
        # Nothing is remembered between calls, so a second pass is no warmer than the first.
        for _ in range(2):  # as many timings per trial as BFCL's worker (--time 2)
            best["verdict"] = min(best["verdict"], _time_verdict(bound))
            best["decoded"] = min(best["decoded"], _time_verdict(decoded))
            best["match"] = min(best["match"], _time_match(match))
    n = len(items)
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
        "machine": machine(),
    }
    print(f"\nspeed on {n} canonical cases, best of {trials} alternating trials, {mode} mode")
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
    return result


def _decoded_calls(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's calls as ``{"name", "arguments"}`` with the arguments as objects;
    a case given as argument text (``raw``) keeps it, as BFCL's decoding would see it."""
    if case.get("raw") is not None:
        return [{"name": openai_name(n), "arguments": text} for n, text in case["raw"]]
    return [{"name": openai_name(n), "arguments": a} for c in case["output"] for n, a in c.items()]


def _time_verdict(bound: list[dict[str, Any]]) -> float:
    start = time.perf_counter()
    for kwargs in bound:
        bfcl_verdict(**kwargs)
    return time.perf_counter() - start


def _time_match(cases: list[tuple[Any, Any, Any]]) -> float:
    start = time.perf_counter()
    for messages, truth, tools in cases:
        tool_call_match(messages, truth, order="unordered", schema=tools)
    return time.perf_counter() - start


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

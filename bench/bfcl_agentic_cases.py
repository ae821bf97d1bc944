"""What the agentic-verdict benches share (``bfcl_memory_agreement``,
``bfcl_web_search_agreement``): a case's steps as the conversation agentloop records, and
the comparison of BFCL's verdicts (a checker script in ``.venv-bfcl``) with agentloop's
``bfcl_agentic_verdict`` on every case, printed per category and kind."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentloop.benchmarks.bfcl._agentic_verdict import bfcl_agentic_verdict  # noqa: E402

BFCL_PYTHON = ROOT / ".venv-bfcl" / "bin" / "python"


def messages_of(steps: list[Any], tool_result: str) -> list[dict[str, Any]]:
    """The steps as the conversation agentloop records: a call step as an assistant
    message with tool calls (the argument text as sent) and their results, a text step as
    an assistant message."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "question"}]
    for number, step in enumerate(steps):
        if isinstance(step, str):
            messages.append({"role": "assistant", "content": step})
            continue
        calls = [
            {"id": f"c{number}_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, call in enumerate(step)
            for n, a in call.items()
        ]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages += [
            {"role": "tool", "tool_call_id": c["id"], "content": tool_result} for c in calls
        ]
    return messages


def compare(
    cases: list[dict[str, Any]], checker: str, categories: Sequence[str], tool_result: str
) -> int:
    """BFCL's verdict (``bench/<checker>`` in ``.venv-bfcl``) and agentloop's on each case
    ``{"case_id", "id", "category", "kind", "steps", "answers"}``; prints the table and
    every disagreement; 0 when all agree."""
    lines = "".join(
        json.dumps({k: c[k] for k in ("case_id", "id", "category", "steps")}) + "\n" for c in cases
    )
    started = time.perf_counter()
    done = subprocess.run(
        [str(BFCL_PYTHON), str(ROOT / "bench" / checker)],
        input=lines, capture_output=True, text=True, check=True,
    )  # fmt: skip
    bfcl_seconds = time.perf_counter() - started
    theirs = {v["case_id"]: v for v in map(json.loads, done.stdout.splitlines())}
    ours = {}
    seconds: Counter[str] = Counter()
    for case in cases:
        started = time.perf_counter()
        messages = messages_of(case["steps"], tool_result)
        ours[case["case_id"]] = bfcl_agentic_verdict(messages, {"answer": case["answers"]})
        seconds[case["category"]] += time.perf_counter() - started
    total: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    bfcl_valid: Counter[str] = Counter()
    for case in cases:
        bfcl, mine = theirs[case["case_id"]], ours[case["case_id"]]
        valid = mine.score == 1.0
        same = bfcl["valid"] == valid and bfcl.get("error_type") == mine.details.error_type
        kind = "format" if case["kind"].startswith("format_") else case["kind"]
        for key in (case["category"], f"kind {kind}"):
            total[key] += 1
            agree[key] += same
            bfcl_valid[key] += bool(bfcl["valid"])
        if not same:
            print("DISAGREE", case["id"], case["kind"], bfcl, mine.reason, flush=True)
    print(f"{'':28} {'cases':>6} {'agree':>6} {'BFCL valid':>10} {'ms/case':>8}")
    for key in total:
        ms = f"{seconds[key] * 1000 / total[key]:8.3f}" if key in seconds else ""
        print(f"{key:28} {total[key]:6} {agree[key]:6} {bfcl_valid[key]:10} {ms}")
    overall = sum(agree[c] for c in categories) / max(1, len(cases))
    print(f"overall agreement {overall:.4%} on {len(cases)} cases")
    print(
        f"time to score: agentloop {sum(seconds.values()) * 1000 / max(1, len(cases)):.3f} "
        f"ms/case, BFCL (one process, imports included) {bfcl_seconds:.1f} s"
    )
    return 0 if overall == 1 else 1

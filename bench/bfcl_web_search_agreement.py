"""Agreement of agentloop's ``bfcl_agentic_verdict`` with BFCL's own verdict on the
web-search categories (``web_search_base``, ``web_search_no_snippet``).

For every entry of each category, the final answer is phrased the ways BFCL's
``agentic_checker`` accepts and rejects (the phrasings of ``bfcl_memory_agreement.py``:
BFCL's answer format for each possible answer, a sentence, upper case, bold, spaces after
commas dropped, glued to a letter, quotes, "I do not know", empty, an answer then a call,
a call alone, a later wrong answer, long and non-ASCII text, regex characters), plus
web-search steps: a search and a fetch before the answer, and a call whose arguments do
not decode (BFCL then checks the call's record). Each case gets two verdicts:

- BFCL's: ``bench/bfcl_web_search_checker.py`` in ``.venv-bfcl`` (``make .venv-bfcl``), which
  runs ``eval_runner._evaluate_single_agentic_entry`` unmodified on BFCL's own entries;
- agentloop's: ``bfcl_agentic_verdict`` on the same steps as an OpenAI-format conversation.

Prints agreement per category and kind and every disagreement; target 100%.

Run: ``.venv/bin/python bench/bfcl_web_search_agreement.py [--limit N]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_memory_agreement import phrasings  # noqa: E402

from agentloop.benchmarks.bfcl._agentic_verdict import bfcl_agentic_verdict  # noqa: E402
from agentloop.benchmarks.bfcl._data import bfcl_rows  # noqa: E402
from agentloop.benchmarks.bfcl._web_search import WEB_SEARCH_CATEGORIES  # noqa: E402

BFCL_PYTHON = ROOT / ".venv-bfcl" / "bin" / "python"
_SEARCH = [{"search_engine_query": json.dumps({"keywords": "Forbes richest China 2025"})}]
_FETCH = [{"fetch_url_content": json.dumps({"url": "https://example.org", "mode": "truncate"})}]
_BROKEN = [{"search_engine_query": '{"keywords": "unterminated'}]


def cases_of(answers: list[str]) -> list[tuple[str, list[Any]]]:
    first = answers[0]
    return [
        *phrasings(answers),
        ("search_fetch_answer", [_SEARCH, _FETCH, f"{{'answer': '{first}', 'context': 'web'}}"]),
        ("answer_then_broken_call", [first, _BROKEN]),
        ("broken_call_then_answer", [_BROKEN, first]),
        ("broken_call_only", [_BROKEN]),
    ]


def messages_of(steps: list[Any]) -> list[dict[str, Any]]:
    """The steps as an OpenAI-format conversation, the arguments' text as sent."""
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
        messages += [{"role": "tool", "tool_call_id": c["id"], "content": "[]"} for c in calls]
    return messages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="entries per category")
    args = parser.parse_args(argv)
    cases: list[dict[str, Any]] = []
    for category in WEB_SEARCH_CATEGORIES:
        for row in list(bfcl_rows(category))[: args.limit or None]:
            for kind, steps in cases_of(row["answer"]):
                cases.append(
                    {
                        "case_id": len(cases),
                        "id": row["id"],
                        "category": category,
                        "kind": kind,
                        "steps": steps,
                        "answers": row["answer"],
                    }
                )
    lines = "".join(
        json.dumps({k: c[k] for k in ("case_id", "id", "category", "steps")}) + "\n" for c in cases
    )
    started = time.perf_counter()
    done = subprocess.run(
        [str(BFCL_PYTHON), str(ROOT / "bench" / "bfcl_web_search_checker.py")],
        input=lines, capture_output=True, text=True, check=True,
    )  # fmt: skip
    bfcl_seconds = time.perf_counter() - started
    theirs = {v["case_id"]: v for v in map(json.loads, done.stdout.splitlines())}
    started = time.perf_counter()
    ours = {
        c["case_id"]: bfcl_agentic_verdict(messages_of(c["steps"]), {"answer": c["answers"]})
        for c in cases
    }
    our_seconds = time.perf_counter() - started
    total: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    valid: Counter[str] = Counter()
    for case in cases:
        bfcl, mine = theirs[case["case_id"]], ours[case["case_id"]]
        same = bfcl["valid"] == (mine.score == 1.0) and bfcl.get("error_type") == (
            mine.details.error_type
        )
        kind = "format" if case["kind"].startswith("format_") else case["kind"]
        for key in (case["category"], f"kind {kind}"):
            total[key] += 1
            agree[key] += same
            valid[key] += bool(bfcl["valid"])
        if not same:
            print("DISAGREE", case["id"], case["kind"], bfcl, mine.details, flush=True)
    print(f"{'':28} {'cases':>6} {'agree':>6} {'BFCL valid':>10}")
    for key in total:
        print(f"{key:28} {total[key]:6} {agree[key]:6} {valid[key]:10}")
    overall = sum(agree[c] for c in WEB_SEARCH_CATEGORIES) / max(1, len(cases))
    print(f"overall agreement {overall:.4%} on {len(cases)} cases")
    print(
        f"time to score: agentloop {our_seconds * 1000 / max(1, len(cases)):.3f} ms/case, "
        f"BFCL (one process, imports included) {bfcl_seconds:.1f} s"
    )
    return 0 if overall == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())

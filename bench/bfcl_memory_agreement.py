"""Agreement of agentloop's ``bfcl_agentic_verdict`` with BFCL's own verdict on memory
questions (``memory_kv``, ``memory_vector``, ``memory_rec_sum``).

For every question of each category, the final answer is phrased the ways BFCL's
``agentic_checker`` accepts and rejects: each accepted answer in BFCL's answer format,
in a sentence, upper-cased, in bold, spaces after commas dropped (the checker keeps
whitespace), glued to a letter (whole words only), with quotes, "I do not know", empty,
an answer followed by a call, a call with no answer after it, a last call whose arguments
are not JSON (BFCL then checks its record of the call), long and non-ASCII text.
Each case gets two verdicts:

- BFCL's: ``bench/bfcl_memory_checker.py`` in ``.venv-bfcl`` (``make .venv-bfcl``),
  ``eval_runner._evaluate_single_agentic_entry`` unmodified;
- agentloop's: ``bfcl_agentic_verdict`` (the verdict of memory questions and web search)
  on the same steps as an OpenAI-format conversation.

Prints agreement per category and kind and every disagreement; target 100%. The verdict
reads the answer text only, never the memory, so memory_vector costs what the others do
(no embedding): 3 x 155 questions, 8061 cases, 100% (agentloop ~0.06 ms a case; BFCL's
one process ~5 s with its imports).

Run: ``.venv/bin/python bench/bfcl_memory_agreement.py [--limit N]``.
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

from agentloop.benchmarks.bfcl._agentic_verdict import bfcl_agentic_verdict  # noqa: E402
from agentloop.benchmarks.bfcl._memory import MEMORY_CATEGORIES, memory_entries  # noqa: E402

BFCL_PYTHON = ROOT / ".venv-bfcl" / "bin" / "python"
_CALL = [{"core_memory_retrieve": json.dumps({"key": "name"})}]


def phrasings(answers: list[str]) -> list[tuple[str, list[Any]]]:
    """(kind, steps): what an OpenAI FC model's one turn would hold, per phrasing."""
    first = answers[0]
    cases: list[tuple[str, list[Any]]] = [
        (f"format_{i}", [_CALL, f"{{'answer': '{a}', 'context': 'from memory'}}"])
        for i, a in enumerate(answers)
    ]
    cases += [
        ("sentence", [f"As you told me earlier, it is {first}, I believe."]),
        ("upper", [first.upper()]),
        ("bold", [f"**{first}**."]),
        ("no_space_after_comma", [first.replace(", ", ",")]),
        ("glued", [f"x{first}s"]),
        ("quoted", [f"\"{first}\" 'yes'"]),
        ("do_not_know", ["{'answer': 'I do not know', 'context': 'I do not know'}"]),
        ("empty", [""]),
        ("answer_then_call", [first, _CALL]),
        ("call_only", [_CALL]),
        ("malformed_call_last", [first, [{"core_memory_retrieve": '{"key": "x"'}]]),
        ("malformed_call_answer", [[{"core_memory_retrieve": f'{{"key": "{first}"'}]]),
        ("answer_then_wrong", [first, _CALL, "Actually, I cannot answer this question."]),
        ("long", ["filler " * 5000 + first]),
        ("non_ascii", [f"答案：{first}。"]),
        ("regex_chars", [f"{first} (.*+?[]{{}}|\\)"]),
    ]
    return cases


def messages_of(steps: list[Any]) -> list[dict[str, Any]]:
    """The steps as the conversation agentloop records: a call step as an assistant
    message with tool calls (the argument text as sent) and their results, a text step as
    an assistant message."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "question"}]
    for number, step in enumerate(steps):
        if isinstance(step, str):
            messages.append({"role": "assistant", "content": step})
            continue
        calls = [
            {
                "id": f"c{number}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": args},
            }
            for i, call in enumerate(step)
            for name, args in call.items()
        ]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages += [{"role": "tool", "tool_call_id": c["id"], "content": "{}"} for c in calls]
    return messages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="questions per category")
    args = parser.parse_args(argv)
    cases: list[dict[str, Any]] = []
    for category in MEMORY_CATEGORIES:
        questions = [e for e in memory_entries(category) if "_prereq_" not in e["id"]]
        for entry in questions[: args.limit or None]:
            for kind, steps in phrasings(entry["ground_truth"]):
                cases.append(
                    {
                        "case_id": len(cases),
                        "id": entry["id"],
                        "category": category,
                        "kind": kind,
                        "steps": steps,
                        "answers": entry["ground_truth"],
                    }
                )
    lines = "".join(
        json.dumps({k: c[k] for k in ("case_id", "id", "category", "steps")}) + "\n" for c in cases
    )
    started = time.perf_counter()
    done = subprocess.run(
        [str(BFCL_PYTHON), str(ROOT / "bench" / "bfcl_memory_checker.py")],
        input=lines,
        capture_output=True,
        text=True,
        check=True,
    )
    bfcl_seconds = time.perf_counter() - started
    theirs = {v["case_id"]: v for v in map(json.loads, done.stdout.splitlines())}
    ours = {}
    seconds: Counter[str] = Counter()
    for case in cases:
        started = time.perf_counter()
        ours[case["case_id"]] = bfcl_agentic_verdict(
            messages_of(case["steps"]), {"answer": case["answers"]}
        )
        seconds[case["category"]] += time.perf_counter() - started
    our_seconds = sum(seconds.values())
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
    overall = sum(agree[c] for c in MEMORY_CATEGORIES) / max(1, len(cases))
    print(f"overall agreement {overall:.4%} on {len(cases)} cases")
    print(
        f"time to score: agentloop {our_seconds * 1000 / max(1, len(cases)):.3f} ms/case, "
        f"BFCL (one process, imports included) {bfcl_seconds:.1f} s"
    )
    return 0 if overall == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())

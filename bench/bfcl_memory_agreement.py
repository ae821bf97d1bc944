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
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_agentic_cases import compare  # noqa: E402

from agentloop.benchmarks.bfcl._memory import MEMORY_CATEGORIES, memory_entries  # noqa: E402

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
    return compare(cases, "bfcl_memory_checker.py", MEMORY_CATEGORIES, tool_result="{}")


if __name__ == "__main__":
    raise SystemExit(main())

"""BFCL's own verdict on memory questions. Runs in ``.venv-bfcl`` (``make .venv-bfcl``).

Reads JSONL cases ``{"case_id", "id", "category", "steps"}`` from a file or stdin, where
``steps`` is what BFCL stores for an OpenAI function-calling model in the question's one
turn: per step, a text reply (a string) or the step's calls ``[{name: arguments JSON
text}]``. Writes one JSONL verdict per case: ``{"case_id", "valid", "error_type"}``.

What it runs is BFCL's evaluation of one entry, unmodified: the entry and its possible
answers from BFCL's loaders, and ``eval_runner._evaluate_single_agentic_entry``, which
decodes each step with the OpenAI FC handler's ``decode_execute`` and checks the last
step that is not a call with ``agentic_checker``.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

from bfcl_eval.eval_checker import eval_runner
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry

# BFCL's decoder for OpenAI function-calling replies; decode_execute reads is_fc_model only.
_FC_HANDLER = object.__new__(OpenAICompletionsHandler)
_FC_HANDLER.is_fc_model = True
MODEL = "gpt-4o-2024-11-20-FC"


def verdict(case: dict[str, Any], entry: dict[str, Any], answer: dict[str, Any]) -> dict:
    try:
        result = eval_runner._evaluate_single_agentic_entry(
            _FC_HANDLER,
            entry["id"],
            [case["steps"]],
            answer["ground_truth"],
            copy.deepcopy(entry),
            MODEL,
            case["category"],
        )
        out = {"valid": bool(result["valid"])}
        if not result["valid"]:
            out["error_type"] = result["error"].get("error_type")
    except Exception as exc:  # BFCL's checker raising fails the entry
        out = {"valid": False, "error_type": f"checker_exception: {type(exc).__name__}: {exc}"}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cases", nargs="?", help="JSONL cases (default: stdin)")
    args = parser.parse_args(argv)
    text = Path(args.cases).read_text(encoding="utf-8") if args.cases else sys.stdin.read()
    cases = [json.loads(line) for line in text.splitlines() if line.strip()]
    entries: dict[str, dict[str, Any]] = {}
    answers: dict[str, dict[str, Any]] = {}
    for category in dict.fromkeys(c["category"] for c in cases):
        entries.update((e["id"], e) for e in load_dataset_entry(category, include_prereq=False))
        answers.update(
            (a["id"].replace("memory", category), a) for a in load_ground_truth_entry(category)
        )
    for case in cases:
        result = verdict(case, entries[case["id"]], answers[case["id"]])
        sys.stdout.write(json.dumps({"case_id": case["case_id"], **result}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""BFCL's own prompts and verdicts for its format-sensitivity category. Runs in
``.venv-bfcl`` only (``make .venv-bfcl``).

``--prompts``: writes, for each of BFCL's 5200 format-sensitivity entries, ``{"id",
"messages"}``: the entry as ``load_dataset_entry("format_sensitivity")`` loads it, its
first turn through ``system_prompt_pre_processing_chat_model`` (what a prompting handler's
``_pre_query_processing_prompting`` sends).

Otherwise reads JSONL cases ``{"case_id", "id", "output"}`` (``output``: the model's
reply text) on stdin and writes ``{"case_id", "valid", "error_type"}``: BFCL's
``eval_runner._evaluate_single_ast_entry`` on the case, called as
``format_sensitivity_runner`` calls it (category ``format_sensitivity``, Python, the
entry's return format and tag read from its id by ``parse_prompt_variation_params``),
the entries and possible answers from BFCL's loaders as ``evaluate_task`` reads them,
the reply decoded by an OpenAI prompting handler's ``decode_ast``
(``default_decode_ast_prompting``) and checked as a prompting model
(``gorilla-openfunctions-v2``: no name conversion). The CPU time of those calls is
written last to stderr (``cpu_seconds=``).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time

from bfcl_eval.constants.enums import Language, ReturnFormat
from bfcl_eval.eval_checker.eval_runner import _evaluate_single_ast_entry
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.model_handler.utils import (
    parse_prompt_variation_params,
    system_prompt_pre_processing_chat_model,
)
from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry

CATEGORY = "format_sensitivity"
MODEL = "gorilla-openfunctions-v2"
_HANDLER = object.__new__(OpenAICompletionsHandler)  # decode_ast reads is_fc_model only
_HANDLER.is_fc_model = False


def prompts() -> None:
    for entry in load_dataset_entry(CATEGORY):
        question = copy.deepcopy(entry["question"][0])
        messages = system_prompt_pre_processing_chat_model(question, entry["function"], entry["id"])
        sys.stdout.write(json.dumps({"id": entry["id"], "messages": messages}) + "\n")


def verdicts() -> None:
    entries = load_dataset_entry(
        CATEGORY, include_prereq=False, include_language_specific_hint=False
    )
    answers = load_ground_truth_entry(CATEGORY)
    by_id = {}
    for e, a in zip(entries, answers, strict=True):
        assert e["id"].split(":")[-1] == a["id"], (e["id"], a["id"])  # aligned, as BFCL relies on
        by_id[e["id"]] = (e, a["ground_truth"])
    spent = 0.0
    for line in sys.stdin:
        case = json.loads(line)
        started = time.process_time()
        entry, answer = by_id[case["id"]]
        config = case["id"].split(":")[1]
        ret, tag, _, _, _ = parse_prompt_variation_params(config)
        result = _evaluate_single_ast_entry(
            _HANDLER,
            case["id"],
            case["output"],
            copy.deepcopy(answer),
            entry,
            MODEL,
            CATEGORY,
            language=Language.PYTHON,
            return_format=ReturnFormat(ret),
            has_tool_call_tag=tag,
        )
        spent += time.process_time() - started
        out = {
            "case_id": case["case_id"],
            "valid": bool(result["valid"]),
            "error_type": result.get("error_type"),
        }
        sys.stdout.write(json.dumps(out) + "\n")
    sys.stderr.write(f"cpu_seconds={spent}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", action="store_true")
    args = parser.parse_args()
    prompts() if args.prompts else verdicts()
    return 0


if __name__ == "__main__":
    sys.exit(main())

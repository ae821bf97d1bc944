"""BFCL's own verdict on decoded model outputs. Runs in ``.venv-bfcl`` only (``make .venv-bfcl``).

Reads JSONL cases (``{"case_id", "id", "category", "output"}``, ``output`` in BFCL's
decoded AST form ``[{func_name: {param: value}}]`` with BFCL's names) from a file or
stdin, and writes one JSONL verdict per case: ``{"case_id", "valid", "error_type",
"error"}``. The driver runs one process per category; any mix works.

What it runs is BFCL's evaluation of one entry, unmodified: the entries and possible
answers come from BFCL's loaders (``load_dataset_entry``, ``load_ground_truth_entry``);
an AST category goes through ``is_function_calling_format_output`` and then
``ast_checker(function, output, ground_truth, language, category, model)`` (the language
by category, as ``eval_runner.ast_file_runner`` picks it), as
``eval_runner._evaluate_single_ast_entry`` does after decoding; irrelevance/relevance
use ``is_empty_output``, as ``_evaluate_single_relevance_entry`` does. The decoding step
is skipped (the cases are already decoded), except for cases with ``raw`` argument text,
which BFCL's OpenAI function-calling ``decode_ast`` decodes (a failure fails an AST
entry and is "no call" for relevance, as in ``eval_runner``), and cases with ``published``:
a model's result exactly as BFCL stored it (any JSON value), decoded as ``eval_runner``
does: with ``--mode fc`` by that same ``decode_ast``, with ``--mode prompt`` by
``default_decode_ast_prompting`` in the category's return format (Python for relevance).

``--mode fc`` (default) is BFCL's view of an OpenAI function-calling model
(``gpt-4o-2024-11-20-FC``, ``underscore_to_dot``): the output names get ``.`` -> ``_``, as the
model only ever saw the underscored names, and the checker converts the expected names
the same way. ``--mode prompt`` keeps the dotted names and uses a prompting model
(``gorilla-openfunctions-v2``).

A parallel output that BFCL rejects with ``cannot_find_match`` also gets
``passes_reordered``: whether BFCL passes another order of the same calls.

``--time N`` prints, instead of verdicts, N timings (CPU seconds, ``time.process_time``)
over all the cases of the checker alone and of BFCL's FC decoding (``decode_ast``) + the
checker.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from bfcl_eval.constants.enums import Language, ReturnFormat
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.model_handler.utils import default_decode_ast_prompting
from bfcl_eval.utils import (
    is_empty_output,
    is_function_calling_format_output,
    is_java,
    is_js,
    load_dataset_entry,
    load_ground_truth_entry,
)

MODELS = {"fc": "gpt-4o-2024-11-20-FC", "prompt": "gorilla-openfunctions-v2"}


def language(category: str) -> Language:
    """The checker's language for a category, as ``eval_runner.ast_file_runner`` picks it."""
    if is_java(category):
        return Language.JAVA
    return Language.JAVASCRIPT if is_js(category) else Language.PYTHON


# BFCL's decoder for OpenAI function-calling replies; decode_ast reads is_fc_model only.
_FC_HANDLER = object.__new__(OpenAICompletionsHandler)
_FC_HANDLER.is_fc_model = True


def _rename(output: Any, mode: str) -> Any:
    if mode != "fc" or not isinstance(output, list):
        return output
    renamed = []
    for call in output:
        if isinstance(call, dict):
            call = {re.sub(r"\.", "_", name): args for name, args in call.items()}
        renamed.append(call)
    return renamed


class DecodeFailed:
    """BFCL's decoder raised on the model's reply."""

    def __init__(self, error: Exception) -> None:
        self.error = f"{type(error).__name__}: {error}"


def return_format(category: str) -> ReturnFormat:
    """The prompting decoder's format for a category, as ``eval_runner`` picks it."""
    if "relevance" in category:
        return ReturnFormat.PYTHON
    return ReturnFormat(language(category).value)


def _decoded(case: dict[str, Any], mode: str) -> Any:
    """The output BFCL's checker sees: a case with ``raw`` text goes through BFCL's
    OpenAI function-calling ``decode_ast`` (then names renamed as ``--mode`` says); a
    ``published`` result through the decoder of ``--mode``."""
    if "published" in case:
        try:
            if mode == "fc":
                decoded = _FC_HANDLER.decode_ast(case["published"], ReturnFormat.PYTHON, False)
            else:
                decoded = default_decode_ast_prompting(
                    case["published"], return_format(case["category"])
                )
        except Exception as exc:  # as eval_runner: the decoding failed
            return DecodeFailed(exc)
        return _rename(decoded, mode)
    if "raw" not in case:
        return _rename(case["output"], mode)
    result = [{name: text} for name, text in case["raw"]]
    try:
        decoded = _FC_HANDLER.decode_ast(result, ReturnFormat.PYTHON, False)
    except Exception as exc:  # as eval_runner: the decoding failed
        return DecodeFailed(exc)
    return _rename(decoded, mode)


def verdict(
    output: Any, category: str, entry: dict[str, Any], answer: Any, model: str
) -> dict[str, Any]:
    """BFCL's verdict on one decoded output."""
    if "relevance" in category:  # irrelevance, live_irrelevance, live_relevance
        contains_call = not isinstance(output, DecodeFailed) and not is_empty_output(output)
        valid = not contains_call if "irrelevance" in category else contains_call
        error_type = None
        if not valid:
            error_type = "irrelevance_error:decoder_success"
            if "irrelevance" not in category:
                error_type = "relevance_error:decoder_failed"
        return {"valid": valid, "error_type": error_type, "error": []}
    if isinstance(output, DecodeFailed):
        return {"valid": False, "error_type": "ast_decoder:decoder_failed", "error": [output.error]}
    if not is_function_calling_format_output(output):
        return {
            "valid": False,
            "error_type": "ast_decoder:decoder_wrong_output_format",
            "error": [],
        }
    result = ast_checker(
        entry["function"], output, answer["ground_truth"], language(category), category, model
    )
    return {
        "valid": bool(result["valid"]),
        "error_type": result.get("error_type"),
        "error": result.get("error", []),
    }


def passes_reordered(
    output: list[Any], category: str, entry: dict[str, Any], answer: Any, model: str
) -> bool:
    """Whether BFCL's checker passes some other order of the same calls (its greedy
    pairing of parallel calls can reject one order and accept another)."""
    if len(output) > 6:
        return False
    for order in itertools.permutations(output):
        checked = ast_checker(
            entry["function"], list(order), answer["ground_truth"], language(category), category,
            model,
        )  # fmt: skip
        if checked["valid"]:
            return True
    return False


def timing(prepared: list[Any], model: str, trials: int) -> dict[str, Any]:
    """CPU seconds per trial over all cases: the check alone, and decoding + check, where the
    decoding is BFCL's OpenAI FC handler's ``decode_ast`` on ``[{name: arguments JSON}]``
    (the raw form BFCL stores for a function-calling model)."""
    handler = _FC_HANDLER
    raw = [
        [{name: json.dumps(args)} for call in output for name, args in call.items()]
        for _case, output, _entry, _answer in prepared
    ]
    check, decode_check = [], []
    for _ in range(trials):
        start = time.process_time()
        for case, output, entry, answer in prepared:
            verdict(output, case["category"], entry, answer, model)
        check.append(time.process_time() - start)
        start = time.process_time()
        for (case, _output, entry, answer), result in zip(prepared, raw, strict=True):
            try:
                decoded = handler.decode_ast(result, ReturnFormat.PYTHON, False)
            except Exception:  # BFCL: a reply it cannot decode is no call
                decoded = []
            verdict(decoded, case["category"], entry, answer, model)
        decode_check.append(time.process_time() - start)
    return {"cases": len(prepared), "check_s": check,
            "decode_check_s": decode_check}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cases", nargs="?", help="JSONL cases (default: stdin)")
    parser.add_argument("--mode", choices=sorted(MODELS), default="fc")
    parser.add_argument("--time", type=int, default=0, metavar="N", help="time N trials instead")
    args = parser.parse_args(argv)
    text = Path(args.cases).read_text(encoding="utf-8") if args.cases else sys.stdin.read()
    cases = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not cases:
        return 0
    model = MODELS[args.mode]
    entries: dict[str, dict[str, Any]] = {}
    answers: dict[str, dict[str, Any]] = {}
    for category in dict.fromkeys(c["category"] for c in cases):
        for e in load_dataset_entry(
            category, include_prereq=False, include_language_specific_hint=False
        ):
            entries[e["id"]] = e
        if "relevance" not in category:
            answers.update((a["id"], a) for a in load_ground_truth_entry(category))
    prepared = [(c, _decoded(c, args.mode), entries[c["id"]], answers.get(c["id"])) for c in cases]
    if args.time:
        print(json.dumps(timing(prepared, model, args.time)))
        return 0
    out = sys.stdout
    for case, output, entry, answer in prepared:
        category = case["category"]
        try:
            result = verdict(output, category, entry, answer, model)
        except Exception as exc:  # BFCL's checker raising is a verdict too: the entry fails
            result = {
                "valid": False,
                "error_type": "checker_exception",
                "error": [f"{type(exc).__name__}: {exc}"],
            }
        if result.get("error_type") == "parallel_function_checker_no_order:cannot_find_match":
            result["passes_reordered"] = passes_reordered(output, category, entry, answer, model)
        result["error"] = [
            e if isinstance(e, str) else json.dumps(e, default=str) for e in result["error"]
        ][:3]
        out.write(json.dumps({"case_id": case["case_id"], **result}, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

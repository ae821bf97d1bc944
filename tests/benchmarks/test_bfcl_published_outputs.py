"""Real model outputs from BFCL's published 2024 results (``bench/bfcl_published_agreement.py``)
that once made agentloop's verdict differ from BFCL's checker, kept as cases."""

from __future__ import annotations

import warnings

from agentloop.evals import bfcl_prompt_format, bfcl_verdict
from agentloop.evals._bfcl_formats import decode_reply

from agentloop.benchmarks.bfcl._format_sensitivity import format_sensitivity_rows

PYTHON_NO_TAG = "ret_fmt=python&tool_call_tag=False&func_doc_fmt=python&prompt_fmt=plaintext"

# open-mixtral-8x7b, 2024-08-11, parallel_function_156: a Markdown-escaped underscore (``\_``)
# inside string literals, an invalid escape sequence that Python warns about.
ESCAPED = (
    '[random_forest.train(n_estimators=100, max_depth=10, data="data\\_random\\_forest"),\n'
    'random_forest.train(n_estimators=200, max_depth=20, data="data\\_random\\_forest"),\n'
    'random_forest.train(n_estimators=300, max_depth=30, data="data\\_random\\_forest"),\n'
    'random_forest.train(n_estimators=400, max_depth=40, data="data\\_random\\_forest")]'
)


def test_a_reply_python_warns_about_decodes_whatever_the_warning_filters() -> None:
    # BFCL's decoder reads it (the warning is only printed); with warnings as errors (as
    # pytest runs here, or a user's -W error) agentloop failed to decode it
    fmt = bfcl_prompt_format(PYTHON_NO_TAG + "&style=classic")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        decoded = decode_reply(ESCAPED, fmt)
    assert decoded == [
        {
            "random_forest.train": {
                "n_estimators": n,
                "max_depth": d,
                "data": "data\\_random\\_forest",
            }
        }
        for n, d in ((100, 10), (200, 20), (300, 30), (400, 40))
    ]


# BFCL v4's parallel_156: its function and possible answers
DOC = {
    "name": "random_forest.train",
    "description": "Train a Random Forest Model on given data",
    "parameters": {
        "type": "dict",
        "properties": {
            "n_estimators": {"type": "integer", "description": "The number of trees."},
            "max_depth": {"type": "integer", "description": "The maximum depth of the tree."},
            "data": {"type": "string", "description": "The training data for the model."},
        },
        "required": ["n_estimators", "max_depth", "data"],
    },
}
ENTRY = {"id": "parallel_156", "question": [[{"role": "user", "content": "Train four."}]],
         "function": [DOC]}  # fmt: skip
ANSWERS = [
    {"random_forest.train": {"n_estimators": [n], "max_depth": [d], "data": ["data_random_forest"]}}
    for n, d in ((100, 10), (200, 20), (300, 30), (400, 40))
]


def test_its_verdict_is_bfcls_value_error_not_a_decoder_failure() -> None:
    # BFCL: invalid, parallel_function_checker_no_order:cannot_find_match ('data' differs);
    # agentloop reads a prompting model's text as in a format-sensitivity row
    rows = format_sensitivity_rows(ENTRY, ANSWERS, "parallel", 0)
    row = next(r for r in rows if r["metadata"]["bfcl_format"].startswith(PYTHON_NO_TAG))
    reply = [{"role": "assistant", "content": ESCAPED}]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = bfcl_verdict(reply, row["ground_truth"], row["metadata"], row)
    assert result.score == 0.0
    assert result.details.error_type == "parallel_function_checker_no_order:cannot_find_match"

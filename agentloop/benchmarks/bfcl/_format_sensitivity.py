"""BFCL's format-sensitivity category as rows: each of its 200 entries (taken from the
Python single-turn categories by ``BFCL_v4_format_sensitivity.json``) in each of its 26
prompt formats, in BFCL's order (entry by entry, the formats in turn), with BFCL's ids
(``format_sensitivity_<n>:<format>:<source id>``).

A row is what BFCL sends a prompting model: no tools, the format's system prompt
(``_system_prompt``) over the function docs as BFCL holds them then (its Python hint appended
twice: once when the source category is read, once more when the format-sensitivity
category is). The expected calls keep BFCL's own (dotted) names, which a prompting model
sees and its checker compares, under ``text_calls``: calls written in the reply's text,
not made as tool calls (no tool is bound). The metadata names the format and the source category,
whose checker BFCL applies (``bfcl_verdict`` decodes the reply's text in that format).
"""

from __future__ import annotations

import copy
from typing import Any

from agentloop.benchmarks.bfcl._convert import PYTHON_HINT, expected_calls
from agentloop.benchmarks.bfcl._system_prompt import with_system_prompt

__all__ = ["FORMAT_SENSITIVITY", "format_sensitivity_rows"]

FORMAT_SENSITIVITY = "format_sensitivity"


def format_sensitivity_rows(
    entry: dict[str, Any], answers: list[dict[str, Any]], category: str, position: int
) -> list[dict[str, Any]]:
    """One source entry's rows, one per prompt format; ``position``: the entry's place
    among the category's 200 (BFCL numbers the rows in that order)."""
    functions = entry.get("function") or []
    shown = copy.deepcopy(functions)
    for doc in shown:
        doc["description"] = doc["description"] + PYTHON_HINT + PYTHON_HINT
    calls = expected_calls(answers, functions)
    for call, answer in zip(calls, answers, strict=True):
        call["function"]["name"] = next(iter(answer))  # BFCL's name, not OpenAI's
    # here, not at import: a config naming any bfcl: dataset imports this module, and a
    # config error must not load the rewards (and their async machinery)
    from agentloop.evals import BFCL_PROMPT_FORMATS

    rows = []
    for offset, config in enumerate(BFCL_PROMPT_FORMATS):
        number = position * len(BFCL_PROMPT_FORMATS) + offset
        rows.append(
            {
                "id": f"{FORMAT_SENSITIVITY}_{number}:{config}:{entry['id']}",
                "messages": with_system_prompt(entry["question"][0], config, shown),
                "ground_truth": {"text_calls": copy.deepcopy(calls)},
                "metadata": {
                    "bfcl_category": FORMAT_SENSITIVITY,
                    "bfcl_format": config,
                    "bfcl_source_category": category,
                    "bfcl_functions": copy.deepcopy(functions),
                },
            }
        )
    return rows

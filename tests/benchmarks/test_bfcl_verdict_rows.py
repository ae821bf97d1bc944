"""The rows and the ``bfcl_verdict`` reward together: BFCL's first acceptable answer
passes on every fixture row, a wrong value fails (the reward's own rules are tested
with ``evals``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import agentloop.evals as evals
import pytest

from agentloop.benchmarks.bfcl._convert import openai_name
from agentloop.benchmarks.bfcl._data import BFCL_CATEGORIES, NO_CALL_CATEGORIES, bfcl_rows
from tests.benchmarks.conftest import FIXTURE

pytestmark = pytest.mark.skipif(
    "bfcl_verdict" not in evals.registered_rewards(),
    reason="the bfcl_verdict reward (evals) is not registered yet",
)


def dict_first(value: Any) -> Any:
    """A parameter's value from BFCL's answer: a dict's members (and those of each dict
    in a list) take their first acceptable value; members with only "" are left out."""
    if isinstance(value, dict):
        return {k: next(o for o in opts if o != "") for k, opts in value.items() if opts != [""]}
    if isinstance(value, list):
        return [dict_first(v) if isinstance(v, dict) else v for v in value]
    return value


def canonical_calls(answer: list[dict[str, Any]]) -> list[dict[str, Any]]:
    calls = []
    for item in answer:
        for name, params in item.items():
            arguments = {}
            for param, options in params.items():
                kept = [o for o in options if o != ""]
                if kept:
                    arguments[param] = dict_first(kept[0])
            calls.append({"name": openai_name(name), "arguments": arguments})
    return calls


def answers(category: str) -> dict[str, list[dict[str, Any]]]:
    path = Path(FIXTURE) / "possible_answer" / f"BFCL_v4_{category}.json"
    return {
        json.loads(line)["id"]: json.loads(line)["ground_truth"]
        for line in path.read_text().splitlines()
        if line.strip()
    }


# Java and JavaScript answers are the values BFCL converts strings to (test_bfcl_languages.py)
AST = [c for c in BFCL_CATEGORIES if c not in NO_CALL_CATEGORIES and "java" not in c]


@pytest.mark.parametrize("category", AST)
def test_bfcls_first_answer_passes_and_a_wrong_value_fails(category: str) -> None:
    expected = answers(category)
    for row in bfcl_rows(category):
        made = canonical_calls(expected[row["id"]])
        result = evals.bfcl_verdict(made, row["ground_truth"], row["metadata"])
        assert result.score == 1.0, (row["id"], result.reason)
        wrong = [{**made[0], "arguments": {**made[0]["arguments"], "zz_unknown": 1}}, *made[1:]]
        assert evals.bfcl_verdict(wrong, row["ground_truth"], row["metadata"]).score == 0.0


@pytest.mark.parametrize("category", ["irrelevance", "live_irrelevance", "live_relevance"])
def test_no_call_categories(category: str) -> None:
    for row in bfcl_rows(category):
        name = row["tools"][0]["function"]["name"]
        silent = evals.bfcl_verdict([], row["ground_truth"], row["metadata"]).score
        called = evals.bfcl_verdict(
            [{"name": name, "arguments": {}}], row["ground_truth"], row["metadata"]
        ).score
        assert (silent, called) == ((0.0, 1.0) if category == "live_relevance" else (1.0, 0.0))

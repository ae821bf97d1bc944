"""BFCL's multi-turn entries as agentloop multi-turn rows.

A row holds BFCL's first turn in ``messages`` and the others in ``turns``; its
``environment`` is the scenario :func:`bfcl_environment` builds (``initial_config``,
``involved_classes``, and ``long_context`` for ``multi_turn_long_context``, as BFCL's
handler sets it). The tools come from the environment, not the row.

``missed_function`` (``multi_turn_miss_func``): BFCL removes those functions from the
tools and adds them back at the turn it names, whose question is empty; its FC handler
then sends :data:`MISSED_FUNCTION_PROMPT` as the user message. The row does the same:
that turn's ``tools`` names the held-back functions and its message is that prompt.

Ground truth per turn comes from BFCL's possible answer (Python call strings such as
``sort('final_report.pdf')``), parsed into ``{"name", "arguments"}`` calls; a positional
argument is named after the method's parameter at that position, as Python binds it.
"""

from __future__ import annotations

import ast
import functools
import inspect
from typing import Any

from agentloop.benchmarks.bfcl._convert import openai_name
from agentloop.errors import DatasetError

__all__ = [
    "MISSED_FUNCTION_PROMPT",
    "MULTI_TURN_CATEGORIES",
    "bfcl_multi_turn_row",
    "parse_bfcl_call",
]

MULTI_TURN_CATEGORIES = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
# bfcl_eval.constants.default_prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
MISSED_FUNCTION_PROMPT = "I have updated some more functions you can choose from. What about now?"


@functools.cache
def _parameters(involved_classes: tuple[str, ...]) -> dict[str, list[str]]:
    """Method name -> its parameter names (a later class wins a shared name)."""
    from agentloop.benchmarks.bfcl._env import _load_class  # LangChain: not for a data row

    found: dict[str, list[str]] = {}
    for name in involved_classes:
        for method, function in inspect.getmembers(_load_class(name), inspect.isfunction):
            if not method.startswith("_"):
                found[method] = list(inspect.signature(function).parameters)[1:]  # no self
    return found


def parse_bfcl_call(text: str, parameters: dict[str, list[str]]) -> dict[str, Any]:
    """One ground-truth call string as ``{"name", "arguments"}``; ValueError if it is not
    a call of a plain name with literal arguments."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise ValueError(f"not a Python call: {text!r}") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a call of a function name: {text!r}")
    name = node.func.id
    try:
        arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        positional = [ast.literal_eval(a) for a in node.args]
    except ValueError:
        raise ValueError(f"an argument is not a literal: {text!r}") from None
    if len(arguments) != len(node.keywords):
        raise ValueError(f"**arguments are not supported: {text!r}")
    names = parameters.get(name, [])
    if len(positional) > len(names):
        raise ValueError(f"{len(positional)} positional argument(s) for {name}: {text!r}")
    named = dict(zip(names, positional, strict=False))
    return {"name": openai_name(name), "arguments": {**named, **arguments}}


def bfcl_multi_turn_row(
    entry: dict[str, Any], category: str, ground_truth: list[list[str]]
) -> dict[str, Any]:
    """One BFCL multi-turn entry (and its possible answer) as a dataset row."""
    questions: list[list[dict[str, Any]]] = entry["question"]
    if len(ground_truth) != len(questions):
        raise DatasetError(
            f"{entry['id']}: {len(questions)} turn(s) but {len(ground_truth)} ground-truth turn(s)"
        )
    involved = list(entry["involved_classes"])
    missed: dict[str, list[str]] = entry.get("missed_function") or {}
    if "0" in missed:
        raise DatasetError(f"{entry['id']}: missed_function at the first turn")
    turns = []
    for index, messages in enumerate(questions[1:], start=1):
        turn: dict[str, Any] = {"messages": messages}
        held_back = missed.get(str(index))
        if held_back:
            turn = {
                "messages": messages or [{"role": "user", "content": MISSED_FUNCTION_PROMPT}],
                "tools": [openai_name(name) for name in held_back],
            }
        turns.append(turn)
    parameters = _parameters(tuple(involved))
    try:
        expected = [
            {"tool_calls": [parse_bfcl_call(call, parameters) for call in calls]}
            for calls in ground_truth
        ]
    except ValueError as exc:
        raise DatasetError(f"{entry['id']}: possible answer: {exc}") from None
    return {
        "id": entry["id"],
        "messages": questions[0],
        "turns": turns,
        "environment": {
            "initial_config": entry.get("initial_config") or {},
            "involved_classes": involved,
            "long_context": "long_context" in category,
        },
        "ground_truth": {"turns": expected},
        "metadata": {"bfcl_category": category},
    }

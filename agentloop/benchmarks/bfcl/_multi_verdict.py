"""BFCL's multi-turn verdict, reimplemented: 1.0 exactly when BFCL's ``multi_turn_checker``
passes the conversation (``bfcl_eval/eval_checker/multi_turn_eval``).

Like BFCL's checker it ignores what the tools answered during the run and executes the
agent's calls again, in fresh instances of the BFCL classes, next to the ground truth's
calls in other fresh instances. Per turn, in BFCL's order:

1. the agent's steps (assistant messages with tool calls) run on the agent's instances;
   a step with a call whose arguments are not a JSON object is dropped whole, as BFCL's
   decoder drops it (read strictly from the text the model sent: blank text or a raw
   control character inside a string does not decode); steps without calls are not steps;
2. the turn's ground-truth calls run on the ground-truth instances;
3. ``empty_turn_model_response``: the ground truth has calls and the agent made none;
4. a turn whose ground truth is empty is not checked further (its calls still ran);
5. ``instance_state_mismatch``: a public attribute of an involved instance differs (``!=``)
   from the ground-truth instance's;
6. ``execution_response_mismatch``: the turn's ground-truth results are not all among the
   agent's results of every turn so far (a multiset: unordered, each used once).

Before that, ``force_terminated``: BFCL fails an entry whose conversation has fewer turns
than the ground truth. BFCL ends the conversation after running the calls of a turn's 21st
step, so a turn that ended with ``max_rounds`` before the last one is force-terminated
too (BFCL has no later turns), and the last turn may end so without failing (its steps
run here as BFCL ran them, a call refused at the round cap included). A turn that ended
with a model error or a sample limit fails the same way. The first failing rule is the
reason, with its turn (1-based, as agentloop counts turns; BFCL's messages give the
0-based index) and, for a state, the class and the first differing attribute.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from agentloop._tool_calls import lenient_texts, read_as_sent
from agentloop.benchmarks.bfcl._env import bfcl_instances, bfcl_methods, call_bfcl_method
from agentloop.evals import RewardResult

__all__ = ["BfclMultiTurnDetails", "bfcl_multi_turn_verdict", "conversation_turns"]

Call = tuple[str, dict[str, Any]]


class BfclMultiTurnDetails(BaseModel):
    """Where BFCL's multi-turn checker would stop, and why."""

    model_config = ConfigDict(use_attribute_docstrings=True, extra="forbid")

    error_type: str | None = None
    """BFCL's error type (``multi_turn:...``); None when the entry passes."""
    turn: int | None = None
    """The failing turn, 1-based (BFCL's turn index + 1)."""
    class_name: str | None = None
    """For a state mismatch: the BFCL class whose instance differs."""
    attribute: str | None = None
    """For a state mismatch: the first differing public attribute."""
    agent_value: str | None = None
    """That attribute in the agent's instance (shortened)."""
    expected_value: str | None = None
    """That attribute in the ground-truth instance (shortened)."""
    missing_results: list[str] = []
    """For a response mismatch: ground-truth results not among the agent's (shortened)."""
    steps_dropped: int = 0
    """Agent steps left out because a call's arguments were not a JSON object."""


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _openai_messages(trajectory: Any) -> list[dict[str, Any]]:
    if hasattr(trajectory, "to_openai_messages"):
        messages: list[dict[str, Any]] = trajectory.to_openai_messages()
        return messages
    items = list(trajectory or [])
    if items and not all(isinstance(m, dict) for m in items):
        from agentloop.engine import message_to_openai

        return [m if isinstance(m, dict) else message_to_openai(m) for m in items]
    return items


def conversation_turns(trajectory: Any) -> tuple[list[list[dict[str, Any]]], list[str]]:
    """The messages of each turn, and each turn's stop reason (``""`` when unknown).
    A Trajectory with turn records is cut at them; a message list at each user message
    that follows another role (the first turn also holds what precedes its user message)."""
    messages = _openai_messages(trajectory)
    records = list(getattr(trajectory, "turns", None) or [])
    if records:
        starts = [r.message_start for r in records] + [len(messages)]
        turns = [messages[a:b] for a, b in itertools.pairwise(starts)]
        return turns, [str(r.stop_reason) for r in records]
    turns = []
    current: list[dict[str, Any]] = []
    previous = None
    for message in messages:
        role = message.get("role")
        if role == "user" and previous not in (None, "user", "system", "developer"):
            turns.append(current)
            current = []
        current.append(message)
        previous = role
    if current or not turns:
        turns.append(current)
    stop = str(getattr(trajectory, "stop_reason", "") or "")
    return turns, [""] * (len(turns) - 1) + [stop]


def _sent_texts(trajectory: Any) -> dict[str, str]:
    """Call id -> the argument text the model sent, where the run kept it because only a
    lenient reader accepts it (a trajectory's call records; a LangChain message's
    provider calls)."""
    records = getattr(trajectory, "tool_calls", None)
    if callable(records):
        return {r.id: r.raw_args for r in records() if r.raw_args is not None}
    texts: dict[str, str] = {}
    for message in trajectory or []:
        if not isinstance(message, dict):
            texts.update(lenient_texts(message))
    return texts


def _steps(turn: Sequence[dict[str, Any]], sent: Mapping[str, str]) -> tuple[list[list[Call]], int]:
    """The turn's steps as BFCL decodes them (strict JSON of the text the model sent), and
    how many were dropped."""
    steps, dropped = [], 0
    for message in turn:
        if message.get("role") != "assistant" or not message.get("tool_calls"):
            continue
        calls: list[Call] = []
        for call in message["tool_calls"]:
            text = sent.get(call.get("id") or "")
            read = read_as_sent(call if text is None else {**call, "raw_args": text})
            if not isinstance(read.args, dict):
                break
            function = call.get("function") or {}
            calls.append((str(function.get("name") or ""), read.args))
        else:
            steps.append(calls)
            continue
        dropped += 1
    return steps, dropped


def _expected(row: Mapping[str, Any]) -> list[list[Call]]:
    turns = ((row.get("ground_truth") or {}).get("turns")) or []
    out = []
    for turn in turns:
        calls = []
        for call in turn.get("tool_calls") or []:
            function = call.get("function", call)
            arguments = function.get("arguments") or {}
            if isinstance(arguments, str):
                arguments = json.loads(arguments)
            calls.append((str(function["name"]), dict(arguments)))
        out.append(calls)
    return out


def _first_difference(agent: Any, expected: Any) -> tuple[str, Any, Any] | None:
    missing = object()
    for name, value in vars(expected).items():
        if name.startswith("_"):
            continue
        mine = getattr(agent, name, missing)
        if mine is missing or mine != value:
            return name, "<missing>" if mine is missing else mine, value
    return None


def _missing(expected: list[str], results: list[str]) -> list[str]:
    pool = list(results)
    missing = []
    for item in expected:
        if item in pool:
            pool.remove(item)
        else:
            missing.append(item)
    return missing


def _result(score: float, reason: str, details: BfclMultiTurnDetails) -> RewardResult[Any]:
    return RewardResult(score=score, reason=reason, details=details)


@functools.cache
def _category_rows(category: str) -> dict[str, dict[str, Any]]:
    from agentloop.benchmarks.bfcl._data import bfcl_rows

    return {str(r["id"]): r for r in bfcl_rows(category)}


def _with_scenario(row: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The row, or, when re-scoring a run (a results line keeps no ``environment``), the
    BFCL row of the same id and category."""
    if isinstance(row, Mapping) and isinstance(row.get("environment"), Mapping):
        return row
    category = ((row or {}).get("metadata") or {}).get("bfcl_category")
    found = _category_rows(category).get(str(row.get("id"))) if row and category else None
    if found is None:
        raise ValueError("bfcl_multi_turn_verdict needs the BFCL row (with its environment)")
    return found


def bfcl_multi_turn_verdict(trajectory: Any, row: Mapping[str, Any]) -> RewardResult[Any]:
    """BFCL's multi-turn verdict of a conversation over a BFCL row (see the module)."""
    row = _with_scenario(row)
    spec = row.get("environment") or {}
    expected_turns = _expected(row)
    turns, stops = conversation_turns(trajectory)
    sent = _sent_texts(trajectory)
    details = BfclMultiTurnDetails()
    for index, stop in enumerate(stops, start=1):
        step_limit = stop == "max_rounds" and index < len(expected_turns)
        if step_limit or stop in ("error", "time_limit", "token_limit"):
            details.error_type, details.turn = "multi_turn:force_terminated", index
            reason = (
                f"turn {index} ended at the step limit (max_rounds): BFCL ends the conversation "
                "there, and the turns after it are missing (multi_turn:force_terminated)"
                if step_limit
                else f"turn {index} ended with {stop}: BFCL force-terminates the entry "
                "(multi_turn:force_terminated)"
            )
            return _result(0.0, reason, details)
    if len(turns) != len(expected_turns):
        details.error_type = "multi_turn:force_terminated"
        return _result(
            0.0,
            f"{len(turns)} turn(s) where the ground truth has "
            f"{len(expected_turns)} (multi_turn:force_terminated)",
            details,
        )
    config, classes = spec.get("initial_config") or {}, spec.get("involved_classes") or []
    long_context = bool(spec.get("long_context", False))
    agent = bfcl_instances(config, classes, long_context)
    truth = bfcl_instances(config, classes, long_context)
    agent_methods, truth_methods = bfcl_methods(agent), bfcl_methods(truth)
    results: list[str] = []
    for index, (turn, expected) in enumerate(zip(turns, expected_turns, strict=True), start=1):
        steps, dropped = _steps(turn, sent)
        details.steps_dropped += dropped
        for step in steps:
            results += [call_bfcl_method(agent_methods, n, a) for n, a in step]
        expected_results = [call_bfcl_method(truth_methods, n, a) for n, a in expected]
        if not expected:
            continue
        details.turn = index
        if not steps:
            details.error_type = "multi_turn:empty_turn_model_response"
            return _result(
                0.0,
                f"turn {index}: no tool call where the ground truth has "
                f"{len(expected)} (multi_turn:empty_turn_model_response)",
                details,
            )
        for class_name, instance in truth.items():
            found = _first_difference(agent[class_name], instance)
            if found is not None:
                details.error_type = "multi_turn:instance_state_mismatch"
                details.class_name, details.attribute = class_name, found[0]
                details.agent_value, details.expected_value = _short(found[1]), _short(found[2])
                return _result(
                    0.0,
                    f"turn {index}: {class_name}.{found[0]} differs from the "
                    "ground truth's (multi_turn:instance_state_mismatch)",
                    details,
                )
        missing = _missing(expected_results, results)
        if missing:
            details.error_type = "multi_turn:execution_response_mismatch"
            details.missing_results = [_short(m) for m in missing]
            return _result(
                0.0,
                f"turn {index}: {len(missing)} ground-truth result(s) not among "
                f"the agent's results so far, first {_short(missing[0], 80)!r} "
                "(multi_turn:execution_response_mismatch)",
                details,
            )
    details.turn = None
    return _result(
        1.0, f"all {len(turns)} turn(s) match BFCL's ground truth: states and results", details
    )

"""BFCL's agentic verdict (web search, and memory's questions): 1.0 exactly when BFCL's
``agentic_checker`` finds one of the row's possible answers (``answer``) in the model's
last message that is not a function call.

The message is chosen as BFCL's ``_evaluate_single_agentic_entry`` chooses it for a
function-calling model (bfcl-eval 2026.3.23): over the conversation's steps (assistant
messages), a step whose calls all decode (strict JSON objects of the text the model sent)
is a call step and is skipped; any other step is a candidate, the last one wins: a step
without calls gives its text, a step with a call that does not decode gives BFCL's record
of it (``str([{name: arguments text}, ...])``). An empty or missing text fails with
``agentic:no_last_message``, as in BFCL. The check itself is bfcl-eval's own
``agentic_checker`` (lower case, whitespace kept, ``,./-_*^()`` removed, the answer as a
whole word). A memory category's prerequisite conversation has no answer and no verdict
(``NotApplicable``).

When the row ran on an environment that says how its data was obtained (the web-search
environment's ``search`` and ``leaderboard_comparable``), the verdict's details repeat it,
so every result line says whether it is comparable with BFCL's leaderboard.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from agentloop.benchmarks.bfcl._multi_verdict import _openai_messages, _sent_texts
from agentloop.evals import NotApplicable, RewardResult

__all__ = ["BfclAgenticDetails", "bfcl_agentic_verdict", "last_non_call_message"]


class BfclAgenticDetails(BaseModel):
    """What BFCL's agentic checker read, and how the run's data was obtained."""

    model_config = ConfigDict(use_attribute_docstrings=True, extra="forbid")

    error_type: str | None = None
    """BFCL's error type (``agentic:answer_not_found``, ``agentic:no_last_message``);
    None when the entry passes."""
    final_answer: str | None = None
    """The message checked (shortened)."""
    possible_answers: list[str] = []
    """The row's possible answers."""
    search: str | None = None
    """How the searches ran (``live``, ``replay``); None outside web search."""
    leaderboard_comparable: bool = True
    """False when the run's data was not obtained as BFCL obtains it (recorded searches)."""


def _checker() -> Callable[[Any, list[str]], dict[str, Any]]:
    from agentloop.benchmarks.bfcl._package import bfcl_package

    bfcl_package()  # importable wherever make installed it
    module = importlib.import_module("bfcl_eval.eval_checker.agentic_eval.agentic_checker")
    checker: Callable[[Any, list[str]], dict[str, Any]] = module.agentic_checker
    return checker


def _decodes(text: Any) -> bool:
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return False
    return isinstance(value, dict)


def last_non_call_message(trajectory: Any) -> str | None:
    """The message BFCL's agentic checker reads (see the module); None when none."""
    sent = _sent_texts(trajectory)
    found: str | None = None
    for message in _openai_messages(trajectory):
        if message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls") or []
        if not calls:
            content = message.get("content")
            if isinstance(content, list):  # content parts
                content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            found = content if isinstance(content, str) else None
            continue
        texts = []
        for call in calls:
            # an OpenAI call, or a LangChain-shaped one ({name, args}) in a message list
            function = call.get("function") or {
                "name": call.get("name"),
                "arguments": call.get("args"),
            }
            text = sent.get(call.get("id") or "", function.get("arguments"))
            texts.append((str(function.get("name") or ""), text))
        if not all(_decodes(text) for _, text in texts):
            found = str([{name: text} for name, text in texts])
    return found


def _provenance(environment: Any) -> tuple[str | None, bool]:
    states = environment.get("states") if isinstance(environment, Mapping) else None
    for state in reversed(states or []):
        for value in (state or {}).values() if isinstance(state, Mapping) else ():
            if isinstance(value, Mapping) and "leaderboard_comparable" in value:
                return value.get("search"), bool(value["leaderboard_comparable"])
    return None, True


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def bfcl_agentic_verdict(
    trajectory: Any, row: Mapping[str, Any], environment: Any = None
) -> RewardResult[Any] | NotApplicable:
    """BFCL's agentic verdict of a conversation over a row with possible answers; a memory
    prerequisite conversation (no answer) is not scored, as BFCL scores only questions."""
    answers = row.get("answer")
    if answers is None and "_prereq_" in str(row.get("id")):
        return NotApplicable(reason="a memory prerequisite conversation: BFCL scores questions")
    possible = [answers] if isinstance(answers, str) else [str(a) for a in answers or []]
    search, comparable = _provenance(environment)
    details = BfclAgenticDetails(
        possible_answers=possible, search=search, leaderboard_comparable=comparable
    )
    label = "" if comparable else f" (searches from a {search}: not comparable with BFCL's)"
    message = last_non_call_message(trajectory)
    if not message:
        details.error_type = "agentic:no_last_message"
        reason = "no last message that is not a function call (agentic:no_last_message)"
        return RewardResult(score=0.0, reason=reason + label, details=details)
    details.final_answer = _short(message)
    verdict = _checker()(message, possible)
    if verdict.get("valid"):
        return RewardResult(score=1.0, reason="a possible answer found" + label, details=details)
    details.error_type = str(verdict.get("error_type") or "agentic:answer_not_found")
    reason = f"none of {possible!r} in the final answer ({details.error_type})"
    return RewardResult(score=0.0, reason=reason + label, details=details)

"""Errors split by who caused them: each error kind and tool-call status mapped as
documented, and the summary's tally over result lines."""

from __future__ import annotations

from typing import Any

import pytest

from agentloop.harness.stats._causes import CAUSES, result_cause, tool_call_cause
from agentloop.harness.stats._summary import summarize


@pytest.mark.parametrize(
    ("kind", "error", "cause"),
    [
        ("model", "BadRequestError: Error code: 400 - maximum context length", "model"),
        ("model", "RateLimitError: Error code: 429 - slow down", "infrastructure"),
        ("model", "APIStatusError: Error code: 502 - bad gateway", "infrastructure"),
        ("model", "APIConnectionError: Connection error.", "infrastructure"),
        ("model", "ReplayMismatchError: no recording for sample s1", "infrastructure"),
        ("model", "ScriptExhaustedError: the script has no reply left", "infrastructure"),
        ("agent", "ValueError: my agent broke", "model"),
        ("user_model", "InternalServerError: Error code: 500", "infrastructure"),
        ("user_model", "BadRequestError: Error code: 400 - content filter", "environment"),
        ("dataset", "a row with turns cannot run with a simulated user", "environment"),
        ("crash", "KeyError: 'x'", "infrastructure"),
        ("reward", "my_reward: ZeroDivisionError", "infrastructure"),
        ("from_the_future", "?", "infrastructure"),
        (None, "?", "infrastructure"),
    ],
)
def test_an_errored_result_is_put_down_to_its_cause(
    kind: str | None, error: str, cause: str
) -> None:
    assert result_cause({"status": "error", "error_kind": kind, "error": error}) == cause


def test_a_result_that_did_not_error_has_no_cause() -> None:
    assert result_cause({"status": "ok", "error_kind": None}) is None


@pytest.mark.parametrize(
    ("call", "cause"),
    [
        ({"status": "malformed"}, "model"),
        ({"status": "invalid_args"}, "model"),
        ({"status": "unknown_tool"}, "model"),
        ({"status": "error", "exception": "KeyError"}, "tool"),
        ({"status": "timeout"}, "tool"),
        ({"status": "no_implementation"}, "tool"),
        ({"status": "error", "exception": None}, "environment"),
        ({"status": "ok"}, None),
        ({"status": "round_limit"}, None),
        ({"status": "not_run"}, None),
    ],
)
def test_a_failed_tool_call_is_put_down_to_its_cause(
    call: dict[str, Any], cause: str | None
) -> None:
    assert tool_call_cause(call) == cause


def _calls(*statuses: tuple[str, str | None]) -> dict[str, Any]:
    calls = [{"status": s, "exception": e} for s, e in statuses]
    return {"steps": [{"tool_calls": calls}]}


def test_the_summary_splits_errors_by_cause() -> None:
    lines = [
        {"id": "a", "epoch": 1, "status": "ok",
         "trajectory": _calls(("ok", None), ("malformed", None))},
        {"id": "b", "epoch": 1, "status": "error", "error_kind": "model",
         "error": "RateLimitError: Error code: 429", "trajectory": _calls(("timeout", None))},
        {"id": "c", "epoch": 1, "status": "error", "error_kind": "agent", "error": "ValueError: x",
         "trajectory": _calls(("error", None), ("error", "KeyError"))},
        {"id": "d", "epoch": 1, "status": "error", "error_kind": "crash", "error": "boom",
         "trajectory": None},
    ]  # fmt: skip
    causes = summarize(lines).error_causes
    assert list(causes.results) == list(CAUSES) == list(causes.tool_calls)
    assert causes.results == {"model": 1, "tool": 0, "environment": 0, "infrastructure": 2}
    assert causes.tool_calls == {"model": 1, "tool": 2, "environment": 1, "infrastructure": 0}

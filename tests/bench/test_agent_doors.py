"""The doors bench's parts that need no run (bench/agent_doors.py): a τ²-bench case as a
conversation with a scripted user, and what counts as a difference."""

from __future__ import annotations

import json
from typing import Any

from tests.support.harness import bench_module

doors = bench_module("agent_doors")


def _names(replies: list[Any]) -> list[str]:
    return [
        r
        if isinstance(r, str)
        else f"{r['tool_calls'][0]['id']}:{r['tool_calls'][0]['function']['name']}"
        for r in replies
    ]


def test_a_dual_control_case_alternates_the_sides_as_its_calls_do() -> None:
    case = {
        "calls": [
            ["user", "toggle_airplane_mode", {}],
            ["assistant", "get_customer", {"id": 1}],
            ["assistant", "refuel_data", {"gb": 2}],
            ["user", "reboot_device", {}],
        ],
        "agent_text": "All set: 2 GB added.",
    }
    agent, user = doors.tau2_scripts(case)
    assert _names(agent) == [
        "call_2:get_customer",
        "call_3:refuel_data",
        "Please go on.",
        "All set: 2 GB added.",
    ]
    assert _names(user) == [
        "call_1:toggle_airplane_mode",
        "Hi, I need help with my account.",
        "call_4:reboot_device",
        "Done.",
        "Thanks, that is all. ###STOP###",
    ]
    assert json.loads(agent[1]["tool_calls"][0]["function"]["arguments"]) == {"gb": 2}


def test_a_case_without_calls_is_one_answer_and_the_stop() -> None:
    agent, user = doors.tau2_scripts({"calls": [], "agent_text": "Done."})
    assert agent == ["Done."]
    assert user == ["Hi, I need help with my account.", "Thanks, that is all. ###STOP###"]


def _line(*contents: str, **extra: Any) -> dict[str, Any]:
    messages = [
        {"role": "assistant", "content": c, "langchain": {"id": i}} for i, c in enumerate(contents)
    ]
    return {
        "trajectory": {"messages": messages, "user_messages": [], "stop_reason": "final"},
        "scores": {"r": {"score": 1.0}},
        **extra,
    }


def test_a_difference_names_the_first_message_that_differs_and_ignores_message_ids() -> None:
    native = _line("a", "b")
    same = _line("a", "b")
    same["trajectory"]["messages"][0]["langchain"] = {"id": "another"}
    assert doors.difference(native, same) == (None, None)
    trajectory, scores = doors.difference(native, _line("a", "c"))
    assert trajectory is not None and trajectory.startswith("messages[1]: native")
    assert scores is None
    failed = _line("a", scores={}, error="ReplayMismatchError: tool_choice differs")
    assert doors.difference(native, failed) == (
        "error: ReplayMismatchError: tool_choice differs",
        "",
    )

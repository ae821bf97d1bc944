"""Conversations with a simulated user: turn order, what each side sees, the stop signals,
the limits (counted as τ²-bench counts), model errors, dual control and the record."""

from __future__ import annotations

import time
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import ToolException

from agentloop.engine import SimulatedUser, Trajectory, run_agent_sync
from agentloop.testing import ScriptedChatModel, tool_call
from tests.support.help_desk import HelpDesk

GREETING = [{"role": "assistant", "content": "Hi! How can I help you today?"}]


def ask(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def desk() -> HelpDesk:
    return HelpDesk({"ann": "basic"}, "off")


def converse(
    agent: list[Any], user: list[Any], *, env: HelpDesk | None = None,
    opening: Any = GREETING, **limits: Any,
) -> tuple[Trajectory, ScriptedChatModel, ScriptedChatModel]:  # fmt: skip
    env = env or desk()
    agent_model, user_model = ScriptedChatModel(agent), ScriptedChatModel(user)
    loop_options = ("max_rounds", "at_max_rounds", "time_limit")
    options = {k: limits.pop(k) for k in loop_options if k in limits}
    simulated = SimulatedUser(
        model=user_model, instructions="You are ann.", tools=env.user_tools(), **limits
    )
    trajectory = run_agent_sync(
        agent_model, env.tools(), opening, user=simulated, snapshot=env.snapshot, **options
    )
    return trajectory, agent_model, user_model


def roles(messages: list[Any]) -> list[str]:
    return [m.type for m in messages]


def test_the_user_speaks_first_after_a_greeting_and_each_side_sees_its_own_view() -> None:
    agent = [ask(tool_call("lookup", {"name": "ann"}, id="a1")), "You are on basic.", "Bye!"]
    user = ["What plan am I on?", "Thanks. ###STOP###"]
    trajectory, agent_model, user_model = converse(agent, user)
    assert trajectory.stop_reason == "user_stop"
    assert trajectory.stop_signal == "###STOP###"
    # The agent saw the greeting, the user's text, its own call and result.
    assert roles(agent_model.requests[0]) == ["ai", "human"]
    assert agent_model.requests[0][1].content == "What plan am I on?"
    # The user saw its instructions, then the agent's texts as a user's, never its tools.
    first, second = user_model.requests
    assert isinstance(first[0], SystemMessage) and first[0].content == "You are ann."
    assert [(m.type, m.content) for m in first[1:]] == [("human", "Hi! How can I help you today?")]
    assert [(m.type, m.content) for m in second[1:]] == [
        ("human", "Hi! How can I help you today?"), ("ai", "What plan am I on?"),
        ("human", "You are on basic."),
    ]  # fmt: skip
    # The agent's conversation ends with the user's stop message; its last answer is the agent's.
    assert roles(trajectory.messages) == ["ai", "human", "ai", "tool", "ai", "human"]
    assert trajectory.messages[-1].content == "Thanks. ###STOP###"
    assert trajectory.final_answer == "You are on basic."
    assert agent_model.calls == 2  # "Bye!" was never asked for
    assert len(trajectory.user_steps) == 2 and len(trajectory.steps) == 2


def test_the_agent_answers_a_user_opening_first() -> None:
    opening = [{"role": "user", "content": "Hello, I am ann."}]
    trajectory, _, user_model = converse(["Hello ann!"], ["###STOP###"], opening=opening)
    assert trajectory.stop_reason == "user_stop"
    # The opening's user message is the user's own (an assistant message in its view).
    assert [(m.type, m.content) for m in user_model.requests[0][1:]] == [
        ("ai", "Hello, I am ann."), ("human", "Hello ann!"),
    ]  # fmt: skip
    assert trajectory.turns[0].user_step_start is None  # the row's messages opened it
    assert trajectory.turns[1].user_step_start == 0


@pytest.mark.parametrize("signal", ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"])
def test_each_user_stop_signal_ends_the_conversation(signal: str) -> None:
    trajectory, _, _ = converse(["How can I help?", "unused"], ["hello", f"ok {signal}"])
    assert (trajectory.stop_reason, trajectory.stop_signal) == ("user_stop", signal)
    assert trajectory.turns[-1].stop_reason == "user_stop"


def test_an_agent_stop_signal_ends_the_conversation() -> None:
    trajectory, _, user_model = converse(["All done. ###STOP###"], ["hello", "unused"])
    assert (trajectory.stop_reason, trajectory.stop_signal) == ("agent_stop", "###STOP###")
    assert user_model.calls == 1
    assert trajectory.final_answer == "All done. ###STOP###"


def test_signals_are_configurable() -> None:
    trajectory, _, _ = converse(["ok", "ok ###STOP###"], ["hi", "BYE", "x"], stop_signals=["BYE"],
                                agent_stop_signals=[])  # fmt: skip
    assert (trajectory.stop_reason, trajectory.stop_signal) == ("user_stop", "BYE")
    trajectory, _, _ = converse(["ok ###STOP###", "fine"], ["hi", "BYE"], agent_stop_signals=[],
                                stop_signals=["BYE"])  # fmt: skip
    assert trajectory.stop_reason == "user_stop"  # the agent's ###STOP### was no signal


def test_max_turns_ends_after_the_agent_answers_the_last_allowed_message() -> None:
    trajectory, agent_model, user_model = converse(["one", "two", "three"], ["a", "b", "c"],
                                                   max_turns=2)  # fmt: skip
    assert trajectory.stop_reason == "max_turns"
    assert (user_model.calls, agent_model.calls) == (2, 2)
    assert trajectory.final_answer == "two"
    assert [t.stop_reason for t in trajectory.turns] == ["final", "max_turns"]


def test_max_steps_counts_messages_and_tool_result_batches_of_both_sides() -> None:
    # user text (1), agent calls (2), their results (3), agent text (4), user calls (5),
    # their results (6), user text (7), agent text (8): a limit of 8 stops after the reply.
    agent = [ask(tool_call("lookup", {"name": "ann"}, id="a1")), "basic", "anything else?", "x"]
    user = ["plan?", ask(tool_call("modem_light", {}, id="u1")), "dark light", "more", "x"]
    trajectory, agent_model, user_model = converse(agent, user, max_steps=8)
    assert trajectory.stop_reason == "max_steps"
    assert (agent_model.calls, user_model.calls) == (3, 3)
    # One fewer step: the limit falls on the user's tool results, so the user never speaks.
    trajectory, agent_model, user_model = converse(agent, user, max_steps=6)
    assert trajectory.stop_reason == "max_steps"
    assert (agent_model.calls, user_model.calls) == (2, 2)
    assert isinstance(trajectory.user_messages[-1], ToolMessage)  # every call answered
    assert trajectory.messages[-1].content == "basic"


def test_a_limit_reached_with_a_stop_signal_wins_as_in_tau2() -> None:
    trajectory, _, _ = converse(["hello"], ["hi", "###STOP###"], max_steps=3)
    assert trajectory.stop_reason == "max_steps"


def test_too_many_errors_counts_failed_calls_of_both_sides() -> None:
    agent = [ask(tool_call("lookup", {"name": "bob"}, id="a1")), "no bob", "x"]
    user = ["find bob", ask(tool_call("no_such_tool", {}, id="u1")), "x"]
    trajectory, _, user_model = converse(agent, user, max_errors=2)
    assert trajectory.stop_reason == "too_many_errors"
    assert user_model.calls == 2
    statuses = [(side, c.status) for side, c in trajectory.calls_in_order()]
    assert statuses == [("agent", "error"), ("user", "unknown_tool")]


def test_the_agent_keeps_five_rounds_per_reply_by_default_and_more_when_asked() -> None:
    looping = [ask(tool_call("lookup", {"name": "ann"}, id=f"a{i}")) for i in range(7)]
    trajectory, _, _ = converse([*looping, "done"], ["hi", "###STOP###"])
    assert trajectory.turns[0].stop_reason == "max_rounds"  # 5 rounds, a 6th reply refused
    assert trajectory.rounds == 5
    trajectory, _, _ = converse([*looping, "done"], ["hi", "###STOP###"], max_rounds=30)
    assert trajectory.rounds == 7 and trajectory.stop_reason == "user_stop"


def test_an_agent_model_error_ends_the_conversation() -> None:
    trajectory, _, _ = converse([RuntimeError("agent down")], ["hi"])
    assert trajectory.stop_reason == "error"
    assert trajectory.error == "RuntimeError: agent down"


def test_a_user_model_error_is_a_user_error() -> None:
    trajectory, _, _ = converse(["hello", "x"], ["hi", RuntimeError("user down")])
    assert trajectory.stop_reason == "user_error"
    assert trajectory.error == "RuntimeError: user down"
    assert len(trajectory.user_steps) == 2  # the failed call is recorded


def test_dual_control_both_sides_change_one_state_recorded_after_each_turn() -> None:
    env = desk()
    agent = [ask(tool_call("change_plan", {"name": "ann", "plan": "gold"}, id="a1")),
             "Done. Please switch your modem on.", "Great."]  # fmt: skip
    user = ["Gold, please.", ask(tool_call("switch_modem", {"on": True}, id="u1")),
            ask(tool_call("modem_light", {}, id="u2")), "It is green.", "###STOP###"]  # fmt: skip
    trajectory, _, _ = converse(agent, user, env=env)
    assert trajectory.stop_reason == "user_stop"
    assert [t.state for t in trajectory.turns] == [
        {"customers": {"ann": "gold"}, "modem": "off"},
        {"customers": {"ann": "gold"}, "modem": "on"},
        {"customers": {"ann": "gold"}, "modem": "on"},
    ]
    assert [(side, c.name) for side, c in trajectory.calls_in_order()] == [
        ("agent", "change_plan"), ("user", "switch_modem"), ("user", "modem_light"),
    ]  # fmt: skip
    results = [m.content for m in trajectory.user_messages if isinstance(m, ToolMessage)]
    assert results == ["the modem is on", "green"]
    # The agent never sees the user's calls; its conversation stays a valid one.
    assert all(m.type != "tool" or m.tool_call_id == "a1" for m in trajectory.messages)


def test_a_user_tool_that_raises_is_answered_and_counted() -> None:
    class Broken(HelpDesk):
        def modem_light(self) -> str:
            """Read your modem's light."""
            raise ToolException("the light is broken")

    env = Broken({"ann": "basic"}, "off")
    user = [ask(tool_call("modem_light", {}, id="u1")), "It is broken.", "###STOP###"]
    trajectory, _, _ = converse(["Sorry to hear."], user, env=env)
    assert trajectory.stop_reason == "user_stop"
    assert trajectory.user_steps[0].tool_calls[0].status == "error"


def test_the_whole_conversation_round_trips_through_json() -> None:
    agent = [ask(tool_call("lookup", {"name": "ann"}, id="a1")), "basic"]
    reasoning = AIMessage(content="plan?", additional_kwargs={"reasoning_content": "I should ask."})
    user = [reasoning, "###STOP###"]
    trajectory, _, _ = converse(agent, user)
    again = Trajectory.model_validate_json(trajectory.model_dump_json())
    assert again == trajectory
    assert again.model_dump_json() == trajectory.model_dump_json()
    assert again.user_messages[2].additional_kwargs["reasoning_content"] == "I should ask."
    assert isinstance(again.messages[1], HumanMessage)


def test_a_time_limit_records_the_interrupted_turn() -> None:
    class Slow(HelpDesk):
        def modem_light(self) -> str:
            """Read your modem's light."""
            time.sleep(0.5)
            return "dark"

    env = Slow({"ann": "basic"}, "off")
    user = [ask(tool_call("modem_light", {}, id="u1")), "x"]
    trajectory, _, _ = converse(["x"], user, env=env, time_limit=0.2)
    assert trajectory.stop_reason == "time_limit"
    assert trajectory.turns[-1].stop_reason == "time_limit"
    assert trajectory.user_steps[0].tool_calls[0].status == "timeout"
    assert isinstance(trajectory.user_messages[-1], ToolMessage)


def test_bad_arguments_are_refused() -> None:
    model = ScriptedChatModel([])
    with pytest.raises(ValueError, match="max_turns must be >= 1"):
        SimulatedUser(model=model, instructions="x", max_turns=0)
    with pytest.raises(ValueError, match="stop signal must not be empty"):
        SimulatedUser(model=model, instructions="x", stop_signals=[""])
    user = SimulatedUser(model=model, instructions="x")
    with pytest.raises(ValueError, match="give turns or user"):
        run_agent_sync(model, [], "hi", user=user, turns=[object()])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="single_turn"):
        run_agent_sync(model, [], "hi", user=user, single_turn=True)

"""One reading of a message's text: the loop's final answer, the rewards, the simulated user's
view, τ²-bench's verdict and the local model's prompt all see the same text in a reply made of
content blocks (a reasoning block is not text; a text block without a type is)."""

from __future__ import annotations

import doctest
from typing import Any

import pytest
from agentloop.evals import parse_reward_specs, score_sample
from langchain_core.messages import AIMessage, HumanMessage

import agentloop._content
from agentloop import Trajectory
from agentloop._content import content_text

BLOCKS: list[Any] = [
    {"type": "reasoning", "text": "the user wants a city"},
    {"type": "text", "text": "Par"},
    "i",
    {"text": "s"},
    {"type": "image_url", "image_url": {"url": "data:,"}},
]


def test_the_rule() -> None:
    assert doctest.testmod(agentloop._content).failed == 0
    assert content_text(BLOCKS) == "Paris"
    assert (content_text(None), content_text(""), content_text(7)) == ("", "", "7")


def test_every_reader_sees_the_same_text() -> None:
    # the rewards read a message list's last assistant message with their own helper, which
    # took the reasoning block's text too ("the user wants a cityParis")
    reply = AIMessage(content=BLOCKS)
    trajectory = Trajectory.build([HumanMessage("Capital of France?"), reply], [], "final")
    assert trajectory.final_answer == "Paris"
    assert trajectory.to_openai_messages()[-1]["content"] == "Paris"
    specs = parse_reward_specs(["qa_f1_reward"])
    as_dicts = [{"role": "user", "content": "Capital?"}, {"role": "assistant", "content": BLOCKS}]
    for given in (trajectory, as_dicts):
        assert score_sample(given, None, specs, answer="Paris").results["qa_f1_reward"].score == 1


def test_the_local_models_prompt_reads_it_the_same() -> None:
    pytest.importorskip("llama_cpp")
    from agentloop.models._local_chat import prompt_messages

    (turn,) = prompt_messages([{"role": "assistant", "content": BLOCKS}], None)
    assert turn["content"] == "Paris"


def test_taus_communicate_check_reads_it_the_same() -> None:
    from agentloop.benchmarks.tau2._verdict import conversation_of

    reply = AIMessage(content=BLOCKS)
    trajectory = Trajectory.build([HumanMessage("Hi"), reply], [], "final")
    conversation = conversation_of(trajectory)
    assert "Paris" in conversation.agent_texts and not any(
        "city" in text for text in conversation.agent_texts
    )

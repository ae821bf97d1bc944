"""QA rewards: normalization, token F1/EM and every special rule."""

from __future__ import annotations

import string
import subprocess
import sys
import unicodedata
from typing import Any

import pytest
from agentloop.evals import (
    QAResult,
    _qa,
    normalize_answer,
    qa_f1_reward,
    qa_f1_reward_format,
    qa_f1_reward_tool,
)
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agentloop.engine._trajectory import StepRecord, ToolCallRecord, Trajectory


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Cat!", "cat"),
        ("an apple a day", "apple day"),
        ("theater another anthem", "theater another anthem"),  # articles only as whole words
        ("  spaced\tout\n text ", "spaced out text"),
        ("¿Qué tal?", "qué tal"),  # Unicode punctuation
        ("«quoted» — dash… “curly”", "quoted dash curly"),
        ("$5 + 3 = 8", "5 3 8"),  # ASCII symbols in string.punctuation go too
        ("don't", "dont"),  # SQuAD deletes punctuation, it does not split on it
        ("a€", "€"),  # a symbol is a word boundary, as SQuAD's \b regex has it
        ("A", ""),
        ("", ""),
        ("ÜBER Straße", "über straße"),
    ],
)
def test_normalize_answer(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected


def metrics(result: QAResult) -> tuple[float, ...]:
    d = result.to_dict()
    return tuple(round(d[k], 4) for k in ("reward", "f1", "em", "precision", "recall"))


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        # The reference's worked example, corrected: 3 tokens, 1 shared.
        ("Paris is the capital", "Paris", (0.5, 0.5, 0.0, 0.3333, 1.0)),
        ("Paris", "Paris", (1.0, 1.0, 1.0, 1.0, 1.0)),
        ("the Paris.", "paris", (1.0, 1.0, 1.0, 1.0, 1.0)),
        # multiset, not set: the duplicate counts once against one gold token
        ("paris paris", "paris", (0.6667, 0.6667, 0.0, 0.5, 1.0)),
        ("paris paris", "paris paris france", (0.8, 0.8, 0.0, 1.0, 0.6667)),
        # yes / no / noanswer must match exactly, both directions
        ("yes", "no", (0.0,) * 5),
        ("no", "no way", (0.0,) * 5),
        ("no way", "no", (0.0,) * 5),
        ("noanswer", "the answer", (0.0,) * 5),
        ("Yes.", "yes", (1.0, 1.0, 1.0, 1.0, 1.0)),
        # empty predictions
        ("", "Paris", (0.0,) * 5),
        ("   ", "Paris", (0.0,) * 5),
        (None, "Paris", (0.0,) * 5),
        # no overlap
        ("London", "Paris", (0.0,) * 5),
        # a gold that normalizes to nothing: compare keeping articles ...
        ("a", "A", (1.0, 1.0, 1.0, 1.0, 1.0)),
        ("The", "the", (1.0, 1.0, 1.0, 1.0, 1.0)),
        ("a", "The", (0.0,) * 5),
        ("the answer", "The", (0.6667, 0.6667, 0.0, 0.5, 1.0)),
        ("anything", "A", (0.0,) * 5),
        # ... and when only punctuation, the raw lower-cased strings
        ("?!", "?!", (1.0, 1.0, 1.0, 1.0, 1.0)),
        ("x", "?!", (0.0,) * 5),
        ("x", "", (0.0,) * 5),
        # non-strings do not crash
        (42, 42, (1.0, 1.0, 1.0, 1.0, 1.0)),
        ("no gold", None, (0.0,) * 5),
    ],
)
def test_qa_f1_reward(prediction: object, gold: object, expected: tuple[float, ...]) -> None:
    result = qa_f1_reward(prediction, gold)
    assert metrics(result) == expected
    assert result.score == result.reward
    assert result.reason


def test_best_over_several_gold_answers() -> None:
    result = qa_f1_reward("Eiffel Tower in Paris", ["Paris", "the Eiffel Tower", "Louvre"])
    assert result.details.best_index == 1
    assert result.f1 == pytest.approx(2 * 0.5 * 1 / 1.5)
    assert result.precision == 0.5
    assert [a.rule for a in result.details.answers] == ["tokens", "tokens", "no_overlap"]
    assert qa_f1_reward("Paris", ["London", "paris"]).em == 1.0
    assert qa_f1_reward("Paris", ("London", "Paris")).f1 == 1.0
    assert qa_f1_reward("Paris", []).score == 0.0


def test_result_reads_like_the_reference_dict() -> None:
    result = qa_f1_reward("Paris is the capital", "Paris")
    assert result["f1"] == 0.5
    assert set(result.to_dict()) == {"reward", "f1", "em", "precision", "recall"}
    assert dict(result)["recall"] == 1.0
    with pytest.raises(KeyError):
        result["score_typo"]
    assert result.details.prediction == "paris is capital"


def tool_trajectory() -> Trajectory:
    msgs = [
        HumanMessage("Capital of France?"),
        AIMessage("", tool_calls=[{"name": "search", "args": {"q": "France"}, "id": "1"}]),
        ToolMessage("Paris", tool_call_id="1"),
        AIMessage("Paris"),
    ]
    steps = [
        StepRecord(latency_s=0.0, tool_calls=[
            ToolCallRecord(id="1", name="search", args={"q": "France"}, status="ok")
        ]),
        StepRecord(latency_s=0.0),
    ]  # fmt: skip
    return Trajectory.build(msgs, steps, "final")


REFERENCE_TRAJECTORY = [
    {"role": "assistant", "content": "I need to search for information"},
    {"role": "tool", "content": "search results"},
    {"role": "assistant", "content": "Based on my search, the answer is Paris"},
]


@pytest.mark.parametrize(
    ("trajectory", "minimum", "reward"),
    [
        (REFERENCE_TRAJECTORY, 1, 1.0),  # the reference's own example holds
        (REFERENCE_TRAJECTORY, 2, 0.0),
        (REFERENCE_TRAJECTORY[:1], 1, 0.0),
        ([], 1, 0.0),
        ([], 0, 1.0),
        (None, 1, 0.0),
        ([AIMessage("x"), ToolMessage("r", tool_call_id="1")], 1, 1.0),
        ([{"type": "tool", "content": "r"}], 1, 1.0),
        (tool_trajectory(), 1, 1.0),
        (tool_trajectory(), 2, 0.0),
    ],
)
def test_qa_f1_reward_format_gates_on_tool_messages(
    trajectory: object, minimum: int, reward: float
) -> None:
    result = qa_f1_reward_format("Paris", "Paris", trajectory, min_tool_messages=minimum)
    assert result.reward == result.score == reward
    assert result.f1 == 1.0 and result.em == 1.0  # metrics are reported either way
    assert result.details.min_tool_messages == minimum
    if reward == 0.0:
        assert "required" in result.reason


def test_tool_alias_is_the_same_function() -> None:
    assert qa_f1_reward_tool is qa_f1_reward_format
    assert qa_f1_reward_tool("Paris", "Paris", REFERENCE_TRAJECTORY).to_dict() == {
        "reward": 1.0, "f1": 1.0, "em": 1.0, "precision": 1.0, "recall": 1.0,
    }  # fmt: skip


def recorded(statuses: list[str], history: bool = False) -> Trajectory:
    """A run whose own calls ended with ``statuses``; ``history`` adds an answered call
    to the prompt, before the last user message."""
    msgs: list[Any] = [HumanMessage("Capital of France?")]
    if history:
        msgs += [
            AIMessage("", tool_calls=[{"name": "search", "args": {}, "id": "h"}]),
            ToolMessage("Paris", tool_call_id="h"),
            HumanMessage("And again?"),
        ]
    calls = [{"name": "search", "args": {}, "id": f"c{i}"} for i in range(len(statuses))]
    steps = [StepRecord(latency_s=0.0)]
    if calls:
        msgs.append(AIMessage("", tool_calls=calls))
        msgs += [
            ToolMessage("r", tool_call_id=c["id"], status="success" if s == "ok" else "error")
            for c, s in zip(calls, statuses, strict=True)
        ]
        records = [
            ToolCallRecord(id=c["id"], name="search", args={}, status=s)  # type: ignore[arg-type]
            for c, s in zip(calls, statuses, strict=True)
        ]
        steps.insert(0, StepRecord(latency_s=0.0, tool_calls=records))
    msgs.append(AIMessage("Paris"))
    return Trajectory.build(msgs, steps, "final")


ERR = {"role": "tool", "tool_call_id": "1", "content": "Error: no such tool", "status": "error"}


@pytest.mark.parametrize(
    ("trajectory", "used"),
    [
        # Trajectories: the run's own calls that succeeded, not the prompt's history.
        (recorded([], history=True), 0),
        (recorded(["unknown_tool"]), 0),
        (recorded(["malformed", "invalid_args", "round_limit", "not_run"]), 0),
        (recorded(["error", "timeout"]), 0),
        (recorded(["ok", "unknown_tool"], history=True), 1),
        (recorded(["ok", "ok"]), 2),
        # Message lists: tool messages after the last user message, errors excluded.
        (recorded([], history=True).messages, 0),
        (recorded(["unknown_tool"]).messages, 0),
        (recorded(["ok", "timeout"], history=True).messages, 1),
        (recorded([], history=True).to_openai_messages(), 0),
        ([{"role": "user", "content": "q"}, ERR, {"role": "assistant", "content": "Paris"}], 0),
        ([{"role": "user", "content": "q"}, {**ERR, "status": "success"}], 1),
        ([{"role": "tool", "content": "r"}, {"type": "human", "content": "q"}], 0),
    ],
)
def test_format_gate_counts_the_agents_successful_calls(trajectory: Any, used: int) -> None:
    result = qa_f1_reward_format("Paris", "Paris", trajectory)
    assert result.details.tool_messages == used
    assert result.score == (1.0 if used else 0.0)
    assert qa_f1_reward_tool("Paris", "Paris", trajectory).score == result.score


def test_import_does_not_scan_unicode() -> None:
    # The punctuation table is filled as characters are met, not by a scan of all of
    # Unicode at import (which cost ~0.13 s of every `import evals`).
    code = "import agentloop.evals._qa as q; print(len(q._PUNCT_TABLE))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == 0


def test_punctuation_table_covers_all_of_unicode() -> None:
    table = type(_qa._PUNCT_TABLE)()  # a fresh one, so the module's stays small
    step = 1 << 16
    for start in range(0, sys.maxunicode + 1, step):
        chars = [chr(i) for i in range(start, min(start + step, sys.maxunicode + 1))]
        kept = [c for c in chars if not unicodedata.category(c).startswith("P")]
        kept = [c for c in kept if c not in string.punctuation]
        assert "".join(chars).translate(table) == "".join(kept), hex(start)
        table.clear()

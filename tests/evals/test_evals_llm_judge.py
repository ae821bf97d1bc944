"""llm_judge with a Judge object: the grading prompt (template fields, metadata, history), the
grade formats, draws and how they combine, and the grades it refuses to read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import pytest
from agentloop.evals import llm_judge, parse_reward_specs, registered_rewards, score_sample
from agentloop.evals._llm_judge import read_grade

QA = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Capital of France?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "search", "arguments": '{"q": "France"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "Paris is the capital."},
    {"role": "assistant", "content": "Paris"},
]  # fmt: skip


class Scripted:
    """A Judge with one reply per draw; keeps the requests."""

    model = "stub:judge"

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.asked: list[tuple[int, list[Mapping[str, Any]]]] = []

    async def ask(self, messages: Sequence[Mapping[str, Any]], *, draw: int = 0) -> str:
        self.asked.append((draw, list(messages)))
        return self.replies[draw]


def grade(judge: Scripted, answer: Any = "Paris", **params: Any) -> Any:
    return anyio.run(
        lambda: llm_judge("Paris", QA, answer, {"topic": "geo"}, judge=judge, **params)
    )


def test_the_prompt_holds_the_question_the_answer_and_the_criterion() -> None:
    judge = Scripted("Right city. GRADE: C")
    result = grade(judge, ["Paris", "paris, France"])
    [(draw, [message])] = judge.asked
    assert (draw, message["role"]) == (0, "user")
    prompt = message["content"]
    assert "[Task]\nCapital of France?\n" in prompt
    assert "[Submission]\nParis\n" in prompt
    assert "[Criterion]\nParis\nparis, France\n" in prompt  # acceptable answers, one a line
    assert prompt.endswith("GRADE: C (correct) or GRADE: I (incorrect).\n")
    assert result.details.prompt == prompt
    assert (result.score, result.details.grades[0].reasoning) == (1.0, "Right city.")


def test_a_template_reads_metadata_and_the_history() -> None:
    judge = Scripted("GRADE: C")
    grade(judge, template="{topic}|{question}|{answer}", include_history=True)
    prompt = judge.asked[0][1][0]["content"]
    assert prompt == (
        'geo|Capital of France?\n\nAssistant: search({"q": "France"})\n\n'
        "Tool (search): Paris is the capital.|Paris"
    )
    with pytest.raises(ValueError, match=r"asks for \{level\}, which is neither one of"):
        grade(Scripted("GRADE: C"), template="{level}")
    with pytest.raises(ValueError, match=r"asks for \{criterion\} but the row has no answer"):
        grade(Scripted("GRADE: C"), answer=None)


@pytest.mark.parametrize(
    ("reply", "params", "score"),
    [
        ("GRADE: I", {}, 0.0),
        ("grade: c", {}, 1.0),
        ("**GRADE: C**", {}, 1.0),
        ("Not GRADE: I after all... GRADE: C", {}, 1.0),  # the last grade counts
        ("GRADE: P", {"partial_credit": True}, 0.5),
        ("GRADE: 7", {"grade": "numeric"}, 0.7),
        ("GRADE: 3", {"grade": "numeric", "scale": 4}, 0.75),
    ],
)
def test_grade_formats(reply: str, params: dict[str, Any], score: float) -> None:
    assert grade(Scripted(reply), **params).score == score


@pytest.mark.parametrize(
    ("reply", "params", "message"),
    [
        ("Looks right to me.", {}, "the judge's reply has no grade (GRADE: ...)"),
        ("GRADE: B", {}, "the judge's grade 'B' is not C or I"),
        ("GRADE: P", {}, "the judge's grade 'P' is not C or I (partial_credit is off)"),
        ("GRADE: Correct", {"partial_credit": True}, "'Correct' is not C, P or I"),
        ("GRADE: 11", {"grade": "numeric"}, "the judge's grade '11' is not a number from 0 to 10"),
        ("GRADE: C", {"grade": "numeric"}, "the judge's grade 'C' is not a number from 0 to 10"),
    ],
)
def test_a_grade_outside_the_format_is_an_error_never_a_score(
    reply: str, params: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        grade(Scripted(reply), **params)


def test_draws_combine_by_majority_or_mean() -> None:
    judge = Scripted("GRADE: C", "GRADE: I", "GRADE: C")
    result = grade(judge, samples=3)
    assert sorted(draw for draw, _ in judge.asked) == [0, 1, 2]
    assert result.score == 1.0
    assert result.reason == "stub:judge graded C, I, C (majority of 3): score 1"
    assert grade(Scripted("GRADE: C", "GRADE: I", "GRADE: C"), samples=3,
                 aggregate="mean").score == pytest.approx(2 / 3)  # fmt: skip
    # a tie goes to the lowest-scoring of the tied grades
    assert grade(Scripted("GRADE: C", "GRADE: I"), samples=2).score == 0.0
    tie = Scripted("GRADE: P", "GRADE: C", "GRADE: C", "GRADE: P")
    assert grade(tie, samples=4, partial_credit=True).score == 0.5
    with pytest.raises(ValueError, match=r"^reply 2 of 3: the judge's reply has no grade"):
        grade(Scripted("GRADE: C", "hmm", "GRADE: C"), samples=3)


def test_the_registered_reward_checks_its_parameters() -> None:
    entry = registered_rewards()["llm_judge"]
    assert entry.judge and entry.pass_threshold == 1.0
    for params, message in [
        ({}, r"missing parameter\(s\) \['judge'\]"),
        ({"judge": "openai:m", "grade": "stars"}, "grade must be letter or numeric"),
        ({"judge": "openai:m", "samples": 0}, "samples must be a whole number >= 1"),
        ({"judge": "openai:m", "aggregate": "median"}, "aggregate must be majority or mean"),
        ({"judge": "openai:m", "template": "{question"}, "template: .*literal brace"),
        ({"judge": "openai:m", "grade": "numeric", "partial_credit": True}, "for letter"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_reward_specs([{"llm_judge": params}])


def test_without_a_run_a_judge_model_spec_cannot_be_asked() -> None:
    specs = parse_reward_specs([{"llm_judge": {"judge": "openai:gpt-4o-mini"}}])
    scored = score_sample(QA, None, specs, answer="Paris", on_error="record")
    assert scored.errors["llm_judge"] == (
        "ValueError: reward 'llm_judge' asks a judge model (openai:gpt-4o-mini), which only a "
        "run opens (agentloop run); called directly, give it a Judge object as judge"
    )
    given = parse_reward_specs([{"llm_judge": {"judge": Scripted("GRADE: C")}}])
    assert score_sample(QA, None, given, answer="Paris").results["llm_judge"].score == 1.0


def test_read_grade_keeps_the_reasoning() -> None:
    read = read_grade("Step 1: the city.\nStep 2: it matches.\nGRADE: C")
    assert read.reasoning == "Step 1: the city.\nStep 2: it matches."
    assert (read.grade, read.score) == ("C", 1.0)

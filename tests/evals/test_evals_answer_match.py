"""answer_match: numbers compared as numbers, text as text, at the chosen location."""

from __future__ import annotations

import pytest
from agentloop.evals import answer_match, parse_reward_specs, qa_f1_reward, score_sample
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("prediction", "gold", "score"),
    [
        ("29.0", "29", 1.0),  # qa_f1_reward scores this 0 ("290" against "29")
        ("2.90", "290", 0.0),  # and this 1
        ("The distance is 26.1 miles.", "26.10", 1.0),
        ("It costs $1,234.50 in total", "1234.5", 1.0),
        ("-3", "-3.0", 1.0),
        ("3", "-3", 0.0),
        ("42 km is 26.1 mi", "42", 0.0),  # end: the last number is 26.1
        ("about 5km", "5", 1.0),
        ("version v2", "2", 0.0),  # part of a word is no number
        ("1.2.3", "1.2", 0.0),
        ("", "0", 0.0),
        ("Paris.", "paris", 1.0),
        ("I think it is PARIS", "Paris", 1.0),
        ("Paris is the capital", "paris", 0.0),  # end
        ("No idea", "no", 0.0),
    ],
)
def test_default_location_end(prediction: str, gold: str, score: float) -> None:
    assert answer_match(prediction, gold).score == score


def test_numeric_answers_where_token_f1_fails() -> None:
    assert qa_f1_reward("29.0", "29").f1 == 0.0 and answer_match("29.0", "29").score == 1.0
    assert qa_f1_reward("2.90", "290").f1 == 1.0 and answer_match("2.90", "290").score == 0.0


@pytest.mark.parametrize(
    ("location", "prediction", "gold", "score"),
    [
        ("begin", "26.1 miles, that is 42 km", "26.1", 1.0),
        ("begin", "That is 26.1 miles", "26.1", 1.0),
        ("begin", "42 km is 26.1 miles", "26.1", 0.0),
        ("any", "42 km is 26.1 miles", "42", 1.0),
        ("any", "the answer is Paris, France", "paris", 1.0),
        ("any", "comparison", "paris", 0.0),
        ("any", "unknown", "no", 0.0),  # whole words only
        ("exact", "26.1", "26.10", 1.0),
        ("exact", "26.1 miles", "26.1", 0.0),
        ("exact", " Paris! ", "paris", 1.0),
        ("exact", "Paris, France", "paris", 0.0),
    ],
)
def test_locations(location: str, prediction: str, gold: str, score: float) -> None:
    assert answer_match(prediction, gold, location=location).score == score  # type: ignore[arg-type]


def test_alternatives_tolerance_and_details() -> None:
    result = answer_match("It is 37.8 degrees", ["37.78", "38"], abs_tol=0.05)
    assert result.score == 1.0 and result.details.matched_index == 0
    assert result.details.numbers == [37.8] and result.details.rules == ["numeric", "numeric"]
    assert answer_match("It is 37.8 degrees", ["37.78", "38"]).score == 0.0
    assert answer_match("1001", "1000", rel_tol=0.01).score == 1.0
    missed = answer_match("It is 12", "13")
    assert missed.score == 0.0 and "12" in missed.reason
    assert answer_match("anything", None).reason == "no gold answer given"


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="location"):
        answer_match("1", "1", location="middle")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="location must be one of"):
        parse_reward_specs([{"answer_match": {"location": "middle"}}])
    with pytest.raises(ValueError, match="abs_tol"):
        parse_reward_specs([{"answer_match": {"abs_tol": -1}}])


def test_registered_with_a_pass_threshold() -> None:
    specs = parse_reward_specs([{"answer_match": {"location": "any"}}])
    messages = [
        {"role": "user", "content": "How many miles is 42 km?"},
        {"role": "assistant", "content": "About 26.10 miles."},
    ]
    scored = score_sample(messages, None, specs, answer="26.1")
    assert scored.results["answer_match"].score == 1.0
    assert scored.passed["answer_match"] is True


@given(
    st.decimals(min_value=-10**9, max_value=10**9, places=3, allow_nan=False, allow_infinity=False)
)
def test_a_number_matches_itself_however_written(value: object) -> None:
    gold = str(value)
    as_float = float(gold)
    for written in (f"{as_float}", f"{as_float:,.3f}", f"The answer is {gold}."):
        assert answer_match(written, gold).score == 1.0, written

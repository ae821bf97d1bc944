"""State-based and response-based rewards over an environment's turns."""

from __future__ import annotations

import pytest
from agentloop.evals import env_response_match, env_state_match, first_difference, score_sample


def test_first_difference_names_the_path_and_treats_types_strictly() -> None:
    assert first_difference({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}) is None
    assert first_difference({"a": 1}, {"a": 1.0}) == ("a", 1, 1.0)
    assert first_difference({"a": 1}, {"a": True}) == ("a", 1, True)
    assert first_difference({"a": [1, 2]}, {"a": [1]}) == ("a(length)", 2, 1)
    missing = first_difference({"a": {"x": 1}}, {"a": {}})
    assert missing is not None and missing[0] == "a.x" and missing[2] is not None
    # keys are visited sorted, so the first reported is "a", whatever the insertion order
    assert first_difference({"z": 1, "a": 1}, {"z": 2, "a": 2}) == ("a", 1, 2)


def test_state_match_passes_only_when_every_turn_matches() -> None:
    same = {"states": [{"n": 1}, {"n": 2}], "expected_states": [{"n": 1}, {"n": 2}]}
    assert env_state_match(same).score == 1.0
    first = {"states": [{"n": 0}, {"n": 2}], "expected_states": [{"n": 1}, {"n": 2}]}
    result = env_state_match(first)
    assert result.score == 0.0
    assert result.reason == "turn 1: n differs: expected 1, got 0"
    assert result.details == {"turn": 1, "path": "n", "expected": 1, "actual": 0}


def test_state_match_fails_a_conversation_that_stopped_early() -> None:
    result = env_state_match({"states": [{"n": 1}], "expected_states": [{"n": 1}, {"n": 2}]})
    assert result.score == 0.0
    assert result.reason == "turn 2: the agent's run has only 1 turn(s)"


def test_a_missing_attribute_is_reported_as_absent() -> None:
    result = env_state_match({"states": [{}], "expected_states": [{"cwd": "/tmp"}]})
    assert result.reason == 'turn 1: cwd differs: expected "/tmp", got (absent)'
    assert result.details["actual"] is None


def test_response_match_is_cumulative_and_counts_repeats() -> None:
    # A result returned in turn 1 still counts for turn 2 (BFCL's rule).
    early = {"results": [["a", "b"], []], "expected_results": [["a"], ["b"]]}
    assert env_response_match(early).score == 1.0
    # Expected twice, returned once: missing.
    twice = {"results": [["a"]], "expected_results": [["a", "a"]]}
    result = env_response_match(twice)
    assert result.score == 0.0
    assert result.details == {"turn": 1, "missing": ["a"]}
    # Order does not matter; extra results do not hurt.
    extra = {"results": [["x", "b", "a"]], "expected_results": [["a", "b"]]}
    assert env_response_match(extra).score == 1.0
    # A later turn's result does not count for an earlier one.
    late = {"results": [[], ["a"]], "expected_results": [["a"], []]}
    assert env_response_match(late).reason.startswith("turn 1: expected result 'a'")


def test_without_ground_truth_both_score_zero_and_say_why() -> None:
    env = {"states": [{}], "expected_states": None, "results": [[]], "expected_results": None}
    for reward in (env_state_match, env_response_match):
        assert reward(env).score == 0.0
        assert reward(env).reason == "no ground-truth calls to compare with"


def test_without_an_environment_they_refuse() -> None:
    with pytest.raises(TypeError, match="configure an environment"):
        env_state_match(None)


def test_registered_by_name_and_given_the_environment_input() -> None:
    env = {"states": [{"n": 1}], "expected_states": [{"n": 1}],
           "results": [["1"]], "expected_results": [["2"]]}  # fmt: skip
    scored = score_sample([], None, ["env_state_match", "env_response_match"], environment=env)
    assert {k: r.score for k, r in scored.results.items()} == {
        "env_state_match": 1.0,
        "env_response_match": 0.0,
    }
    assert scored.passed == {"env_state_match": True, "env_response_match": False}

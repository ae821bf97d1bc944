"""Rewards named by import path: inputs by name, parameters, returns, one-line errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from agentloop.evals import RewardResult, parse_reward_specs, score_sample

from agentloop.errors import ConfigError
from agentloop.harness import load_config
from agentloop.harness.run._rescore import rescore_run
from agentloop.harness.run._runner import RunOutcome, run_eval_sync
from tests.support.docs import block_with
from tests.support.harness import add_row, add_setup, read_results, write_jsonl

REWARDS_PY = '''
import json
from agentloop.evals import RewardResult

SEEN = {}


def spy(final_answer, trajectory, messages, ground_truth, answer, metadata, row):
    """Records what it was given."""
    return RewardResult(score=1.0, reason="seen", details={
        "final_answer": final_answer,
        "stop_reason": trajectory.stop_reason,
        "roles": [m["role"] for m in messages],
        "ground_truth": ground_truth,
        "answer": answer,
        "metadata": metadata,
        "row_keys": sorted(row),
        "row_id": row["id"],
    })


def compiled(expected_calls, row):
    """Records the compiled expected calls it was given, by row."""
    SEEN.setdefault(row["id"], []).append(expected_calls)
    return 1.0


def short_answer(final_answer, max_words=3):
    return len((final_answer or "").split()) <= max_words


def judge(final_answer, answer, *, threshold):
    score = 1.0 if final_answer == answer else 0.25
    return score if score >= threshold else 0.0


def too_big(final_answer):
    return 1.5


def text(final_answer):
    return "yes"


def bad_details(final_answer):
    return RewardResult(score=1.0, reason="x", details={"f": object()})


async def awaited(final_answer, answer):
    import anyio

    await anyio.sleep(0)  # a checkpoint: it runs on the run's event loop
    return RewardResult(score=float(final_answer == answer), reason="awaited", details=None)


def judge_params_too(final_answer, judge, judge_params):
    return 1.0


def graded(final_answer, judge=None):
    return 1.0


def by_position(traj, truth):
    return 1.0


def positional_only(final_answer, /):
    return 1.0


NOT_CALLABLE = 3
'''


@pytest.fixture
def rewards_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_rewards.py"
    path.write_text(REWARDS_PY)
    return path


def _run(config: Path, *sets: str) -> RunOutcome:
    return run_eval_sync(load_config(config, sets), config_path=str(config))


def test_rewards_by_path_get_their_inputs_by_name(tmp_path: Path, rewards_file: Path) -> None:
    spy = f"{rewards_file}:spy"
    config = add_setup(tmp_path, n=2, rewards=[spy, "qa_f1_reward"], pass_threshold={})
    lines = read_results(_run(config).run_dir)
    details = lines[0]["scores"][spy]["details"]
    assert details == {
        "final_answer": "1",
        "stop_reason": "final",
        "roles": ["user", "assistant", "tool", "assistant"],
        "ground_truth": None,
        "answer": "1",
        "metadata": {},
        "row_keys": ["answer", "ground_truth", "id", "messages", "metadata", "tools"],
        "row_id": "s0000",
    }
    assert lines[0]["scores"]["qa_f1_reward"]["score"] == 1.0  # built-ins keep working


def test_the_ground_truth_is_compiled_once_for_every_epoch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "compiled_rewards_for_tests.py").write_text(REWARDS_PY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "compiled_rewards_for_tests", raising=False)
    truth = {"tool_calls": [{"name": "add", "arguments": {"a": {"$any": [0, 1]}, "b": 1}}]}
    config = add_setup(
        tmp_path, n=2, epochs=3, pass_threshold={},
        rewards=["compiled_rewards_for_tests:compiled", "tool_call_match"],
    )
    write_jsonl(tmp_path / "data.jsonl", [add_row(i, ground_truth=truth) for i in range(2)])
    lines = read_results(_run(config).run_dir)
    assert [line["scores"]["tool_call_match"]["score"] for line in lines] == [1.0] * 6
    seen = sys.modules["compiled_rewards_for_tests"].SEEN
    assert sorted(seen) == ["s0000", "s0001"]
    for calls in seen.values():  # one compiled form per row, handed to each of its epochs
        assert len(calls) == 3 and calls[0] is calls[1] is calls[2]
        [call] = calls[0]
        assert (call.name, call.matcher.kind) == ("add", "object")


def test_an_async_reward_is_awaited_on_the_run(tmp_path: Path, rewards_file: Path) -> None:
    awaited = f"{rewards_file}:awaited"
    config = add_setup(tmp_path, n=2, rewards=[awaited], pass_threshold={})
    lines = read_results(_run(config).run_dir)
    assert [(line["status"], line["scores"][awaited]) for line in lines] == [
        ("ok", {"score": 1.0, "reason": "awaited", "details": None})
    ] * 2
    # and through score_sample, the sync wrapper of the same core
    made = [{"role": "user", "content": "1 + 0?"}, {"role": "assistant", "content": "1"}]
    entry = parse_reward_specs([awaited], resolve=_resolve)
    assert score_sample(made, None, entry, answer="1").results[awaited].score == 1.0


def _resolve(name: str) -> Any:
    from agentloop.harness.config._rewards import resolve_reward

    return resolve_reward(name)


def test_numbers_and_bools_are_scores(tmp_path: Path, rewards_file: Path) -> None:
    short, judge = f"{rewards_file}:short_answer", f"{rewards_file}:judge"
    config = add_setup(
        tmp_path,
        n=2,
        rewards=[short, {judge: {"threshold": 0.5}}, {judge: {"threshold": 0.1}}],
        pass_threshold={judge: 1.0},
    )
    line = read_results(_run(config).run_dir)[0]
    assert line["scores"][short] == {
        "score": 1.0,
        "reason": "short_answer returned True",
        "details": None,
    }
    assert line["scores"][judge]["score"] == 1.0
    assert line["scores"][f"{judge}#2"]["score"] == 1.0
    assert line["passed"] == {judge: True, f"{judge}#2": True}  # a name's threshold: each key


def test_dotted_module_paths_and_set_overrides(
    tmp_path: Path, rewards_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "reward_pkg_for_tests.py").write_text(REWARDS_PY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "reward_pkg_for_tests", raising=False)
    config = add_setup(tmp_path, n=1, rewards=["qa_f1_reward"], pass_threshold={})
    outcome = _run(config, "rewards=[reward_pkg_for_tests:short_answer]")
    line = read_results(outcome.run_dir)[0]
    assert line["scores"]["reward_pkg_for_tests:short_answer"]["score"] == 1.0


@pytest.mark.parametrize(
    ("reward", "message"),
    [
        ("no.such.module:x", "rewards: cannot import module 'no.such.module'"),
        ("./missing_rewards.py:x", r"rewards: reward file not found: \S+/missing_rewards.py$"),
        ("{file}:nothing", "rewards: .* has no attribute 'nothing'"),
        ("{file}:NOT_CALLABLE", "rewards: .*:NOT_CALLABLE is not callable"),
        (
            {"{file}:judge": {"treshold": 1}},
            r"unknown parameter\(s\) \['treshold'\]; accepted: "
            "threshold",
        ),
        ("{file}:judge", r"reward '.*:judge': missing parameter\(s\) \['threshold'\]"),
        ("{file}:judge_params_too", "judge_params describes the judge's model and is not"),
        ({"{file}:graded": {"judge": "gpt-4o"}}, "judge must be a model spec such as"),
        ({"{file}:graded": {"judge": "nosuch:m"}}, "graded: judge: unknown model spec prefix"),
        ({"{file}:graded": {"judge_params": {"temperature": 0}}}, "judge_params is set but"),
        (
            "{file}:by_position",
            r"missing parameter\(s\) \['traj', 'truth'\], neither an input "
            r"\(final_answer, trajectory, ",
        ),
        ("{file}:positional_only", "positional-only"),
        ("qa_f2", "unknown reward 'qa_f2'"),
    ],
)
def test_bad_reward_paths_are_one_line_config_errors(
    tmp_path: Path, rewards_file: Path, reward: Any, message: str
) -> None:
    if isinstance(reward, str):
        reward = reward.format(file=rewards_file)
    else:
        reward = {k.format(file=rewards_file): v for k, v in reward.items()}
    config = add_setup(tmp_path, n=1, rewards=[reward], pass_threshold={})
    with pytest.raises(ConfigError, match=message) as info:
        load_config(config)
    assert "\n" not in str(info.value)


def test_pass_threshold_must_name_a_configured_reward(tmp_path: Path, rewards_file: Path) -> None:
    short = f"{rewards_file}:short_answer"
    config = add_setup(tmp_path, n=1, rewards=[short], pass_threshold={"short_answer": 1.0})
    with pytest.raises(ConfigError, match="pass_threshold: short_answer is not a configured"):
        load_config(config)


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("too_big", "ValueError: reward '.*:too_big' returned 1.5, outside \\[0, 1\\]"),
        ("text", "TypeError: reward '.*:text' returned str, not a RewardResult or a number"),
        ("bad_details", "details must be JSON-serialisable"),
    ],
)
def test_bad_returns_error_the_sample(
    tmp_path: Path, rewards_file: Path, name: str, error: str
) -> None:
    config = add_setup(tmp_path, n=1, rewards=[f"{rewards_file}:{name}"], pass_threshold={})
    (line,) = read_results(_run(config).run_dir)
    assert (line["status"], line["error_kind"]) == ("error", "reward")
    import re

    assert re.search(error, line["error"]), line["error"]


def test_rescoring_resolves_paths_and_keeps_metadata(tmp_path: Path, rewards_file: Path) -> None:
    config = add_setup(tmp_path, n=2, rewards=["qa_f1_reward"], pass_threshold={})
    outcome = _run(config)
    spy = f"{rewards_file}:spy"
    target, _ = rescore_run(outcome.run_dir, [spy])
    line = read_results(outcome.run_dir, target.name)[0]
    assert line["status"] == "ok"
    assert line["scores"][spy]["details"]["final_answer"] == "1"
    assert line["scores"][spy]["details"]["metadata"] == {}


# evals on its own: the same calling mechanism for registered and resolved rewards.


def test_score_sample_passes_metadata_and_row() -> None:
    def tagged(metadata: Any, row: Any, answer: Any) -> RewardResult[Any]:
        return RewardResult(score=1.0, reason="ok", details=[metadata, row, answer])

    from agentloop.evals import reward_entry

    def resolve(name: str) -> Any:
        return reward_entry(name, tagged) if name == "pkg:tagged" else None

    specs = parse_reward_specs(["pkg:tagged"], resolve=resolve)
    score = score_sample([], None, specs, answer="a", metadata={"k": 1}, row={"id": "x"})
    assert score.results["pkg:tagged"].details == [{"k": 1}, {"id": "x"}, "a"]
    assert json.loads(score.model_dump_json())["results"]["pkg:tagged"]["score"] == 1.0


def test_paths_need_a_resolver_in_evals_alone() -> None:
    with pytest.raises(ValueError, match="unknown reward 'pkg:fn'"):
        parse_reward_specs(["pkg:fn"])


def test_the_documented_reward_example(tmp_path: Path) -> None:
    block = block_with("# my_rewards.py")
    module = tmp_path / "my_rewards.py"
    module.write_text(block)
    judge, short = f"{module}:judge", f"{module}:short_answer"
    config = add_setup(
        tmp_path,
        n=2,
        rewards=["qa_f1_reward", short, {judge: {"threshold": 0.8}}],
        pass_threshold={judge: 1.0},
    )
    line = read_results(_run(config).run_dir)[0]
    assert line["scores"][short]["reason"] == "short_answer returned True"
    assert line["scores"][judge] == {
        "score": 1.0,
        "reason": "F1 1.00 against a threshold of 0.8",
        "details": {"f1": 1.0, "topic": None},
    }
    assert line["passed"] == {judge: True}

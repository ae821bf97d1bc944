"""Rewards that ask a judge model, through ``agentloop run`` against the loopback OpenAI stub:
``llm_judge``'s grades (a malformed one errors its sample, with why), the run's retries on a
429, the judge's usage and cost in the results and the summary (apart from the agent's), the
response cache and independent draws, replay and re-scoring from the recorded replies (no
live judge), and a judge that cannot be opened."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentloop.cli._commands import main
from tests.support.harness import add_setup, read_results
from tests.support.openai_stub import StubResponse, StubServer, error, reply

USAGE = {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
PRICE = {"input": 2.0, "output": 8.0}  # USD per million tokens
ONE_REQUEST_USD = (120 * 2.0 + 30 * 8.0) / 1_000_000


@pytest.fixture(autouse=True)
def judge_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_KEY", "sk-judge-test")


def grader(grades: dict[str, str]) -> Callable[[dict[str, Any]], StubResponse]:
    """A stub judge: the grade of the submission the prompt shows (by its text)."""

    def answer(body: dict[str, Any]) -> StubResponse:
        prompt = body["messages"][-1]["content"]
        said = prompt.split("[Submission]\n", 1)[1].split("\n", 1)[0]
        return reply(f"The sum is checked against the criterion. {grades[said]}", usage=USAGE)

    return answer


def judged_setup(tmp_path: Path, stub: StubServer, n: int = 2, **judge: Any) -> Path:
    """add questions answered by a scripted agent, graded by ``llm_judge`` at the stub."""
    reward = {
        "judge": "openai:judge-model",
        "judge_params": {"temperature": 0},
        "judge_options": {"base_url": stub.url, "api_key_env": "JUDGE_KEY"},
        **judge,
    }
    return add_setup(
        tmp_path, n=n, concurrency=1, rewards=["qa_f1_reward", {"llm_judge": reward}],
        pass_threshold={}, prices={"openai:judge-model": PRICE},
    )  # fmt: skip


def edited(config: Path, name: str, change: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of ``config`` (beside it, so its runs go to the same folder) with ``change``."""
    raw = yaml.safe_load(config.read_text())
    change(raw)
    path = config.with_name(name)
    path.write_text(yaml.safe_dump(raw))
    return path


def run(config: Path, *extra: str) -> Path:
    out = config.parent / "runs"
    before = set(out.iterdir()) if out.exists() else set()
    main(["run", str(config), "--no-preflight", *extra])
    (run_dir,) = set(out.iterdir()) - before
    return run_dir


def test_llm_judge_grades_with_the_runs_retries_and_counts_its_usage_and_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer(grader({"1": "GRADE: C", "2": "GRADE: maybe"})) as stub:
        stub.push(error(429, "slow down", headers={"Retry-After": "0"}))
        run_dir = run(judged_setup(tmp_path, stub))
        assert len(stub.requests) == 3  # the 429, then one request per sample
    first, second = sorted(read_results(run_dir), key=lambda line: line["id"])
    # sample 0: graded C after one retried 429
    assert (first["status"], first["scores"]["llm_judge"]["score"]) == ("ok", 1.0)
    verdict = first["scores"]["llm_judge"]
    assert verdict["reason"] == "openai:judge-model graded C: score 1"
    [grade] = verdict["details"]["grades"]
    assert grade["reasoning"] == "The sum is checked against the criterion."
    assert "[Task]\nWhat is 0 + 1?\n" in verdict["details"]["prompt"]
    assert "[Criterion]\n1\n" in verdict["details"]["prompt"]
    [call] = first["judge_calls"]
    assert (call["reward"], call["model"], call["retries"], call["draw"]) == (
        "llm_judge", "openai:judge-model", 1, 0,
    )  # fmt: skip
    assert stub.requests[1]["temperature"] == 0  # judge_params are sent
    assert first["judge_usage"]["input_tokens"] == 120
    assert first["judge_cost_usd"] == pytest.approx(ONE_REQUEST_USD)
    assert first["cost_usd"] == 0.0  # the agent's own (scripted: free), not the judge's
    assert first["usage"]["input_tokens"] == 0
    # sample 1: a grade outside the format is the reward's error, never a 0 or a 1
    assert (second["status"], second["error_kind"]) == ("error", "reward")
    assert "llm_judge" not in second["scores"] and second["scores"]["qa_f1_reward"]["score"] == 1
    assert second["reward_errors"]["llm_judge"] == (
        "ValueError: the judge's grade 'maybe' is not C or I (partial_credit is off); reply: "
        "'The sum is checked against the criterion. GRADE: maybe'"
    )
    assert second["judge_cost_usd"] == pytest.approx(ONE_REQUEST_USD)  # it was billed
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["judge"]["requests"] == 2 and summary["judge"]["retries"] == 1
    assert summary["judge"]["tokens"]["input_tokens"] == 240
    assert summary["judge"]["cost_usd"] == pytest.approx(2 * ONE_REQUEST_USD)
    assert summary["cost_usd"] == 0.0
    assert summary["rewards"]["llm_judge"]["headline"] == 0.5
    shown = capsys.readouterr().out
    assert "judge" in shown and "2 requests (retried 1)" in shown
    assert f"cost (USD) {2 * ONE_REQUEST_USD:.6f}" in shown


def test_a_replayed_run_and_a_rescore_read_the_recorded_replies(tmp_path: Path) -> None:
    with StubServer(grader({"1": "GRADE: C", "2": "GRADE: I"})) as stub:
        config = judged_setup(tmp_path, stub)
        first = run(config)
        asked = len(stub.requests)
        again = run(config, "--model", f"replay:{first}")
        assert len(stub.requests) == asked  # no live judge
        recorded = {line["id"]: line for line in read_results(first)}
        for line in read_results(again):
            was = recorded[line["id"]]
            assert line["scores"]["llm_judge"] == was["scores"]["llm_judge"]
            [call] = line["judge_calls"]
            assert call["replayed"] is True and call["reply"] == was["judge_calls"][0]["reply"]
            assert line["judge_cost_usd"] == 0.0  # a recording is not billed again
        summary = json.loads((again / "summary.json").read_text())
        assert (summary["judge"]["requests"], summary["judge"]["replayed"]) == (2, 2)
        # a changed grading prompt was never recorded: the reward fails, no live request
        instructed = edited(
            config, "instructed.yaml",
            lambda raw: raw["rewards"][1]["llm_judge"].update(instructions="Grade it."),
        )  # fmt: skip
        changed = run(instructed, "--model", f"replay:{first}")
        assert len(stub.requests) == asked
        for line in read_results(changed):
            assert line["error_kind"] == "reward"
            assert line["reward_errors"]["llm_judge"].startswith(
                f"ReplayMismatchError: replay of {first}: sample {line['id']!r}: reward "
                "'llm_judge' asked its judge (openai:judge-model, draw 0) a request the "
                "recording does not have (1 recorded call(s) of this reward"
            )
        # agentloop score reads the replies the lines recorded
        assert main(["score", str(first)]) == 0
        assert len(stub.requests) == asked
    [rescored] = first.glob("results.rescored-*.jsonl")
    lines = read_results(first, rescored.name)
    assert {line["id"]: line["scores"]["llm_judge"]["score"] for line in lines} == {
        "s0000": 1.0, "s0001": 0.0,
    }  # fmt: skip
    assert all(line["judge_calls"][0]["replayed"] for line in lines)


def test_draws_are_requests_of_their_own_and_the_cache_keeps_them_apart(tmp_path: Path) -> None:
    grades = iter(["GRADE: C", "GRADE: I", "GRADE: C"])  # one sample, three draws

    def answer(body: dict[str, Any]) -> StubResponse:  # the agent's model, and the judge
        return reply(next(grades) if body["model"] == "judge-model" else "1", usage=USAGE)

    with StubServer(answer) as stub:

        def live(raw: dict[str, Any]) -> None:  # the cache keeps a live agent's replies only
            options = {"base_url": stub.url, "api_key_env": "JUDGE_KEY"}
            raw.update(model="openai:agent-model", model_options=options, tools=[],
                       cache=str(tmp_path / "cache"))  # fmt: skip

        config = edited(judged_setup(tmp_path, stub, n=1, samples=3), "cached.yaml", live)
        first = run(config)
        assert [r["model"] for r in stub.requests].count("judge-model") == 3
        cached = run(config)
        assert len(stub.requests) == 4  # the agent's reply and every draw from the cache
    [line] = read_results(first)
    verdict = line["scores"]["llm_judge"]
    grades_said = [g["grade"] for g in verdict["details"]["grades"]]  # the draws run at once
    assert sorted(grades_said) == ["C", "C", "I"]
    assert verdict["score"] == 1.0  # the majority
    assert verdict["reason"] == (
        f"openai:judge-model graded {', '.join(grades_said)} (majority of 3): score 1"
    )
    assert [c["draw"] for c in line["judge_calls"]] == [0, 1, 2]
    [again] = read_results(cached)
    assert again["scores"]["llm_judge"] == verdict
    assert [c["cached"] for c in again["judge_calls"]] == [True] * 3
    assert again["judge_cost_usd"] == 0.0


def test_a_judge_that_cannot_be_opened_errors_only_its_reward(tmp_path: Path) -> None:
    with StubServer(grader({})) as stub:
        config = judged_setup(tmp_path, stub, judge_options={"max_retries": -1})
        run_dir = run(config)
        assert stub.requests == []
    for line in read_results(run_dir):
        assert line["scores"]["qa_f1_reward"]["score"] == 1.0
        assert line["reward_errors"]["llm_judge"] == (
            "JudgeError: judge openai:judge-model cannot be opened: ModelSpecError: model "
            "option max_retries must be a non-negative integer, not -1"
        )
        assert line["judge_calls"] == [] and line["judge_cost_usd"] == 0.0

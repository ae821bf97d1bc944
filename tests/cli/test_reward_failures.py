"""A reward that raises: its failure is its own (the sample's other rewards stand), it is in
the summary with its headline 0 even when it never scored, `compare` reads it as 0, and a
run whose every result errored fails (exit 1); re-scoring follows the same rule."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import agentloop.evals._registry
import pytest
from agentloop.evals import register_reward

from tests.cli.test_cli import run_cli
from tests.support.harness import add_setup, only_run_dir, read_results, write_jsonl

RAISES_ON = {"2", "4", "6"}  # the answers (i + 1) of s0001, s0003, s0005


@pytest.fixture
def flaky() -> Iterator[dict[str, Any]]:
    """Registers ``cli_test_flaky`` in a private copy of the registry: it raises on the
    answers in ``state["raise_on"]`` (3 of 7 add rows at first; None: on every row) and
    scores 1 on the others."""
    state: dict[str, Any] = {"raise_on": RAISES_ON}

    def cli_test_flaky(final_answer: Any) -> float:
        if state["raise_on"] is None or final_answer in state["raise_on"]:
            raise KeyError("expected_calls")
        return 1.0

    with pytest.MonkeyPatch.context() as patch:
        registry = agentloop.evals._registry
        patch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
        register_reward("cli_test_flaky", cli_test_flaky)
        yield state


def _summary(run_dir: Path, name: str = "summary.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / name).read_text())
    return data


def _reward_row(out: str, key: str) -> list[str]:
    """The cells of one reward's row in the printed Rewards table (the first table with
    it), its 95% CI left out."""
    row = next(line for line in out.splitlines() if line.startswith(f"│ {key} "))
    cells = [cell.strip() for cell in row.strip("│").split("│")]
    return cells[:2] + cells[3:]


def _pass_rows(out: str, key: str) -> dict[str, list[str]]:
    """The rows of one reward in the printed pass@k table: measure -> value, 95% CI."""
    rows = [line for line in out.splitlines() if line.startswith(f"│ {key} ")][1:]
    cells = [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]
    return {c[1]: c[2:] for c in cells}


def test_a_reward_that_raises_voids_no_other_reward(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flaky: dict[str, Any]
) -> None:
    config = add_setup(tmp_path, n=7, rewards=["cli_test_flaky", "qa_f1_reward"])
    code, out, err = run_cli(capsys, "run", str(config))
    assert code == 0 and err == ""  # 3 of 7 errored: the default fail_on_error lets it pass
    run_dir = only_run_dir(tmp_path / "runs")
    lines = {line["id"]: line for line in read_results(run_dir)}
    raised = lines["s0001"]
    assert (raised["status"], raised["error_kind"]) == ("error", "reward")
    assert raised["reward_errors"] == {"cli_test_flaky": "KeyError: 'expected_calls'"}
    assert raised["error"] == "cli_test_flaky: KeyError: 'expected_calls'"
    assert list(raised["scores"]) == ["qa_f1_reward"] and raised["passed"] == {"qa_f1_reward": True}
    assert lines["s0000"]["status"] == "ok" and lines["s0000"]["reward_errors"] == {}
    rewards = _summary(run_dir)["rewards"]
    # qa_f1_reward never failed: scored on all 7, as if the other reward were not there
    assert (rewards["qa_f1_reward"]["results"], rewards["qa_f1_reward"]["errored"]) == (7, 0)
    assert rewards["qa_f1_reward"]["headline"] == 1.0
    assert (rewards["cli_test_flaky"]["results"], rewards["cli_test_flaky"]["errored"]) == (4, 3)
    assert rewards["cli_test_flaky"]["headline"] == pytest.approx(4 / 7)
    assert _reward_row(out, "qa_f1_reward")[:5] == ["qa_f1_reward", "1.000", "1.000", "0.000", "0"]
    assert _reward_row(out, "cli_test_flaky")[:5] == [
        "cli_test_flaky", "0.571", "1.000", "0.000", "3",
    ]  # fmt: skip
    # compare against a run without the flaky reward: qa_f1_reward changed nowhere
    other = add_setup(tmp_path, n=7, rewards=["qa_f1_reward"], output_dir=str(tmp_path / "b"))
    assert run_cli(capsys, "run", str(other))[0] == 0
    code, out, _ = run_cli(
        capsys, "compare", str(run_dir), str(only_run_dir(tmp_path / "b")), "--json"
    )
    data = json.loads(out)
    assert code == 0 and [c for c in data["changed"] if c["reward"] == "qa_f1_reward"] == []
    assert {d["reward"]: d["delta"] for d in data["rewards"]}["qa_f1_reward"] == 0.0


def test_rescoring_follows_the_same_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flaky: dict[str, Any]
) -> None:
    config = add_setup(tmp_path, n=7, rewards=["qa_f1_reward"])
    assert run_cli(capsys, "run", str(config))[0] == 0
    run_dir = only_run_dir(tmp_path / "runs")
    code, _, _ = run_cli(capsys, "score", str(run_dir), "--rewards", "cli_test_flaky",
                         "qa_f1_reward")  # fmt: skip
    assert code == 0
    (rescored,) = run_dir.glob("results.rescored-*.jsonl")
    lines = {line["id"]: line for line in read_results(run_dir, rescored.name)}
    assert (lines["s0003"]["status"], lines["s0003"]["error_kind"]) == ("error", "reward")
    assert lines["s0003"]["reward_errors"] == {"cli_test_flaky": "KeyError: 'expected_calls'"}
    assert lines["s0003"]["scores"]["qa_f1_reward"]["score"] == 1.0
    written = rescored.name.replace("results.", "summary.").replace(".jsonl", ".json")
    rewards = _summary(run_dir, written)["rewards"]
    assert (rewards["qa_f1_reward"]["results"], rewards["qa_f1_reward"]["errored"]) == (7, 0)
    assert (rewards["cli_test_flaky"]["results"], rewards["cli_test_flaky"]["errored"]) == (4, 3)


def test_a_runs_reward_errors_are_rescored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flaky: dict[str, Any]
) -> None:
    config = add_setup(tmp_path, n=7, rewards=["cli_test_flaky", "qa_f1_reward"])
    assert run_cli(capsys, "run", str(config))[0] == 0
    run_dir = only_run_dir(tmp_path / "runs")
    flaky["raise_on"] = set()  # the reward fixed
    assert run_cli(capsys, "score", str(run_dir))[0] == 0
    (rescored,) = run_dir.glob("results.rescored-*.jsonl")
    lines = read_results(run_dir, rescored.name)
    assert {(line["status"], json.dumps(line["reward_errors"])) for line in lines} == {("ok", "{}")}
    assert all(set(line["scores"]) == {"cli_test_flaky", "qa_f1_reward"} for line in lines)


def test_a_reward_raising_everywhere_is_scored_0_and_fails_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flaky: dict[str, Any]
) -> None:
    config = add_setup(tmp_path, n=5, rewards=["cli_test_flaky"], pass_threshold={})
    flaky["raise_on"] = set()
    assert run_cli(capsys, "run", str(config), "--output-dir", str(tmp_path / "a"))[0] == 0
    flaky["raise_on"] = None  # raises on every sample
    code, out, err = run_cli(capsys, "run", str(config), "--output-dir", str(tmp_path / "b"))
    assert code == 1
    assert err == "agentloop: run failed: every result errored (5 of 5; reward: 5)\n"
    a, b = only_run_dir(tmp_path / "a"), only_run_dir(tmp_path / "b")
    summary = _summary(b)
    assert summary["failed"] is True and summary["ok"] == 0
    stats = summary["rewards"]["cli_test_flaky"]
    assert (stats["headline"], stats["errored"], stats["results"]) == (0.0, 5, 0)
    assert _reward_row(out, "cli_test_flaky")[:5] == [
        "cli_test_flaky", "0.000", "n/a", "n/a", "5",
    ]  # fmt: skip  (no scored result: no scored mean, nor its error)
    errors = out[out.index("Errors") :]
    assert "reward" in errors and "│       5 │" in errors
    assert "s0000, s0001, s0002" in errors and "s0003" not in errors
    assert summary["error_examples"] == {
        "reward": {
            "first_error": "cli_test_flaky: KeyError: 'expected_calls'",
            "sample_ids": ["s0000", "s0001", "s0002"],
        }
    }
    code, out, _ = run_cli(capsys, "summary", str(b))
    assert code == 1 and "│ FAILED" in out and "every result errored" in out
    # compare: B is 0.000, a regression of 1 against A, each sample a changed score
    code, out, _ = run_cli(capsys, "compare", str(a), str(b), "--json")
    data = json.loads(out)
    assert code == 0 and data["warnings"] == []
    delta = data["rewards"][0]
    assert {k: delta[k] for k in ("reward", "a", "b", "delta")} == {
        "reward": "cli_test_flaky", "a": 1.0, "b": 0.0, "delta": -1.0,
    }  # fmt: skip
    # paired on the 5 samples, the errored results as 0: 5 of 5 worse, McNemar 2 / 2^5
    assert (delta["paired"]["a_only"], delta["paired"]["p_value"]) == (5, 0.0625)
    assert delta["verdict"] == "no significant difference at 95%"  # 5 samples are few
    assert len(data["changed"]) == 5 and {c["b"] for c in data["changed"]} == {None}
    out = run_cli(capsys, "compare", str(a), str(b))[1]
    assert re.search(r"│ cli_test_flaky +│ +1\.000 │ +0\.000 │ +-1\.000 │", out)


def test_results_written_before_reward_errors_were_kept_read_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An older results line: a reward error voided every score of its sample."""
    config = add_setup(tmp_path, n=2, rewards=["qa_f1_reward"])
    assert run_cli(capsys, "run", str(config))[0] == 0
    run_dir = only_run_dir(tmp_path / "runs")
    lines = read_results(run_dir)
    old = {k: v for k, v in lines[1].items() if k != "reward_errors"}
    old.update(status="error", error="KeyError: 'x'", error_kind="reward", scores={}, passed={})
    write_jsonl(run_dir / "results.jsonl", [lines[0], old])
    assert run_cli(capsys, "summary", str(run_dir))[0] == 0
    stats = _summary(run_dir)["rewards"]["qa_f1_reward"]
    assert (stats["headline"], stats["errored"], stats["results"]) == (0.5, 1, 1)
    assert _summary(run_dir)["errors_by_kind"] == {"reward": 1}


def test_errored_trials_are_failed_trials_in_pass_k_as_the_table_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flaky: dict[str, Any]
) -> None:
    # the flaky reward raises on 3 of 7 rows in both epochs; the printed pass^k counts them
    # as failed trials, and the table says so
    config = add_setup(tmp_path, n=7, epochs=2, rewards=["cli_test_flaky"],
                       pass_threshold={"cli_test_flaky": 1.0})  # fmt: skip
    code, out, _ = run_cli(capsys, "run", str(config))
    assert code == 0
    summary = _summary(only_run_dir(tmp_path / "runs"))["rewards"]["cli_test_flaky"]
    assert summary["pass_hat_k"] == {"1": pytest.approx(4 / 7), "2": pytest.approx(4 / 7)}
    assert summary["pass_rate"] == pytest.approx(4 / 7)
    passes = _pass_rows(out, "cli_test_flaky")
    assert passes["pass^2"][0] == "0.571" and passes["pass rate"][0] == "0.571"
    assert "pass rate, pass@k, pass^k: over every planned trial, an errored one counting" in out

"""``agentloop show RUN_DIR SAMPLE_ID``: one sample in the terminal."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentloop.cli import main
from tests.browser.runs import INJECTED, make_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("show"), "run-a")


def _show(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["show", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_sample_with_its_calls_scores_and_truth(run_dir: Path, capsys) -> None:
    code, out, _ = _show(capsys, str(run_dir), "unknown-tool")
    assert code == 0
    assert "unknown-tool (epoch 1)" in out
    assert "multiply unknown_tool" in out and '"x": 2' in out  # the call, pretty JSON
    assert "tool result · multiply unknown_tool" in out
    assert "tool_call_match  0.0  fail" in out and "qa_f1_reward  1.0  pass" in out
    assert "expected call 0" in out  # the reward's reason
    assert "answer: 4" in out and '"a": 2' in out  # the ground truth, arguments parsed


def test_model_output_is_printed_as_text(run_dir: Path, capsys) -> None:
    code, out, _ = _show(capsys, str(run_dir), "inject")
    assert code == 0 and INJECTED in out.replace("\n", "")  # not eaten as rich markup


def test_long_results_are_folded_and_errors_shown(run_dir: Path, capsys) -> None:
    _, out, _ = _show(capsys, str(run_dir), "long-result")
    assert "line 11:" in out and "line 12:" not in out and "more characters" in out
    _, out, _ = _show(capsys, str(run_dir), "no-replies")
    assert "model error" in out and "ScriptExhaustedError" in out


def test_unknown_samples_and_epochs_are_one_line_errors(run_dir: Path, capsys) -> None:
    code, _, err = _show(capsys, str(run_dir), "nope")
    assert (
        code == 2
        and err == f"agentloop: error: {run_dir}/results.jsonl: no result for sample 'nope'\n"
    )
    code, _, err = _show(capsys, str(run_dir), "add-0", "--epoch", "2")
    assert code == 2 and err.endswith("no result for sample 'add-0' epoch 2\n")


def test_an_empty_final_answer_is_said_to_be_empty(run_dir: Path, capsys) -> None:
    _, out, _ = _show(capsys, str(run_dir), "empty-answer")
    assert "final answer: empty" in out and "(the last reply has no text)" in out
    _, out, _ = _show(capsys, str(run_dir), "add-2")
    assert "final answer: empty" not in out and "final answer" in out


def test_a_rescored_results_file_shows_its_scores(run_dir: Path, tmp_path: Path, capsys) -> None:
    from agentloop.harness import rescore_run

    copy = Path(shutil.copytree(run_dir, tmp_path / "run"))
    rescored, _ = rescore_run(copy, ["qa_f1_reward_format"])
    code, out, _ = _show(capsys, str(rescored), "add-2")
    assert code == 0 and "qa_f1_reward_format  1.0" in out and "tool_call_match" not in out
    code, _, err = _show(capsys, str(rescored), "nope")
    assert code == 2 and err == f"agentloop: error: {rescored}: no result for sample 'nope'\n"


def test_expected_calls_are_shown_as_written(tmp_path: Path, capsys) -> None:
    from tests.support.harness import add_row, add_setup, only_run_dir, write_jsonl

    config = add_setup(tmp_path, n=2, rewards=["tool_call_match"], pass_threshold={})
    short = {"name": "add", "arguments": {"a": 0, "b": 1}}  # the short form, no "function"
    openai = {"type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 1}'}}
    write_jsonl(tmp_path / "data.jsonl", [
        add_row(0, ground_truth={"tool_calls": [short]}),
        add_row(1, ground_truth={"tool_calls": [openai]}),
    ])  # fmt: skip
    assert main(["run", str(config)]) == 0
    run = str(only_run_dir(tmp_path / "runs"))
    capsys.readouterr()
    code, out, _ = _show(capsys, run, "s0000")
    assert code == 0 and '"function"' not in out and '"a": 0' in out
    code, out, _ = _show(capsys, run, "s0001")  # OpenAI's form: its arguments parsed
    assert code == 0 and '"function": {' in out and '"a": 1' in out

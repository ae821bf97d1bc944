"""A misspelt row field is found before the first sample: a field nothing reads is a warning
with "did you mean", and a reward that needs a field no row has is a config error (every
sample would score 0)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from tests.support.harness import add_row, add_setup, only_run_dir, write_jsonl


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def rows_with(rename: dict[str, str], n: int = 4) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        row = add_row(i, ground_truth={"tool_calls": [{"name": "add", "arguments": {"a": i}}]})
        rows.append({rename.get(k, k): v for k, v in row.items()})
    return rows


@pytest.mark.parametrize(
    ("rename", "reward", "said"),
    [
        ({"answer": "answers"}, "qa_f1_reward", "its 'answer', but no row of"),
        ({"ground_truth": "groundtruth"}, "tool_call_match", "its 'ground_truth', but no row of"),
        ({"answer": "Answer"}, "answer_match", "its 'answer', but no row of"),
    ],
)
def test_a_reward_needing_a_field_no_row_has_stops_the_run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rename: dict[str, str],
    reward: str,
    said: str,
) -> None:
    config = add_setup(tmp_path, rewards=[reward], pass_threshold={})
    write_jsonl(tmp_path / "data.jsonl", rows_with(rename))
    code, out, err = run_cli(capsys, "run", str(config))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and said in err
    wrong = next(iter(rename.values()))
    assert f"(the rows have {wrong!r}): every sample would score 0" in err
    assert not (tmp_path / "runs").exists()  # nothing half-written


def test_a_field_nothing_reads_is_a_warning_with_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The run needs neither field: it goes on, and says each is read by nothing.
    config = add_setup(tmp_path, rewards=["tool_call_match"], pass_threshold={})
    rows = rows_with({"answer": "answers"})
    rows[1]["notes"] = "my own"
    write_jsonl(tmp_path / "data.jsonl", rows)
    code, _, err = run_cli(capsys, "run", str(config))
    assert code == 0
    warnings = err.splitlines()
    assert len(warnings) == 2
    assert warnings[0].startswith(
        f"agentloop: warning: {tmp_path / 'data.jsonl'}: field 'answers' in 4 row(s) "
        "(line 1, 2, 3 and 1 more) is not a row field, and nothing reads it; did you mean "
        "'answer'? (row fields: id, messages, tools,"
    )
    assert "field 'notes' in 1 row(s) (line 2) is not a row field, and nothing reads it " \
        "(row fields:" in warnings[1]
    assert only_run_dir(tmp_path / "runs").is_dir()


def test_rows_lacking_a_needed_field_are_a_warning_and_score_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, rewards=["qa_f1_reward"])
    rows = rows_with({})
    del rows[2]["answer"]
    write_jsonl(tmp_path / "data.jsonl", rows)
    code, _, err = run_cli(capsys, "run", str(config))
    assert err == (
        f"agentloop: warning: {tmp_path / 'data.jsonl'}: 1 row(s) (line 3) have no 'answer': "
        "qa_f1_reward scores them 0\n"
    )
    results = (only_run_dir(tmp_path / "runs") / "results.jsonl").read_text().splitlines()
    scores = {r["id"]: r["scores"]["qa_f1_reward"]["score"] for r in map(json.loads, results)}
    assert code == 0 and scores == {"s0000": 1.0, "s0001": 1.0, "s0002": 0.0, "s0003": 1.0}


def test_a_user_reward_needs_what_it_takes_without_a_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "myrewards.py").write_text(
        "def strict(final_answer, answer):\n    return float(final_answer == answer)\n\n"
        "def lenient(final_answer, answer=None):\n    return 1.0\n"
    )
    rows = rows_with({"answer": "answers"})
    write_jsonl(tmp_path / "data.jsonl", rows)
    strict = add_setup(tmp_path, rewards=[f"{tmp_path / 'myrewards.py'}:strict"], pass_threshold={})
    write_jsonl(tmp_path / "data.jsonl", rows)
    code, _, err = run_cli(capsys, "run", str(strict))
    assert code == 2 and "strict scores each row against its 'answer'" in err
    lenient = add_setup(tmp_path, rewards=[f"{tmp_path / 'myrewards.py'}:lenient"],
                        pass_threshold={})  # fmt: skip
    write_jsonl(tmp_path / "data.jsonl", rows)
    code, _, err = run_cli(capsys, "run", str(lenient))
    assert code == 0 and "did you mean 'answer'?" in err

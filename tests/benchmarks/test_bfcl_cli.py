"""``agentloop bfcl export`` and ``agentloop bfcl summary``; one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentloop.cli._commands import main
from agentloop.harness.data._dataset import iter_samples
from tests.benchmarks.conftest import FIXTURE
from tests.support.harness import ROOT, only_run_dir, write_json, write_jsonl


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_export_writes_the_rows_of_the_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "multiple.jsonl"
    code, text, err = run_cli(capsys, "bfcl", "export", "multiple", "--out", str(out))
    assert (code, err) == (0, "")
    assert text.strip() == f"wrote 4 rows of BFCL multiple to {out}"
    assert list(iter_samples(out)) == list(iter_samples("bfcl:multiple"))
    first = json.loads(out.read_text().splitlines()[0])
    assert first["id"] == "multiple_0" and first["metadata"]["bfcl_category"] == "multiple"


def test_export_takes_a_data_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTLOOP_BFCL_DATA", str(tmp_path / "elsewhere"))
    out = tmp_path / "p.jsonl"
    argv = ["bfcl", "export", "parallel", "--out", str(out), "--data-dir", str(FIXTURE)]
    assert run_cli(capsys, *argv)[0] == 0
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bfcl", "export", "nope", "--out", "x.jsonl"], "agentloop: error: unknown BFCL category"),
        (["bfcl", "export", "multiple"], "agentloop bfcl export: the following arguments"),
        (["bfcl"], "agentloop bfcl: the following arguments are required"),
        (["bfcl", "summary"], "agentloop bfcl summary: the following arguments are required"),
        (["bfcl", "summary", "no/such/run"], "agentloop: error: no/such/run: not a run"),
        (["bfcl", "frob"], "agentloop bfcl: argument bfcl_command: invalid choice"),
    ],
)
def test_errors_are_one_line(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err
    assert not (tmp_path / "x.jsonl").exists()


def test_summary_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {
            "id": f"parallel_{i}",
            "epoch": 1,
            "status": "ok",
            "scores": {"bfcl_verdict": {"score": s}},
            "metadata": {"bfcl_category": "parallel"},
        }
        for i, s in enumerate([1.0, 0.0, 1.0, 1.0])
    ]
    write_jsonl(tmp_path / "results.jsonl", lines)
    code, out, err = run_cli(capsys, "bfcl", "summary", str(tmp_path))
    assert (code, err) == (0, "")
    assert "parallel                      4        3        0    75.00%" in out
    assert "Non-Live AST" in out and "Overall" in out


def test_a_run_of_part_of_a_category_is_marked_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_json(tmp_path / "script.json", ["I cannot help with that."])
    config = str(ROOT / "configs" / "bfcl" / "simple_python.yaml")
    common = ["--model", f"scripted:{script}", "--no-preflight"]
    limited, whole = tmp_path / "limited", tmp_path / "whole"
    code = run_cli(capsys, "run", config, *common, "--limit", "2", "--output-dir", str(limited))[0]
    assert code == 0
    assert run_cli(capsys, "run", config, *common, "--output-dir", str(whole))[0] == 0
    code, out, err = run_cli(capsys, "bfcl", "summary", str(only_run_dir(limited)))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    row = next(line for line in lines if line.startswith("simple_python"))
    assert row.split() == ["simple_python", "2", "0", "0", "0.00%", "(partial:", "2", "of", "3",
                           "entries)"]  # fmt: skip
    non_live = next(line for line in lines if line.startswith("Non-Live AST"))
    assert non_live.endswith(
        "(partial: no simple_java, simple_javascript, multiple, parallel, parallel_multiple;"
        " simple_python: 2 of 3 entries; BFCL: 0.00%, counting them as 0)"
    )
    overall = next(line for line in lines if line.startswith("Overall"))
    assert overall.endswith("; simple_python: 2 of 3 entries; BFCL: 0.00%, counting them as 0)")
    # the whole category: no such mark
    out = run_cli(capsys, "bfcl", "summary", str(only_run_dir(whole)))[1]
    assert "entries" not in out
    assert next(line for line in out.splitlines() if line.startswith("simple_python")).split() == [
        "simple_python", "3", "0", "0", "0.00%",
    ]  # fmt: skip


def test_run_with_an_unknown_category_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(f"model: openai:gpt-4o-mini\ndataset: bfcl:simple\noutput_dir: {tmp_path}\n")
    code, out, err = run_cli(capsys, "run", str(config))
    assert code == 2 and out == ""
    assert err.startswith("agentloop: error: unknown BFCL category 'simple'; known: ")
    assert err.count("\n") == 1

"""Choosing samples: ``sample_ids`` (ids and globs), ``shuffle`` with ``seed``, ``limit``
after both; recorded in run.json and kept by a resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.engine import Trajectory
from agentloop.harness.data._selection import shuffle_key
from tests.support.harness import only_run_dir, read_results, write_config, write_json, write_jsonl

IDS = [
    "weather-boston",
    "weather-paris",
    "weather-tokyo",
    "calc-0",
    "calc-1",
    "calc-2",
    "calc-3",
    "search-vellmora",
]
# sha256 decides the order: these lists hold on every machine and Python version.
SEED_7 = ["search-vellmora", "weather-paris", "weather-boston", "weather-tokyo",
          "calc-0", "calc-2", "calc-3", "calc-1"]  # fmt: skip
SEED_8 = ["weather-paris", "calc-2", "calc-0", "search-vellmora",
          "weather-boston", "weather-tokyo", "calc-1", "calc-3"]  # fmt: skip


def _row(sample_id: Any) -> dict[str, Any]:
    return {"id": sample_id, "messages": [{"role": "user", "content": f"about {sample_id}"}]}


def _setup(tmp_path: Path, rows: list[Any] | None = None, **fields: Any) -> Path:
    data = write_jsonl(tmp_path / "data.jsonl", rows or [_row(i) for i in IDS])
    script = write_json(tmp_path / "script.json", ["done"])
    base = {
        "model": f"scripted:{script}",
        "dataset": str(data),
        "output_dir": str(tmp_path / "runs"),
        "concurrency": 1,  # the results file is then in run order
    }
    return write_config(tmp_path / "eval.yaml", **{**base, **fields})


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> Path:
    """Run eval.yaml with ``argv`` into a fresh output directory; its run directory."""
    out = tmp_path / "out" / str(len(list(tmp_path.glob("out/*"))))
    assert main(["run", str(tmp_path / "eval.yaml"), "--output-dir", str(out), *argv]) == 0
    capsys.readouterr()
    return only_run_dir(out)


def _run_order(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    return [line["id"] for line in read_results(_run(tmp_path, capsys, *argv))]


def test_sample_ids_take_ids_and_globs_in_file_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _setup(tmp_path)
    run_dir = _run(tmp_path, capsys, "--sample-id", "calc-2", "--sample-id", "weather-*")
    order = [line["id"] for line in read_results(run_dir)]
    assert order == ["weather-boston", "weather-paris", "weather-tokyo", "calc-2"]
    # limit applies to the selection
    assert _run_order(tmp_path, capsys, "--sample-id", "calc-?", "--limit", "2") == [
        "calc-0",
        "calc-1",
    ]
    header = json.loads((run_dir / "run.json").read_text())
    assert header["config"]["sample_ids"] == ["calc-2", "weather-*"]
    assert header["planned"] == {"samples": 4, "epochs": 1, "results": 4}


def test_an_id_or_glob_matching_no_row_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _setup(tmp_path)
    argv = ["run", str(config), "--sample-id", "nope", "--sample-id", "weather-*",
            "--sample-id", "Calc-*"]  # fmt: skip
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: sample_ids: no row of {tmp_path / 'data.jsonl'} has an id "
        "matching 'nope', 'Calc-*'\n"
    )
    assert not (tmp_path / "runs").exists()


def test_shuffle_order_is_decided_by_the_seed_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _setup(tmp_path)
    assert _run_order(tmp_path, capsys, "--shuffle", "--seed", "7") == SEED_7
    assert _run_order(tmp_path, capsys, "--shuffle", "--seed", "7") == SEED_7
    assert _run_order(tmp_path, capsys, "--shuffle", "--seed", "8") == SEED_8
    # limit takes the first N of the shuffled order; a selection keeps its rows' places
    assert _run_order(tmp_path, capsys, "--shuffle", "--seed", "7", "--limit", "3") == SEED_7[:3]
    calc = [i for i in SEED_7 if i.startswith("calc-")]
    got = _run_order(tmp_path, capsys, "--shuffle", "--seed", "7", "--sample-id", "calc-*",
                     "--limit", "2")  # fmt: skip
    assert got == calc[:2]
    # the order does not depend on the file's order
    _setup(tmp_path, rows=[_row(i) for i in reversed(IDS)])
    assert _run_order(tmp_path, capsys, "--shuffle", "--seed", "7") == SEED_7
    # without a seed: seed 0
    expected = sorted(IDS, key=lambda i: shuffle_key(0, i))
    assert _run_order(tmp_path, capsys, "--shuffle") == expected
    assert shuffle_key(0, "a") == 6852966567523245171


def test_a_resume_keeps_the_selection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _setup(tmp_path, epochs=2)
    flags = ["--sample-id", "calc-*", "--sample-id", "weather-paris", "--shuffle",
             "--seed", "8", "--limit", "3"]  # fmt: skip
    assert main(["run", str(config), *flags]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    full = {(line["id"], line["epoch"]) for line in read_results(run_dir)}
    assert full == {(i, e) for i in ["weather-paris", "calc-2", "calc-0"] for e in (1, 2)}
    results = run_dir / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:2]))
    (run_dir / "summary.json").unlink()
    capsys.readouterr()
    # The same config without the flags is another selection: refused.
    assert main(["run", str(config), "--resume", str(run_dir)]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: cannot resume {run_dir}: the config differs from the run's in: "
        "limit, sample_ids, seed, shuffle\n"
    )
    # Without a config, the stored one (and its selection) is used.
    assert main(["run", "--resume", str(run_dir)]) == 0
    lines = read_results(run_dir)
    assert len(lines) == 6 and {(x["id"], x["epoch"]) for x in lines} == full
    assert json.loads((run_dir / "summary.json").read_text())["complete"] is True


def test_seed_needs_shuffle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _setup(tmp_path)
    assert main(["run", str(config), "--seed", "3"]) == 2
    assert capsys.readouterr().err == (
        "agentloop: error: --seed: only used with shuffle: true\n"  # the flag, not the file
    )


def test_shuffled_rows_are_read_where_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Blank lines, bad lines and multi-byte text before a row must not shift it.
    rows: list[Any] = [
        _row("calc-0"),
        "",
        "not json",
        {"id": "ünï-çødé", "messages": [{"role": "user", "content": "ë" * 300}]},
        _row("calc-0"),  # duplicate id: invalid, skipped
        "",
        _row(7),
        _row("calc-1"),
    ]
    _setup(tmp_path, rows=rows, skip_invalid=True)
    lines = read_results(_run(tmp_path, capsys, "--shuffle"))
    valid = ["calc-0", "ünï-çødé", "7", "calc-1"]
    assert [x["id"] for x in lines] == sorted(valid, key=lambda i: shuffle_key(0, i))
    for line in lines:
        first = Trajectory.model_validate(line["trajectory"]).messages[0].content
        assert first == ("ë" * 300 if line["id"] == "ünï-çødé" else f"about {line['id']}")


def test_a_shuffled_first_row_after_a_byte_order_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _setup(tmp_path)
    data = tmp_path / "data.jsonl"
    data.write_bytes(b"\xef\xbb\xbf" + data.read_bytes())
    assert _run_order(tmp_path, capsys, "--shuffle") == sorted(IDS, key=lambda i: shuffle_key(0, i))


def test_integer_ids_in_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _setup(tmp_path, rows=[_row(5), _row(6), _row(7)], sample_ids=[7, 5])
    assert _run_order(tmp_path, capsys) == ["5", "7"]

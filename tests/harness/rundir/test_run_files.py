"""Results files: line encoding, torn last lines, atomic writes, secret scrubbing."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from agentloop.engine._trajectory import Trajectory
from agentloop.errors import AgentloopError
from agentloop.harness.rundir._files import (
    ResultWriter,
    Scrubber,
    completed_pairs,
    encode_result,
    iter_results,
    new_run_dir,
    repair_tail,
    write_json_atomic,
)

NO_SECRETS = Scrubber({})


def test_encode_splices_the_trajectory_last() -> None:
    traj = Trajectory.build([], [], "final")
    text = encode_result({"id": "a", "epoch": 1}, traj.model_dump_json(), NO_SECRETS)
    assert text.endswith("}\n") and text.count("\n") == 1
    data = json.loads(text)
    assert list(data) == ["id", "epoch", "trajectory"]
    assert Trajectory.model_validate(data["trajectory"]) == traj
    assert (
        json.loads(encode_result({"id": "a", "epoch": 1}, None, NO_SECRETS))["trajectory"] is None
    )


def test_writer_appends_flushed_lines_and_counts(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with ResultWriter(path) as writer:
        writer.write(encode_result({"id": "a", "epoch": 1}, None, NO_SECRETS))
        # Flushed: visible to another reader before close.
        assert completed_pairs(path) == {("a", 1)}
    with ResultWriter(path, fsync=True) as writer:
        writer.write(encode_result({"id": "a", "epoch": 2}, None, NO_SECRETS))
    assert completed_pairs(path) == {("a", 1), ("a", 2)}
    with pytest.raises(ValueError, match="closed"):
        writer.write("x\n")


def test_torn_last_line_is_ignored_then_truncated(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    good = encode_result({"id": "a", "epoch": 1}, None, NO_SECRETS)
    path.write_text(good + '{"id": "b", "epoch": 1, "traj')
    assert [r["id"] for r in iter_results(path)] == ["a"]
    assert repair_tail(path) == len('{"id": "b", "epoch": 1, "traj')
    assert path.read_text() == good
    assert repair_tail(path) == 0
    # A writer repairs before appending, so the next line starts on its own line.
    path.write_text(good + '{"torn')
    with ResultWriter(path) as writer:
        writer.write(encode_result({"id": "c", "epoch": 1}, None, NO_SECRETS))
    assert [r["id"] for r in iter_results(path)] == ["a", "c"]


def test_torn_only_line_and_long_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "a"')
    assert repair_tail(path) == 10 and path.read_bytes() == b""
    path.write_text('{"id": "a", "epoch": 1}\n' + "x" * 200_000)
    repair_tail(path)
    assert path.read_text() == '{"id": "a", "epoch": 1}\n'
    assert repair_tail(tmp_path / "missing.jsonl") == 0


def test_corrupt_complete_line_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "a", "epoch": 1}\nnot json\n')
    with pytest.raises(AgentloopError, match=r"r.jsonl:2: corrupt result line"):
        list(iter_results(path))
    path.write_text('{"x": 1}\n')
    with pytest.raises(AgentloopError, match=r"r.jsonl:1: not a result record"):
        list(iter_results(path))
    assert list(iter_results(tmp_path / "none.jsonl")) == []


def test_atomic_json_write_leaves_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    write_json_atomic(path, {"a": 1})
    write_json_atomic(path, {"a": 2})
    assert json.loads(path.read_text()) == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]


def test_run_dirs_are_unique(tmp_path: Path) -> None:
    now = datetime(2025, 1, 2, 3, 4, 5)
    first = new_run_dir(tmp_path / "runs", "my eval/1", now)
    second = new_run_dir(tmp_path / "runs", "my eval/1", now)
    assert first.name == "20250102-030405-my-eval-1"
    assert second.name == "20250102-030405-my-eval-1-2"


def test_scrubber_masks_secret_env_values_everywhere() -> None:
    env = {
        "OPENAI_API_KEY": "sk-abcdef123",
        "GH_TOKEN": 'tok"en\\42',
        "MY_SECRET": "s3cr3t-é",
        "TOKENIZERS_PARALLELISM": "false",
        "PATH": "/usr/bin:/bin",
        "SHORT_KEY": "abc",
    }
    scrub = Scrubber(env)
    assert sorted(scrub.secrets) == sorted(["sk-abcdef123", 'tok"en\\42', "s3cr3t-é"])
    assert scrub.text("key=sk-abcdef123!") == "key=***!"
    record = {
        "id": "sk-abcdef123",
        "error": 'bad tok"en\\42',
        "n": 5,
        "nested": {"sk-abcdef123": ["s3cr3t-é"]},
    }
    for traj in (None, json.dumps({"content": "use s3cr3t-é and sk-abcdef123"})):
        text = encode_result(record, traj, scrub)
        for secret in scrub.secrets:
            assert secret not in text and json.dumps(secret)[1:-1] not in text
        data = json.loads(text)
        assert (
            data["id"] == "***"
            and data["error"] == "bad ***"
            and data["nested"] == {"***": ["***"]}
        )
    # Nothing to mask: the text is returned as is.
    assert scrub.json_text('{"a": "b"}') == '{"a": "b"}'


def test_atomic_write_scrubs(tmp_path: Path) -> None:
    write_json_atomic(
        tmp_path / "h.json", {"cmd": "--key=hunter22"}, Scrubber({"X_KEY": "hunter22"})
    )
    assert json.loads((tmp_path / "h.json").read_text()) == {"cmd": "--key=***"}

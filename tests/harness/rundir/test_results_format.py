"""Results files in both trajectory formats: agentloop-run/2 (OpenAI chat messages) is
written; agentloop-run/1 (LangChain message dumps) is still replayed, re-scored and
compared.

``tests/data/run_v1`` was written by agentloop before the change (three samples against
the OpenAI protocol stub: two parallel calls; a malformed call beside a good one, with
text; no call), with the dataset and tool that ``add_setup(n=3)`` writes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentloop import Trajectory
from agentloop.errors import AgentloopError
from agentloop.harness import load_config
from agentloop.harness.run._rescore import rescore_run
from agentloop.harness.run._runner import run_eval_sync
from agentloop.harness.rundir._files import Scrubber, encode_result
from agentloop.harness.rundir._header import read_header
from agentloop.harness.stats._compare import compare_runs
from tests.support.harness import add_setup, read_results

RUN_V1 = Path(__file__).resolve().parents[2] / "data" / "run_v1"


@pytest.fixture
def old_run(tmp_path: Path) -> Path:
    return Path(shutil.copytree(RUN_V1, tmp_path / "old"))


def test_the_fixture_is_in_the_old_format() -> None:
    header = json.loads((RUN_V1 / "run.json").read_text())
    assert header["format"] == "agentloop-run/1"
    lines = read_results(RUN_V1)
    assert [m["type"] for m in lines[1]["trajectory"]["messages"]] == ["human", "ai", "tool",
                                                                       "tool", "ai"]  # fmt: skip


def test_an_old_run_replays_rescores_and_compares(tmp_path: Path, old_run: Path) -> None:
    config = add_setup(tmp_path, n=3, model=f"replay:{old_run}",
                       model_params={"temperature": 0}, concurrency=1)  # fmt: skip
    new_run = run_eval_sync(load_config(str(config)), config_path=str(config)).run_dir
    assert json.loads((new_run / "run.json").read_text())["format"] == "agentloop-run/2"
    old = {line["id"]: line for line in read_results(old_run)}
    new = {line["id"]: line for line in read_results(new_run)}
    assert [line["status"] for line in new.values()] == ["ok"] * 3
    for sample, line in new.items():
        assert all("type" not in m and "role" in m for m in line["trajectory"]["messages"])
        before = Trajectory.model_validate(old[sample]["trajectory"])
        after = Trajectory.model_validate(line["trajectory"])
        assert after.messages == before.messages  # ids, metadata, usage: all replayed
        assert after.to_openai_messages() == before.to_openai_messages()
        for was, now in zip(before.tool_calls(), after.tool_calls(), strict=True):
            assert now == was.model_copy(update={"duration_s": now.duration_s})
    comparison = compare_runs(old_run, new_run)
    assert comparison.changed == [] and comparison.only_in_a == comparison.only_in_b == 0
    assert [(d.reward, d.a, d.b) for d in comparison.rewards] == [("qa_f1_reward", 1.0, 1.0)]

    # Re-scored from the messages: the gate needs a tool message before the answer.
    rescored = []
    for run_dir in (old_run, new_run):
        target, _ = rescore_run(run_dir, ["qa_f1_reward_tool"])
        lines = read_results(run_dir, target.name)
        scores = {line["id"]: line["scores"]["qa_f1_reward_tool"]["score"] for line in lines}
        assert scores == {"s0000": 1.0, "s0001": 1.0, "s0002": 0.0}
        # The trajectories are copied as they were written, in their own format.
        assert [line["trajectory"] for line in lines] == [
            line["trajectory"] for line in read_results(run_dir)
        ]
        rescored.append(target)
    assert compare_runs(*rescored).changed == []


def test_headers_of_both_formats_are_read(tmp_path: Path, old_run: Path) -> None:
    assert read_header(old_run)["format"] == "agentloop-run/1"
    header = json.loads((old_run / "run.json").read_text())
    (old_run / "run.json").write_text(json.dumps({**header, "format": "agentloop-run/2"}))
    assert read_header(old_run)["format"] == "agentloop-run/2"
    (old_run / "run.json").write_text(json.dumps({**header, "format": "agentloop-run/9"}))
    with pytest.raises(AgentloopError, match="not an agentloop run header"):
        read_header(old_run)


@pytest.mark.parametrize("secret", ["sk-plain-123456", 'tok"en\\42x', "s3cr3t-é-ü"])
def test_secrets_in_json_string_arguments_are_masked(secret: str) -> None:
    """Arguments are JSON text inside JSON now: a secret is escaped twice there."""
    line = read_results(RUN_V1)[0]
    traj = Trajectory.model_validate(line["trajectory"])
    call = traj.messages[1].tool_calls[0]  # type: ignore[union-attr]
    call["args"] = {"a": 0, "b": 1, "note": f"use {secret} please"}
    text = encode_result({"id": "x"}, traj.model_dump_json(), Scrubber({"MY_TOKEN": secret}))
    stored = json.loads(text)["trajectory"]["messages"][1]["tool_calls"][0]
    assert json.loads(stored["function"]["arguments"])["note"] == "use *** please"
    assert secret not in text and json.dumps(secret)[1:-1] not in text
    assert json.dumps(json.dumps(secret)[1:-1])[1:-1] not in text

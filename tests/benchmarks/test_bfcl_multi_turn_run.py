"""configs/bfcl/multi_turn_*.yaml: valid, and a scripted run through the harness scored by
BFCL's multi-turn verdict (the fixture's entries; `make bfcl-multi-turn` runs all 200)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentloop.benchmarks import bfcl_lines
from agentloop.benchmarks.bfcl._data import bfcl_rows, export_bfcl
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES
from agentloop.benchmarks.bfcl._summary import MULTI_TURN_VERDICT, summarize_bfcl
from agentloop.harness import load_config, rescore_run
from agentloop.harness.data._dataset import scan_dataset
from agentloop.harness.data._rows import parse_line
from agentloop.harness.run._runner import run_eval_sync
from agentloop.harness.run._sample import prepare
from tests.support.harness import ROOT, bench_module, read_results, write_json

scripted = bench_module("bfcl_multi_turn_scripted")


def _config(category: str) -> Path:
    return ROOT / "configs" / "bfcl" / f"{category}.yaml"


@pytest.mark.parametrize("category", MULTI_TURN_CATEGORIES)
def test_the_config_runs_bfcls_multi_turn_setup(category: str) -> None:
    config = load_config(_config(category))
    assert config.dataset == f"bfcl:{category}"
    assert config.environment == "agentloop.benchmarks:bfcl_environment"
    assert config.tool_execution == "sequential"
    assert (config.max_rounds, config.at_max_rounds) == (21, "stop")  # BFCL's step limit
    assert config.rewards[0] == MULTI_TURN_VERDICT
    prepared = prepare(config)
    assert prepared.scan.valid == 3 and prepared.scan.problems == []


@pytest.mark.parametrize("drop_last", [False, True], ids=["ground_truth", "last_call_dropped"])
def test_a_scripted_run_passes_with_the_ground_truth_only(drop_last: bool, tmp_path: Path) -> None:
    category = "multi_turn_miss_func"  # held-back functions, turns without ground truth
    rows = list(bfcl_rows(category))
    script = write_json(tmp_path / "script.json", scripted.script(rows, drop_last))
    config = load_config(
        _config(category),
        overrides={"model": f"scripted:{script}", "output_dir": str(tmp_path / "runs"),
                   "preflight": False, "concurrency": 1},
    )  # fmt: skip
    outcome = run_eval_sync(config, config_path=str(_config(category)))
    assert outcome.summary.errored == 0
    lines = read_results(outcome.run_dir)
    verdicts = {line["id"]: line["scores"][MULTI_TURN_VERDICT] for line in lines}
    assert sorted(verdicts) == sorted(r["id"] for r in rows)
    if drop_last:
        assert all(v["score"] == 0.0 for v in verdicts.values())
    else:
        assert all(v["score"] == 1.0 for v in verdicts.values()), verdicts
        held = next(line for line in lines if line["id"] == f"{category}_15")
        # the held-back functions are bound from their turn on
        assert "touch" not in held["request"]["tools"]
        assert "touch" in held["request"]["turn_tools"][0]["tools"]
    summary = summarize_bfcl([outcome.run_dir])
    assert summary.categories[category].accuracy == (0.0 if drop_last else 1.0)
    # the config's pass_threshold gives the verdict a pass rate in the run's own summary
    assert outcome.summary.rewards[MULTI_TURN_VERDICT].pass_rate == (0.0 if drop_last else 1.0)
    # re-scoring: a results line keeps no environment; the verdict finds the BFCL row
    rescored, _ = rescore_run(outcome.run_dir, [MULTI_TURN_VERDICT])
    again = {
        line["id"]: line["scores"][MULTI_TURN_VERDICT]
        for line in read_results(rescored.parent, rescored.name)
    }
    assert again == verdicts
    multi = next(g for g in summary.groups if g.name == "Multi-Turn")
    assert multi.accuracy == summary.categories[category].accuracy
    json.dumps(lines[0]["trajectory"])  # recorded as JSON


def test_the_export_is_the_category_as_a_dataset_file(tmp_path: Path) -> None:
    out = tmp_path / "miss_param.jsonl"
    assert export_bfcl("multi_turn_miss_param", out) == 3
    assert out.read_text().splitlines(keepends=True) == list(bfcl_lines("multi_turn_miss_param"))
    scan = scan_dataset(out)
    assert scan.valid == 3 and scan.problems == []
    assert scan.sha256 == scan_dataset("bfcl:multi_turn_miss_param").sha256


def test_the_summary_weighs_multi_turn_as_bfcl_does(tmp_path: Path) -> None:
    def line(sid: str, category: str, key: str, score: float) -> str:
        scores = {key: {"score": score, "reason": "", "details": {}}}
        record = {"id": sid, "epoch": 1, "status": "ok", "scores": scores,
                  "metadata": {"bfcl_category": category}}  # fmt: skip
        return json.dumps(record) + "\n"

    results = tmp_path / "results.jsonl"
    results.write_text(
        line("simple_python_0", "simple_python", "bfcl_verdict", 1.0)
        + line("simple_python_1", "simple_python", "bfcl_verdict", 0.0)
        + line("multi_turn_base_0", "multi_turn_base", MULTI_TURN_VERDICT, 1.0)
        # the single-turn verdict does not count for a multi-turn row
        + line("multi_turn_base_1", "multi_turn_base", "bfcl_verdict", 1.0)
    )
    summary = summarize_bfcl([results])
    assert summary.categories["multi_turn_base"].accuracy == 0.5
    assert summary.categories["multi_turn_base"].unscored == 1
    # Non-Live 0.5 (weight 10) and Multi-Turn 0.5 (weight 30); the other groups did not run
    assert summary.overall == pytest.approx(0.5)
    results.write_text(
        line("simple_python_0", "simple_python", "bfcl_verdict", 0.0)
        + line("multi_turn_base_0", "multi_turn_base", MULTI_TURN_VERDICT, 1.0)
    )
    assert summarize_bfcl([results]).overall == pytest.approx(30 / 40)


@pytest.mark.parametrize("arguments", ['{"x": 2 * 3.14159}', "[1, 2]"])
def test_score_mode_scores_a_malformed_recorded_call_in_a_later_turn(
    tmp_path: Path, arguments: str
) -> None:
    # A model's recorded reply in turns[].messages whose arguments are not a JSON object
    # was refused as a dataset error; it is the model's output: a malformed call, scored.
    row = next(r for r in bfcl_rows("multi_turn_base") if r["id"] == "multi_turn_base_0")
    replies = scripted.script([row], drop_last=False)[row["id"]]
    segments: list[list[dict]] = [list(row["messages"])] + [
        list(t["messages"]) for t in row["turns"]
    ]
    turn = 0
    for reply in replies:
        if isinstance(reply, str):
            segments[turn].append({"role": "assistant", "content": reply})
            turn += 1
            continue
        segments[turn].append(reply)
        segments[turn] += [{"role": "tool", "tool_call_id": c["id"], "content": "ok"}
                           for c in reply["tool_calls"]]  # fmt: skip
    bad = {"id": "bad_1", "type": "function", "function": {"name": "ls", "arguments": arguments}}
    segments[1][1:1] = [  # turn 2 opens with a malformed step: BFCL's decoder drops it
        {"role": "assistant", "content": "", "tool_calls": [bad]},
        {"role": "tool", "tool_call_id": "bad_1", "content": "Error: not JSON"},
    ]
    later = zip(row["turns"], segments[1:], strict=True)
    recorded = {**row, "messages": segments[0],
                "turns": [{**t, "messages": m} for t, m in later]}  # fmt: skip
    data = tmp_path / "recorded.jsonl"
    data.write_text(json.dumps(recorded) + "\n")
    config = load_config(
        _config("multi_turn_base"),
        overrides={"mode": "score", "dataset": str(data), "output_dir": str(tmp_path / "runs"),
                   "model": None, "preflight": False},
    )  # fmt: skip
    outcome = run_eval_sync(config, config_path=str(_config("multi_turn_base")))
    (line,) = read_results(outcome.run_dir)
    assert line["status"] == "ok", line.get("error")
    assert line["tool_calls_by_status"]["malformed"] == 1
    verdict = line["scores"][MULTI_TURN_VERDICT]
    assert verdict["score"] == 1.0, verdict["reason"]
    assert verdict["details"]["steps_dropped"] == 1
    # prompt history stays checked: the same call before a user message of its turn is refused
    history = {**recorded, "turns": [dict(t) for t in recorded["turns"]]}
    history["turns"][0]["messages"] = [*segments[1][1:3], *segments[1]]
    with pytest.raises(ValueError, match=r"turns\[0\]\.messages\[0\]\.tool_calls\[0\]: arguments"):
        parse_line(json.dumps(history), 1, "score")

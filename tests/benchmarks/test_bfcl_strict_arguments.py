"""BFCL decodes a call's arguments with strict ``json.loads``: blank text, or a raw TAB or
newline inside a string, makes that step undecodable (no call). LangChain reads such text
leniently and agentloop runs the call as LangChain reads it; the BFCL verdicts read the
text the model sent, as BFCL does. Through the BFCL configs against the loopback OpenAI
stub."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV
from agentloop.benchmarks.bfcl._summary import MULTI_TURN_VERDICT
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import ROOT, read_results
from tests.support.openai_stub import StubResponse, StubServer, call, reply

TAB_IN_STRING = '{"weight": 70.0, "height": 1.8, "unit": "metric\tsystem"}'
NEWLINE_IN_STRING = '{"weight": 70.0, "height": 1.8, "unit": "metric\nsystem"}'


def _run(config: Path, handler: Any, tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    with StubServer(handler=handler) as stub:
        loaded = load_config(config, overrides={
            "model": "openai:stub-model", "model_options": {"base_url": stub.url},
            "output_dir": str(tmp_path / "runs"), "preflight": False, "concurrency": 1,
            **overrides,
        })  # fmt: skip
        outcome = run_eval_sync(loaded, config_path=str(config))
    (line,) = read_results(outcome.run_dir)
    assert line["status"] == "ok", line.get("error")
    return line


@pytest.mark.parametrize("arguments", [TAB_IN_STRING, NEWLINE_IN_STRING, ""])
def test_an_undecodable_call_is_no_call_in_an_irrelevance_entry(
    arguments: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")

    def handler(body: dict[str, Any]) -> StubResponse:
        return reply(tool_calls=[call("determine_body_mass_index", arguments, id="c1")])

    config = ROOT / "configs" / "bfcl" / "irrelevance.yaml"
    line = _run(config, handler, tmp_path, sample_ids=["irrelevance_0"])
    # LangChain read the call (it is recorded as made, not malformed) ...
    (record,) = line["trajectory"]["steps"][0]["tool_calls"]
    assert record["status"] == "not_run" and isinstance(record["args"], dict)
    assert record["raw_args"] == arguments  # ... and the text it was sent with is kept
    # ... but BFCL's decoder fails on it: no call, which an irrelevance entry wants
    verdict = line["scores"]["bfcl_verdict"]
    assert verdict["score"] == 1.0, verdict["reason"]
    assert verdict["reason"] == "irrelevance: no decodable call made; no call is expected"


def test_a_step_with_a_raw_tab_is_dropped_by_the_multi_turn_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(BFCL_DATA_ENV)  # multi_turn_base_12 is not in the fixture
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    turns = [
        [[("cd", '{"folder": "Documents"}'), ("touch", '{"file_name": "summary.txt"}')],
         # runs in agentloop (LangChain reads it); BFCL cannot decode it, so never runs it
         [("touch", '{"file_name": "notes\t.txt"}')]],
        [[("echo", json.dumps({"content": "quantum computing", "file_name": "summary.txt"}))]],
        [[("wc", json.dumps({"file_name": "summary.txt", "mode": "w"}))]],
    ]  # fmt: skip

    def handler(body: dict[str, Any]) -> StubResponse:
        messages = body["messages"]
        turn = sum(m["role"] == "user" for m in messages) - 1
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        step = sum(m["role"] == "assistant" for m in messages[last_user:])
        if step == len(turns[turn]):
            return reply("Done.")
        calls = [call(n, a, id=f"c{turn}_{step}_{k}") for k, (n, a) in enumerate(turns[turn][step])]
        return reply(tool_calls=calls)

    config = ROOT / "configs" / "bfcl" / "multi_turn_base.yaml"
    line = _run(config, handler, tmp_path, sample_ids=["multi_turn_base_12"])
    records = [c for s in line["trajectory"]["steps"] for c in s["tool_calls"]]
    tab = next(r for r in records if r["id"] == "c0_1_0")
    assert (tab["status"], tab["args"]) == ("ok", {"file_name": "notes\t.txt"})
    assert tab["raw_args"] == '{"file_name": "notes\t.txt"}'
    verdict = line["scores"][MULTI_TURN_VERDICT]
    assert verdict["score"] == 1.0, verdict["reason"]
    assert verdict["details"]["steps_dropped"] == 1
    # the live environment did run it: the generic state reward sees the extra file
    assert line["scores"]["env_state_match"]["score"] == 0.0


def test_score_mode_reads_a_recorded_blank_or_tab_call_as_bfcl_does(tmp_path: Path) -> None:
    from agentloop.benchmarks.bfcl._data import bfcl_rows

    row = next(r for r in bfcl_rows("irrelevance") if r["id"] == "irrelevance_0")
    lines = []
    for k, arguments in enumerate(["", TAB_IN_STRING, '{"weight": 70.0, "height": 1.8}']):
        made = call("determine_body_mass_index", arguments, id="c1")
        reply_message = {"role": "assistant", "tool_calls": [made]}
        lines.append({**row, "id": f"made_{k}", "messages": [*row["messages"], reply_message]})
    data = tmp_path / "recorded.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    config = ROOT / "configs" / "bfcl" / "irrelevance.yaml"
    loaded = load_config(config, overrides={
        "mode": "score", "model": None, "dataset": str(data), "output_dir": str(tmp_path / "runs"),
    })  # fmt: skip
    outcome = run_eval_sync(loaded, config_path=str(config))
    results = read_results(outcome.run_dir)
    verdicts = {r["id"]: r["scores"]["bfcl_verdict"]["score"] for r in results}
    # blank and raw-TAB text do not decode in BFCL: no call, as an irrelevance entry wants
    assert verdicts == {"made_0": 1.0, "made_1": 1.0, "made_2": 0.0}

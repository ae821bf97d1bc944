"""τ²-bench's own results files, in and out: ``agentloop tau2 import`` re-scores the simulations
of a file τ²-bench wrote (its rewards beside agentloop's), ``agentloop tau2 export`` writes a run
as such a file and as a leaderboard submission, and the round trip keeps every reward.

The files under ``tests/data/tau2_results/`` were written by τ²-bench 1.0.1's own code
(``tau2 evaluate-trajs --fresh-tasks``: its evaluator's rewards, its ``Results.save``) on
scripted conversations (``bench/tau2_results_roundtrip.py --fixtures``), the policy text in
``info`` cut short; τ²-bench is MIT licensed (``agentloop/benchmarks/tau2/data/LICENSE``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentloop.benchmarks.tau2._results_in import load_tau2_results, rescore_tau2_results
from agentloop.benchmarks.tau2._results_out import export_tau2_run, write_submission
from agentloop.benchmarks.tau2._summary import summarize_tau2
from agentloop.cli import main
from agentloop.errors import AgentloopError, DatasetError
from tests.support.harness import ROOT, bench_module, read_results

FILES = ROOT / "tests" / "data" / "tau2_results"
VERDICT = "agentloop.benchmarks:tau2_verdict"


def test_tau2s_own_files_rescore_to_the_rewards_it_recorded() -> None:
    seen = {}
    for domain in ("mock", "airline", "retail", "telecom"):
        items = rescore_tau2_results(FILES / f"{domain}.json")
        assert items and all(i.agrees for i in items), [
            (i.task_id, i.recorded_reward, i.reward, i.reason) for i in items if not i.agrees
        ]
        assert {i.task_source for i in items} == {"1.0.1"}
        seen.update({(domain, i.task_id, i.trial): i for i in items})
    # airline 12: a whole number sent as a float; τ²-bench's DB hash and agentloop both fail it
    retyped = seen["airline", "12", 0]
    assert (retyped.recorded_reward, retyped.reward) == (0.0, 0.0)
    assert retyped.details["db_match"] is False
    # retail: the NL assertions graded by τ²-bench's recorded grades
    graded = [i for (d, _, _), i in seen.items() if d == "retail" and i.nl_source]
    assert graded and graded[0].reward == 1.0
    # telecom: the user's own calls on its phone replayed on its side
    [phone] = [i for (d, _, _), i in seen.items() if d == "telecom"]
    assert phone.reward == 1.0 and all(c["met"] for c in phone.details["env_assertions"])


def test_the_import_command_writes_each_simulation_with_both_rewards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tau2", "import", str(FILES / "mock.json"), str(tmp_path / "out")]) == 0
    lines = [json.loads(x) for x in (tmp_path / "out" / "rescored.jsonl").read_text().splitlines()]
    assert len(lines) == 6 and all(x["agrees"] for x in lines)
    assert {(x["task_id"], x["trial"]) for x in lines} == {
        (t, n)
        for t in ("create_task_1", "update_task_1", "create_task_1_with_env_assertions")
        for n in (0, 1)
    }
    # an env assertion that raised: recorded by τ²-bench as an infrastructure error, scored 0
    raised = [x for x in lines if x["termination_reason"] == "infrastructure_error"]
    assert len(raised) == 2 and {x["recorded_reward"] for x in raised} == {0.0}
    out = capsys.readouterr().out
    assert (
        "mock: 6 simulations, 3 tasks; agentloop's reward equals τ²-bench's recorded one on 6"
        in out
    )
    # τ²-bench's figures leave the two infrastructure errors out; agentloop's rule fails them
    assert (
        "agentloop (re-scored, agentloop's rule: every simulation, an infrastructure error "
        "failed): average reward 0.333 (6 simulations), pass^1 0.333, pass^2 0.333" in out
    )
    assert (
        "τ²-bench (recorded): average reward 0.500 (4 simulations), pass^1 0.500, pass^2 0.500"
        in out
    )


def test_current_task_definitions_by_default_the_files_own_on_request(tmp_path: Path) -> None:
    data = json.loads((FILES / "mock.json").read_text())
    task = next(t for t in data["tasks"] if t["id"] == "create_task_1")
    task["evaluation_criteria"]["communicate_info"] = ["a sentence nobody said"]
    task["evaluation_criteria"]["reward_basis"] = ["DB", "COMMUNICATE"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    current = {(i.task_id, i.trial): i for i in rescore_tau2_results(path)}
    embedded = {(i.task_id, i.trial): i for i in rescore_tau2_results(path, tasks="embedded")}
    assert current["create_task_1", 0].reward == 1.0  # 1.0.1's definition: as recorded
    changed = embedded["create_task_1", 0]
    assert (changed.task_source, changed.reward) == ("embedded", 0.0)
    assert changed.reason == "COMMUNICATE: not said: 'a sentence nobody said'"
    # a task the current set does not have keeps the file's own definition
    for sim in data["simulations"]:
        if sim["task_id"] == "update_task_1":
            sim["task_id"] = "update_task_1_renamed"
    next(t for t in data["tasks"] if t["id"] == "update_task_1")["id"] = "update_task_1_renamed"
    path.write_text(json.dumps(data))
    renamed = [i for i in rescore_tau2_results(path) if i.task_id == "update_task_1_renamed"]
    assert {i.task_source for i in renamed} == {"embedded"} and all(i.agrees for i in renamed)


def test_the_directory_format_reads_the_same(tmp_path: Path) -> None:
    data = json.loads((FILES / "mock.json").read_text())
    folder = tmp_path / "run"
    (folder / "simulations").mkdir(parents=True)
    for sim in data.pop("simulations"):
        (folder / "simulations" / f"{sim['id']}.json").write_text(json.dumps(sim))
    (folder / "results.json").write_text(json.dumps(data))
    assert len(load_tau2_results(folder)["simulations"]) == 6
    assert [i.reward for i in rescore_tau2_results(folder)] == [
        i.reward
        for i in sorted(rescore_tau2_results(FILES / "mock.json"), key=lambda i: i.simulation_id)
    ]


def test_what_is_not_a_tau2_results_file_is_said_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"simulations": []}')
    with pytest.raises(DatasetError, match=r"x\.json: not a τ²-bench results file \(no info"):
        rescore_tau2_results(path)
    data = json.loads((FILES / "mock.json").read_text())
    data["info"]["environment_info"]["domain_name"] = "shipping"
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError, match="unknown τ²-bench domain 'shipping'"):
        rescore_tau2_results(path)
    data = json.loads((FILES / "mock.json").read_text())
    data["simulations"][0]["task_id"] = "no_such_task"
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError, match="simulation 1 is of task 'no_such_task', which"):
        rescore_tau2_results(path)


@pytest.fixture(scope="module")
def roundtrip() -> Any:
    return bench_module("tau2_results_roundtrip")


def _verdicts(run: Path) -> dict[tuple[str, int], float]:
    return {(x["id"], x["epoch"] - 1): x["scores"][VERDICT]["score"] for x in read_results(run)}


def test_a_run_exported_and_read_back_keeps_every_reward(tmp_path: Path, roundtrip: Any) -> None:
    plan = {
        "create_task_1": "canonical",
        "update_task_1": "dropped",
        "create_task_1_with_env_assertions": "dropped",
        "update_task_with_message_history": "canonical",
    }
    run = roundtrip._run(tmp_path / "mock", "mock", plan, 2)
    out = tmp_path / "mock.json"
    # a submission of a domain the leaderboard lacks is refused before anything is written
    refused = main(["tau2", "export", str(run), str(out), "--submission", str(tmp_path / "s")])
    assert refused == 2 and not out.exists() and not (tmp_path / "s").exists()
    assert main(["tau2", "export", str(run), str(out)]) == 0
    results = json.loads(out.read_text())
    info = results["info"]
    assert (info["num_trials"], info["environment_info"]["domain_name"]) == (2, "mock")
    assert info["agent_info"]["implementation"] == "llm_agent"
    assert sorted(t["id"] for t in results["tasks"]) == sorted(plan)
    sims = {(s["task_id"], s["trial"]): s for s in results["simulations"]}
    assert len(sims) == 8
    raised = sims["create_task_1_with_env_assertions", 0]
    assert raised["termination_reason"] == "infrastructure_error"
    assert raised["info"]["agentloop_stop_reason"] == "user_stop"
    good = sims["create_task_1", 1]
    assert good["termination_reason"] == "user_stop" and good["reward_info"]["reward"] == 1.0
    assert good["reward_info"]["db_check"] == {"db_match": True, "db_reward": 1.0}
    roles = [(m["role"], bool(m.get("tool_calls"))) for m in good["messages"]]
    assert roles[0] == ("assistant", False) and roles[-1] == ("user", False)
    assert ("assistant", True) in roles and good["messages"][-1]["content"] == "###STOP###"
    # a task's message history opens its messages, as τ²-bench's orchestrator records it
    history = next(t for t in results["tasks"] if t["id"] == "update_task_with_message_history")
    opening = history["initial_state"]["message_history"]
    recorded = sims["update_task_with_message_history", 0]["messages"]
    assert [m.get("content") for m in recorded[: len(opening)]] == [
        m.get("content") for m in opening
    ]
    # read back: every simulation's reward is the run's verdict
    items = rescore_tau2_results(out)
    verdicts = _verdicts(run)
    assert {(i.task_id, i.trial): i.reward for i in items} == verdicts
    assert all(i.agrees for i in items)
    # and τ²-bench's figures of the file are `tau2 summary`'s
    [metrics] = summarize_tau2([run]).domains
    kept = [i.reward for i in items if i.termination_reason != "infrastructure_error"]
    assert metrics.tau2_average_reward == pytest.approx(sum(kept) / len(kept))


def test_the_users_calls_on_its_phone_are_the_users_in_the_file(
    tmp_path: Path, roundtrip: Any
) -> None:
    [(plan, _)] = [v for k, v in roundtrip._fixture_plans().items() if k == "telecom"]
    run = roundtrip._run(tmp_path / "telecom", "telecom", plan, 1)
    [sim] = export_tau2_run(run)["simulations"]
    calls = [
        (m["role"], c["requestor"]) for m in sim["messages"] for c in m.get("tool_calls") or []
    ]
    assert ("user", "user") in calls and all(
        role == side or (role, side) == ("assistant", "assistant") for role, side in calls
    )
    answers = {m["id"]: m["requestor"] for m in sim["messages"] if m["role"] == "tool"}
    for message in sim["messages"]:
        for call in message.get("tool_calls") or []:
            assert answers[call["id"]] == call["requestor"]
    # each user call comes before the user's text that follows it
    first_user_call = next(
        i for i, m in enumerate(sim["messages"]) if m["role"] == "user" and m.get("tool_calls")
    )
    assert sim["messages"][first_user_call + 1]["role"] == "tool"
    assert sim["reward_info"]["reward"] == _verdicts(run)[sim["task_id"], 0] == 1.0


def test_a_submission_gathers_domains_with_taus_figures(tmp_path: Path, roundtrip: Any) -> None:
    plans = roundtrip._fixture_plans()
    air = roundtrip._run(tmp_path / "airline", "airline", plans["airline"][0], 1)
    sub = tmp_path / "submission"
    assert (
        main(
            [
                "tau2",
                "export",
                str(air),
                str(tmp_path / "air.json"),
                "--submission",
                str(sub),
                "--model-name",
                "my-model",
                "--organization",
                "Me",
                "--email",
                "me@example.com",
            ]
        )
        == 0
    )
    submission = json.loads((sub / "submission.json").read_text())
    assert submission["model_name"] == "my-model"
    assert submission["contact_info"] == {"email": "me@example.com"}
    assert submission["submission_type"] == "custom"
    assert submission["trajectory_files"] == {"airline": "air.json"}
    # task 12 retyped fails, the other passes: pass^1 50%, nothing past one trial
    assert submission["results"]["airline"] == {
        "pass_1": 50.0,
        "pass_2": None,
        "pass_3": None,
        "pass_4": None,
        "cost": 0.0,
    }
    assert submission["methodology"]["verification"]["omitted_questions"] is True  # 2 of 50
    assert json.loads((sub / "trajectories" / "air.json").read_text()) == json.loads(
        (tmp_path / "air.json").read_text()
    )
    retail = roundtrip._run(tmp_path / "retail", "retail", plans["retail"][0], 1)
    write_submission(export_tau2_run(retail), "retail.json", sub)
    again = json.loads((sub / "submission.json").read_text())
    assert sorted(again["results"]) == ["airline", "retail"]
    assert (
        again["model_name"] == "my-model" and again["trajectory_files"]["retail"] == "retail.json"
    )
    mock = export_tau2_run(
        roundtrip._run(tmp_path / "mock", "mock", {"create_task_1": "canonical"}, 1)
    )
    with pytest.raises(AgentloopError, match="τ²-bench's leaderboard has no mock domain"):
        write_submission(mock, "mock.json", sub)


def test_a_run_of_two_domains_is_refused_in_one_line(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"config": {}}))
    lines = [
        {"id": d, "epoch": 1, "status": "ok", "metadata": {"domain": d, "task_set": "1.0.1"}}
        for d in ("mock", "airline")
    ]
    (run / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(AgentloopError, match=r"results of airline, mock .* one domain of one task"):
        export_tau2_run(run)
    shutil.rmtree(run)
    with pytest.raises(AgentloopError, match="no run header"):
        export_tau2_run(tmp_path)


def test_banking_knowledge_keeps_its_retrieval_config_both_ways(
    tmp_path: Path, roundtrip: Any
) -> None:
    from agentloop.benchmarks.tau2._data import domain_tasks

    first, second = (str(t["id"]) for t in domain_tasks("banking_knowledge")[:2])
    plan = {first: "canonical", second: "dropped"}
    run = roundtrip._run(tmp_path / "banking", "banking_knowledge", plan, 1)
    results = export_tau2_run(run)
    assert results["info"]["retrieval_config"] == "bm25"  # the shipped config's
    assert results["info"]["environment_info"]["policy"].startswith("# Rho-Bank Customer")
    path = tmp_path / "banking.json"
    path.write_text(json.dumps(results))
    items = rescore_tau2_results(path)
    assert {(i.task_id, i.trial): i.reward for i in items} == _verdicts(run)
    assert sorted(i.reward for i in items) == [0.0, 1.0]
    write_submission(results, "banking.json", tmp_path / "submission")
    written = json.loads((tmp_path / "submission" / "submission.json").read_text())
    assert written["results"]["banking_knowledge"]["retrieval_config"] == "bm25"
    assert written["results"]["banking_knowledge"]["pass_1"] == 50.0

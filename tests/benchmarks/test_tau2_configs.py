"""The shipped configs/tau2/*.yaml: valid, one per built domain; whole conversations (scripted
agent, scripted user) through ``agentloop run`` scored by tau2_verdict, with pass^k."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentloop.benchmarks.tau2._data import DOMAIN_NAMES, tau2_retrieval_config, tau2_rows
from agentloop.benchmarks.tau2._env import DOMAINS
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from agentloop.harness.run._sample import prepare
from tests.support.harness import ROOT, ask, call, only_run_dir, read_results, write_json

CONFIGS = sorted((ROOT / "configs" / "tau2").glob("*.yaml"))
VERDICT = "agentloop.benchmarks:tau2_verdict"


def test_one_config_per_built_domain() -> None:
    assert sorted(p.stem for p in CONFIGS) == sorted(DOMAINS) == sorted(DOMAIN_NAMES)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_the_config_validates(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # anywhere: the instructions are named from the config's folder
    config = load_config(path)
    # banking_knowledge names its retrieval config: tau2:banking_knowledge?retrieval_config=bm25
    assert config.dataset.partition("?")[0] == f"tau2:{path.stem}"
    assert config.user is not None and config.user.model.startswith("openai:")
    assert config.pass_threshold == {VERDICT: 1.0} and config.epochs == 4
    assert config.user.agent_stop_signals == []  # τ²-bench's LLMAgent has no stop signal
    prepared = prepare(config)
    config_name = tau2_retrieval_config(config.dataset)
    assert prepared.scan.valid == len(list(tau2_rows(path.stem, retrieval_config=config_name)))
    assert prepared.scan.problems == []


def _run(
    tmp_path: Path,
    domain: str,
    agent: dict[str, list[Any]],
    user: dict[str, list[Any]],
    epochs: int = 1,
) -> list[dict[str, Any]]:
    tmp_path.mkdir(exist_ok=True)
    shipped = ROOT / "configs" / "tau2" / f"{domain}.yaml"
    raw = yaml.safe_load(shipped.read_text())
    raw.update(
        model=f"scripted:{write_json(tmp_path / 'agent.json', agent)}",
        output_dir=str(tmp_path / "runs"),
        preflight=False,
        epochs=epochs,
        sample_ids=sorted(agent),
        concurrency=2,
    )
    raw["model_options"] = {}
    raw["user"].update(
        model=f"scripted:{write_json(tmp_path / 'user.json', user)}",
        model_options={},
        instructions=f"@{shipped.parent / raw['user']['instructions'].removeprefix('@')}",
    )
    path = tmp_path / f"{domain}.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True))
    outcome = run_eval_sync(load_config(path), config_path=str(path))
    assert outcome.summary.errored == 0
    return read_results(only_run_dir(tmp_path / "runs"))


def test_scripted_conversations_on_the_mock_domain_and_pass_hat_k(tmp_path: Path) -> None:
    agent = {
        "create_task_1": [
            ask(call("c1", "create_task", {"user_id": "user_1", "title": "Important Meeting"})),
            "Done: the task Important Meeting (task_2) is created.",
        ],
        "update_task_1": [  # marks the wrong task
            ask(call("c1", "update_task_status", {"task_id": "task_2", "status": "completed"})),
            "Task updated.",
        ],
    }
    user = {
        "create_task_1": [
            "Please create a task called 'Important Meeting' for user_1.",
            "Thanks! ###STOP###",
        ],
        "update_task_1": ["Please mark task_1 as completed.", "Great. ###STOP###"],
    }
    lines = _run(tmp_path, "mock", agent, user, epochs=2)
    verdicts = {(line["id"], line["epoch"]): line["scores"][VERDICT] for line in lines}
    for epoch in (1, 2):
        good, bad = verdicts["create_task_1", epoch], verdicts["update_task_1", epoch]
        assert good["score"] == 1.0, good["reason"]
        assert good["details"]["stop_reason"] == "user_stop"
        assert bad["score"] == 0.0
        assert bad["reason"].startswith("DB: the agent's databases differ from the ground truth's")
    line = next(line for line in lines if line["id"] == "create_task_1")
    system = line["trajectory"]["user_messages"][0]["content"]
    assert system.startswith("# User Simulation Guidelines")
    assert "<scenario>\nPersona:\n\tProfessional and direct" in system
    summary = json.loads((only_run_dir(tmp_path / "runs") / "summary.json").read_text())
    stats = summary["rewards"][VERDICT]
    assert stats["pass_hat_k"] == {"1": 0.5, "2": 0.5}


def test_the_mock_user_uses_its_inbox_and_the_agents_stop_text_goes_to_it(tmp_path: Path) -> None:
    task = "update_task_with_user_tools"  # τ²-bench 1.0: the user checks, then dismisses
    agent = {
        task: [
            ask(call("a1", "update_task_status", {"task_id": "task_1", "status": "completed"})),
            "task_1 is completed. ###STOP###",  # not a stop signal in τ²-bench's protocol
            "Glad to help.",
        ]
    }
    user = {
        task: [
            ask(call("u1", "check_notifications", {})),
            "I finished task_1 ('Test task'); please mark it completed.",
            ask(call("u2", "dismiss_notification", {"notification_id": "notif_1"})),
            "Dismissed it, thanks.",
            "###STOP###",
        ]
    }
    [line] = _run(tmp_path, "mock", agent, user)
    trajectory = line["trajectory"]
    assert trajectory["stop_reason"] == "user_stop"  # the user answered the agent's ###STOP###
    system = trajectory["user_messages"][0]["content"]
    assert "You have some tools to perform the actions on your end" in system
    verdict = line["scores"][VERDICT]
    assert [a["matched"] for a in verdict["details"]["actions"]] == [True]
    assert [c["met"] for c in verdict["details"]["env_assertions"]] == [True]
    # τ²-bench's own ground truth leaves the notification unread (its actions are the agent's
    # only), so a user who dismisses it as told fails the DB check there as here
    assert verdict["details"]["db_match"] is False
    reason = verdict["details"]["db_reason"]
    assert reason.startswith(
        "the agent's databases differ from the ground truth's: the agent changed "
        'user_db.notifications (to {"notif_1": {"notification_id": "notif_1", "message": '
    )
    assert reason.endswith('"status": "read",...), which the ground truth left unchanged')
    assert verdict["score"] == 0.0


def test_the_user_instructions_are_tau2s_system_prompt_around_its_1_0_guidelines() -> None:
    # τ²-bench's user system prompt: "{guidelines}\n\n<scenario>\n{scenario}\n</scenario>",
    # its 1.0 guidelines ending with a newline and "Remember: ..." right after the last rule
    for name in ("user_instructions.md", "user_instructions_tools.md"):
        text = (ROOT / "configs" / "tau2" / name).read_text(encoding="utf-8")
        assert text.endswith(
            "to end the conversation.\nRemember: The goal is to create realistic, natural "
            "conversations while strictly adhering to the provided instructions and "
            "maintaining character consistency.\n\n\n<scenario>\n{scenario}\n</scenario>"
        ), name


def test_a_scripted_airline_conversation_replaying_the_ground_truth_scores_1(
    tmp_path: Path,
) -> None:
    row = next(
        r
        for r in tau2_rows("airline")
        if any(
            a["name"].startswith(("book", "cancel", "update"))
            for a in r["ground_truth"]["evaluation_criteria"]["actions"] or []
        )
        and r["ground_truth"]["evaluation_criteria"].get("communicate_info") == []
    )
    actions = row["ground_truth"]["evaluation_criteria"]["actions"]
    replies: list[Any] = [
        ask(call(f"c{i}", a["name"], a["arguments"])) for i, a in enumerate(actions)
    ]
    agent = {row["id"]: [*replies, "All done."]}
    user = {row["id"]: ["Hello, I need help with my reservation.", "###STOP###"]}
    [line] = _run(tmp_path, "airline", agent, user)
    verdict = line["scores"][VERDICT]
    assert verdict["score"] == 1.0, verdict["reason"]
    assert verdict["details"]["db_match"] is True
    # a run without the last write fails the DB check
    last = max(
        i for i, a in enumerate(actions) if a["name"].startswith(("book", "cancel", "update"))
    )
    agent = {row["id"]: [*replies[:last], *replies[last + 1 :], "All done."]}
    [line] = _run(tmp_path / "again", "airline", agent, user)
    assert line["scores"][VERDICT]["details"]["db_match"] is False


TELECOM_TASK = "[mobile_data_issue]airplane_mode_on|user_abroad_roaming_enabled_off[PERSONA:None]"


def test_a_telecom_conversation_where_the_user_fixes_its_phone(tmp_path: Path) -> None:
    agent = {
        TELECOM_TASK: [
            ask(call("a1", "get_customer_by_phone", {"phone_number": "555-123-2002"})),
            "Thanks, John. What does your status bar show?",
            "Please turn airplane mode off.",
            "You are abroad: please turn data roaming on, then run a speed test.",
        ]
    }
    fixes = [
        "My mobile data does not work. I am John Smith, 555-123-2002.",
        ask(call("u1", "check_status_bar", {})),
        "It shows airplane mode.",
        ask(call("u2", "toggle_airplane_mode", {})),
        "Done.",
        ask(call("u3", "toggle_roaming", {})),
        ask(call("u4", "run_speed_test", {})),
        "Excellent speed now, thanks! ###STOP###",
    ]
    user = {TELECOM_TASK: fixes}
    lines = _run(tmp_path, "telecom", agent, user, epochs=2)
    for line in lines:  # a fresh phone per (sample, epoch): the second toggles from the start
        verdict = line["scores"][VERDICT]
        assert verdict["score"] == 1.0, verdict["reason"]
        assert [c["met"] for c in verdict["details"]["env_assertions"]] == [True, True]
        assert [a["matched"] for a in verdict["details"]["actions"]] == [True, True]
    trajectory = lines[0]["trajectory"]
    assert trajectory["stop_reason"] == "user_stop"
    user_view = trajectory["user_messages"]
    assert user_view[0]["content"].startswith(
        "# User Simulation Guidelines\n\nYou are playing the role of a customer contacting a "
        "customer service representative agent. "
    )
    assert "You have some tools to perform the actions on your end" in user_view[0]["content"]
    results = {m["tool_call_id"]: m["content"] for m in user_view if m["role"] == "tool"}
    assert results["u1"] == "Status Bar: ✈️ Airplane Mode | 🔋 80%"
    assert results["u4"] == "Speed Test Result: 275.00 Mbps (Excellent). Connection is very fast."
    # the agent saw the user's texts only, not its calls
    agent_view = [m for m in trajectory["messages"] if m["role"] == "user"]
    assert [m["content"] for m in agent_view] == [fixes[0], fixes[2], fixes[4], fixes[7]]
    # without the roaming switch the user's phone stays offline abroad: 0, and why
    user = {TELECOM_TASK: [*fixes[:5], ask(call("u4", "run_speed_test", {})), fixes[7]]}
    [line] = _run(tmp_path / "again", "telecom", agent, user)
    verdict = line["scores"][VERDICT]
    assert verdict["score"] == 0.0
    assert verdict["reason"].startswith(
        "ENV_ASSERTION: assert_mobile_data_status returned False, not as asserted (True)"
    )

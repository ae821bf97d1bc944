"""τ²-bench domains as dataset rows (``dataset: tau2:<domain>``): τ²-bench 1.0.1's official
files shipped with agentloop by default, the ones from before 1.0 (the inspect-evals wheel's) by
name (``tau2:<domain>@0.2``)."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from agentloop.benchmarks import tau2_domain, tau2_task_set
from agentloop.benchmarks.tau2 import _data as tau2_data
from agentloop.benchmarks.tau2._data import (
    AGENT_GREETING,
    SHIPPED_DATA,
    TAU2_DATA_ENV,
    domain_tasks,
    scenario_text,
    tau2_data_dir,
    tau2_rows,
)
from agentloop.errors import DatasetError
from agentloop.harness.data._dataset import iter_samples, scan_dataset

COUNTS = {"mock": 10, "airline": 50, "retail": 114, "telecom": 114}  # telecom: its base split


@pytest.mark.parametrize("domain", sorted(COUNTS))
def test_every_task_of_a_domain_is_a_row(domain: str) -> None:
    rows = list(tau2_rows(domain))
    tasks = domain_tasks(domain)
    assert len(rows) == len(tasks) == COUNTS[domain]
    for row, task in zip(rows, tasks, strict=True):
        assert row["id"] == str(task["id"])
        system = row["messages"][0]
        assert system["role"] == "system"
        assert system["content"].startswith("<instructions>\nYou are a customer service agent")
        assert system["content"].endswith("\n</policy>")
        assert row["ground_truth"] == {"evaluation_criteria": task["evaluation_criteria"]}
        assert row["environment"]["domain"] == domain
        assert row["metadata"]["task_id"] == str(task["id"])
        basis = (task["evaluation_criteria"] or {}).get("reward_basis") or ["DB", "COMMUNICATE"]
        assert row["metadata"]["reward_basis"] == basis
        assert row["metadata"]["task_set"] == row["environment"]["task_set"] == "1.0.1"


def test_the_policy_is_in_the_system_prompt_and_tau2_greets_first() -> None:
    row = next(tau2_rows("airline"))
    assert "# Airline Agent Policy" in row["messages"][0]["content"]
    assert row["messages"][1:] == [{"role": "assistant", "content": AGENT_GREETING}]


def test_a_message_history_is_the_opening_as_the_agent_saw_it() -> None:
    row = next(r for r in tau2_rows("mock") if r["id"] == "update_task_with_message_history")
    opening = row["messages"][1:]
    assert [m["role"] for m in opening] == ["user", "assistant", "tool", "assistant"]
    call = opening[1]["tool_calls"][0]
    assert call["id"] == "call_1" and call["function"]["name"] == "create_task"
    assert json.loads(call["function"]["arguments"])["title"] == "Project Review"
    assert opening[2]["tool_call_id"] == "call_1"
    assert row["environment"]["initial_state"]["message_history"][1]["tool_calls"]


def test_the_user_scenario_is_rendered_as_tau2_renders_it() -> None:
    row = next(tau2_rows("airline"))
    text = row["user_scenario"]
    assert text.startswith("Instructions:\n\tDomain: airline\n\tReason for call:\n\t\tYou want to")
    assert "\tKnown info:\n\t\tYou are Emma Kim.\n\t\tYour user id is emma_kim_9957." in text
    assert "Unknown info" not in text  # null in the task
    plain = scenario_text({"persona": "Direct", "instructions": "Mark task_1 done."})
    assert plain == "Persona:\n\tDirect\nInstructions:\n\tMark task_1 done."


def test_the_harness_reads_a_domain_by_name() -> None:
    scan = scan_dataset("tau2:mock")
    assert scan.valid == 10 and not scan.problems
    samples = list(iter_samples("tau2:mock"))
    assert samples[0].id == "create_task_1"
    assert samples[0].environment["domain"] == "mock"
    assert tau2_domain("tau2:retail") == "retail" and tau2_domain("data/x.jsonl") is None


def test_an_unknown_domain_is_a_one_line_error_listing_the_known_ones() -> None:
    with pytest.raises(DatasetError, match=r"unknown τ²-bench domain 'shop'; known: mock, "):
        scan_dataset("tau2:shop")


def test_a_missing_data_directory_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv(TAU2_DATA_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(DatasetError, match=r"τ²-bench data directory not found: .*nowhere"):
        scan_dataset("tau2:mock")
    monkeypatch.setenv(TAU2_DATA_ENV, str(tmp_path))
    with pytest.raises(DatasetError, match="no folder for the mock domain"):
        list(tau2_rows("mock"))


def test_another_directory_of_the_same_layout_is_read(monkeypatch, tmp_path) -> None:
    folder = tmp_path / "mock"
    folder.mkdir()
    (folder / "policy.md").write_text("Be kind.")
    (folder / "db.json").write_text(json.dumps({"tasks": {}, "users": {}}))
    task = {
        "id": "t1",
        "user_scenario": {"instructions": "Say hi."},
        "evaluation_criteria": {"actions": []},
    }
    (folder / "tasks.json").write_text(json.dumps([task]))
    monkeypatch.setenv(TAU2_DATA_ENV, str(tmp_path))
    [row] = list(tau2_rows("mock"))
    assert row["messages"][0]["content"].endswith("<policy>\nBe kind.\n</policy>")
    assert row["metadata"]["task_set"] == "custom"
    assert row["user_scenario"] == "Instructions:\n\tSay hi."


def test_telecom_rows_are_its_base_split_with_the_composed_policy() -> None:
    data = tau2_data_dir() / "telecom"
    base = json.loads(gzip.decompress((data / "split_tasks.json.gz").read_bytes()))["base"]
    rows = list(tau2_rows("telecom"))
    assert [r["id"] for r in rows] == [t["id"] for t in domain_tasks("telecom")]
    assert {r["id"] for r in rows} == set(base) and len(base) == 114
    system = rows[0]["messages"][0]["content"]
    main = (data / "main_policy.md").read_text(encoding="utf-8")
    manual = (data / "tech_support_manual.md").read_text(encoding="utf-8")
    assert system.endswith(
        f"<policy>\n<main_policy>\n{main}\n</main_policy>\n<tech_support_policy>\n{manual}\n"
        "</tech_support_policy>\n</policy>"
    )
    # the scenario is the user's, its initialization actions break the phone before the talk
    assert "known_info" not in rows[0]["user_scenario"]
    assert (
        "Known info:\n\t\tYou are John Smith with phone number 555-123-2002."
        in (rows[0]["user_scenario"])
    )
    assert rows[0]["environment"]["initial_state"]["initialization_actions"][0] == {
        "env_type": "user",
        "func_name": "set_user_info",
        "arguments": {"name": "John Smith", "phone_number": "555-123-2002"},
    }


def _blob_id(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def test_the_shipped_files_are_tau2s_own_at_the_commit_named_beside_them() -> None:
    source = (SHIPPED_DATA / "SOURCE").read_text(encoding="utf-8")
    assert "commit: a2c024725189473d2d7cea3a5cfdbcc67478e41f" in source
    assert (SHIPPED_DATA / "LICENSE").read_text().startswith("MIT License")
    listed = {}
    for line in source.split("\nfile blob bytes\n", 1)[1].splitlines():
        name, blob, size = line.split()
        listed[name] = (blob, int(size))
    shipped = {str(p.relative_to(SHIPPED_DATA)) for p in SHIPPED_DATA.rglob("*") if p.is_file()} - {
        "SOURCE",
        "LICENSE",
    }
    assert shipped == set(listed) and len(listed) == 21
    for name, (blob, size) in listed.items():
        raw = (SHIPPED_DATA / name).read_bytes()
        content = gzip.decompress(raw) if name.endswith(".gz") else raw
        if blob == "bundle":  # banking_knowledge's small files, one JSON line each
            entries = [json.loads(line) for line in content.decode("utf-8").splitlines()]
            assert len(entries) == size, name
            for entry in entries:
                assert _blob_id(entry["text"].encode("utf-8")) == entry["blob"], entry["path"]
            continue
        assert (_blob_id(content), len(content)) == (blob, size), name
    # what a wheel carries: 1.41 MB (27.1 MB before compression)
    assert sum((SHIPPED_DATA / n).stat().st_size for n in listed) < 1_500_000


def test_the_default_task_set_needs_no_other_package(monkeypatch: pytest.MonkeyPatch) -> None:
    def nowhere(*args: object) -> None:
        return None

    monkeypatch.setattr(tau2_data, "data_package", nowhere)  # inspect-evals not installed
    assert tau2_data_dir() == SHIPPED_DATA
    assert len(list(tau2_rows("airline"))) == 50
    with pytest.raises(DatasetError, match=r"task set 0.2 \(before 1.0\): the inspect-evals pack"):
        scan_dataset("tau2:airline@0.2")


def test_a_task_changed_in_1_0_is_read_with_its_new_criteria() -> None:
    def actions(task_set: str | None) -> list[str]:
        row = next(r for r in tau2_rows("airline", task_set=task_set) if r["id"] == "2")
        return [a["name"] for a in row["ground_truth"]["evaluation_criteria"]["actions"]]

    # τ²-bench 1.0 no longer expects the delayed-flight compensation in airline task 2
    assert actions(None) == [
        "get_user_details",
        "get_reservation_details",
        "get_reservation_details",
    ]
    assert actions("0.2")[-1] == "send_certificate"
    retail = next(r for r in tau2_rows("retail") if r["id"] == "0")
    assert retail["metadata"]["reward_basis"] == ["DB", "NL_ASSERTION"]  # COMMUNICATE before


def test_the_task_set_before_1_0_is_selected_by_name() -> None:
    samples = list(iter_samples("tau2:mock@0.2"))
    assert len(samples) == 9  # update_task_with_user_tools came with 1.0
    assert {s.metadata["task_set"] for s in samples} == {"0.2"}
    assert samples[0].environment["task_set"] == "0.2"
    assert scan_dataset("tau2:mock@0.2").sha256 != scan_dataset("tau2:mock").sha256
    assert scan_dataset("tau2:mock@1.0.1").sha256 == scan_dataset("tau2:mock").sha256
    assert tau2_domain("tau2:mock@0.2") == "mock"
    assert (tau2_task_set("tau2:mock@0.2"), tau2_task_set("tau2:mock")) == ("0.2", "1.0.1")
    assert tau2_task_set("data/x.jsonl") is None


def test_an_unknown_task_set_is_a_one_line_error_listing_the_known_ones() -> None:
    with pytest.raises(DatasetError) as caught:
        scan_dataset("tau2:airline@0.3")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("unknown τ²-bench task set '0.3'; known: 1.0.1 (τ²-bench 1.0.1")
    assert "0.2 (before τ²-bench 1.0" in message


def test_another_directory_is_the_custom_task_set(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv(TAU2_DATA_ENV, str(tmp_path))
    assert tau2_task_set("tau2:mock") == "custom"
    assert tau2_task_set("tau2:mock@1.0.1") == "1.0.1"  # named: the shipped files
    assert tau2_data_dir(task_set="1.0.1") == SHIPPED_DATA
    monkeypatch.delenv(TAU2_DATA_ENV)
    with pytest.raises(DatasetError, match=r"task set custom: \$AGENTLOOP_TAU2_DATA is not set"):
        tau2_data_dir(task_set="custom")

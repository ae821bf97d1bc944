"""BFCL's memory categories: entries and state carried as bfcl-eval carries them, through
its own classes, and its agentic checker's verdict. These tests read the installed
bfcl-eval package (its memory data is not in the fixture)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agentloop.benchmarks.bfcl._agentic_verdict import bfcl_agentic_verdict
from agentloop.benchmarks.bfcl._memory import (
    MemoryChain,
    answer_format_prompt,
    check_memory_category,
    memory_entries,
    memory_system_prompt,
)
from agentloop.errors import DatasetError
from tests.support.harness import ROOT

SCRIPT = ROOT / "configs" / "scripts" / "bfcl_memory_kv.json"
VERDICT = "agentloop.benchmarks:bfcl_agentic_verdict"


pytestmark = pytest.mark.usefixtures("installed_bfcl_data")


@pytest.mark.parametrize("category", ["memory_kv", "memory_vector", "memory_rec_sum"])
def test_entries_are_bfcls_own(category: str) -> None:
    from bfcl_eval.utils import load_dataset_entry

    theirs = {e["id"]: e for e in load_dataset_entry(category, include_prereq=True)}
    ours = list(memory_entries(category))
    assert {e["id"] for e in ours} == set(theirs)
    for entry in ours:
        bfcl = theirs[entry["id"]]
        assert entry["depends_on"] == bfcl["depends_on"]
        assert entry["involved_classes"] == bfcl["involved_classes"]
        # BFCL puts its answer-format system message first in a question; the rest is equal
        question = bfcl["question"]
        if "_prereq_" not in entry["id"]:
            assert question[0][0]["role"] == "system"
            question = [question[0][1:], *question[1:]]
        assert entry["question"] == question
    # a question comes after every prerequisite of its scenario
    position = {e["id"]: i for i, e in enumerate(ours)}
    assert all(position[d] < position[e["id"]] for e in ours for d in e["depends_on"])


def test_an_unknown_memory_backend_is_refused_in_one_line() -> None:
    with pytest.raises(DatasetError, match="unknown BFCL memory category 'memory_x'; known: "):
        check_memory_category("memory_x")


def _scenario(category: str, scenario: str) -> list[dict]:
    return [e for e in memory_entries(category) if e["scenario"] == scenario]


def test_kv_memory_carries_from_prerequisites_to_questions(tmp_path) -> None:
    entries = _scenario("memory_kv", "customer")
    prereqs = [e for e in entries if "_prereq_" in e["id"]]
    question = next(e for e in entries if "_prereq_" not in e["id"])
    chain = MemoryChain(tmp_path, "memory_kv")

    first = chain.open(prereqs[0])
    assert "There is no content in the core memory" in memory_system_prompt(
        "memory_kv", "customer", first
    )
    assert first.core_memory_add("first_name", "Michael") == {"status": "Key-value pair added."}
    chain.write_back(prereqs[0], first)

    second = chain.open(prereqs[1])  # loads what the first wrote
    assert '"first_name": "Michael"' in memory_system_prompt("memory_kv", "customer", second)
    second.archival_memory_add("city", "Seattle")
    chain.write_back(prereqs[1], second)
    with pytest.raises(DatasetError, match=r"needs .* written first, in order"):
        chain.open(question)  # prerequisites 2.. not written: refused, not run on less
    for entry in prereqs[2:]:
        chain.write_back(entry, chain.open(entry))

    asked = chain.open(question)
    assert asked.core_memory == {"first_name": "Michael"}
    assert asked.archival_memory == {"city": "Seattle"}
    asked.core_memory_clear()
    chain.write_back(question, asked)  # a question's changes are never saved
    assert chain.open(question).core_memory == {"first_name": "Michael"}
    with pytest.raises(DatasetError, match="needs"):
        chain.open(prereqs[0])  # a prerequisite is not rerun over later ones


def test_rec_sum_memory_through_bfcls_class(tmp_path) -> None:
    prereqs = [e for e in _scenario("memory_rec_sum", "student") if "_prereq_" in e["id"]]
    chain = MemoryChain(tmp_path, "memory_rec_sum")
    memory = chain.open(prereqs[0])
    assert type(memory).__name__ == "MemoryAPI_rec_sum"
    memory.memory_append("Name: Ana.")
    chain.write_back(prereqs[0], memory)
    after = chain.open(prereqs[1])
    assert after.memory == "Name: Ana."
    assert memory_system_prompt("memory_rec_sum", "student", after).endswith("Name: Ana.\n")


@pytest.mark.parametrize(
    ("answer", "valid"),
    [
        ("{'answer': 'Michael', 'context': 'you said so'}", True),
        ("Your first name is MICHAEL.", True),
        ("Michaela", False),  # a whole word only
        ("I do not know", False),
    ],
)
def test_a_question_is_judged_by_the_agentic_verdict(answer: str, valid: bool) -> None:
    messages = [
        {"role": "user", "content": "What is my first name?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "name": "x", "args": {}}]},
        {"role": "tool", "tool_call_id": "1", "content": "Michael"},
        {"role": "assistant", "content": answer},
    ]
    verdict = bfcl_agentic_verdict(messages, {"answer": ["Michael"]})
    assert verdict.score == (1.0 if valid else 0.0)
    assert verdict.details.error_type == (None if valid else "agentic:answer_not_found")


def _memory_keeper(messages, tools):
    """Appends each user message to the memory; answers a question with the memory."""
    from langchain_core.messages import AIMessage

    last = messages[-1]
    if last.type == "human":
        name = "memory_retrieve" if "?" in last.content else "memory_append"
        args = {} if name == "memory_retrieve" else {"text": last.content + "\n"}
        return AIMessage("", tool_calls=[{"id": f"c{len(messages)}", "name": name, "args": args}])
    return AIMessage(f"{{'answer': {last.content!r}, 'context': 'memory'}}")


def test_a_scenario_played_through_the_loop(tmp_path) -> None:
    from agentloop import run_agent_sync
    from agentloop.benchmarks.bfcl._memory_env import MemoryEnvironment
    from agentloop.testing import FunctionChatModel

    entries = _scenario("memory_rec_sum", "customer")
    chain = MemoryChain(tmp_path, "memory_rec_sum")
    model = FunctionChatModel(_memory_keeper)
    prompts = []
    for entry in [e for e in entries if "_prereq_" in e["id"]]:
        env = MemoryEnvironment(chain, entry)
        assert [t.name for t in env.tools()][:2] == ["memory_append", "memory_clear"]
        messages = env.first_messages()
        prompts.append(messages[0]["content"])
        for turn in [None, *env.later_turns()]:
            trajectory = run_agent_sync(model, env.tools(), messages + (turn or []))
            messages = list(trajectory.messages)
        env.finish()
    # each conversation sees the memory the ones before it left, in its system prompt
    assert "There is no content in the memory" in prompts[0]
    assert all("My name is Michael" in prompt for prompt in prompts[1:])
    question = next(e for e in entries if e["id"] == "memory_rec_sum_0-customer-0")
    env = MemoryEnvironment(chain, question)
    first = env.first_messages()
    assert first[0]["content"].endswith(answer_format_prompt())
    assert "My name is Michael" in first[0]["content"]
    assert first[1:] == [{"role": "user", "content": "What is my first name?"}]
    trajectory = run_agent_sync(model, env.tools(), first)
    verdict = bfcl_agentic_verdict(trajectory, {"answer": question["ground_truth"]})
    assert verdict.score == 1.0, verdict.reason
    env.finish()  # a question leaves the memory as it found it
    assert chain.written("customer") == question["depends_on"]


def test_arguments_reach_the_memory_as_bfcls_executor_passes_them(tmp_path) -> None:
    from agentloop.benchmarks.bfcl._memory_env import MemoryEnvironment

    prereq = _scenario("memory_rec_sum", "healthcare")[0]
    env = MemoryEnvironment(MemoryChain(tmp_path, "memory_rec_sum"), prereq)
    append = next(t for t in env.tools() if t.name == "memory_append")
    append.invoke({"text": "TSH in range (0.5-4.5); call memory_clear (later)\n"})
    # BFCL's call-name regex runs over the whole call text, string arguments included
    assert env.snapshot()["memory"] == "TSH in range(0.5-4.5); call memory.memory_clear(later)\n"


def test_rows_are_the_entries_in_order_with_their_dependencies() -> None:
    from agentloop.benchmarks.bfcl._data import bfcl_rows

    rows = list(bfcl_rows("memory_rec_sum"))
    entries = list(memory_entries("memory_rec_sum"))
    assert [r["id"] for r in rows] == [e["id"] for e in entries]
    for row, entry in zip(rows, entries, strict=True):
        assert row["depends_on"] == entry["depends_on"]
        assert [row["messages"], *(t["messages"] for t in row["turns"])] == entry["question"]
        assert row.get("answer") == entry.get("ground_truth")


def _run(*extra: str, code: int = 0) -> None:
    from agentloop.cli._commands import main

    args = ["run", str(ROOT / "configs" / "bfcl" / "memory_kv.yaml"), "--limit", "12"]
    assert main([*args, "--model", f"scripted:{SCRIPT}", *extra]) == code


def _lines(run_dir: Path) -> dict[str, dict]:
    lines = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return {line["id"]: line for line in lines}  # the latest of each


@pytest.mark.parametrize("category", ["memory_kv", "memory_vector", "memory_rec_sum"])
def test_the_configs_run_their_category_as_bfcl_does(category: str) -> None:
    from agentloop.harness import load_config

    config = load_config(ROOT / "configs" / "bfcl" / f"{category}.yaml")
    assert config.dataset == f"bfcl:{category}"
    assert config.environment == "agentloop.benchmarks:bfcl_memory_environment"
    assert config.rewards == [VERDICT]
    assert config.max_tool_output_chars is None  # BFCL truncates nothing
    assert config.max_rounds == 21 and config.tool_execution == "sequential"


def test_the_offline_recipe_runs_and_summarises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentloop.cli._commands import main

    _run("--set", f"output_dir={tmp_path}")
    (run_dir,) = tmp_path.iterdir()
    lines = _lines(run_dir)
    question = lines["memory_kv_80-student-0"]
    # the question opens with the memory the first prerequisite left, and finds it there
    assert (
        '"favorite_course": "Advanced Algorithms"'
        in question["trajectory"]["messages"][0]["content"]
    )
    assert question["scores"][VERDICT]["score"] == 1.0
    assert lines["memory_kv_81-student-1"]["scores"][VERDICT]["score"] == 0.0
    prereq = lines["memory_kv_prereq_22-student-0"]
    assert prereq["scores"] == {} and VERDICT in prereq["not_applicable"]
    capsys.readouterr()
    assert main(["bfcl", "summary", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "memory_kv                     2        1        0    50.00%  (partial: 2 of 155" in out


def test_a_failed_prerequisite_stops_the_rest_and_a_retry_builds_the_memory_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = json.loads(SCRIPT.read_text())
    broken = dict(script)
    broken["memory_kv_prereq_24-student-2"] = script["memory_kv_prereq_24-student-2"][:3]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(broken))
    monkeypatch.setattr(sys.modules[__name__], "SCRIPT", path)
    _run("--set", f"output_dir={tmp_path / 'runs'}", code=1)
    (run_dir,) = (tmp_path / "runs").iterdir()
    lines = _lines(run_dir)
    assert lines["memory_kv_prereq_24-student-2"]["error_kind"] == "model"
    later = [i for i in lines if i.endswith(tuple(f"student-{k}" for k in range(3, 10)))]
    later += ["memory_kv_80-student-0", "memory_kv_81-student-1"]
    assert {lines[i]["error_kind"] for i in later} == {"dependency"}
    path.write_text(json.dumps(script))
    _run("--resume", str(run_dir), "--retry-errors", "--allow-changed")
    lines = _lines(run_dir)
    assert all(line["status"] == "ok" for line in lines.values())
    assert lines["memory_kv_80-student-0"]["scores"][VERDICT]["score"] == 1.0
    chain = MemoryChain(run_dir / "environment" / "bfcl_memory_kv_epoch1", "memory_kv")
    assert chain.written("student") == [f"memory_kv_prereq_{22 + k}-student-{k}" for k in range(10)]


def test_a_question_without_its_prerequisites_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run("--set", f"output_dir={tmp_path}", "--sample-id", "memory_kv_80-student-0", code=2)
    assert capsys.readouterr().err.startswith(
        "agentloop: error: row 'memory_kv_80-student-0' depends on "
        "'memory_kv_prereq_22-student-0', which this run does not select"
    )


def test_a_non_finite_number_fails_as_bfcls_eval_fails(tmp_path) -> None:
    from agentloop.benchmarks.bfcl._memory_env import MemoryEnvironment

    prereq = _scenario("memory_kv", "healthcare")[0]
    env = MemoryEnvironment(MemoryChain(tmp_path, "memory_kv"), prereq)
    search = next(t for t in env.tools() if t.name == "core_memory_key_search")
    assert search.func(query=["a", float("nan")], k=float("inf")) == (
        "Error during execution: name 'nan' is not defined"
    )


def test_a_rerun_prerequisite_starts_from_the_last_recorded_memory(tmp_path) -> None:
    prereqs = [e for e in _scenario("memory_rec_sum", "finance") if "_prereq_" in e["id"]]
    chain = MemoryChain(tmp_path, "memory_rec_sum")
    first = chain.open(prereqs[0])
    first.memory_append("a;")
    chain.write_back(prereqs[0], first)
    second = chain.open(prereqs[1])
    second.memory_append("b;")
    second._flush_memory_to_local_file()  # stopped here: flushed, not recorded
    assert chain.written("finance") == [prereqs[0]["id"]]
    assert chain.open(prereqs[1]).memory == "a;"  # not "a;b;": its work is not applied twice


def test_a_prerequisite_whose_result_was_not_recorded_runs_again_from_before_it(
    tmp_path,
) -> None:
    prereqs = [e for e in _scenario("memory_kv", "student") if "_prereq_" in e["id"]]
    chain = MemoryChain(tmp_path, "memory_kv")
    first = chain.open(prereqs[0])
    first.core_memory_add("course", "Algorithms")
    chain.write_back(prereqs[0], first)
    second = chain.open(prereqs[1])
    second.core_memory_add("club", "VR")
    chain.write_back(prereqs[1], second)  # saved; then stopped before its result line
    again = chain.open(prereqs[1])  # the resume runs it again
    assert again.core_memory == {"course": "Algorithms"}  # its prerequisites' memory only
    assert chain.written("student") == [prereqs[0]["id"]]
    assert chain.open(prereqs[0]).core_memory == {}  # the first starts empty, as in BFCL

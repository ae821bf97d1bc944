"""The runner: end-to-end runs, tool binding, errors contained, modes, concurrency."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import agentloop.evals._registry
import anyio
import pytest
from agentloop.evals import register_reward
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool

import agentloop.models._base as models_base
from agentloop.engine._dispatch import ToolDispatcher
from agentloop.errors import DatasetError
from agentloop.harness import load_config
from agentloop.harness.run._runner import RunOutcome, run_eval_sync
from agentloop.models import ModelSource
from agentloop.testing import FunctionChatModel, ScriptedChatModel
from tests.support.harness import (
    add_row,
    add_setup,
    ask,
    call,
    only_run_dir,
    read_results,
    tools_file,
    write_config,
    write_json,
    write_jsonl,
)

# Sources for the test providers, by the value after the prefix.
SOURCES: dict[str, Any] = {}


class _Source(ModelSource):
    def __init__(self, make: Any, executor: Any = None) -> None:
        self.make = make
        self.executor = executor

    def for_sample(self, sample_id: str, epoch: int) -> Any:
        return self.make(sample_id, epoch)

    def tool_executor(self, sample_id: str, epoch: int) -> Any:
        return None if self.executor is None else self.executor(sample_id, epoch)


@pytest.fixture(autouse=True)
def _provider(monkeypatch: pytest.MonkeyPatch) -> None:
    # Registered for this module's tests only: other tests list the known prefixes.
    monkeypatch.setitem(
        models_base._PROVIDERS, "harness-test", lambda value, params, options: SOURCES[value]
    )


def run(config_path: Path, *sets: str, **options: Any) -> RunOutcome:
    config = load_config(config_path, sets)
    return run_eval_sync(config, config_path=str(config_path), **options)


def by_id(outcome: RunOutcome) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in read_results(outcome.run_dir)}


def test_results_line_has_the_documented_fields(tmp_path: Path) -> None:
    outcome = run(add_setup(tmp_path, n=3))
    lines = read_results(outcome.run_dir)
    assert sorted(r["id"] for r in lines) == ["s0000", "s0001", "s0002"]
    line = lines[0]
    for key in (
        "id",
        "epoch",
        "status",
        "error",
        "error_kind",
        "mode",
        "single_turn",
        "scores",
        "passed",
        "stop_reason",
        "rounds",
        "tool_calls_by_status",
        "usage",
        "wall_time_s",
        "started_at",
        "answer",
        "ground_truth",
        "metadata",
        "request",
        "trajectory",
    ):
        assert key in line
    assert list(line)[-1] == "trajectory"
    assert (line["status"], line["epoch"], line["rounds"], line["stop_reason"]) == (
        "ok",
        1,
        1,
        "final",
    )
    assert line["scores"]["qa_f1_reward"]["score"] == 1.0 and line["passed"] == {
        "qa_f1_reward": True
    }
    assert line["request"]["tools"] == ["add"]
    assert outcome.summary.rewards["qa_f1_reward"].mean == 1.0
    assert outcome.exit_code == 0 and outcome.new_results == 3
    summary = json.loads((outcome.run_dir / "summary.json").read_text())
    assert summary["results"] == 3 and summary["run"]["results_file"] == "results.jsonl"


def test_run_header(tmp_path: Path) -> None:
    outcome = run(add_setup(tmp_path, n=2))
    header = json.loads((outcome.run_dir / "run.json").read_text())
    assert header["format"] == "agentloop-run/2" and header["name"] == "eval"
    assert set(header["versions"]) >= {
        "agentloop",
        "langchain-core",
        "langchain-openai",
        "pydantic",
        "anyio",
        "python",
    }
    import hashlib

    data = Path(header["dataset"]["path"]).read_bytes()
    assert header["dataset"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert header["planned"] == {"samples": 2, "epochs": 1, "results": 2}
    assert header["config"]["max_rounds"] == 5 and header["model"].startswith("scripted:")


def test_epochs_and_limit(tmp_path: Path) -> None:
    outcome = run(add_setup(tmp_path, n=6), "epochs=3", "limit=4")
    pairs = sorted((r["id"], r["epoch"]) for r in read_results(outcome.run_dir))
    assert pairs == [(f"s{i:04d}", e) for i in range(4) for e in (1, 2, 3)]
    assert outcome.summary.rewards["qa_f1_reward"].pass_at_k == {1: 1.0, 2: 1.0, 3: 1.0}


def test_schema_only_tools_make_a_single_turn_sample(tmp_path: Path) -> None:
    schema = {
        "type": "function",
        "function": {
            "name": "lookup",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        },
    }
    add_schema = {"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}
    truth = {
        "tool_calls": [
            {"type": "function", "function": {"name": "lookup", "arguments": '{"q": "x"}'}}
        ]
    }
    data = write_jsonl(
        tmp_path / "d.jsonl",
        [
            {
                "id": "schema-only",
                "messages": [{"role": "user", "content": "q"}],
                "tools": [schema],
                "ground_truth": truth,
            },
            {
                "id": "implemented",
                "messages": [{"role": "user", "content": "q"}],
                "tools": [add_schema],
                "answer": "3",
            },
        ],
    )
    script = write_json(
        tmp_path / "s.json",
        {
            "schema-only": [ask(call("c1", "lookup", {"q": "x"}))],
            "implemented": [ask(call("c1", "add", {"a": 1, "b": 2})), "3"],
        },
    )
    config = write_config(
        tmp_path / "c.yaml",
        model=f"scripted:{script}",
        dataset=str(data),
        tools=[f"{tools_file(tmp_path)}:add"],
        output_dir=str(tmp_path / "runs"),
        rewards=["exact_tool_match_reward", "qa_f1_reward"],
    )
    lines = by_id(run(config))
    single = lines["schema-only"]
    assert single["single_turn"] is True and single["stop_reason"] == "tool_calls"
    assert single["tool_calls_by_status"] == {"not_run": 1} and single["rounds"] == 0
    assert [m["role"] for m in single["trajectory"]["messages"]] == ["user", "assistant"]
    assert single["scores"]["exact_tool_match_reward"]["score"] == 1.0
    multi = lines["implemented"]
    assert multi["single_turn"] is False and multi["tool_calls_by_status"] == {"ok": 1}
    tool_message = multi["trajectory"]["messages"][2]
    assert tool_message["role"] == "tool" and tool_message["content"] == "3"


def test_stateful_tool_classes_are_fresh_per_sample(tmp_path: Path) -> None:
    rows = [{"id": f"r{i}", "messages": [{"role": "user", "content": "count"}]} for i in range(6)]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    script = write_json(
        tmp_path / "s.json",
        {"*": [ask(call("c1", "counter", {})), ask(call("c2", "counter", {})), "done"]},
    )
    config = write_config(
        tmp_path / "c.yaml",
        model=f"scripted:{script}",
        dataset=str(data),
        tools=[f"{tools_file(tmp_path)}:Counter"],
        output_dir=str(tmp_path / "runs"),
        concurrency=3,
    )
    for line in read_results(run(config).run_dir):
        contents = [m["content"] for m in line["trajectory"]["messages"] if m["role"] == "tool"]
        assert contents == ["1", "2"]


def test_generate_strips_the_recorded_reply(tmp_path: Path) -> None:
    seen: list[list[BaseMessage]] = []

    def reply(messages: list[BaseMessage], tools: Any) -> str:
        seen.append(messages)
        return "fresh"

    SOURCES["strip"] = _Source(lambda sid, epoch: FunctionChatModel(reply))
    data = write_jsonl(
        tmp_path / "d.jsonl",
        [
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": "recorded"},
                ]
            }
        ],
    )
    config = write_config(
        tmp_path / "c.yaml",
        model="harness-test:strip",
        dataset=str(data),
        output_dir=str(tmp_path / "runs"),
    )
    line = read_results(run(config).run_dir)[0]
    assert [m.content for m in seen[0]] == ["q"]
    assert line["trajectory"]["final_answer"] == "fresh" and line["id"] == "line-1"


def test_score_mode_scores_the_recorded_messages(tmp_path: Path) -> None:
    rows = [
        {
            "id": "one-turn",
            "messages": [
                {"role": "user", "content": "Weather in Boston?"},
                ask(call("call_abc", "get_weather", {"location": "Boston, MA"})),
            ],
            "ground_truth": {
                "tool_calls": [
                    {
                        "type": "function",
                        "function": {
                            "name": "get_weather",
                            "arguments": '{"location": "Boston, MA"}',
                        },
                    }
                ]
            },
        },
        {
            "id": "full",
            "answer": "42",
            "messages": [
                {"role": "user", "content": "6*7?"},
                ask(call("c1", "calculator", {"expression": "6*7"})),
                {"role": "tool", "tool_call_id": "c1", "content": "42"},
                {"role": "assistant", "content": "42"},
            ],
            "ground_truth": {
                "tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]
            },
        },
    ]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    config = write_config(
        tmp_path / "c.yaml",
        mode="score",
        dataset=str(data),
        output_dir=str(tmp_path / "runs"),
        rewards=["exact_tool_match_reward", "tool_call_match", "qa_f1_reward"],
    )
    lines = by_id(run(config))
    assert lines["one-turn"]["scores"]["exact_tool_match_reward"]["score"] == 1.0
    assert lines["one-turn"]["tool_calls_by_status"] == {"not_run": 1}
    assert lines["one-turn"]["stop_reason"] == "tool_calls"
    assert lines["full"]["scores"]["tool_call_match"]["score"] == 1.0
    assert lines["full"]["scores"]["qa_f1_reward"]["score"] == 1.0
    assert lines["full"]["rounds"] == 1 and lines["full"]["stop_reason"] == "final"
    assert all(r["mode"] == "score" and r["request"] is None for r in lines.values())


@pytest.mark.parametrize(
    "arguments",
    ['{"end_range": 6.2832,  // 2 * pi}', '{"x": 2 * 3.14159}', '{"x": "unterminated', "[1, 2]"],
)
def test_score_mode_scores_a_recorded_malformed_call_as_the_models(
    tmp_path: Path, arguments: str
) -> None:
    # Real model outputs: the row was refused as an invalid dataset line (or, skipped,
    # its failure left the mean). It is the model's output: a malformed call, scored.
    reply = ask(call("c1", "plot", {}))
    reply["tool_calls"][0]["function"]["arguments"] = arguments
    expected = {"tool_calls": [{"name": "plot", "arguments": {"x": 6.2832}}]}
    rows = [
        {"id": "bad", "messages": [{"role": "user", "content": "plot"}, reply],
         "ground_truth": expected},
        {"id": "none", "messages": [{"role": "user", "content": "plot"}, reply],
         "ground_truth": {"tool_calls": []}},
    ]  # fmt: skip
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    config = write_config(
        tmp_path / "c.yaml",
        mode="score",
        dataset=str(data),
        output_dir=str(tmp_path / "runs"),
        rewards=["exact_tool_match_reward", "tool_call_match"],
    )
    lines = by_id(run(config))
    assert all(line["status"] == "ok" for line in lines.values())
    bad = lines["bad"]
    assert bad["tool_calls_by_status"] == {"malformed": 1}
    assert bad["scores"]["tool_call_match"]["score"] == 0.0
    assert bad["scores"]["exact_tool_match_reward"]["score"] == 0.0
    (record,) = bad["trajectory"]["steps"][0]["tool_calls"]
    assert (record["status"], record["raw_args"], record["id"]) == ("malformed", arguments, "c1")
    # where no call is expected, a malformed call is still a call made
    assert lines["none"]["scores"]["tool_call_match"]["score"] == 0.0


def test_failures_are_contained_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash_executor(sample_id: str, epoch: int) -> None:
        if sample_id == "s0002":
            raise RuntimeError("dispatcher exploded")

    def model(sample_id: str, epoch: int) -> Any:
        if sample_id == "s0001":
            return ScriptedChatModel([ValueError("model is down")])
        if sample_id == "s0003":
            raise LookupError("no such model")
        return ScriptedChatModel([ask(call("c", "add", {"a": 1, "b": 1})), "ok"])

    SOURCES["failing"] = _Source(model, crash_executor)

    def boom(trajectory: Any, ground_truth: Any, *, answer: Any = None) -> Any:
        if trajectory.final_answer == "ok" and answer == "5":
            raise ZeroDivisionError("reward bug")
        from agentloop.evals import qa_f1_reward

        return qa_f1_reward(trajectory.final_answer, answer)

    # A private copy of the registry: the test reward must not leak into other tests.
    registry = agentloop.evals._registry
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register_reward("harness_test_boom", boom)
    config = add_setup(
        tmp_path,
        n=6,
        model="harness-test:failing",
        rewards=["harness_test_boom"],
        pass_threshold={},
        fail_on_error=3,
    )
    outcome = run(config)
    lines = by_id(outcome)
    assert (lines["s0001"]["status"], lines["s0001"]["error_kind"]) == ("error", "model")
    assert lines["s0001"]["error"] == "ValueError: model is down"
    assert lines["s0001"]["stop_reason"] == "error" and lines["s0001"]["trajectory"] is not None
    assert (lines["s0002"]["error_kind"], lines["s0002"]["error"]) == (
        "crash",
        "RuntimeError: dispatcher exploded",
    )
    assert lines["s0002"]["trajectory"] is None and lines["s0002"]["rounds"] is None
    assert (lines["s0003"]["error_kind"], lines["s0003"]["error"]) == (
        "model",
        "LookupError: no such model",
    )
    assert (lines["s0004"]["error_kind"], lines["s0004"]["error"]) == (
        "reward",
        "harness_test_boom: ZeroDivisionError: reward bug",
    )
    assert lines["s0004"]["reward_errors"] == {"harness_test_boom": "ZeroDivisionError: reward bug"}
    assert [lines[s]["status"] for s in ("s0000", "s0005")] == ["ok", "ok"]
    s = outcome.summary
    assert (s.errored, s.ok, s.errors_by_kind) == (4, 2, {"crash": 1, "model": 2, "reward": 1})
    assert s.rewards["harness_test_boom"].count == 2
    assert s.failed and outcome.exit_code == 1 and "more than fail_on_error=3" in (s.failure or "")
    assert not run(config, "fail_on_error=4").summary.failed
    assert run(config, "fail_on_error=0.7").exit_code == 0
    assert run(config, "fail_on_error=0.5").exit_code == 1
    assert run(config, "fail_on_error=false").exit_code == 0


def test_a_sources_tool_executor_answers_the_calls(tmp_path: Path) -> None:
    @tool
    def add(a: int, b: int) -> str:
        """Recorded add."""
        return "recorded"

    seen: list[float | None] = []

    def executor(sample_id: str, epoch: int) -> Any:
        def wrap(dispatcher: ToolDispatcher) -> ToolDispatcher:
            seen.append(dispatcher.timeout)  # the run's own limits reach the executor
            return ToolDispatcher([add])

        return wrap

    SOURCES["dispatch"] = _Source(
        lambda sid, epoch: ScriptedChatModel([ask(call("c", "add", {"a": 1, "b": 1})), "x"]),
        executor,
    )
    outcome = run(add_setup(tmp_path, n=1, model="harness-test:dispatch"), "tool_timeout=7")
    messages = read_results(outcome.run_dir)[0]["trajectory"]["messages"]
    assert messages[2]["content"] == "recorded" and seen == [7.0]


def test_concurrency_is_a_bounded_pool(tmp_path: Path) -> None:
    active = peak = 0

    async def reply(messages: list[BaseMessage], tools: Any) -> AIMessage:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await anyio.sleep(0.01)
        active -= 1
        return AIMessage(content="x")

    SOURCES["pool"] = _Source(lambda sid, epoch: FunctionChatModel(reply))
    outcome = run(add_setup(tmp_path, n=30, model="harness-test:pool", concurrency=4))
    assert peak == 4 and outcome.summary.results == 30


def test_bad_dataset_refuses_to_start(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=2)
    data = tmp_path / "data.jsonl"
    data.write_text(
        data.read_text()
        + "{oops\n"
        + json.dumps({"id": "s0000", "messages": [{"role": "user", "content": "x"}]})
        + "\n"
    )
    with pytest.raises(DatasetError) as info:
        run(config)
    assert str(info.value).splitlines()[1:] == [
        f"{data}:3: invalid JSON (Expecting property name enclosed in double quotes, column 2)",
        f"{data}:4: duplicate id 's0000' (first on line 1)",
    ]
    assert not (tmp_path / "runs").exists()
    outcome = run(config, "skip_invalid=true")
    assert outcome.summary.results == 2 and len(outcome.summary.invalid_lines) == 2
    header = json.loads((outcome.run_dir / "run.json").read_text())
    assert header["dataset"]["invalid_lines"] == outcome.summary.invalid_lines
    summary = json.loads((outcome.run_dir / "summary.json").read_text())
    assert summary["invalid_lines"][0].endswith(
        ":3: invalid JSON (Expecting property name enclosed in double quotes, column 2)"
    )


def test_all_invalid_refuses_even_with_skip_invalid(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=1, skip_invalid=True)
    data = tmp_path / "data.jsonl"
    data.write_text("{oops\n")
    with pytest.raises(DatasetError) as info:
        run(config)
    # skip_invalid is set already: suggesting it would send the user in circles.
    assert str(info.value).splitlines()[0] == f"{data}: no valid rows; 1 invalid line(s)"


def test_progress_reporter_sees_every_result(tmp_path: Path) -> None:
    events: list[Any] = []

    class Recorder:
        def start(self, total: int, done: int) -> None:
            events.append(("start", total, done))

        def advance(self, errored: bool) -> None:
            events.append(errored)

        def close(self) -> None:
            events.append("close")

    run(add_setup(tmp_path, n=3), reporter=Recorder())
    assert events == [("start", 3, 0), False, False, False, "close"]
    assert only_run_dir(tmp_path / "runs").name.endswith("-eval")
    assert add_row(0)["answer"] == "1"


def test_a_run_replays_offline_from_its_results(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=4, epochs=2)
    first = run(config, "output_dir=" + str(tmp_path / "a"))
    replayed = run(config, f"model=replay:{first.run_dir}", "output_dir=" + str(tmp_path / "b"))
    strip = ("wall_time_s", "started_at", "trajectory")

    def comparable(outcome: RunOutcome) -> dict[tuple[str, int], Any]:
        return {
            (r["id"], r["epoch"]): {k: v for k, v in r.items() if k not in strip}
            for r in read_results(outcome.run_dir)
        }

    assert comparable(replayed) == comparable(first)


def test_content_tool_calls_are_recovered_only_when_asked(tmp_path: Path) -> None:
    text = '<tool_call>{"name": "add", "arguments": {"a": 0, "b": 1}}</tool_call>'
    config = add_setup(tmp_path, n=1)
    write_json(tmp_path / "script.json", {"*": [text, "1"]})
    recovered = read_results(run(config, "parse_content_tool_calls=true").run_dir)[0]
    assert recovered["tool_calls_by_status"] == {"ok": 1}
    assert recovered["trajectory"]["steps"][0]["tool_calls"][0]["recovered"] is True
    assert recovered["trajectory"]["final_answer"] == "1"
    plain = read_results(run(config, f"output_dir={tmp_path / 'plain'}").run_dir)[0]
    assert plain["tool_calls_by_status"] == {} and plain["trajectory"]["final_answer"] == text


def test_loop_options_reach_the_model(tmp_path: Path) -> None:
    made: list[ScriptedChatModel] = []

    def model(sample_id: str, epoch: int) -> ScriptedChatModel:
        made.append(ScriptedChatModel([ask(call("c", "add", {"a": 1, "b": 1})), "x"]))
        return made[-1]

    SOURCES["options"] = _Source(model)
    config = add_setup(
        tmp_path,
        n=1,
        model="harness-test:options",
        tool_choice="required",
        parallel_tool_calls=False,
        max_rounds=0,
    )
    line = read_results(run(config).run_dir)[0]
    bind = made[0].binds[0]
    assert bind["tool_choice"] == "required" and bind["parallel_tool_calls"] is False
    assert line["stop_reason"] == "max_rounds" and line["single_turn"] is False
    assert line["request"]["tool_choice"] == "required"

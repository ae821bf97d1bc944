"""Inspect eval logs out and in, through inspect_ai's own API: an exported run is read by
``read_eval_log`` and ``samples_df`` with the run's scores, usage and messages; a log read
back re-scores to the same scores on BFCL multi-turn, τ²-bench and AgentDojo scripted runs;
a log of another Inspect task (messages only) becomes a trajectory scored against a dataset."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai.analysis import samples_df
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, write_eval_log
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolCall, ToolCallError

from agentloop.benchmarks.agentdojo._rows import agentdojo_rows
from agentloop.benchmarks.bfcl._data import bfcl_rows
from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV
from agentloop.cli._commands import main
from agentloop.harness import load_config
from agentloop.harness.exchange._inspect_export import export_inspect, inspect_log
from agentloop.harness.exchange._inspect_import import import_inspect
from agentloop.harness.run._runner import run_eval_sync
from agentloop.harness.rundir._header import read_header
from tests.support.harness import (
    ROOT,
    add_setup,
    ask,
    bench_module,
    call,
    only_run_dir,
    read_results,
    run_once,
    write_json,
)
from tests.support.openai_stub import StubResponse, StubServer, error, reply
from tests.support.openai_stub import call as stub_call

USAGE = {"prompt_tokens": 100, "completion_tokens": 30, "total_tokens": 130}


def _adder(body: dict[str, Any]) -> StubResponse:
    """add(i, 1) then the sum; row 2 answers wrongly, row 3's model refuses (HTTP 400)."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        answer = "7" if last["content"] == "3" else last["content"]
        response = reply(answer)
    else:
        a = int(last["content"].split()[2])
        if a == 3:
            return error(400)
        response = reply(tool_calls=[stub_call("add", {"a": a, "b": 1}, id=f"c{a}")])
    response.body["usage"] = USAGE
    return response


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer(handler=_adder) as server:
        yield server


def _scores(lines: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, float]]:
    return {
        (line["id"], line["epoch"]): {k: v["score"] for k, v in line["scores"].items()}
        for line in lines
    }


# inspect_ai 0.3.285's samples_df calls drop_duplicates(inplace=True), deprecated in pandas 3.1
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.drop_duplicates")
def test_the_exported_log_is_read_by_inspect_with_scores_usage_and_messages(
    tmp_path: Path, stub: StubServer
) -> None:
    config = add_setup(tmp_path, n=4, model="openai:m", preflight=False, epochs=2,
                       model_options={"base_url": stub.url})  # fmt: skip
    run_dir = run_once(config)
    lines = read_results(run_dir)
    out = tmp_path / "run.eval"
    assert main(["export", "inspect", str(run_dir), str(out)]) == 0
    log = read_eval_log(str(out))
    assert log.eval.model == "openai:m" and log.eval.config.epochs == 2
    by_pair = {(str(s.id), s.epoch): s for s in log.samples or []}
    assert sorted(by_pair) == sorted((line["id"], line["epoch"]) for line in lines)
    for line in lines:
        sample = by_pair[line["id"], line["epoch"]]
        messages = line["trajectory"]["messages"]
        assert len(sample.messages) == len(messages)
        usage = sample.model_usage["openai:m"]
        assert (usage.input_tokens, usage.output_tokens) == (
            line["usage"]["input_tokens"], line["usage"]["output_tokens"])  # fmt: skip
        if line["status"] == "error":  # row 3: the model refused; Inspect's EvalError
            assert sample.error is not None and "400" in sample.error.message
            assert not sample.scores
            continue
        assert usage.input_tokens == 200  # two requests of 100
        score = sample.scores["qa_f1_reward"]  # type: ignore[index]
        assert score.value == line["scores"]["qa_f1_reward"]["score"]
        assert score.metadata == {"passed": line["passed"]["qa_f1_reward"],
                                  "details": line["scores"]["qa_f1_reward"]["details"]}  # fmt: skip
        call_made = sample.messages[1]
        assert isinstance(call_made, ChatMessageAssistant) and call_made.tool_calls
        assert call_made.tool_calls[0].function == "add"
        assert isinstance(sample.messages[2], ChatMessageTool)
        assert sample.output.completion == line["trajectory"]["final_answer"]
    summary = json.loads((run_dir / "summary.json").read_text())
    (headline,) = log.results.scores  # type: ignore[union-attr]
    # Inspect's mean leaves the errored samples out; agentloop's headline counts them 0
    assert headline.metrics["mean"].value == summary["rewards"]["qa_f1_reward"]["mean"]
    assert headline.metrics["mean"].value == pytest.approx(4 / 6)
    assert headline.metrics["headline"].value == pytest.approx(4 / 8)
    assert headline.metrics["pass_rate"].value == pytest.approx(4 / 8)
    assert log.stats.model_usage["openai:m"].input_tokens == sum(
        line["usage"]["input_tokens"] for line in lines
    )
    frame = samples_df(str(out))  # Inspect's analysis dataframe
    assert len(frame) == 8
    got = {(r.id, r.epoch): r for r in frame.itertuples()}
    for line in lines:
        row = got[line["id"], line["epoch"]]
        assert row.message_count == len(line["trajectory"]["messages"])
        assert row.total_tokens == line["usage"]["total_tokens"]
        expected = line["scores"].get("qa_f1_reward", {}).get("score")
        assert row.score_qa_f1_reward == pytest.approx(expected, nan_ok=True) or (expected is None)


def test_a_secret_in_a_trajectory_is_not_exported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_API_TOKEN", "sk-very-secret-value-123")
    script = write_json(tmp_path / "s.json", {"*": ["the token is sk-very-secret-value-123"]})
    config = add_setup(tmp_path, n=1, model=f"scripted:{script}", tools=[], preflight=False)
    run_dir = run_once(config)
    out = tmp_path / "run.eval"
    export_inspect(run_dir, out)
    sample = (read_eval_log(str(out)).samples or [])[0]
    assert "sk-very-secret" not in sample.model_dump_json()
    assert sample.output.completion == "the token is ***"


def test_inspects_log_functions_called_inside_an_event_loop_leave_asyncio_alone(
    tmp_path: Path,
) -> None:
    # inspect_ai's sync log functions, called where a loop runs (a notebook, Playwright's
    # sync API), patched asyncio.run for the whole process (nest_asyncio), and every later
    # asyncio.run left its loop open.
    config = add_setup(tmp_path, n=1, preflight=False)
    run_dir = run_once(config)

    async def inside_a_loop() -> None:
        export_inspect(run_dir, tmp_path / "run.eval")

    asyncio.run(inside_a_loop())
    assert asyncio.run.__module__ == "asyncio.runners"
    import_inspect(tmp_path / "run.eval", tmp_path / "again", load_config(config))
    assert _scores(read_results(tmp_path / "again")) == _scores(read_results(run_dir))


# -- round trips: export, import with the run's config, the same scores ----------------------


def _bfcl_run(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(BFCL_DATA_ENV, str(ROOT / "tests" / "data" / "bfcl"))
    category = "multi_turn_miss_func"
    rows = list(bfcl_rows(category))
    scripted = bench_module("bfcl_multi_turn_scripted")
    scripts = scripted.script(rows, False)
    scripts[f"{rows[0]['id']}@2"] = scripted.script(rows[:1], True)[rows[0]["id"]]
    path = ROOT / "configs" / "bfcl" / f"{category}.yaml"
    raw = yaml.safe_load(path.read_text())
    raw.update(model=f"scripted:{write_json(tmp / 'bfcl.json', scripts)}", preflight=False,
               output_dir=str(tmp / "runs"), concurrency=1, epochs=2)  # fmt: skip
    return _run(tmp / "bfcl.yaml", raw)


def _run(path: Path, raw: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(raw, allow_unicode=True))
    outcome = run_eval_sync(load_config(path), config_path=str(path))
    return outcome.run_dir


def _tau2_run(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
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
        "create_task_1": ["Please create a task called 'Important Meeting' for user_1.",
                          "Thanks! ###STOP###"],
        "update_task_1": ["Please mark task_1 as completed.", "Great. ###STOP###"],
    }  # fmt: skip
    shipped = ROOT / "configs" / "tau2" / "mock.yaml"
    raw = yaml.safe_load(shipped.read_text())
    raw.update(model=f"scripted:{write_json(tmp / 'agent.json', agent)}", model_options={},
               output_dir=str(tmp / "runs"), preflight=False, epochs=2, sample_ids=sorted(agent),
               concurrency=1)  # fmt: skip
    instructions = shipped.parent / raw["user"]["instructions"].removeprefix("@")
    raw["user"].update(model=f"scripted:{write_json(tmp / 'user.json', user)}",
                       model_options={}, instructions=f"@{instructions}")  # fmt: skip
    return _run(tmp / "tau2.yaml", raw)


def _agentdojo_run(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cases = bench_module("agentdojo_cases")
    rows = {r["id"]: r for r in agentdojo_rows("banking")}
    pair = "user_task_3+injection_task_1"
    scripts = {"user_task_3": cases.canonical(rows["user_task_3"]),
               pair: cases.attacker(rows[pair]), "user_task_4": ["I cannot do that."]}  # fmt: skip
    raw = yaml.safe_load((ROOT / "configs" / "agentdojo" / "banking.yaml").read_text())
    raw.update(model=f"scripted:{write_json(tmp / 'dojo.json', scripts)}", model_options={},
               output_dir=str(tmp / "runs"), sample_ids=sorted(scripts), concurrency=1,
               preflight=False)  # fmt: skip
    return _run(tmp / "dojo.yaml", raw)


RUNS = {"bfcl_multi_turn": _bfcl_run, "tau2_mock": _tau2_run, "agentdojo_banking": _agentdojo_run}


@pytest.mark.parametrize("benchmark", sorted(RUNS))
def test_a_round_trip_through_an_eval_file_re_scores_the_same(
    benchmark: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = RUNS[benchmark](tmp_path, monkeypatch)
    before = read_results(run_dir)
    assert len({json.dumps(s, sort_keys=True) for s in _scores(before).values()}) > 1
    out = tmp_path / "run.eval"
    export_inspect(run_dir, out)
    config = read_header(run_dir)["config_path"]
    back = tmp_path / "imported"
    assert main(["import", "inspect", str(out), str(back), "--config", config]) == 0
    after = read_results(back)
    assert _scores(after) == _scores(before)  # every (sample, epoch), every reward
    was = {(x["id"], x["epoch"]): x for x in before}
    for line in after:  # the conversation itself came back
        assert line["trajectory"]["messages"] == was[line["id"], line["epoch"]]["trajectory"][
            "messages"]  # fmt: skip
    assert main(["summary", str(back)]) == 0  # a run directory the other commands read
    assert read_header(back)["imported"]["format"] == "inspect"
    # Inspect's own fields alone (agentloop's metadata dropped, as in a log from elsewhere):
    # the same scores too (τ²-bench's stop reason from the user's stop signal)
    log = read_eval_log(str(out))
    for sample in log.samples or []:
        sample.metadata.pop("agentloop")
        for message in sample.messages:
            message.metadata = None
    write_eval_log(log, str(tmp_path / "bare.eval"))
    bare = tmp_path / "bare"
    assert main(["import", "inspect", str(tmp_path / "bare.eval"), str(bare), "--config",
                 config]) == 0  # fmt: skip
    assert _scores(read_results(bare)) == _scores(before)


# -- a log of another Inspect task: messages only ------------------------------------------


def _foreign_log(path: Path, samples: list[EvalSample]) -> Path:
    """A log written as an Inspect task of its own would write it (no agentloop metadata)."""
    log = inspect_log_like(samples)
    write_eval_log(log, str(path))
    return path


def inspect_log_like(samples: list[EvalSample]) -> EvalLog:
    from inspect_ai.log import EvalConfig, EvalDataset, EvalSpec

    spec = EvalSpec(created="2026-01-01T00:00:00+00:00", task="adder", model="openai/gpt-x",
                    dataset=EvalDataset(name="adder"), config=EvalConfig())  # fmt: skip
    return EvalLog(eval=spec, samples=samples)


def _sample(sid: str, epoch: int, answer: str, **extra: Any) -> EvalSample:
    a = int(sid[1:])
    messages = [
        ChatMessageSystem(content="You add numbers."),
        ChatMessageUser(content=f"What is {a} + 1?"),
        ChatMessageAssistant(
            content="",
            tool_calls=[ToolCall(id="t1", function="add", arguments={"a": a, "b": 1})],
        ),
        ChatMessageTool(content=str(a + 1), tool_call_id="t1", function="add"),
        ChatMessageAssistant(content=answer),
    ]
    return EvalSample(
        id=sid, epoch=epoch, input=messages[:2], target=str(a + 1), messages=messages,
        output=ModelOutput.from_content("openai/gpt-x", answer),
        model_usage={"openai/gpt-x": ModelUsage(input_tokens=50, output_tokens=5,
                                                total_tokens=55)}, **extra,
    )  # fmt: skip


def test_another_tasks_log_is_scored_against_the_dataset(tmp_path: Path) -> None:
    from inspect_ai.log import EvalError

    config = add_setup(tmp_path, n=3, preflight=False)
    failed = _sample("s0002", 1, "")
    failed.error = EvalError(message="RuntimeError: boom", traceback="", traceback_ansi="")
    samples = [_sample("s0000", 1, "1"), _sample("s0000", 2, "The answer is 1"),
               _sample("s0001", 1, "3"), failed, _sample("s0099", 1, "100")]  # fmt: skip
    log = _foreign_log(tmp_path / "other.eval", samples)
    back = tmp_path / "imported"
    done = import_inspect(log, back, load_config(config), str(config))
    assert done.samples == 5 and done.unmatched == ["s0099"]
    lines = {(x["id"], x["epoch"]): x for x in read_results(back)}
    f1 = {k: x["scores"].get("qa_f1_reward", {}).get("score") for k, x in lines.items()}
    assert f1[("s0000", 1)] == 1.0 and f1[("s0001", 1)] == 0.0
    assert f1[("s0000", 2)] == pytest.approx(0.5)  # "answer is 1" after normalisation: 1 of 3
    first = lines["s0000", 1]
    assert first["trajectory"]["final_answer"] == "1"
    assert first["tool_calls_by_status"] == {"ok": 1} and first["rounds"] == 1
    assert first["usage"]["input_tokens"] == 50
    assert first["ground_truth"] is None and first["answer"] == "1"  # the dataset's row
    assert (lines["s0002", 1]["status"], lines["s0002", 1]["error_kind"]) == ("error", "model")
    missing = lines["s0099", 1]
    assert (missing["status"], missing["error_kind"]) == ("error", "dataset")
    assert "no row with id 's0099'" in missing["error"]
    # agentloop score reads the run directory like any other: other rewards, same trajectories
    assert main(["score", str(back), "--rewards", "answer_match"]) == 0
    (rescored,) = back.glob("results.rescored-*.jsonl")
    match = {(x["id"], x["epoch"]): x["scores"].get("answer_match", {}).get("score")
             for x in read_results(back, rescored.name)}  # fmt: skip
    assert match[("s0000", 1)] == 1.0 and match[("s0001", 1)] == 0.0


def test_a_tool_error_a_parse_error_and_a_second_turn_are_kept(tmp_path: Path) -> None:
    messages = [
        ChatMessageUser(content="What is 0 + 1?"),
        ChatMessageAssistant(content="", tool_calls=[
            ToolCall(id="t1", function="add", arguments={}, parse_error="{'a': 0"),
            ToolCall(id="t2", function="add", arguments={"a": "x", "b": 1})]),
        ChatMessageTool(content="", tool_call_id="t1", function="add",
                        error=ToolCallError("parsing", "not JSON")),
        ChatMessageTool(content="", tool_call_id="t2", function="add",
                        error=ToolCallError("unknown", "a: not an integer")),
        ChatMessageAssistant(content="1"),
        ChatMessageUser(content="And 1 + 1?"),
        ChatMessageAssistant(content="2"),
    ]  # fmt: skip
    sample = EvalSample(id="s0000", epoch=1, input="What is 0 + 1?", target="1",
                        messages=messages)  # fmt: skip
    config = add_setup(tmp_path, n=1, preflight=False)
    import_inspect(_foreign_log(tmp_path / "t.eval", [sample]), tmp_path / "in",
                   load_config(config), str(config))  # fmt: skip
    (line,) = read_results(tmp_path / "in")
    trajectory = line["trajectory"]
    assert line["tool_calls_by_status"] == {"malformed": 1, "error": 1}
    (first, _, _) = [s for s in trajectory["steps"]]
    assert first["tool_calls"][0]["raw_args"] == "{'a': 0"
    tool = trajectory["messages"][2]
    assert tool["content"] == "not JSON" and tool["langchain"]["status"] == "error"
    assert [t["message_start"] for t in trajectory["turns"]] == [0, 5]
    assert trajectory["final_answer"] == "2"


def test_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=1, preflight=False)
    assert main(["import", "inspect", str(tmp_path / "none.eval"), str(tmp_path / "o"),
                 "--config", str(config)]) == 2  # fmt: skip
    assert "none.eval: no such Inspect log" in capsys.readouterr().err
    (tmp_path / "bad.eval").write_text("not a zip")
    assert main(["import", "inspect", str(tmp_path / "bad.eval"), str(tmp_path / "o"),
                 "--config", str(config)]) == 2  # fmt: skip
    assert "bad.eval: not an Inspect log Inspect reads" in capsys.readouterr().err
    run_dir = run_once(config)
    assert main(["export", "inspect", str(run_dir), str(tmp_path / "out.txt")]) == 2
    assert "out.txt: an Inspect log is named .eval or .json" in capsys.readouterr().err
    assert main(["export", "inspect", str(tmp_path), str(tmp_path / "o.eval")]) == 2
    assert "not a run directory" in capsys.readouterr().err
    assert only_run_dir(tmp_path / "runs") == run_dir
    assert inspect_log(run_dir).samples is not None


def test_a_limit_goes_out_as_inspects_and_comes_back_as_a_stop_reason(tmp_path: Path) -> None:
    from inspect_ai.log import EvalSampleLimit

    replies = [ask(call(f"c{i}", "add", {"a": i, "b": 1})) for i in range(2)]
    script = write_json(tmp_path / "s.json", {"*": replies})
    config = add_setup(tmp_path, n=1, model=f"scripted:{script}", max_rounds=1,
                       at_max_rounds="stop", preflight=False)  # fmt: skip
    run_dir = run_once(config)
    (line,) = read_results(run_dir)
    assert line["stop_reason"] == "max_rounds"
    (sample,) = inspect_log(run_dir).samples or []
    assert sample.limit is not None
    assert (sample.limit.type, sample.limit.limit) == ("message", 1.0)
    # a log from elsewhere: Inspect's limit is the stop reason
    other = _sample("s0000", 1, "")
    other.limit = EvalSampleLimit(type="token", limit=100)
    back = tmp_path / "in"
    import_inspect(_foreign_log(tmp_path / "o.eval", [other]), back, load_config(config),
                   str(config))  # fmt: skip
    (imported,) = read_results(back)
    assert imported["stop_reason"] == "token_limit"


def test_without_inspect_ai_the_commands_say_which_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    config = add_setup(tmp_path, n=1, preflight=False)
    run_dir = run_once(config)
    capsys.readouterr()
    for name in [n for n in sys.modules if n.split(".")[0] == "inspect_ai"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    assert main(["export", "inspect", str(run_dir), str(tmp_path / "o.eval")]) == 2
    assert "pip install 'agentloop[inspect]'" in capsys.readouterr().err
    assert not (tmp_path / "o.eval").exists()
    assert main(["import", "inspect", str(tmp_path / "o.eval"), str(tmp_path / "in"),
                 "--config", str(config)]) == 2  # fmt: skip
    assert "pip install 'agentloop[inspect]'" in capsys.readouterr().err

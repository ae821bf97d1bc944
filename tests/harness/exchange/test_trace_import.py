"""``agentloop import otel``: traces read back into a run scored by a config's rewards.

Round trips: a scripted run of BFCL multi-turn, τ²-bench and AgentDojo exported with
``--content`` and imported back scores the same on every (sample, epoch), failures included.
Foreign shapes: OpenInference's (Phoenix's LangChain/LangGraph and OpenAI Agents SDK
instrumentations) and OpenLLMetry's (LangSmith's OTel export, Traceloop), the sample named by a
key of a JSON attribute."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentloop.benchmarks.bfcl._data import bfcl_rows
from agentloop.cli import main
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import ROOT, add_setup, bench_module, read_results, write_json

CONFIGS = ROOT / "configs"


def _run(config: Path, tmp: Path, **overrides: Any) -> Path:
    loaded = load_config(config, overrides={"output_dir": str(tmp / "runs"), **overrides})
    return run_eval_sync(loaded, config_path=str(config)).run_dir


def _scores(run_dir: Path) -> dict[tuple[str, int], Any]:
    return {
        (x["id"], x["epoch"]): (
            x["status"],
            {k: v["score"] for k, v in x["scores"].items()},
            x["passed"],
        )
        for x in read_results(run_dir)
    }


def _round_trip(run_dir: Path, config: Path, tmp: Path, *sets: str) -> Path:
    traces = tmp / "traces.json"
    assert main(["export", "otel", str(run_dir), str(traces), "--content"]) == 0
    flags = [f"--set={s}" for s in sets]
    command = ["import", "otel", str(traces), str(tmp / "imported"), "--config", str(config)]
    assert main([*command, *flags]) == 0
    (made,) = [d for d in (tmp / "imported").iterdir() if d.is_dir()]
    return made


def test_tau2_mock_every_task_and_epoch_scores_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = CONFIGS / "tau2" / "mock.yaml"
    run = _run(
        config,
        tmp_path,
        model=f"scripted:{CONFIGS / 'scripts' / 'tau2_mock.json'}",
        **{"user.model": f"scripted:{CONFIGS / 'scripts' / 'tau2_mock_user.json'}"},
        epochs=2,
    )
    before = _scores(run)
    assert len(before) == 20
    verdicts = [v[1]["agentloop.benchmarks:tau2_verdict"] for v in before.values()]
    assert 0.0 in verdicts and 1.0 in verdicts  # the two tasks the script fails
    capsys.readouterr()
    after = _round_trip(run, config, tmp_path)
    assert _scores(after) == before
    out = capsys.readouterr().out
    assert "imported 20 of 20 traces" in out
    assert "tool results: 0 of " in out  # every recorded result the tools gave again


def test_agentdojo_utility_and_security_score_the_same(tmp_path: Path) -> None:
    config = CONFIGS / "agentdojo" / "banking.yaml"
    pairs = ["user_task_3", "injection_task_1", "user_task_3+injection_task_1"]
    ids = f"sample_ids=[{','.join([*pairs, 'user_task_4+injection_task_1'])}]"
    loaded = load_config(
        config,
        sets=[ids],
        overrides={
            "model": f"scripted:{CONFIGS / 'scripts' / 'agentdojo_banking.json'}",
            "output_dir": str(tmp_path / "runs"),
        },
    )
    run = run_eval_sync(loaded, config_path=str(config)).run_dir
    before = _scores(run)
    security = {
        k[0]: v[1].get("agentloop.benchmarks:agentdojo_security") for k, v in before.items()
    }
    assert security["user_task_3+injection_task_1"] == 1.0
    assert security["user_task_4+injection_task_1"] == 0.0
    assert _scores(_round_trip(run, config, tmp_path)) == before


def test_bfcl_multi_turn_scores_the_same_passes_and_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.benchmarks.conftest import FIXTURE

    monkeypatch.setenv("AGENTLOOP_BFCL_DATA", str(FIXTURE))
    scripted = bench_module("bfcl_multi_turn_scripted")
    category = "multi_turn_miss_func"
    rows = list(bfcl_rows(category))
    script = scripted.script(rows, False)
    failing = rows[0]["id"]
    script[failing] = scripted.script(rows[:1], True)[failing]  # its last call missing
    path = write_json(tmp_path / "script.json", script)
    config = CONFIGS / "bfcl" / f"{category}.yaml"
    run = _run(config, tmp_path, model=f"scripted:{path}", concurrency=1)
    before = _scores(run)
    verdict = "agentloop.benchmarks:bfcl_multi_turn_verdict"
    assert sorted(v[1][verdict] for v in before.values()) == [0.0] + [1.0] * (len(rows) - 1)
    assert _scores(_round_trip(run, config, tmp_path, "concurrency=1")) == before


def test_traces_without_contents_are_refused_saying_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=2)
    run = _run(config, tmp_path)
    traces = tmp_path / "bare.json"
    assert main(["export", "otel", str(run), str(traces)]) == 0
    code = main(["import", "otel", str(traces), str(tmp_path / "in"), "--config", str(config)])
    assert code == 2
    err = capsys.readouterr().err
    assert "none of the 2 trace(s) could be imported" in err
    assert "no reply contents" in err and "--content" in err


def _attrs(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": {"stringValue": v}} for k, v in values.items()]


def _span(trace: int, span: int, parent: int | None, attributes: dict[str, Any], at: int) -> Any:
    out = {
        "traceId": f"{trace:032x}",
        "spanId": f"{span:016x}",
        "name": "span",
        "startTimeUnixNano": str(at),
        "endTimeUnixNano": str(at + 1),
        "attributes": _attrs(attributes),
    }
    if parent is not None:
        out["parentSpanId"] = f"{parent:016x}"
    return out


def _openinference(trace: int, i: int) -> list[dict[str, Any]]:
    """A LangGraph agent as Phoenix's instrumentation records it: a chain, two LLM spans
    (the first calling add), a tool span; the sample in the chain's ``metadata``."""
    call = "llm.output_messages.0.message.tool_calls.0.tool_call."
    return [
        _span(trace, 1, None, {"openinference.span.kind": "CHAIN",
                               "metadata": json.dumps({"sample_id": f"s{i:04d}"})}, 10),
        _span(trace, 2, 1, {"openinference.span.kind": "LLM",
                            "llm.output_messages.0.message.role": "assistant",
                            f"{call}id": f"c{i}",
                            f"{call}function.name": "add",
                            f"{call}function.arguments": json.dumps({"a": i, "b": 1})}, 20),
        # the provider's own instrumentation inside the LLM span: the same request, not counted
        _span(trace, 5, 2, {"openinference.span.kind": "LLM",
                            "llm.output_messages.0.message.content": "ignored"}, 21),
        _span(trace, 3, 1, {"openinference.span.kind": "TOOL", "tool.name": "add"}, 30),
        # the OpenAI Agents SDK's spans hold the reply's text as parts
        _span(trace, 4, 1, {"openinference.span.kind": "LLM",
                            "llm.output_messages.0.message.role": "assistant",
                            "llm.output_messages.0.message.contents.0.message_content.type": "text",
                            "llm.output_messages.0.message.contents.0.message_content.text":
                                str(i + 1)}, 40),
    ]  # fmt: skip


def _openllmetry(trace: int, i: int) -> list[dict[str, Any]]:
    """The same agent as LangSmith's OTel export / Traceloop write it; a wrong final answer."""
    return [
        _span(trace, 1, None, {"langsmith.metadata": json.dumps({"sample_id": f"s{i:04d}"})}, 10),
        _span(trace, 2, 1, {"gen_ai.completion.0.role": "assistant",
                            "gen_ai.completion.0.tool_calls.0.id": f"c{i}",
                            "gen_ai.completion.0.tool_calls.0.name": "add",
                            "gen_ai.completion.0.tool_calls.0.arguments":
                                json.dumps({"a": i, "b": 1})}, 20),
        _span(trace, 3, 1, {"gen_ai.completion.0.role": "assistant",
                            "gen_ai.completion.0.content": "no idea"}, 30),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("shape", "attribute", "expected"),
    [
        (_openinference, "metadata.sample_id", 1.0),
        (_openllmetry, "langsmith.metadata.sample_id", 0.0),
    ],
    ids=["openinference", "openllmetry"],
)
def test_other_instrumentations_traces_are_scored(
    tmp_path: Path, shape: Any, attribute: str, expected: float
) -> None:
    config = add_setup(tmp_path, n=3)
    spans = [s for i in range(3) for s in shape(i + 1, i)]
    write_json(tmp_path / "t.json", {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
    out = tmp_path / "in"
    assert main(["import", "otel", str(tmp_path / "t.json"), str(out), "--config", str(config),
                 "--sample-attribute", attribute]) == 0  # fmt: skip
    (run,) = [d for d in out.iterdir() if d.is_dir()]
    lines = read_results(run)
    assert sorted(x["id"] for x in lines) == ["s0000", "s0001", "s0002"]
    for line in lines:
        assert line["scores"]["qa_f1_reward"]["score"] == expected
        assert line["tool_calls_by_status"] == {"ok": 1}  # add ran here, with the trace's args
    # a run directory like any: agentloop score re-scores it with other rewards
    assert main(["score", str(run), "--rewards", "qa_f1_reward_format"]) == 0
    (rescored,) = run.glob("results.rescored-*.jsonl")
    assert {x["id"]: set(x["scores"]) for x in read_results(run, rescored.name)} == {
        x["id"]: {"qa_f1_reward_format"} for x in lines
    }


def test_a_trace_without_the_sample_attribute_is_listed_not_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=3)
    spans = _openinference(1, 0) + _openinference(2, 1)
    spans[5]["attributes"] = _attrs({"openinference.span.kind": "CHAIN"})  # no metadata
    write_json(tmp_path / "t.json", {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
    assert main(["import", "otel", str(tmp_path / "t.json"), str(tmp_path / "in"), "--config",
                 str(config), "--sample-attribute", "metadata.sample_id"]) == 0  # fmt: skip
    captured = capsys.readouterr()
    assert f"not imported: trace {2:032x}: no span has the attribute metadata.sample_id" in (
        captured.err
    )
    assert "imported 1 of 2 traces" in captured.out


def test_each_epoch_of_a_sample_runs_its_own_replies(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=1)
    right, wrong = _openinference(1, 0), _openllmetry(2, 0)
    for span in wrong:  # the second trace starts later: epoch 2
        span["startTimeUnixNano"] = str(int(span["startTimeUnixNano"]) + 1000)
    wrong[0]["attributes"] = _attrs({"metadata": json.dumps({"sample_id": "s0000"})})
    spans = right + wrong
    write_json(tmp_path / "t.json", {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
    assert main(["import", "otel", str(tmp_path / "t.json"), str(tmp_path / "in"), "--config",
                 str(config), "--sample-attribute", "metadata.sample_id"]) == 0  # fmt: skip
    (run,) = [d for d in (tmp_path / "in").iterdir() if d.is_dir()]
    scores = {x["epoch"]: x["scores"]["qa_f1_reward"]["score"] for x in read_results(run)}
    assert scores == {1: 1.0, 2: 0.0}


def test_a_trace_naming_no_row_of_the_dataset_is_listed_not_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=2)
    spans = _openinference(1, 0) + _openinference(2, 7)  # s0007: the dataset has 2 rows
    write_json(tmp_path / "t.json", {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
    assert main(["import", "otel", str(tmp_path / "t.json"), str(tmp_path / "in"), "--config",
                 str(config), "--sample-attribute", "metadata.sample_id"]) == 0  # fmt: skip
    captured = capsys.readouterr()
    assert f"trace {2:032x}: sample 's0007' is not a row of {tmp_path / 'data.jsonl'}" in (
        captured.err
    )
    (run,) = [d for d in (tmp_path / "in").iterdir() if d.is_dir()]
    assert [x["id"] for x in read_results(run)] == ["s0000"]


def test_an_id_with_glob_characters_selects_that_row_alone() -> None:
    from fnmatch import fnmatchcase

    from agentloop.harness.exchange._trace_import import _literal

    pattern = _literal("a[1]*?")
    assert fnmatchcase("a[1]*?", pattern)
    assert not any(fnmatchcase(other, pattern) for other in ("a1xx", "a[1]xy", "a[1]*"))


def _otlp_json(spans: Any) -> dict[str, Any]:
    """SDK spans as a collector writes them: OTLP protobuf in protobuf's JSON mapping, ids hex."""
    import base64

    from google.protobuf import json_format
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = json_format.MessageToDict(encode_spans(spans))
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return request


def test_a_langgraph_agent_traced_by_openinference_scores_here(tmp_path: Path) -> None:
    pytest.importorskip("openinference.instrumentation.langchain")
    import warnings

    from langchain_core.tools import tool
    from langgraph.prebuilt import create_react_agent
    from langgraph.warnings import LangGraphDeprecatedSinceV10
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from agentloop.testing import ScriptedChatModel
    from tests.support.harness import add_script

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    scripts = add_script(3)
    scripts["s0002"][-1] = "4"  # a wrong answer: 2 + 1 is 3
    try:
        for sample, replies in scripts.items():
            with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
                warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
                agent = create_react_agent(ScriptedChatModel(replies), [add])
            question = f"What is {int(sample[1:])} + 1?"
            agent.invoke(
                {"messages": [("user", question)]}, config={"metadata": {"sample_id": sample}}
            )
    finally:
        instrumentor.uninstrument()
    write_json(tmp_path / "t.json", _otlp_json(exporter.get_finished_spans()))
    config = add_setup(tmp_path, n=3)
    out = tmp_path / "in"
    assert main(["import", "otel", str(tmp_path / "t.json"), str(out), "--config", str(config),
                 "--sample-attribute", "metadata.sample_id"]) == 0  # fmt: skip
    (run,) = [d for d in out.iterdir() if d.is_dir()]
    scores = {x["id"]: x["scores"]["qa_f1_reward"]["score"] for x in read_results(run)}
    assert scores == {"s0000": 1.0, "s0001": 1.0, "s0002": 0.0}


def test_a_pydantic_ai_agent_s_genai_spans_import_and_score(tmp_path: Path) -> None:
    pytest.importorskip("pydantic_ai")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = InstrumentationSettings(tracer_provider=provider, include_content=True)
    answers = {"s0000": "1", "s0001": "2", "s0002": "no idea"}
    agents = []
    for sample, answer in answers.items():
        a = int(sample[1:])

        def reply(
            messages: list[ModelMessage], info: AgentInfo, a: int = a, answer: str = answer
        ) -> ModelResponse:
            if len(messages) == 1:
                return ModelResponse(parts=[ToolCallPart("add", {"a": a, "b": 1}, f"c{a}")])
            return ModelResponse(parts=[TextPart(answer)])

        agent = Agent(FunctionModel(reply), metadata={"sample_id": sample})
        agent.tool_plain(lambda a, b: a + b, name="add")
        agent.instrument = settings  # pydantic-ai's own GenAI spans (semconv message parts)
        agents.append((agent, f"What is {a} + 1?"))

    async def run_all() -> None:  # run_sync leaves its event loop open
        for agent, question in agents:
            await agent.run(question)

    anyio.run(run_all)
    write_json(tmp_path / "t.json", _otlp_json(exporter.get_finished_spans()))
    config = add_setup(tmp_path, n=3)
    out = tmp_path / "in"
    assert main(["import", "otel", str(tmp_path / "t.json"), str(out), "--config", str(config),
                 "--sample-attribute", "metadata.sample_id"]) == 0  # fmt: skip
    (run,) = [d for d in out.iterdir() if d.is_dir()]
    lines = read_results(run)
    scores = {x["id"]: x["scores"]["qa_f1_reward"]["score"] for x in lines}
    assert scores == {"s0000": 1.0, "s0001": 1.0, "s0002": 0.0}
    assert all(x["tool_calls_by_status"] == {"ok": 1} for x in lines)

"""``agentloop export otel``: a finished run's results as OTLP JSON after the GenAI semantic
conventions, read back by protobuf's own JSON parser; the same ids on every export; contents
only with ``--content``; secrets scrubbed from whatever is written."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from agentloop.cli import main
from agentloop.harness.rundir._otlp_json import read_otlp
from tests.support.harness import (
    add_setup,
    ask,
    call,
    read_results,
    run_once,
    tools_file,
    write_json,
)

SECRET = "sk-test-0123456789abcdef"


def _spans(path: Path) -> list[dict[str, Any]]:
    request = json.loads(path.read_text())
    (resource,) = request["resourceSpans"]
    (scope,) = resource["scopeSpans"]
    assert scope["schemaUrl"] == "https://opentelemetry.io/schemas/1.44.0"
    return list(scope["spans"])


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    """Typed attribute values, read as the OTLP JSON encoding has them (int64 as strings)."""
    out = {}
    for item in span["attributes"]:
        ((kind, value),) = item["value"].items()
        if kind == "arrayValue":
            value = [next(iter(v.values())) for v in value["values"]]
        out[item["key"]] = int(value) if kind == "intValue" else value
    return out


def _as_protobuf_json(request: dict[str, Any]) -> dict[str, Any]:
    """OTLP JSON's hex ids as protobuf's JSON mapping has bytes (base64)."""
    out = copy.deepcopy(request)
    for resource in out["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return out


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    tools = [f"{tools_file(tmp_path)}:add", f"{tools_file(tmp_path)}:leak"]
    config = add_setup(tmp_path, n=3, epochs=2, tools=tools)
    script = json.loads((tmp_path / "script.json").read_text())
    # s0002 also reads the key through a tool: the run's result holds it masked
    script["s0002"] = [
        ask(call("c2", "add", {"a": 2, "b": 1}), call("k2", "leak", {"name": "OPENAI_API_KEY"})),
        "3",
    ]
    write_json(tmp_path / "script.json", script)
    return run_once(config)


def test_every_sample_and_epoch_is_a_trace_of_genai_spans(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "traces.json"
    assert main(["export", "otel", str(run_dir), str(out)]) == 0
    request = json.loads(out.read_text())
    parsed = json_format.ParseDict(_as_protobuf_json(request), ExportTraceServiceRequest())
    assert len(parsed.resource_spans[0].scope_spans[0].spans) == len(_spans(out))
    spans = _spans(out)
    traces: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        traces.setdefault(span["traceId"], []).append(span)
    assert len(traces) == 6  # 3 samples x 2 epochs
    lines = {(x["id"], x["epoch"]): x for x in read_results(run_dir)}
    for trace in traces.values():
        (root,) = [s for s in trace if "parentSpanId" not in s]
        top = _attrs(root)
        assert top["gen_ai.operation.name"] == "invoke_agent"
        sample = top["agentloop.sample.id"]
        epoch = top["agentloop.epoch"]
        line = lines[sample, epoch]
        chats = [s for s in trace if _attrs(s)["gen_ai.operation.name"] == "chat"]
        tools = [s for s in trace if s["name"].startswith("execute_tool ")]
        assert len(chats) == len(line["trajectory"]["steps"]) == 2
        assert {c["parentSpanId"] for c in chats} == {root["spanId"]}
        first = _attrs(chats[0])
        assert first["gen_ai.response.finish_reasons"] == ["tool_calls"]
        assert first["gen_ai.provider.name"] == "scripted"
        assert _attrs(chats[1])["gen_ai.response.finish_reasons"] == ["stop"]
        calls = [c for step in line["trajectory"]["steps"] for c in step["tool_calls"]]
        assert [(_attrs(t)["gen_ai.tool.name"], t["parentSpanId"]) for t in tools] == [
            (c["name"], chats[0]["spanId"]) for c in calls
        ]
        assert {_attrs(t)["gen_ai.tool.call.id"] for t in tools} == {c["id"] for c in calls}
        # the chat span lasts the step's latency; children end within the root
        latency = int(chats[0]["endTimeUnixNano"]) - int(chats[0]["startTimeUnixNano"])
        assert latency == round(line["trajectory"]["steps"][0]["latency_s"] * 1e9)
        assert all(int(s["endTimeUnixNano"]) <= int(root["endTimeUnixNano"]) for s in trace)
        (score,) = root["events"]
        assert score["name"] == "gen_ai.evaluation.result"
        value = _attrs(score)["gen_ai.evaluation.score.value"]
        assert value == line["scores"]["qa_f1_reward"]["score"]
        # no contents without --content
        assert not any(
            k in _attrs(s)
            for s in trace
            for k in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.result")
        )


def test_a_re_export_is_identical_and_contents_are_opt_in_and_scrubbed(
    run_dir: Path, tmp_path: Path
) -> None:
    first, again, full = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    assert main(["export", "otel", str(run_dir), str(first)]) == 0
    assert main(["export", "otel", str(run_dir), str(again)]) == 0
    assert first.read_bytes() == again.read_bytes()
    assert main(["export", "otel", str(run_dir), str(full), "--content"]) == 0
    text = full.read_text()
    assert SECRET not in text and "***" in text
    spans = read_otlp(full)
    assert {s.span_id for s in spans} == {s.span_id for s in read_otlp(first)}
    leak = next(s for s in spans if s.attributes.get("gen_ai.tool.name") == "leak")
    assert leak.attributes["gen_ai.tool.call.arguments"] == '{"name": "OPENAI_API_KEY"}'
    assert leak.attributes["gen_ai.tool.call.result"] == "***"
    reply = next(
        s
        for s in spans
        if s.attributes.get("gen_ai.response.finish_reasons") == ["stop"]
        and s.attributes["agentloop.sample.id"] == "s0001"
    )
    assert json.loads(reply.attributes["gen_ai.output.messages"]) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "2"}], "finish_reason": "stop"}
    ]
    asked = json.loads(reply.attributes["gen_ai.input.messages"])
    assert asked[0]["role"] == "user" and asked[1]["parts"][0]["type"] == "tool_call"
    assert asked[-1]["role"] == "tool" and asked[-1]["parts"][0]["type"] == "tool_call_response"


def test_not_a_run_directory_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "otel", str(tmp_path), str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentloop: error: ") and err.count("\n") == 1


def test_a_failed_request_and_a_judge_are_spans_and_import_back_the_same(tmp_path: Path) -> None:
    write_json(tmp_path / "judge.json", {"*": ["Checked. GRADE: C"]})
    judge = {"llm_judge": {"judge": f"scripted:{tmp_path / 'judge.json'}"}}
    config = add_setup(tmp_path, n=2, rewards=["qa_f1_reward", judge], pass_threshold={})
    script = json.loads((tmp_path / "script.json").read_text())
    script["s0001"] = [ask(call("c1", "add", {"a": 1, "b": 1}))]  # then out of replies
    write_json(tmp_path / "script.json", script)
    run = run_once(config)
    out = tmp_path / "t.json"
    assert main(["export", "otel", str(run), str(out), "--content"]) == 0
    spans = read_otlp(out)
    by_sample: dict[str, list[Any]] = {}
    for span in spans:
        by_sample.setdefault(span.attributes["agentloop.sample.id"], []).append(span)
    failed = by_sample["s0001"]
    (root,) = [s for s in failed if s.parent_id is None]
    assert (root.status, root.attributes["error.type"]) == (2, "model")
    assert "ScriptExhaustedError" in root.status_message
    chats = [s for s in failed if s.attributes["gen_ai.operation.name"] == "chat"]
    assert [c.status for c in chats] == [0, 2]  # the second request got no reply
    assert "gen_ai.output.messages" in chats[0].attributes
    assert "gen_ai.output.messages" not in chats[1].attributes
    graded = by_sample["s0000"]
    (judged,) = [s for s in graded if "agentloop.judge.reward" in s.attributes]
    assert judged.name == f"chat {tmp_path / 'judge.json'}"
    assert judged.attributes["gen_ai.provider.name"] == "scripted"
    assert json.loads(judged.attributes["gen_ai.output.messages"])[0]["parts"] == [
        {"type": "text", "content": "Checked. GRADE: C"}
    ]
    (top,) = [s for s in graded if s.parent_id is None]
    assert judged.parent_id == top.span_id
    line = next(x for x in read_results(run) if x["id"] == "s0000")
    label = "gen_ai.evaluation.score.label"
    labels = {e.attributes["gen_ai.evaluation.name"]: e.attributes.get(label) for e in top.events}
    assert labels == {"qa_f1_reward": None, "llm_judge": "pass"}  # no threshold, no label
    assert line["passed"] == {"llm_judge": True}
    assert main(["import", "otel", str(out), str(tmp_path / "in"), "--config", str(config)]) == 0
    (again,) = [d for d in (tmp_path / "in").iterdir() if d.is_dir()]

    def outcome(run_dir: Path) -> dict[str, Any]:
        return {x["id"]: (x["status"], x["error_kind"], x["scores"]) for x in read_results(run_dir)}

    assert outcome(again) == outcome(run)

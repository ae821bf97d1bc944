"""``agentloop run --otel``: each result's spans reach a real OTLP/HTTP receiver on 127.0.0.1
(its requests decoded with OpenTelemetry's own protobuf classes), the same spans
``agentloop export otel`` writes; with the collector down the run still finishes with every
result and one warning."""

from __future__ import annotations

import http.server
import json
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from agentloop.cli import main
from agentloop.harness.rundir._otlp_json import read_otlp
from tests.support.harness import add_setup, read_results, run_once

SECRET = "sk-live-0123456789abcdef"


class _Receiver(http.server.BaseHTTPRequestHandler):
    requests: list[ExportTraceServiceRequest]
    headers_seen: list[dict[str, str]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        assert self.path == "/v1/traces"
        assert self.headers["Content-Type"] == "application/x-protobuf"
        self.requests.append(ExportTraceServiceRequest.FromString(body))
        self.headers_seen.append(dict(self.headers))
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, type[_Receiver]]]:
    handler = type("Handler", (_Receiver,), {"requests": [], "headers_seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind)


def test_each_result_s_spans_reach_the_collector_as_export_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, receiver: tuple[str, type[_Receiver]]
) -> None:
    url, handler = receiver
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)  # + /v1/traces, as the spec says
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-team=evals")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "my-evals")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    config = add_setup(tmp_path, n=3, epochs=2, otel="content")
    data = tmp_path / "data.jsonl"
    data.write_text(data.read_text().replace("What is 0 + 1?", f"What is 0 + 1? key {SECRET}"))
    run = run_once(config)
    spans = [
        (resource, span)
        for request in handler.requests
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    assert handler.headers_seen[0]["x-team"] == "evals"
    services = {
        _value(a.value) for r, _ in spans for a in r.resource.attributes if a.key == "service.name"
    }
    assert services == {"my-evals"}
    exported = tmp_path / "export.json"
    assert main(["export", "otel", str(run), str(exported), "--content"]) == 0
    written = {s.span_id: s for s in read_otlp(exported)}
    assert len(spans) == len(written) == 6 * 4  # per trace: root, 2 chats, 1 tool
    for _, span in spans:
        same = written[span.span_id.hex()]
        assert span.trace_id.hex() == same.trace_id and span.name == same.name
        assert span.parent_span_id.hex() == (same.parent_id or "")
        assert (span.start_time_unix_nano, span.end_time_unix_nano) == (same.start_ns, same.end_ns)
        sent = {a.key: _value(a.value) for a in span.attributes}
        assert sent.items() <= same.attributes.items()  # the file's spans hold the resource's
        assert set(same.attributes) - set(sent) <= {"service.name", "agentloop.run.name"}
        assert SECRET not in json.dumps(sent)
    roots = [s for _, s in spans if not s.parent_span_id]
    assert {(e.name, len(roots)) for s in roots for e in s.events} == {
        ("gen_ai.evaluation.result", 6)
    }
    assert len(read_results(run)) == 6


def test_with_the_collector_down_the_run_finishes_with_every_result_and_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f"http://127.0.0.1:{port}/v1/traces")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "1")  # give up soon
    config = add_setup(tmp_path, n=4)
    run = run_once(config, "--otel")
    assert [x["status"] for x in read_results(run)] == ["ok"] * 4
    err = capsys.readouterr().err
    assert "agentloop: warning: otel: 16 of 16 spans were not delivered to " in err
    assert f"127.0.0.1:{port}" in err


def test_an_unknown_otel_setting_is_one_line_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=1, otel="contents")
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert err == f"agentloop: error: {config}: otel: true, false or content, not 'contents'\n"


def test_without_the_sdk_the_run_is_refused_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentloop._secrets import Scrubber
    from agentloop.errors import ConfigError
    from agentloop.harness.run._otel_live import LiveTraces

    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # import fails
    assert LiveTraces.open(False, Scrubber()) is None
    with pytest.raises(ConfigError, match=r"pip install 'agentloop\[otel\]'"):
        LiveTraces.open(True, Scrubber())


def test_a_served_episode_sends_its_spans_when_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, receiver: tuple[str, type[_Receiver]]
) -> None:
    pytest.importorskip("mcp")
    import anyio
    import httpx

    from agentloop.harness import load_config
    from agentloop.harness.run._served_episode import serve_episode
    from tests.support.harness import ROOT

    url, handler = receiver
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f"{url}/v1/traces")
    config = load_config(
        ROOT / "configs" / "bank.yaml", overrides={"output_dir": str(tmp_path), "otel": True}
    )

    async def episode() -> None:
        async with serve_episode(config, "bank-1") as served:
            server = served.server
            async with httpx.AsyncClient(headers=server.headers, base_url=server.base_url) as http:
                assert (await http.post("/score", json={"answer": "Done."})).status_code == 200

    anyio.run(episode)
    spans = [s for r in handler.requests for rs in r.resource_spans
             for sc in rs.scope_spans for s in sc.spans]  # fmt: skip
    (root,) = [s for s in spans if not s.parent_span_id]
    attributes = {a.key: _value(a.value) for a in root.attributes}
    assert attributes["agentloop.sample.id"] == "bank-1"
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert {e.name for e in root.events} == {"gen_ai.evaluation.result"}

"""OTLP JSON read back: one request or a collector file exporter's lines, every attribute type,
status codes by number or name, resource attributes on each span; what is not OTLP is one
error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentloop.errors import AgentloopError
from agentloop.harness.rundir._otlp_json import read_otlp


def _request(trace: str, status: object, **attributes: object) -> dict[str, object]:
    span = {
        "traceId": trace * 32,
        "spanId": "1" * 16,
        "name": "chat m",
        "kind": 3,
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000500000000",
        "attributes": [{"key": k, "value": v} for k, v in attributes.items()],
        "status": {"code": status, "message": "boom"},
        "events": [{"timeUnixNano": "1700000000400000000", "name": "e", "attributes": []}],
    }
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": [span]}]}]}


def test_a_collector_s_json_lines_read_with_every_attribute_type(tmp_path: Path) -> None:
    first = _request(
        "a",
        2,
        s={"stringValue": "x"},
        i={"intValue": "9007199254740993"},  # beyond a double: kept exact
        d={"doubleValue": 0.5},
        b={"boolValue": True},
        l={"arrayValue": {"values": [{"stringValue": "stop"}]}},
        kv={"kvlistValue": {"values": [{"key": "k", "value": {"intValue": "1"}}]}},
    )
    second = _request("b", "STATUS_CODE_OK", **{"service.name": {"stringValue": "mine"}})
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(first) + "\n\n" + json.dumps(second) + "\n")
    one, two = read_otlp(path)
    assert one.attributes == {
        "service.name": "svc",
        "s": "x",
        "i": 9007199254740993,
        "d": 0.5,
        "b": True,
        "l": ["stop"],
        "kv": {"k": 1},
    }
    assert (one.trace_id, one.status, one.status_message, one.kind) == ("a" * 32, 2, "boom", 3)
    assert (one.end_ns - one.start_ns, one.events[0].time_ns) == (500_000_000, 1700000000400000000)
    assert (two.status, two.attributes["service.name"]) == (1, "mine")  # the span's own wins


@pytest.mark.parametrize(
    ("text", "says"),
    [('{"spans": []}', "not OTLP JSON traces"), ("{\nnot json\n", "line 1 is not JSON")],
)
def test_what_is_not_otlp_is_one_error(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(AgentloopError, match=says):
        read_otlp(path)

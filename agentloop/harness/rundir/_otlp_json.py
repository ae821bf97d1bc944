"""OTLP JSON: spans as an ``ExportTraceServiceRequest`` in OpenTelemetry's JSON encoding, and back.

The encoding is protobuf's JSON mapping with OTLP's deviations: trace and span ids as hex (not
base64), enums as integers; 64-bit integers (times in unix nanoseconds, ``intValue``) are strings.
Attribute values are typed (``stringValue``, ``intValue``, ``doubleValue``, ``boolValue``,
``arrayValue``, ``kvlistValue``). What an OpenTelemetry Collector's file exporter writes (one
request per line) reads as well.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from agentloop._secrets import Scrubber
from agentloop._version import __version__
from agentloop.errors import AgentloopError
from agentloop.harness.rundir._genai_spans import SCHEMA_URL, Span, SpanEvent

__all__ = ["decode_value", "encode_value", "read_otlp", "spans_request", "write_otlp"]


def encode_value(value: Any) -> dict[str, Any]:
    """One attribute value, typed."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [encode_value(v) for v in value]}}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": _attributes(value)}}
    return {"stringValue": str(value)}


def decode_value(value: Mapping[str, Any]) -> Any:
    """A typed attribute value as plain Python (``bytesValue`` stays its base64 text)."""
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "arrayValue" in value:
        return [decode_value(v) for v in (value["arrayValue"] or {}).get("values") or []]
    if "kvlistValue" in value:
        return _decode_attributes((value["kvlistValue"] or {}).get("values") or [])
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def _attributes(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": encode_value(v)} for k, v in values.items() if v is not None]


def _decode_attributes(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {str(a.get("key")): decode_value(a.get("value") or {}) for a in items}


def _span(span: Span) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": span.trace_id,
        "spanId": span.span_id,
        "name": span.name,
        "kind": span.kind,
        "startTimeUnixNano": str(span.start_ns),
        "endTimeUnixNano": str(span.end_ns),
        "attributes": _attributes(span.attributes),
        "status": {"code": span.status}
        | ({"message": span.status_message} if span.status_message else {}),
    }
    if span.parent_id:
        out["parentSpanId"] = span.parent_id
    if span.events:
        out["events"] = [
            {
                "timeUnixNano": str(e.time_ns),
                "name": e.name,
                "attributes": _attributes(e.attributes),
            }
            for e in span.events
        ]
    return out


def spans_request(spans: Sequence[Span], resource: Mapping[str, Any]) -> dict[str, Any]:
    """One ``ExportTraceServiceRequest`` holding ``spans`` under one resource."""
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes(resource)},
                "scopeSpans": [
                    {
                        "scope": {"name": "agentloop", "version": __version__},
                        "spans": [_span(s) for s in spans],
                        "schemaUrl": SCHEMA_URL,
                    }
                ],
                "schemaUrl": SCHEMA_URL,
            }
        ]
    }


def write_otlp(path: Path, request: Mapping[str, Any], scrub: Scrubber) -> None:
    """``request`` as compact JSON (C-encoded: a run's spans are millions of values), every
    secret masked, via a temporary file: a reader never sees half."""
    text = scrub.json_text(json.dumps(request, ensure_ascii=False))
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _read_span(raw: Mapping[str, Any], resource: dict[str, Any]) -> Span:
    status = raw.get("status") or {}
    code = status.get("code", 0)
    if isinstance(code, str):  # protobuf's JSON mapping allows the enum's name too
        code = {"STATUS_CODE_OK": 1, "OK": 1, "STATUS_CODE_ERROR": 2, "ERROR": 2}.get(code, 0)
    kind = raw.get("kind", 0)
    return Span(
        trace_id=str(raw.get("traceId") or ""),
        span_id=str(raw.get("spanId") or ""),
        parent_id=str(raw.get("parentSpanId") or "") or None,
        name=str(raw.get("name") or ""),
        kind=kind if isinstance(kind, int) else 0,
        start_ns=_int(raw.get("startTimeUnixNano")),
        end_ns=_int(raw.get("endTimeUnixNano")),
        attributes={**resource, **_decode_attributes(raw.get("attributes") or [])},
        status=int(code),
        status_message=str(status.get("message") or ""),
        events=[
            SpanEvent(
                str(e.get("name") or ""),
                _int(e.get("timeUnixNano")),
                _decode_attributes(e.get("attributes") or []),
            )
            for e in raw.get("events") or []
        ],
    )


def _requests(path: Path) -> Iterator[Mapping[str, Any]]:
    text = path.read_text(encoding="utf-8")
    try:
        yield json.loads(text)
        return
    except ValueError:
        pass
    for n, line in enumerate(text.splitlines(), 1):  # a collector's file exporter: JSON lines
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except ValueError as exc:
            raise AgentloopError(f"{path}: line {n} is not JSON: {exc}") from None


def read_otlp(path: str | Path) -> list[Span]:
    """Every span of an OTLP JSON file (resource attributes copied onto each span, the span's
    own winning); ``AgentloopError`` when it is not OTLP JSON."""
    file = Path(path)
    if not file.is_file():
        raise AgentloopError(f"{file}: no such file")
    spans: list[Span] = []
    for request in _requests(file):
        if not isinstance(request, dict) or "resourceSpans" not in request:
            raise AgentloopError(
                f"{file}: not OTLP JSON traces (an ExportTraceServiceRequest with resourceSpans)"
            )
        for group in request.get("resourceSpans") or []:
            resource = _decode_attributes((group.get("resource") or {}).get("attributes") or [])
            for scope in group.get("scopeSpans") or group.get("instrumentationLibrarySpans") or []:
                spans.extend(_read_span(s, resource) for s in scope.get("spans") or [])
    return spans

"""A run's traces sent live over OTLP/HTTP (``otel: true``, ``agentloop run --otel``).

Each (sample, epoch)'s spans are built when its result line is written, from that line (the same
spans as ``agentloop export otel``: ``agentloop.harness.rundir._genai_spans``), and handed to the
OpenTelemetry SDK's ``BatchSpanProcessor`` with its OTLP/HTTP exporter, which sends them in the
background. The exporter reads the standard variables: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (else
``OTEL_EXPORTER_OTLP_ENDPOINT`` + ``/v1/traces``, else ``http://localhost:4318/v1/traces``),
``OTEL_EXPORTER_OTLP_(TRACES_)HEADERS``, ``..._TIMEOUT``, ``..._COMPRESSION``; the resource reads
``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES``. The lines are already scrubbed of secrets,
and so are the spans. Sending never holds a run up nor fails it: at the end the spans are flushed,
and spans the collector did not take are one warning (the results are all in the run directory,
``agentloop export otel`` writes them to a file).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agentloop._secrets import Scrubber
from agentloop._version import __version__
from agentloop.errors import ConfigError
from agentloop.harness.rundir._genai_spans import (
    CLIENT,
    ERROR,
    OK,
    SCHEMA_URL,
    Span,
    result_spans,
)

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

__all__ = ["LiveTraces"]


def _require_sdk() -> None:
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            f"otel: the OpenTelemetry SDK is not installed ({exc.name}): "
            "pip install 'agentloop[otel]'"
        ) from None


class _Counting:
    """The OTLP exporter, counting the spans it delivered."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.sent = 0
        self.endpoint = str(getattr(inner, "_endpoint", ""))

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        from opentelemetry.sdk.trace.export import SpanExportResult

        try:
            result = self.inner.export(spans)
        except Exception:  # an exporter's bug must not end the run either
            result = SpanExportResult.FAILURE
        if result is SpanExportResult.SUCCESS:
            self.sent += len(spans)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return bool(self.inner.force_flush(timeout_millis))


def _readable(span: Span, resource: Resource) -> ReadableSpan:
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

    flags = TraceFlags(TraceFlags.SAMPLED)
    trace_id = int(span.trace_id, 16)
    parent = (
        SpanContext(trace_id, int(span.parent_id, 16), is_remote=False, trace_flags=flags)
        if span.parent_id
        else None
    )
    codes = {OK: StatusCode.OK, ERROR: StatusCode.ERROR}
    code = codes.get(span.status, StatusCode.UNSET)
    return ReadableSpan(
        name=span.name,
        context=SpanContext(trace_id, int(span.span_id, 16), is_remote=False, trace_flags=flags),
        parent=parent,
        resource=resource,
        attributes=span.attributes,
        events=[Event(e.name, e.attributes, e.time_ns) for e in span.events],
        kind=SpanKind.CLIENT if span.kind == CLIENT else SpanKind.INTERNAL,
        status=Status(code, span.status_message if code is StatusCode.ERROR else None),
        start_time=span.start_ns,
        end_time=span.end_ns,
        instrumentation_scope=InstrumentationScope("agentloop", __version__, SCHEMA_URL),
    )


class LiveTraces:
    """Sends each result line's spans; ``open`` checks the SDK is there before a run starts."""

    def __init__(self, content: bool, scrub: Scrubber) -> None:
        _require_sdk()
        self.content = content
        self.scrub = scrub
        self.header: Mapping[str, Any] = {}
        self._processor: Any = None
        self._exporter: _Counting | None = None
        self._resource: Resource | None = None
        self.emitted = 0
        """Spans handed to the processor (a full queue drops some: they count as lost)."""

    @classmethod
    def open(cls, setting: bool | str, scrub: Scrubber) -> LiveTraces | None:
        """None when the config does not ask for it (``otel: false``)."""
        if setting is False:
            return None
        return cls(content=setting == "content", scrub=scrub)

    def start(self, header: Mapping[str, Any]) -> None:
        """Starts the exporter for the run ``header`` describes (run.json)."""
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        self.header = header
        resource = Resource.create({"agentloop.run.name": str(header.get("name") or "")})
        if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
            resource = resource.merge(Resource({"service.name": "agentloop"}))  # not set by env
        self._resource = resource
        self._exporter = _Counting(OTLPSpanExporter())
        self._processor = BatchSpanProcessor(self._exporter)  # type: ignore[arg-type]

    def send(self, line: str) -> None:
        """Queues the spans of one written result line (never raises on a bad line)."""
        if self._processor is None or self._resource is None:
            return
        try:
            record = json.loads(line)
            spans = result_spans(record, self.header, content=self.content, scrub=self.scrub)
        except (ValueError, TypeError, KeyError):
            return
        for span in spans:
            self._processor.on_end(_readable(span, self._resource))
        self.emitted += len(spans)

    def close(self, warn: Callable[[str], None]) -> None:
        """Flushes what is queued; one warning if the collector did not take every span."""
        if self._processor is None or self._exporter is None:
            return
        self._processor.shutdown()
        exporter, self._processor = self._exporter, None
        lost = self.emitted - exporter.sent
        if lost:
            warn(
                f"otel: {lost} of {self.emitted} spans were not delivered to "
                f"{exporter.endpoint or 'the OTLP endpoint'} (the results are all in the run "
                "directory; `agentloop export otel RUN_DIR OUT.json` writes its spans to a file)"
            )

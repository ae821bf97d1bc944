"""OpenTelemetry traces of an agent read back: per trace, the sample it names and the replies its
agent (and its simulated user) received from their models.

Three shapes of model spans are read, a trace's model spans in start order (a model span inside
another model span is the same request seen twice, by two instrumentations: the outer one counts):

- the GenAI semantic conventions (1.37 and later, what ``agentloop export otel --content`` writes):
  ``chat`` (or ``generate_content``, ``text_completion``) spans with ``gen_ai.output.messages``;
  a span under an ``invoke_agent`` span whose ``gen_ai.agent.name`` is ``simulated_user`` is
  the user's;
- OpenLLMetry's flattened attributes, which LangSmith's OpenTelemetry export and Traceloop's
  LangChain instrumentation write: ``gen_ai.completion.<i>.content``,
  ``gen_ai.completion.<i>.tool_calls.<j>.name`` / ``.arguments`` / ``.id``;
- OpenInference's, which Phoenix's instrumentations of LangChain/LangGraph and of the OpenAI
  Agents SDK write: ``LLM`` spans with ``llm.output_messages.<i>.message.content`` (or its
  text parts, ``.message.contents.<k>.message_content.text``) and
  ``llm.output_messages.<i>.message.tool_calls.<j>.tool_call.function.name`` / ``.arguments``
  / ``tool_call.id``.

Not read: contents sent as log events instead of span attributes (the conventions before 1.37,
``gen_ai.choice`` events), and the OpenAI Agents SDK's own tracing (it sends to OpenAI's trace
API, not OTLP). A trace whose model spans carry no reply contents is refused, saying so (a span
with an error status and no reply is a request that failed: it has none to read).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentloop.harness.rundir._genai_spans import ERROR, SAMPLE_ATTRIBUTE, USER_AGENT_NAME, Span

__all__ = ["TraceReplies", "read_traces"]

_MODEL_OPERATIONS = frozenset({"chat", "generate_content", "text_completion"})


@dataclass
class TraceReplies:
    """What one trace says of one (sample, epoch)."""

    trace_id: str
    sample_id: str | None = None
    epoch: int | None = None
    agent: list[dict[str, Any]] = field(default_factory=list)
    """The agent's model replies in order, as OpenAI assistant messages."""
    user: list[dict[str, Any]] = field(default_factory=list)
    """The simulated user's model replies in order."""
    tool_results: dict[str, str] = field(default_factory=dict)
    """Recorded tool results by call id (``gen_ai.tool.call.result``), where the trace has them."""
    problem: str | None = None
    """Why the trace cannot be imported (None: it can)."""


def _is_model_span(span: Span) -> bool:
    a = span.attributes
    return (
        a.get("gen_ai.operation.name") in _MODEL_OPERATIONS
        or a.get("openinference.span.kind") == "LLM"
        or any(k.startswith("gen_ai.completion.") for k in a)
    )


def _json(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _arguments_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value if value is not None else {}, ensure_ascii=False)


def _message(text: str, calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {
                "id": str(c.get("id") or f"call_{n}"),
                "type": "function",
                "function": {
                    "name": str(c.get("name") or ""),
                    "arguments": _arguments_text(c.get("arguments")),
                },
            }
            for n, c in enumerate(calls)
        ]
    return message


def _genai_reply(raw: Any) -> dict[str, Any] | None:
    messages = _json(raw)
    if not isinstance(messages, list):
        return None
    texts: list[str] = []
    calls: list[Mapping[str, Any]] = []
    for message in messages:
        for part in (message or {}).get("parts") or []:
            if part.get("type") == "text":
                texts.append(str(part.get("content") or ""))
            elif part.get("type") == "tool_call":
                calls.append(part)
    return _message("".join(texts), calls)


_INDEXED = re.compile(r"^(\d+)\.(.+)$")


def _indexed(attributes: Mapping[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """``prefix<i>.<rest>`` attributes grouped by ``i`` (``{i: {rest: value}}``)."""
    out: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, value in attributes.items():
        if key.startswith(prefix):
            found = _INDEXED.match(key[len(prefix) :])
            if found:
                out[int(found.group(1))][found.group(2)] = value
    return dict(out)


def _flat_reply(attributes: Mapping[str, Any], prefix: str, call: str) -> dict[str, Any] | None:
    """A reply written as flattened attributes: OpenLLMetry's (``prefix`` ``gen_ai.completion.``,
    ``call`` ``""``) or OpenInference's (``llm.output_messages.``, ``tool_call.function.``)."""
    choices = _indexed(attributes, prefix)
    if not choices:
        return None
    fields = choices[min(choices)]
    if prefix == "llm.output_messages.":
        fields = {k.removeprefix("message."): v for k, v in fields.items()}
    text = fields.get("content")
    if text is None:  # OpenInference's list form (the OpenAI Agents SDK's spans): text parts
        parts = _indexed(fields, "contents.")
        texts = [p.get("message_content.text") for _, p in sorted(parts.items())]
        text = "".join(t for t in texts if isinstance(t, str)) if parts else None
    calls = []
    for _, c in sorted(_indexed(fields, "tool_calls.").items()):
        name_key = f"{call}name"
        calls.append(
            {
                "id": c.get("tool_call.id") or c.get("id"),
                "name": c.get(name_key),
                "arguments": c.get(f"{call}arguments"),
            }
        )
    return _message(str(text) if text is not None else "", calls)


def _reply(span: Span) -> dict[str, Any] | None:
    a = span.attributes
    if "gen_ai.output.messages" in a:
        return _genai_reply(a["gen_ai.output.messages"])
    if any(k.startswith("llm.output_messages.") for k in a):
        return _flat_reply(a, "llm.output_messages.", "tool_call.function.")
    if any(k.startswith("gen_ai.completion.") for k in a):
        return _flat_reply(a, "gen_ai.completion.", "")
    return None


def _attribute(spans: Iterable[Span], name: str) -> Any:
    """``name`` on the first span having it; ``a.b`` also reads key ``b`` of a JSON object
    attribute ``a`` (OpenInference's ``metadata``, LangSmith's ``langsmith.metadata``)."""
    spans = list(spans)
    for span in spans:
        if name in span.attributes:
            return span.attributes[name]
    head, _, key = name.rpartition(".")
    while head:
        for span in spans:
            value = _json(span.attributes.get(head))
            if isinstance(value, dict) and key in value:
                return value[key]
        head, _, rest = head.rpartition(".")
        key = f"{rest}.{key}"
    return None


def _ancestors(span: Span, by_id: Mapping[str, Span]) -> Iterable[Span]:
    seen = set()
    parent = by_id.get(span.parent_id or "")
    while parent is not None and parent.span_id not in seen:
        seen.add(parent.span_id)
        yield parent
        parent = by_id.get(parent.parent_id or "")


def _read_trace(trace_id: str, spans: list[Span], sample_attribute: str) -> TraceReplies:
    spans.sort(key=lambda s: (s.start_ns, s.end_ns))
    by_id = {s.span_id: s for s in spans}
    roots = [s for s in spans if s.parent_id not in by_id]
    out = TraceReplies(trace_id)
    sample = _attribute(roots + spans, sample_attribute)
    if sample is None:
        out.problem = f"no span has the attribute {sample_attribute} naming its sample"
        return out
    out.sample_id = str(sample)
    epoch = _attribute(roots + spans, "agentloop.epoch")
    out.epoch = int(epoch) if isinstance(epoch, (int, str)) and str(epoch).isdigit() else None
    for span in spans:
        if span.attributes.get("gen_ai.operation.name") == "execute_tool":
            result = span.attributes.get("gen_ai.tool.call.result")
            call_id = span.attributes.get("gen_ai.tool.call.id")
            if call_id is not None and result is not None:
                out.tool_results[str(call_id)] = str(result)
        if not _is_model_span(span):
            continue
        above = list(_ancestors(span, by_id))
        if any(_is_model_span(a) for a in above):
            continue  # the same request, recorded by an outer instrumentation too
        reply = _reply(span)
        if reply is None and span.status == ERROR:
            continue  # the request failed: no reply (a replay fails there too, out of replies)
        if reply is None:
            out.problem = (
                f"model span {span.name!r} has no reply contents (export with contents: "
                "agentloop export otel --content, or your instrumentation's content capture)"
            )
            return out
        user = any(a.attributes.get("gen_ai.agent.name") == USER_AGENT_NAME for a in above)
        (out.user if user else out.agent).append(reply)
    if not out.agent:
        out.problem = "no model span (chat, LLM) with the agent's replies"
    return out


def read_traces(
    spans: Sequence[Span], sample_attribute: str = SAMPLE_ATTRIBUTE
) -> list[TraceReplies]:
    """Each trace of ``spans`` (in the order traces first appear), read back; epochs not
    recorded (``agentloop.epoch``) are numbered in start order per sample."""
    traces: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        traces[span.trace_id].append(span)
    read = [_read_trace(t, group, sample_attribute) for t, group in traces.items()]
    counted: dict[str, int] = defaultdict(int)
    for item in sorted(
        (r for r in read if r.sample_id is not None and r.epoch is None),
        key=lambda r: min(s.start_ns for s in traces[r.trace_id]),
    ):
        counted[str(item.sample_id)] += 1
        item.epoch = counted[str(item.sample_id)]
    return read

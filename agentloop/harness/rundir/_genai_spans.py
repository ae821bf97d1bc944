"""A result line as OpenTelemetry spans after the GenAI semantic conventions (semconv 1.44.0).

One trace per (sample, epoch): an ``invoke_agent`` root span for the sample; a ``chat`` span per
model request (a trajectory step: its latency, usage, finish reason); an ``execute_tool`` span
per tool call (its status; ``error.type`` when it did not succeed); the simulated user's part of
each turn as an ``invoke_agent`` span of its own (``gen_ai.agent.name: simulated_user``) with its
``chat`` and ``execute_tool`` spans; a ``chat`` span per judge request; the rewards' scores as
``gen_ai.evaluation.result`` events of the root span.

Ids are derived from the run (its name and creation time), the sample and the epoch, so the same
run gives the same ids on every export. A trajectory records how long each call took, not when it
started: the spans are laid out one after another from the sample's start, tool calls of one
request side by side. Contents (messages, tool arguments and results, the judges' replies) are
the conventions' opt-in: only with ``content=True``; whatever is emitted goes through the run's
secret scrubbing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agentloop._secrets import Scrubber
from agentloop.errors import AgentloopError
from agentloop.harness.rundir._files import RESULTS_FILE, latest_results
from agentloop.harness.rundir._header import read_header

__all__ = [
    "SAMPLE_ATTRIBUTE",
    "SCHEMA_URL",
    "SEMCONV_VERSION",
    "USER_AGENT_NAME",
    "Span",
    "SpanEvent",
    "result_spans",
    "run_identity",
    "run_spans",
    "to_genai_message",
]

SEMCONV_VERSION = "1.44.0"
"""The OpenTelemetry semantic conventions followed (the GenAI ones are "Development" there)."""
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
SAMPLE_ATTRIBUTE = "agentloop.sample.id"
"""The attribute naming a trace's sample, which an import matches with the dataset's rows."""
USER_AGENT_NAME = "simulated_user"
"""``gen_ai.agent.name`` of the simulated user's ``invoke_agent`` spans."""

INTERNAL, CLIENT = 1, 3  # OTLP SpanKind
UNSET, OK, ERROR = 0, 1, 2  # OTLP StatusCode
_BAD_CALLS = frozenset(
    {"error", "timeout", "invalid_args", "unknown_tool", "no_implementation", "malformed"}
)


@dataclass
class SpanEvent:
    name: str
    time_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class Span:
    """One span, its attribute values plain Python (str, bool, int, float, lists of them)."""

    trace_id: str
    """32 hex digits."""
    span_id: str
    """16 hex digits."""
    parent_id: str | None
    name: str
    kind: int
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    status: int = UNSET
    status_message: str = ""
    events: list[SpanEvent] = field(default_factory=list)


def run_identity(header: Mapping[str, Any]) -> str:
    """What a run's trace ids derive from: its name and creation time (run.json)."""
    return f"{header.get('name') or ''}\x00{header.get('created_at') or ''}"


def _hex(*parts: object, digits: int) -> str:
    text = "\x00".join(str(p) for p in parts)
    value = hashlib.sha256(text.encode("utf-8")).hexdigest()[:digits]
    return value if value.strip("0") else "1".zfill(digits)  # all-zero ids are invalid


def _unix_ns(stamp: str | None) -> int:
    if not stamp:
        return 0
    return int(datetime.fromisoformat(stamp).timestamp()) * 1_000_000_000


def _ns(seconds: Any) -> int:
    return max(0, round(float(seconds or 0.0) * 1e9))


def _parts(content: Any) -> list[dict[str, Any]]:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts: list[dict[str, Any]] = []
    for item in content if isinstance(content, list) else [content]:
        if isinstance(item, dict) and item.get("type") == "text":
            parts.append({"type": "text", "content": item.get("text", "")})
        elif isinstance(item, str):
            parts.append({"type": "text", "content": item})
        else:  # images, files, ...: kept as given, under a type the conventions leave open
            parts.append({"type": str(item.get("type", "unknown")), "content": item})
    return parts


def _arguments(text: Any) -> Any:
    """A call's arguments as an object where the text is one (the conventions' form), else the
    text as sent (malformed arguments stay readable)."""
    if not isinstance(text, str):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


def to_genai_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI chat message as the conventions' message (``role`` and typed ``parts``)."""
    role = str(message.get("role", "user"))
    if role == "tool":
        part = {
            "type": "tool_call_response",
            "id": message.get("tool_call_id"),
            "response": message.get("content"),
        }
        return {"role": "tool", "parts": [part]}
    parts = _parts(message.get("content"))
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": _arguments(function.get("arguments")),
            }
        )
    return {"role": "system" if role == "developer" else role, "parts": parts}


def _usage(usage: Mapping[str, Any] | None) -> dict[str, Any]:
    if not usage:
        return {}
    found = {
        "gen_ai.usage.input_tokens": usage.get("input_tokens"),
        "gen_ai.usage.output_tokens": usage.get("output_tokens"),
        "gen_ai.usage.cache_read.input_tokens": usage.get("cached_input_tokens"),
        "gen_ai.usage.cache_creation.input_tokens": usage.get("cache_write_input_tokens"),
        "gen_ai.usage.reasoning.output_tokens": usage.get("reasoning_tokens"),
    }
    return {k: int(v) for k, v in found.items() if v}


_REQUEST_PARAMS = {
    "temperature": "gen_ai.request.temperature",
    "top_p": "gen_ai.request.top_p",
    "top_k": "gen_ai.request.top_k",
    "max_tokens": "gen_ai.request.max_tokens",
    "max_completion_tokens": "gen_ai.request.max_tokens",
    "seed": "gen_ai.request.seed",
    "frequency_penalty": "gen_ai.request.frequency_penalty",
    "presence_penalty": "gen_ai.request.presence_penalty",
}


_INT_PARAMS = frozenset({"top_k", "max_tokens", "max_completion_tokens", "seed"})


def _request_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    # the conventions type these: temperature and penalties double, token counts int
    return {
        _REQUEST_PARAMS[k]: v if k in _INT_PARAMS else float(v)
        for k, v in (params or {}).items()
        if k in _REQUEST_PARAMS and isinstance(v, (int, float)) and not isinstance(v, bool)
    }


@dataclass
class _Model:
    provider: str
    name: str
    params: dict[str, Any]


def _model(spec: str | None, params: Mapping[str, Any] | None) -> _Model:
    spec = spec or ""
    provider, _, name = spec.partition(":")
    if not name:
        provider, name = "agentloop", spec
    return _Model(provider, name or "unknown", _request_params(params))


def _assistant_indices(messages: Sequence[Mapping[str, Any]], start: int, end: int) -> list[int]:
    return [i for i in range(start, end) if messages[i].get("role") == "assistant"]


def _step_messages(
    messages: Sequence[Mapping[str, Any]],
    turns: Sequence[Mapping[str, Any]],
    steps: int,
    message_key: str,
    step_key: str,
    last_failed: bool = False,
) -> list[int | None]:
    """For each step, the index of the assistant message it produced (None: none recorded).

    A turn's steps produced the turn's last assistant messages (the first ones of a turn may
    be the row's own, like τ²-bench's greeting); a request that failed (``last_failed``: it
    ends the conversation, so it is the last step) produced none.
    """
    bounds: list[tuple[int, int]] = [
        (int(t[message_key]), int(t[step_key]))
        for t in turns
        if t.get(message_key) is not None and t.get(step_key) is not None
    ] or [(0, 0)]
    out: list[int | None] = [None] * steps
    for n, (m_start, s_start) in enumerate(bounds):
        m_end, s_end = bounds[n + 1] if n + 1 < len(bounds) else (len(messages), steps)
        produced = _assistant_indices(messages, m_start, m_end)
        if n + 1 == len(bounds) and last_failed and s_end > s_start:
            s_end -= 1
        count = s_end - s_start
        mine = produced[-count:] if count else []
        for k, index in enumerate(mine):
            out[s_start + count - len(mine) + k] = index
    return out


class _Builder:
    def __init__(
        self, trace_id: str, start_ns: int, content: bool, scrub: Scrubber, sample: dict[str, Any]
    ) -> None:
        self.trace_id = trace_id
        self.cursor = start_ns
        self.content = content
        self.scrub = scrub
        self.sample = sample
        self.spans: list[Span] = []

    def span(
        self,
        key: str,
        parent: str | None,
        name: str,
        kind: int,
        duration_ns: int,
        attributes: dict[str, Any],
        *,
        start_ns: int | None = None,
    ) -> Span:
        start = self.cursor if start_ns is None else start_ns
        clean = {k: self.scrub.obj(v) for k, v in attributes.items() if v is not None}
        made = Span(
            self.trace_id,
            _hex(self.trace_id, key, digits=16),
            parent,
            name,
            kind,
            start,
            start + duration_ns,
            {**clean, **self.sample},
        )
        self.spans.append(made)
        return made

    def json(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)


def _tool_results(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        str(m.get("tool_call_id")): m.get("content") for m in messages if m.get("role") == "tool"
    }


def _chat_spans(
    b: _Builder,
    who: str,
    parent: str,
    model: _Model,
    messages: Sequence[Mapping[str, Any]],
    steps: Sequence[Mapping[str, Any]],
    produced: Sequence[int | None],
    picked: range,
) -> None:
    """The chat and execute_tool spans of ``steps[picked]``, one after another."""
    results = _tool_results(messages) if b.content else {}
    for n in picked:
        step = steps[n]
        index = produced[n]
        calls = step.get("tool_calls") or []
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": model.provider,
            "gen_ai.request.model": model.name,
            "gen_ai.response.model": model.name,
            "gen_ai.response.finish_reasons": ["tool_calls" if calls else "stop"],
            **model.params,
            **_usage(step.get("usage")),
            "agentloop.step": n,
            "agentloop.retries": step.get("retries") or None,
            "agentloop.cached": step.get("cached") or None,
        }
        if b.content and index is not None:
            attributes["gen_ai.input.messages"] = b.json(
                [to_genai_message(m) for m in messages[:index]]
            )
            reply = to_genai_message(messages[index])
            reply["finish_reason"] = attributes["gen_ai.response.finish_reasons"][0]
            attributes["gen_ai.output.messages"] = b.json([reply])
        chat = b.span(
            f"{who}/chat/{n}",
            parent,
            f"chat {model.name}",
            CLIENT,
            _ns(step.get("latency_s")),
            attributes,
        )
        if index is None:  # the request failed: nothing came back
            chat.status = ERROR
        b.cursor = chat.end_ns
        longest = 0
        for call in calls:
            status = str(call.get("status"))
            tool: dict[str, Any] = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": call.get("name"),
                "gen_ai.tool.call.id": call.get("id"),
                "gen_ai.tool.type": "function",
                "agentloop.tool.status": status,
                "error.type": (call.get("exception") or status) if status in _BAD_CALLS else None,
            }
            if b.content:
                raw = call.get("raw_args")
                args = call.get("args")
                tool["gen_ai.tool.call.arguments"] = raw if args is None else b.json(args)
                result = results.get(call.get("id"))
                if result is not None:
                    tool["gen_ai.tool.call.result"] = (
                        result if isinstance(result, str) else b.json(result)
                    )
            duration = _ns(call.get("duration_s"))
            made = b.span(
                f"{who}/tool/{n}/{call.get('id')}",
                chat.span_id,
                f"execute_tool {call.get('name')}",
                INTERNAL,
                duration,
                tool,
            )
            if status in _BAD_CALLS:
                made.status, made.status_message = ERROR, str(call.get("error") or status)[:200]
            longest = max(longest, duration)
        b.cursor += longest


def result_spans(
    line: Mapping[str, Any],
    header: Mapping[str, Any],
    *,
    content: bool = False,
    scrub: Scrubber | None = None,
) -> list[Span]:
    """The spans of one result line of the run ``header`` describes (run.json)."""
    scrub = scrub or Scrubber()
    config = header.get("config") or {}
    sample_id, epoch = str(line.get("id")), int(line.get("epoch") or 1)
    trace_id = _hex(run_identity(header), sample_id, epoch, digits=32)
    trajectory = line.get("trajectory") or {}
    messages: list[Mapping[str, Any]] = trajectory.get("messages") or []
    steps: list[Mapping[str, Any]] = trajectory.get("steps") or []
    turns: list[Mapping[str, Any]] = trajectory.get("turns") or []
    start = _unix_ns(line.get("started_at") or header.get("created_at"))
    sample = {SAMPLE_ATTRIBUTE: sample_id, "agentloop.epoch": epoch}
    b = _Builder(trace_id, start, content, scrub, sample)
    agent = _model(header.get("model") or config.get("model"), header.get("model_params"))
    name = str(header.get("name") or config.get("name") or "agentloop")
    usage = _usage(line.get("usage"))
    root_attributes: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": name,
        "gen_ai.provider.name": agent.provider,
        "gen_ai.request.model": agent.name,
        **usage,
        "agentloop.run.name": header.get("name"),
        "agentloop.status": line.get("status"),
        "agentloop.stop_reason": line.get("stop_reason") or trajectory.get("stop_reason"),
        "agentloop.cost_usd": line.get("cost_usd"),
        "error.type": line.get("error_kind") if line.get("status") == "error" else None,
    }
    stop = trajectory.get("stop_reason")
    produced = _step_messages(
        messages, turns, len(steps), "message_start", "step_start", stop == "error"
    )
    if content:  # the input: what came before the first reply (all of it without one)
        opening = next((i for i in produced if i is not None), len(messages))
        root_attributes["gen_ai.input.messages"] = b.json(
            [to_genai_message(m) for m in messages[:opening]]
        )
        if trajectory.get("final_answer") is not None:
            root_attributes["gen_ai.output.messages"] = b.json(
                [{"role": "assistant", "parts": _parts(trajectory.get("final_answer"))}]
            )
    root = b.span(
        "root",
        None,
        f"invoke_agent {name}",
        INTERNAL,
        _ns(line.get("wall_time_s")),
        root_attributes,
    )
    if line.get("status") == "error":
        root.status, root.status_message = ERROR, str(line.get("error") or "")[:200]
    user_steps: list[Mapping[str, Any]] = trajectory.get("user_steps") or []
    user_messages: list[Mapping[str, Any]] = trajectory.get("user_messages") or []
    user_produced = _step_messages(
        user_messages,
        turns,
        len(user_steps),
        "user_message_start",
        "user_step_start",
        stop == "user_error",
    )
    user_model = _model(
        (config.get("user") or {}).get("model"), (config.get("user") or {}).get("model_params")
    )
    for n, (agent_steps, user_range) in enumerate(_turn_ranges(turns, len(steps), user_steps)):
        if user_range:
            user_start = b.cursor
            user_span = b.span(
                f"user/{n}",
                root.span_id,
                f"invoke_agent {USER_AGENT_NAME}",
                INTERNAL,
                0,
                {
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": USER_AGENT_NAME,
                    "gen_ai.provider.name": user_model.provider,
                    "gen_ai.request.model": user_model.name,
                    "agentloop.turn": n,
                },
            )
            _chat_spans(
                b,
                "user",
                user_span.span_id,
                user_model,
                user_messages,
                user_steps,
                user_produced,
                user_range,
            )
            user_span.end_ns = max(b.cursor, user_start)
        _chat_spans(b, "agent", root.span_id, agent, messages, steps, produced, agent_steps)
    root.end_ns = max(root.end_ns, b.cursor)
    _judge_spans(b, root, line)
    root.events = [
        SpanEvent(e.name, e.time_ns, scrub.obj(e.attributes))
        for e in _score_events(line, root.end_ns, content)
    ]
    return b.spans


def run_spans(run_dir: Path, *, content: bool = False, scrub: Scrubber | None = None) -> list[Span]:
    """The spans of every (sample, epoch) of a run directory (the latest line of each)."""
    header = read_header(run_dir)
    source = run_dir / RESULTS_FILE
    if not source.is_file():
        raise AgentloopError(f"{run_dir}: no {RESULTS_FILE} to export")
    scrub = scrub or Scrubber()
    return [
        span
        for line in latest_results(source)
        for span in result_spans(line, header, content=content, scrub=scrub)
    ]


def _turn_ranges(
    turns: Sequence[Mapping[str, Any]], steps: int, user_steps: Sequence[Any]
) -> Iterator[tuple[range, range]]:
    """Each turn's agent steps and the user's steps before them."""
    if not turns:
        yield range(steps), range(len(user_steps))
        return
    users = [t.get("user_step_start") for t in turns]
    for n, turn in enumerate(turns):
        end = turns[n + 1]["step_start"] if n + 1 < len(turns) else steps
        u_start = users[n]
        if u_start is None:
            u_range = range(0)
        else:
            later = [u for u in users[n + 1 :] if u is not None]
            u_range = range(u_start, later[0] if later else len(user_steps))
        yield range(turn["step_start"], end), u_range


def _judge_spans(b: _Builder, root: Span, line: Mapping[str, Any]) -> None:
    for n, call in enumerate(line.get("judge_calls") or []):
        model = _model(call.get("model"), None)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": model.provider,
            "gen_ai.request.model": model.name,
            "gen_ai.response.model": model.name,
            **_usage(call.get("usage")),
            "agentloop.judge.reward": call.get("reward"),
            "agentloop.judge.draw": call.get("draw"),
            "error.type": "judge_error" if call.get("error") else None,
        }
        if b.content and call.get("reply") is not None:
            attributes["gen_ai.output.messages"] = b.json(
                [{"role": "assistant", "parts": _parts(call["reply"])}]
            )
        span = b.span(
            f"judge/{n}",
            root.span_id,
            f"chat {model.name}",
            CLIENT,
            _ns(call.get("latency_s")),
            attributes,
        )
        if call.get("error"):
            span.status, span.status_message = ERROR, str(call["error"])[:200]
        b.cursor = span.end_ns
    root.end_ns = max(root.end_ns, b.cursor)


def _score_events(line: Mapping[str, Any], at_ns: int, content: bool) -> Iterator[SpanEvent]:
    passed = line.get("passed") or {}
    for name, score in (line.get("scores") or {}).items():
        value = score.get("score") if isinstance(score, dict) else score
        attributes: dict[str, Any] = {"gen_ai.evaluation.name": name}
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            attributes["gen_ai.evaluation.score.value"] = float(value)
        if name in passed and passed[name] is not None:
            attributes["gen_ai.evaluation.score.label"] = "pass" if passed[name] else "fail"
        if content and isinstance(score, dict) and score.get("reason"):
            attributes["gen_ai.evaluation.explanation"] = str(score["reason"])
        yield SpanEvent("gen_ai.evaluation.result", at_ns, attributes)

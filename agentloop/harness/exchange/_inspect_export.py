"""A finished run as an Inspect eval log (``agentloop export inspect RUN_DIR OUT.eval``).

Built with ``inspect_ai``'s own classes and written by its ``write_eval_log`` (the ``.eval``
file is not a frozen format; its API is), so Inspect's ``read_eval_log``, its viewer and
``inspect_ai.analysis.samples_df`` read it. Each (sample, epoch) of ``results.jsonl`` (its
latest line) becomes one ``EvalSample`` with that ``epoch``:

- ``messages``: the trajectory's, as Inspect's chat messages (a tool message's error status
  as its ``error``; a malformed call's raw text as the call's ``parse_error``); ``input`` the
  messages before the first reply; ``target`` the row's ``answer`` (``""`` without one);
- ``output``: the final answer from the run's model, with the sample's token usage;
- ``scores``: one ``Score`` per reward, its value the reward's score, its explanation the
  reason, its metadata ``passed`` and the reward's ``details``;
- ``model_usage``: the agent model's tokens and cost (and the simulated user's, under its
  model's name); ``error``: an ``EvalError`` for an errored sample; ``total_time``;
- ``metadata``: the row's, plus ``agentloop`` (what Inspect's messages cannot hold: the
  trajectory's steps, turns, stop reason and the simulated user's side; the judges' recorded
  replies), which
  ``agentloop import inspect`` reads back so a round trip re-scores the same.

The log's ``results`` hold, per reward, the metrics ``mean`` (over the scored samples, as
Inspect's ``mean`` is) and ``stderr``, ``headline`` (agentloop's headline: an errored sample
counts 0) and ``pass_rate`` where the reward has a pass threshold.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentloop.errors import AgentloopError
from agentloop.harness.rundir._files import RESULTS_FILE, Scrubber, latest_results, read_json
from agentloop.harness.rundir._header import read_header

T = TypeVar("T")

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import ChatMessage, ModelUsage

__all__ = [
    "AGENTLOOP_KEY",
    "chat_messages",
    "export_inspect",
    "inspect_log",
    "outside_a_loop",
    "require_inspect",
]

AGENTLOOP_KEY = "agentloop"
"""The metadata key (of a sample and of a message) holding what Inspect's fields cannot."""
_TASK = "agentloop"
_JUDGE_FIELDS = ("judge_calls", "judge_usage", "judge_cost_usd", "judge_cost_unknown")


def require_inspect() -> None:
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise AgentloopError(
            "Inspect logs need inspect_ai: pip install 'agentloop[inspect]'"
        ) from None


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(str(part.get("text") or "") for part in content if isinstance(part, Mapping))


def _arguments(call: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """A wire call's arguments as Inspect wants them (a dict), and the raw text when it is
    not a JSON object (Inspect's ``parse_error``)."""
    raw = (call.get("function") or {}).get("arguments")
    if isinstance(raw, dict):
        return raw, None
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return parsed, None
    return {}, str(raw)


def chat_messages(wire: list[Mapping[str, Any]], model: str) -> list[ChatMessage]:
    """Stored (OpenAI wire) messages as Inspect's; what they cannot hold (the LangChain
    extras, the arguments' text as sent) goes to each message's ``metadata["agentloop"]``."""
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
    )
    from inspect_ai.tool import ToolCall, ToolCallError

    names: dict[str, str] = {}
    out: list[ChatMessage] = []
    for message in wire:
        role = message.get("role")
        keep = {k: v for k, v in message.items() if k not in ("role", "content")}
        if not isinstance(message.get("content"), str):  # None, or parts
            keep["content"] = message.get("content")
        meta = {AGENTLOOP_KEY: keep} if keep else None
        text = _text(message.get("content"))
        if role in ("system", "developer"):
            out.append(ChatMessageSystem(content=text, metadata=meta))
        elif role == "user":
            out.append(ChatMessageUser(content=text, metadata=meta))
        elif role == "assistant":
            calls = []
            for call in message.get("tool_calls") or []:
                args, error = _arguments(call)
                name = str((call.get("function") or {}).get("name") or "")
                names[str(call.get("id"))] = name
                calls.append(
                    ToolCall(
                        id=str(call.get("id")), function=name, arguments=args, parse_error=error
                    )
                )
            out.append(
                ChatMessageAssistant(
                    content=text, tool_calls=calls or None, model=model, metadata=meta
                )
            )
        elif role == "tool":
            call_id = str(message.get("tool_call_id"))
            status = ((message.get("langchain") or {}).get("status")) == "error"
            out.append(
                ChatMessageTool(
                    content=text,
                    tool_call_id=call_id,
                    function=names.get(call_id),
                    error=ToolCallError("unknown", text) if status else None,
                    metadata=meta,
                )
            )
        else:  # another message class: kept whole, shown as a user message
            out.append(ChatMessageUser(content=text, metadata={AGENTLOOP_KEY: dict(message)}))
    return out


def _usage(usage: Mapping[str, Any] | None, cost: float | None = None) -> ModelUsage:
    from inspect_ai.model import ModelUsage

    usage = usage or {}
    return ModelUsage(
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        total_tokens=int(usage.get("total_tokens") or 0),
        input_tokens_cache_read=int(usage.get("cached_input_tokens") or 0) or None,
        input_tokens_cache_write=int(usage.get("cache_write_input_tokens") or 0) or None,
        reasoning_tokens=int(usage.get("reasoning_tokens") or 0) or None,
        total_cost=cost,
    )


_LIMITS = {"token_limit": "token", "time_limit": "time", "max_rounds": "message"}


def _limit(stop: str | None, config: Mapping[str, Any]) -> Any:
    """Inspect's limit record of a sample a limit stopped (the config's value as its limit)."""
    from inspect_ai.log import EvalSampleLimit

    if stop not in _LIMITS:
        return None
    value = float(config.get(stop) or 0)  # the config field is named as the stop reason
    return EvalSampleLimit(type=_LIMITS[stop], limit=value, reason=stop)  # type: ignore[arg-type]


def _sample(
    line: Mapping[str, Any], model: str, user_model: str | None, config: Mapping[str, Any]
) -> EvalSample:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score

    raw = line.get("trajectory") or {}
    wire = list(raw.get("messages") or [])
    messages = chat_messages(wire, model)
    first_reply = next((i for i, m in enumerate(wire) if m.get("role") == "assistant"), len(wire))
    final = raw.get("final_answer")
    passed = line.get("passed") or {}
    scores = {
        key: Score(
            value=result.get("score"),
            answer=final,
            explanation=result.get("reason"),
            metadata={"passed": passed.get(key), "details": result.get("details")},
        )
        for key, result in (line.get("scores") or {}).items()
    }
    usage = {model: _usage(line.get("usage"), line.get("cost_usd"))}
    if user_model is not None and raw.get("user_usage"):
        usage[f"user:{user_model}"] = _usage(raw.get("user_usage"))
    output = ModelOutput.from_content(model, final or "")
    output.usage = usage[model]
    answer = line.get("answer")
    target: str | list[str] = (
        [str(a) for a in answer] if isinstance(answer, list) else str(answer or "")
    )
    error = None
    if line.get("status") == "error":
        kind = line.get("error_kind") or "error"
        message = f"{kind}: {line.get('error') or ''}"
        error = EvalError(message=message, traceback=message, traceback_ansi=message)
    extra = {k: v for k, v in raw.items() if k != "messages"}
    recorded = {
        "trajectory": extra if raw else None,
        "ground_truth": line.get("ground_truth"),
        "answer": answer,
        **{k: line.get(k) for k in ("status", "error", "error_kind", "reward_errors",
                                    "not_applicable", "cost_usd", "started_at")},
        **{k: line[k] for k in _JUDGE_FIELDS if k in line},
    }  # fmt: skip
    return EvalSample(
        id=str(line["id"]),
        epoch=int(line.get("epoch") or 1),
        input=messages[:first_reply] or "",
        target=target,
        messages=messages,
        output=output,
        scores=scores or None,
        metadata={**(line.get("metadata") or {}), AGENTLOOP_KEY: recorded},
        model_usage=usage,
        total_time=line.get("wall_time_s"),
        started_at=line.get("started_at"),
        error=error,
        limit=_limit(raw.get("stop_reason"), config),
    )


def _results(summary: Mapping[str, Any], samples: int, completed: int) -> Any:
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    scores = []
    for key, stats in (summary.get("rewards") or {}).items():
        metrics = {"mean": EvalMetric(name="mean", value=float(stats.get("mean") or 0.0))}
        if stats.get("headline") is not None:
            metrics["headline"] = EvalMetric(name="headline", value=float(stats["headline"]))
        if stats.get("stderr") is not None:
            metrics["stderr"] = EvalMetric(name="stderr", value=float(stats["stderr"]))
        if stats.get("pass_rate") is not None:
            metrics["pass_rate"] = EvalMetric(name="pass_rate", value=float(stats["pass_rate"]))
        scores.append(
            EvalScore(
                name=key,
                scorer=key,
                scored_samples=stats.get("count"),
                metrics=metrics,
                metadata={"better": stats.get("better", "higher")},
            )
        )
    return EvalResults(total_samples=samples, completed_samples=completed, scores=scores)


def _span(lines: list[dict[str, Any]], created: str) -> tuple[str, str]:
    """When the run's samples started and finished (ISO 8601), from their lines."""
    starts, ends = [], []
    for line in lines:
        try:
            start = datetime.fromisoformat(str(line.get("started_at")))
        except ValueError:
            continue
        starts.append(start)
        ends.append(start + timedelta(seconds=float(line.get("wall_time_s") or 0.0)))
    if not starts:
        return created, created
    return min(starts).isoformat(), max(ends).isoformat()


def inspect_log(run_dir: str | Path) -> EvalLog:
    """The run in ``run_dir`` as an Inspect ``EvalLog`` (see the module)."""
    require_inspect()
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalPlan, EvalSpec, EvalStats

    folder = Path(run_dir)
    header = read_header(folder)
    if not (folder / RESULTS_FILE).is_file():
        raise AgentloopError(f"{folder}: no {RESULTS_FILE} to export")
    config = header.get("config") or {}
    model = str(header.get("model") or config.get("model") or "none")
    user = config.get("user") or {}
    user_model = user.get("model") if isinstance(user, Mapping) else None
    lines = list(latest_results(folder / RESULTS_FILE))
    samples = [_sample(line, model, user_model, config) for line in lines]
    summary_path = folder / "summary.json"
    summary = read_json(summary_path) if summary_path.is_file() else {}
    usage: dict[str, ModelUsage] = {}
    for sample in samples:
        for name, part in sample.model_usage.items():
            usage[name] = usage[name] + part if name in usage else part
    ids = list(dict.fromkeys(s.id for s in samples))
    dataset = header.get("dataset") or {}
    spec = EvalSpec(
        created=str(header.get("created_at") or ""),
        task=str(header.get("name") or _TASK),
        dataset=EvalDataset(
            name=str(dataset.get("path") or ""),
            location=str(dataset.get("abs_path") or dataset.get("path") or ""),
            samples=len(ids),
            sample_ids=ids,
        ),
        model=model,
        model_base_url=header.get("base_url"),
        config=EvalConfig(epochs=int(config.get("epochs") or 1)),
        packages={"agentloop": str(header.get("agentloop_version") or "")},
        metadata={AGENTLOOP_KEY: {"run": folder.name, "config": config}},
    )
    failed = sum(s.error is not None for s in samples)
    started, completed = _span(lines, str(header.get("created_at") or ""))
    return EvalLog(
        status="success" if not failed or failed < len(samples) else "error",
        eval=spec,
        plan=EvalPlan(name="agentloop"),
        results=_results(summary, len(samples), len(samples) - failed),
        stats=EvalStats(
            started_at=started,
            completed_at=completed,
            model_usage=usage,
        ),
        samples=samples,
    )


def export_inspect(run_dir: str | Path, output: str | Path) -> tuple[Path, int]:
    """Write the run as an Inspect log (``.eval``, or ``.json`` by the name's suffix);
    returns the file and the number of samples. Secrets are scrubbed from every text."""
    require_inspect()
    from inspect_ai.log import EvalLog, write_eval_log

    log = inspect_log(run_dir)
    target = Path(output)
    if target.suffix not in (".eval", ".json"):
        raise AgentloopError(f"{target}: an Inspect log is named .eval or .json")
    data = Scrubber().obj(log.model_dump(mode="json", exclude_none=False))
    target.parent.mkdir(parents=True, exist_ok=True)
    outside_a_loop(write_eval_log, EvalLog.model_validate(data), str(target))
    return target, len(log.samples or [])


def outside_a_loop(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in a thread of its own: inspect_ai's synchronous log functions, called
    where an event loop runs (a notebook, an async program, Playwright's sync API), patch
    ``asyncio.run`` for the whole process (nest_asyncio), and later ``asyncio.run``s leave
    their loops open."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call, *args).result()

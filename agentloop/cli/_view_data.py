"""What the report shows, as JSON data: one run's header, summary, table rows and
sample details, or two runs joined for a comparison.

A run is its directory (its ``results.jsonl``) or one results file in it (a re-scored
``results.rescored-<ts>.jsonl``, whose summary is ``summary.rescored-<ts>.json``).
Everything is read through the harness: results by ``latest_results`` (a retried pair
counts as retried), the summary from the results file's summary (or, for a run without
one, the same ``summarize`` that writes it), the comparison by ``compare_runs``.
Conversations are rendered from the trajectory's messages alone, so runs of any shape
(several user turns included) display the same way.

A run's page also groups its rows for triage (``agentloop.cli._triage``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from langchain_core.messages import AnyMessage
from pydantic import TypeAdapter, ValidationError

from agentloop._records import RESULTS_FILE, index_results, superseded_results
from agentloop.cli._triage import Groups, histogram
from agentloop.engine._wire import EXTRA_KEY, is_wire, message_to_openai
from agentloop.errors import AgentloopError
from agentloop.harness import RunSummary, compare_runs, latest_results, summarize
from agentloop.harness.rundir._files import read_json, summary_name
from agentloop.harness.rundir._header import configured_rewards, read_header, reward_directions
from agentloop.models._reasoning import reasoning_parts

__all__ = [
    "FAILED_CALLS",
    "Report",
    "Source",
    "find_result",
    "load_comparison",
    "load_run",
    "resolve_source",
    "sample_detail",
]

Report = dict[str, Any]
"""The JSON data a report template renders: ``page`` (what to show), ``details``."""

FAILED_CALLS = frozenset({"error", "timeout", "invalid_args", "unknown_tool", "malformed"})
"""Tool-call statuses shown as failures (not_run, round_limit: never run; not failed)."""
_TEXT_CHARS = 300  # of the error and answer, searched by the table's text filter
_MESSAGES = TypeAdapter(AnyMessage)


class Source(NamedTuple):
    """What a report reads of one run: its directory and one results file in it."""

    run_dir: Path
    results: Path

    @property
    def rescored(self) -> str | None:
        """``<x>`` of a ``results.<x>.jsonl`` file (e.g. ``rescored-20260101-120000``)."""
        if self.results.name == RESULTS_FILE:
            return None
        return self.results.name.removeprefix("results.").removesuffix(".jsonl")


def resolve_source(path: str | Path) -> Source:
    """A run directory, or a results file in one (such as ``agentloop score`` writes);
    ``AgentloopError`` naming the path when it is neither."""
    target = Path(path)
    if target.is_dir():
        read_header(target)
        return Source(target, target / RESULTS_FILE)
    if not target.is_file():
        raise AgentloopError(f"{target}: no such run directory or results file")
    if summary_name(target.name) is None:
        raise AgentloopError(
            f"{target}: not a results file (results.jsonl or results.<name>.jsonl)"
        )
    try:
        read_header(target.parent)
    except AgentloopError:
        raise AgentloopError(
            f"{target}: a results file is read in its run directory, and "
            f"{target.parent} has no run.json"
        ) from None
    return Source(target.parent, target)


def _wire(item: Any) -> dict[str, Any]:
    """A stored message as an OpenAI dict without LangChain's extras (run format /1
    stored LangChain dumps: those are converted)."""
    if is_wire(item):
        message = {k: v for k, v in item.items() if k != EXTRA_KEY}
        name = (item.get(EXTRA_KEY) or {}).get("name")
        if name and "name" not in message:
            message["name"] = name
        return message
    try:
        return message_to_openai(_MESSAGES.validate_python(item))
    except ValidationError:
        return {"role": "unknown", "content": json.dumps(item, ensure_ascii=False)}


def _arguments(raw: Any) -> Any:
    """A call's arguments parsed for pretty-printing; the raw text when not JSON."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _messages(trajectory: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The conversation with each tool call's outcome (status, duration, error) beside it."""
    records = {
        call.get("id"): call
        for step in trajectory.get("steps") or []
        for call in step.get("tool_calls") or []
    }
    out = []
    for item in trajectory.get("messages") or []:
        message = _wire(item)
        reasoning = reasoning_parts(item) if isinstance(item, Mapping) else []
        if reasoning:
            message["reasoning"] = reasoning
        calls = []
        for call in message.pop("tool_calls", None) or []:
            function = call.get("function") or {}
            record = records.get(call.get("id")) or {}
            calls.append(
                {
                    "id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": _arguments(function.get("arguments")),
                    "status": record.get("status"),
                    "duration_s": record.get("duration_s"),
                    "error": record.get("error"),
                    "exception": record.get("exception"),
                    "traceback": record.get("traceback"),
                }
            )
        if calls:
            message["tool_calls"] = calls
        if message.get("role") == "tool":
            record = records.get(message.get("tool_call_id")) or {}
            message["status"] = record.get("status")
            message["error"] = record.get("error")
            message.setdefault("name", record.get("name"))
        out.append(message)
    return out


_USER_SIDE = {
    "system": ("system", "user instructions"),
    "assistant": ("user", "simulated user"),
    "user": ("assistant", "agent"),
}


def _user_side(trajectory: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A simulated user's own view (``user_messages``), its roles turned back to who spoke:
    its replies are the user's, the texts it was shown the agent's; ``who`` names them."""
    side = {"messages": trajectory.get("user_messages"), "steps": trajectory.get("user_steps")}
    out = []
    for message in _messages(side):
        role, who = _USER_SIDE.get(str(message.get("role")), (message.get("role"), None))
        out.append({**message, "role": role, "who": who} if who else message)
    return out


def sample_detail(line: Mapping[str, Any]) -> dict[str, Any]:
    """One result line as the sample view shows it."""
    trajectory = line.get("trajectory") or {}
    passed = line.get("passed") or {}
    scores = {
        key: {**result, "passed": passed.get(key)}
        for key, result in (line.get("scores") or {}).items()
    }
    detail = {
        key: line.get(key)
        for key in (
            "id", "epoch", "status", "error", "error_kind", "mode", "single_turn",
            "stop_reason", "rounds", "tool_calls_by_status", "usage", "cost_usd", "cost_unknown",
            "wall_time_s",
            "started_at", "answer", "ground_truth", "metadata",
        )
    }  # fmt: skip
    detail["id"] = str(line["id"])
    detail["scores"] = scores
    detail["final_answer"] = trajectory.get("final_answer")
    detail["messages"] = _messages(trajectory)
    detail["stop_signal"] = trajectory.get("stop_signal")
    if trajectory.get("user_messages"):
        detail["user_messages"] = _user_side(trajectory)
    if trajectory.get("turns"):  # where each turn starts (its state snapshot is left out)
        detail["turns"] = [
            {"message_start": turn.get("message_start")}
            for turn in trajectory["turns"]
            if isinstance(turn, dict)
        ]
    return detail


def _row(line: Mapping[str, Any], rewards: list[str]) -> list[Any]:
    """One table row: id, epoch, status, error kind, scores, verdicts, rounds, stop
    reason, tool calls, failed calls, latency, searchable text, cost (USD; null: unknown)."""
    scores = line.get("scores") or {}
    passed = line.get("passed") or {}
    calls = line.get("tool_calls_by_status") or {}
    answer = ((line.get("trajectory") or {}).get("final_answer")) or ""
    text = " ".join([str(line["id"]), str(line.get("error") or "")[:_TEXT_CHARS], answer])
    return [
        str(line["id"]),
        int(line["epoch"]),
        line.get("status"),
        line.get("error_kind"),
        [scores[k]["score"] if k in scores else None for k in rewards],
        [passed.get(k) for k in rewards],
        line.get("rounds"),
        line.get("stop_reason"),
        sum(calls.values()),
        sum(n for status, n in calls.items() if status in FAILED_CALLS),
        line.get("wall_time_s"),
        text[: _TEXT_CHARS * 2].lower(),
        line.get("cost_usd"),
    ]


def _header(source: Source, header: Mapping[str, Any]) -> dict[str, Any]:
    config = header.get("config") or {}
    return {
        "dir": str(source.run_dir),
        "name": header.get("name"),
        "results_file": source.results.name,
        "rescored": source.rescored,
        "created_at": header.get("created_at"),
        "resumed": len(header.get("resumed_at") or []),
        "model": header.get("model"),
        "model_params": header.get("model_params"),
        "pricing": header.get("pricing"),
        "config_path": header.get("config_path"),
        "description": config.get("description"),
        "mode": config.get("mode"),
        "epochs": config.get("epochs"),
        "dataset": header.get("dataset"),
        "versions": header.get("versions"),
        "planned": header.get("planned"),
        "config": config,
    }


def _summary(source: Source, header: Mapping[str, Any]) -> RunSummary:
    """The results file's summary (``summary.json``, or a re-scored file's own) when it
    counts the file's lines; otherwise (a run killed before its end, or since resumed, or
    a summary written before an agentloop that had all of its fields) the summary the
    harness would write now: ``summarize`` over the latest results, as ``agentloop
    summary`` computes it."""
    index = index_results(source.results)
    written_path = source.run_dir / str(summary_name(source.results.name))
    if written_path.is_file():
        raw = read_json(written_path)
        try:
            written = RunSummary.model_validate(raw)
        except ValidationError:  # written by an earlier agentloop: computed anew below
            written = None
        if (
            written is not None
            and set(RunSummary.model_fields) <= set(raw)
            and (written.results, written.superseded) == (len(index.latest), index.superseded)
        ):
            return written
    summary = summarize(
        latest_results(source.results, index),
        epochs=int((header.get("config") or {}).get("epochs") or 1),
        planned=(header.get("planned") or {}).get("results"),
        superseded=superseded_results(source.results, index),
        rewards=configured_rewards(header) if source.results.name == RESULTS_FILE else (),
        dataset=(header.get("config") or {}).get("dataset"),
        cluster_by=(header.get("config") or {}).get("cluster_by"),
        better=reward_directions(header),
    )
    summary.notes.append(f"computed by agentloop view: {written_path.name} is missing or older")
    return summary


def load_run(path: str | Path) -> Report:
    """One run's report data (a run directory, or a results file in one);
    ``AgentloopError`` when it is neither.

    Lines are streamed: each becomes its table row and its sample view's data, and the
    long provider metadata of its messages is left behind."""
    source = resolve_source(path)
    header = read_header(source.run_dir)
    summary = _summary(source, header)
    rewards = list(summary.rewards)
    rows, details = [], []
    lower = {key for key, stats in summary.rewards.items() if stats.better == "lower"}
    groups = Groups(list(summary.by_metadata), lower)
    for i, line in enumerate(latest_results(source.results)):
        # A reward only in some lines (e.g. never scored ok) gets a column too.
        rewards.extend(key for key in line.get("scores") or {} if key not in rewards)
        rows.append(_row(line, rewards))
        details.append(sample_detail(line))
        groups.add(i, line)
    statuses = [row[2] for row in rows]
    page = {
        "kind": "run",
        "failed_calls": sorted(FAILED_CALLS),
        "header": _header(source, header),
        "summary": summary.model_dump(mode="json"),
        "rewards": rewards,
        "rows": rows,
        "histograms": {
            key: histogram([row[4][n] if n < len(row[4]) else None for row in rows], statuses)
            for n, key in enumerate(rewards)
        },
        "failures": groups.failure_list(),
        "metadata_rows": groups.metadata,
    }
    return {"page": page, "details": details}


class _Side(NamedTuple):
    """One run's result of a sample, as the comparison uses it."""

    verdict: tuple[Any, Any]
    row: list[Any]
    detail: dict[str, Any]


def load_comparison(run_a: str | Path, run_b: str | Path) -> Report:
    """Two runs joined by (id, epoch): deltas from ``compare_runs``, the samples whose
    verdict (status or pass/fail) changed first, then those whose score changed."""
    source_a, source_b = resolve_source(run_a), resolve_source(run_b)
    header_a, header_b = read_header(source_a.run_dir), read_header(source_b.run_dir)
    comparison = compare_runs(run_a, run_b)
    rewards = [delta.reward for delta in comparison.rewards]
    by_pair: dict[tuple[str, int], list[_Side | None]] = {}
    for side, source in enumerate((source_a, source_b)):
        for line in latest_results(source.results):
            pair = (str(line["id"]), int(line["epoch"]))
            verdict = (line.get("status"), line.get("passed") or {})
            entry = _Side(verdict, _row(line, rewards), sample_detail(line))
            by_pair.setdefault(pair, [None, None])[side] = entry
    score_changed = {(c.id, c.epoch) for c in comparison.changed}

    def change(pair: tuple[str, int], a: _Side | None, b: _Side | None) -> int:
        """2: the status or a pass/fail verdict changed (or one run lacks the sample);
        1: only a score changed; 0: the same."""
        if (a and a.verdict) != (b and b.verdict):
            return 2
        return 1 if pair in score_changed else 0

    joined = [(change(pair, a, b), pair, a, b) for pair, (a, b) in by_pair.items()]
    joined.sort(key=lambda item: -item[0])  # stable: file order within each group
    rows = [[pair[0], pair[1], rank, a and a.row, b and b.row] for rank, pair, a, b in joined]
    details = [[a and a.detail, b and b.detail] for _, _, a, b in joined]
    page = {
        "kind": "compare",
        "failed_calls": sorted(FAILED_CALLS),
        "headers": [_header(source_a, header_a), _header(source_b, header_b)],
        "comparison": comparison.model_dump(mode="json", exclude={"changed"}),
        "changed": len(comparison.changed),
        "rewards": rewards,
        "rows": rows,
    }
    return {"page": page, "details": details}


def find_result(run: str | Path, sample_id: str, epoch: int | None = None) -> dict[str, Any]:
    """The latest result line of a sample (its first epoch unless ``epoch`` is given) in a
    run directory, or in a results file in one."""
    source = resolve_source(run)
    found = None
    for line in latest_results(source.results):
        if str(line["id"]) != sample_id or (epoch is not None and int(line["epoch"]) != epoch):
            continue
        if found is None or int(line["epoch"]) < int(found["epoch"]):
            found = line
    if found is None:
        which = f"sample {sample_id!r}" + (f" epoch {epoch}" if epoch is not None else "")
        raise AgentloopError(f"{source.results}: no result for {which}")
    return found

"""AgentDojo's own run logs read back (``agentloop agentdojo import LOGDIR OUTDIR``).

AgentDojo's benchmark writes one JSON log per (pipeline, suite, user task, attack, injection
task): ``LOGDIR/<pipeline>/<suite>/<user task>/<attack or none>/<injection task or none>.json``
with the conversation (``messages``), the ``injections``, ``utility`` and ``security``, and,
in recent versions, ``benchmark_version``. Every such file under LOGDIR becomes:

- a row of ``OUTDIR/data.jsonl`` (its id the log's path under LOGDIR without ``.json``): the
  log's own system and user messages, the environment spec (``agentdojo_rows``) with the log's
  injections, so the environment is the one the log's run had; ``metadata`` as an
  ``agentdojo:`` row's (``kind`` from the log), plus ``pipeline``, ``recorded_utility`` and
  ``recorded_security`` (the log's verdicts, beside agentloop's in the results), and
  ``ground_truth.agentdojo_log.tool_outputs``: what each recorded call's result read (its
  error, else its text), which the rewards compare with the regenerated ones;
- its assistant replies in ``OUTDIR/scripts.json`` (for ``scripted:``): each reply's text and
  calls (ids, names, arguments as recorded);
- ``OUTDIR/eval.yaml``: a config that runs them on AgentDojo's environment with both rewards
  and AgentDojo's loop settings.

The benchmark version is the log's ``benchmark_version`` where it has one, else ``version``
(older logs carry none). A log of a pipeline with a defense agentloop runs
(``spotlighting_with_delimiting``, ``repeat_user_prompt``, ``tool_filter``: the pipeline's name
ends ``-<defense>``) keeps it. A log of the detector's (``transformers_pi_detector``) is replayed
without the detector: the recorded replies decide the calls and the answer, so AgentDojo's
checks need no classifier; the detector's verdicts are taken from the log, not recomputed (the
calls whose result it replaced with its placeholder, the environment's ``detector_verdicts``),
and ``metadata.defense`` keeps its name. Every log that can be imported is; one that cannot (a
task its version lacks, no user message, ...) is listed with the reason
(:class:`LogImport`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agentloop.benchmarks.agentdojo._env import DETECTOR, detected_text
from agentloop.benchmarks.agentdojo._package import DEFAULT_VERSION, load_suite
from agentloop.errors import DatasetError

__all__ = ["LOG_DEFENSES", "LogImport", "find_logs", "import_logs", "log_case"]

LOG_DEFENSES = (
    "tool_filter",
    "transformers_pi_detector",
    "spotlighting_with_delimiting",
    "repeat_user_prompt",
)
"""AgentDojo's defenses, as its pipelines' names end (``<model>-<defense>``)."""
_RUN = ("spotlighting_with_delimiting", "repeat_user_prompt", "tool_filter")


def find_logs(logdir: str | Path) -> Iterator[Path]:
    """The AgentDojo logs under ``logdir`` (JSON files with ``suite_name`` and ``messages``),
    in path order."""
    root = Path(logdir)
    if not root.is_dir():
        raise DatasetError(f"{root}: not a directory")
    for path in sorted(root.rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "suite_name" in data and "messages" in data:
            yield path


def _text(content: Any) -> str | None:
    """A logged message's text: its text blocks (new logs), or the string (old logs)."""
    if content is None or isinstance(content, str):
        return content
    return "\n".join(
        str(block.get("content") or "")
        for block in content
        if isinstance(block, dict) and block.get("type", "text") == "text"
    )


def _reply(message: dict[str, Any], index: int) -> Any:
    calls = message.get("tool_calls") or []
    if not calls:
        return _text(message.get("content")) or ""
    made = []
    for k, call in enumerate(calls):
        made.append(
            {
                "id": call.get("id") or f"call_{index}_{k}",
                "type": "function",
                "function": {
                    "name": call["function"],
                    "arguments": json.dumps(call.get("args") or {}),
                },
            }
        )
    return {"role": "assistant", "content": _text(message.get("content")), "tool_calls": made}


def _defense(pipeline: str) -> str | None:
    return next((d for d in LOG_DEFENSES if pipeline.endswith(f"-{d}")), None)


def _detector_verdicts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per recorded call, in order: its name, arguments, and whether the detector replaced
    its result with its placeholder (its verdict: an injection)."""
    calls = {
        str(call.get("id")): call
        for m in messages
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    }
    placeholder = detected_text()
    verdicts = []
    for message in messages:
        if message.get("role") != "tool":
            continue
        call = calls.get(str(message.get("tool_call_id"))) or message.get("tool_call") or {}
        verdicts.append(
            {
                "function": call.get("function"),
                "args": call.get("args") or {},
                "detected": not message.get("error")
                and _text(message.get("content")) == placeholder,
            }
        )
    return verdicts


def log_case(
    path: Path, logdir: Path, version: str = DEFAULT_VERSION
) -> tuple[dict[str, Any], list[Any]]:
    """One log as (row, replies); see the module."""
    where = str(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    version = data.get("benchmark_version") or version
    suite_name, task_id = data["suite_name"], data.get("user_task_id")
    if not isinstance(task_id, str):
        raise DatasetError(f"{where}: the log has no user_task_id")
    suite = load_suite(version, suite_name)
    if task_id not in suite.user_tasks and task_id not in suite.injection_tasks:
        raise DatasetError(
            f"{where}: AgentDojo {suite_name} {version} has no task {task_id!r} "
            "(give the version the log was run with: --version)"
        )
    injection = data.get("injection_task_id")
    if injection is not None and injection not in suite.injection_tasks:
        raise DatasetError(
            f"{where}: AgentDojo {suite_name} {version} has no injection task {injection!r}"
        )
    messages = data.get("messages") or []
    system = next((_text(m["content"]) for m in messages if m.get("role") == "system"), None)
    prompt = next((_text(m["content"]) for m in messages if m.get("role") == "user"), None)
    if prompt is None:
        raise DatasetError(f"{where}: the log has no user message")
    pipeline = str(data.get("pipeline_name") or "")
    defense = _defense(pipeline)
    environment: dict[str, Any] = {
        "suite": suite_name,
        "version": version,
        "user_task": task_id,
        "injection_task": injection,
        "injections": data.get("injections") or {},
    }
    kind = (
        "attacked"
        if injection
        else ("injection_task" if task_id in suite.injection_tasks else "user_task")
    )
    metadata: dict[str, Any] = {
        "suite": suite_name,
        "version": version,
        "user_task": task_id,
        "injection_task": injection,
        "attack": data.get("attack_type") or "none",
        "kind": kind,
        "pipeline": pipeline,
        "recorded_utility": data.get("utility"),
        "recorded_security": data.get("security") if injection else None,
    }
    if defense in _RUN:
        environment["defense"] = defense
    elif defense == DETECTOR:  # replayed without it: its verdicts from the log
        environment["detector_verdicts"] = _detector_verdicts(messages)
    if defense is not None:
        metadata["defense"] = defense
    outputs = {
        str(m.get("tool_call_id")): m.get("error") or _text(m.get("content")) or ""
        for m in messages
        if m.get("role") == "tool"
    }
    row = {
        "id": path.relative_to(logdir).with_suffix("").as_posix(),
        "messages": [
            *([{"role": "system", "content": system}] if system is not None else []),
            {"role": "user", "content": prompt},
        ],
        "environment": environment,
        "ground_truth": {"agentdojo_log": {"tool_outputs": outputs}},
        "metadata": metadata,
    }
    replies = [_reply(m, i) for i, m in enumerate(messages) if m.get("role") == "assistant"]
    return row, replies


def _config(count: int) -> dict[str, Any]:
    return {
        "description": f"AgentDojo's own logs ({count}), their replies replayed and re-scored",
        "model": "scripted:scripts.json",
        "dataset": "data.jsonl",
        "environment": "agentloop.benchmarks:agentdojo_environment",
        "max_rounds": 15,
        "tool_execution": "sequential",
        "max_tool_output_chars": None,
        "rewards": [
            "agentloop.benchmarks:agentdojo_utility",
            "agentloop.benchmarks:agentdojo_security",
        ],
        "pass_threshold": {"agentloop.benchmarks:agentdojo_utility": 1.0},
    }


@dataclass
class LogImport:
    """What ``import_logs`` did."""

    imported: int = 0
    """Logs written as rows."""
    detector: int = 0
    """Of those, logs of the detector's pipeline (its verdicts taken from the log)."""
    refused: list[tuple[str, str]] = field(default_factory=list)
    """Logs not imported: (path, reason)."""


def import_logs(
    logdir: str | Path, outdir: str | Path, version: str = DEFAULT_VERSION
) -> LogImport:
    """Every log under ``logdir`` that can be imported written to ``outdir`` (data.jsonl,
    scripts.json, eval.yaml; nothing when none can), the others listed with the reason."""
    root, out = Path(logdir), Path(outdir)
    rows, scripts, done = [], {}, LogImport()
    for path in find_logs(root):
        try:
            row, replies = log_case(path, root, version)
        except DatasetError as exc:
            reason = str(exc).removeprefix(f"{path}: ")
            done.refused.append((str(path), reason))
            continue
        rows.append(row)
        scripts[row["id"]] = replies
        done.detector += row["metadata"].get("defense") == DETECTOR
    done.imported = len(rows)
    if not rows:
        if not done.refused:
            raise DatasetError(
                f"{root}: no AgentDojo logs (JSON files with suite_name and messages)"
            )
        return done
    out.mkdir(parents=True, exist_ok=True)
    (out / "data.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    (out / "scripts.json").write_text(
        json.dumps(scripts, ensure_ascii=False, indent=1), encoding="utf-8"
    )
    (out / "eval.yaml").write_text(
        yaml.safe_dump(_config(len(rows)), sort_keys=False), encoding="utf-8"
    )
    return done

"""τ²-bench's own results files read back and re-scored (``agentloop tau2 import RESULTS OUTDIR``).

A τ²-bench run writes its ``Results``: ``info`` (the domain in ``environment_info.domain_name``,
the agent, the user, ``num_trials``), ``tasks`` (the task definitions it ran) and
``simulations``, one per task and trial, each with its ``messages`` (τ²-bench's: ``assistant``
and ``user`` messages with their ``tool_calls`` (``requestor`` the side), ``tool`` messages
answering them), its ``termination_reason`` and its ``reward_info``. Either as one JSON file
or in τ²-bench's directory format (``results.json`` and ``simulations/<id>.json``).

Every simulation is scored again by ``tau2_score`` (the scoring core of ``tau2_verdict``) on
the conversation it recorded, as ``tau2 evaluate-trajs --fresh-tasks`` scores it: under the
current task definitions (task set ``1.0.1``, the task of the same id; a task the set does
not have keeps the file's own definition, as τ²-bench keeps it; ``tasks="embedded"``: the
file's own definitions, τ²-bench's default without ``--fresh-tasks``), on a fresh environment
where the recorded calls run again. The conversation is not run again: a re-score, not a
replay, so a simulation that ended on a limit (``max_steps``, ``too_many_errors``, an error)
keeps its termination reason and scores 0, as τ²-bench scores it. The messages of a task's
``message_history`` (the conversation's opening, which the environment's initial state
already holds) are not replayed twice.

NL assertions: re-scoring them needs an LLM judge; the grades τ²-bench's judge recorded in the
simulation's ``reward_info.nl_assertions`` are used (``nl_source: "recorded"``), and a
simulation whose task grades them without recorded grades is not re-scored (its ``error``
says so).

Each simulation becomes one :class:`Rescored` (``OUTDIR/rescored.jsonl``): τ²-bench's recorded
reward beside agentloop's, and what τ²-bench would record instead of a reward
(``tau2_error``: an env assertion that raised, an infrastructure error to its runner).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agentloop.benchmarks.tau2._data import (
    KNOWLEDGE_DOMAIN,
    TASK_SET,
    check_tau2_domain,
    domain_policy,
    domain_tasks,
    tau2_row,
)
from agentloop.benchmarks.tau2._verdict import CheckResult, Conversation, tau2_score
from agentloop.errors import DatasetError

__all__ = [
    "INFRASTRUCTURE_ERROR",
    "TASK_SOURCES",
    "Rescored",
    "format_rescored",
    "load_tau2_results",
    "rescore_tau2_results",
    "simulation_conversation",
    "write_rescored",
]

TASK_SOURCES = ("current", "embedded")
"""Which task definitions a re-score uses: the current task set's, or the file's own."""
INFRASTRUCTURE_ERROR = "infrastructure_error"
"""τ²-bench's termination reason for a simulation its metrics leave out."""
RESCORED_FILE = "rescored.jsonl"


@dataclass
class Rescored:
    """One simulation of a τ²-bench results file, scored again."""

    simulation_id: str
    task_id: str
    trial: int | None
    domain: str
    termination_reason: str
    task_source: str
    """``1.0.1`` (the current task set's definition) or ``embedded`` (the file's own)."""
    recorded_reward: float | None
    """τ²-bench's reward as the file records it (None when it records none)."""
    reward: float | None
    """agentloop's (``tau2_score``); None when the simulation could not be re-scored."""
    reason: str = ""
    tau2_error: str | None = None
    """What τ²-bench records instead of a reward, where it would (an env assertion raised)."""
    nl_source: str | None = None
    """``recorded`` when the NL assertions' grades are the ones τ²-bench's judge recorded."""
    error: str | None = None
    """Why the simulation was not re-scored."""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        """agentloop's reward equals the recorded one (both successes or the same value)."""
        return (
            self.reward is not None
            and self.recorded_reward is not None
            and abs(self.reward - self.recorded_reward) <= 1e-6
        )


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read: {exc.strerror}") from None
    except ValueError as exc:
        raise DatasetError(f"{path}: not JSON: {exc}") from None


def load_tau2_results(path: str | Path) -> dict[str, Any]:
    """A τ²-bench results file as JSON: one file, or its directory format (``results.json``
    beside ``simulations/``, or the directory holding both), simulations read in."""
    source = Path(path)
    meta_path = source / "results.json" if source.is_dir() else source
    if not meta_path.is_file():
        raise DatasetError(f"{meta_path}: no τ²-bench results file")
    data = _read(meta_path)
    if not isinstance(data, dict) or "info" not in data or "tasks" not in data:
        raise DatasetError(f"{meta_path}: not a τ²-bench results file (no info and tasks)")
    folder = meta_path.parent / "simulations"
    if not data.get("simulations") and folder.is_dir():
        data["simulations"] = [_read(p) for p in sorted(folder.glob("*.json"))]
    return data


def _domain(data: Mapping[str, Any], where: str) -> str:
    try:
        domain = str(data["info"]["environment_info"]["domain_name"])
    except (KeyError, TypeError):
        raise DatasetError(f"{where}: info.environment_info.domain_name is missing") from None
    try:
        check_tau2_domain(domain)
    except DatasetError as exc:
        raise DatasetError(f"{where}: {exc}") from None
    return domain


def _opening(task: Mapping[str, Any]) -> int:
    history = (task.get("initial_state") or {}).get("message_history") or []
    return len(history)


def simulation_conversation(simulation: Mapping[str, Any], task: Mapping[str, Any]) -> Conversation:
    """What ``tau2_score`` reads of a recorded simulation: its calls of both sides in order
    (the task's message history left out: the environment's initial state has it), the
    agent's texts, the transcript and the termination reason."""
    messages = list(simulation.get("messages") or [])[_opening(task) :]
    answered = {str(m.get("id")) for m in messages if m.get("role") == "tool"}
    calls: list[tuple[str, str, dict[str, Any], bool]] = []
    texts: list[str] = []
    transcript: list[tuple[str, str]] = []
    for message in messages:
        role = str(message.get("role"))
        if role == "system":
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        transcript.append((role, text if text.strip() else "None"))
        if role == "assistant":
            texts.append(text)
        for call in message.get("tool_calls") or []:
            side = "user" if (call.get("requestor") or role) == "user" else "assistant"
            calls.append(
                (
                    side,
                    str(call["name"]),
                    dict(call.get("arguments") or {}),
                    str(call.get("id")) in answered,
                )
            )
    return Conversation(
        stop_reason=str(simulation.get("termination_reason")),
        calls=calls,
        agent_texts=texts,
        transcript=transcript,
    )


def _recorded_nl(simulation: Mapping[str, Any]) -> list[CheckResult] | None:
    checks = (simulation.get("reward_info") or {}).get("nl_assertions")
    if not checks:
        return None
    return [
        CheckResult(
            item=str(c.get("nl_assertion")),
            met=bool(c.get("met")),
            reason=str(c.get("justification") or ""),
        )
        for c in checks
    ]


def _needs_nl(task: Mapping[str, Any], conversation: Conversation) -> bool:
    criteria = task.get("evaluation_criteria") or {}
    basis = criteria.get("reward_basis") or ["DB", "COMMUNICATE"]
    return (
        conversation.stop_reason in ("user_stop", "agent_stop")
        and "NL_ASSERTION" in basis
        and bool(criteria.get("nl_assertions"))
    )


def rescore_tau2_results(path: str | Path, *, tasks: str = "current") -> list[Rescored]:
    """Every simulation of a τ²-bench results file scored again (see the module)."""
    if tasks not in TASK_SOURCES:
        raise ValueError(f"unknown task source {tasks!r}; known: {', '.join(TASK_SOURCES)}")
    where = str(path)
    data = load_tau2_results(path)
    domain = _domain(data, where)
    embedded = {str(t["id"]): t for t in data.get("tasks") or []}
    current = {}
    if tasks == "current":
        current = {str(t["id"]): t for t in domain_tasks(domain, every=True, task_set=TASK_SET)}
    policy = domain_policy(domain, task_set=TASK_SET)
    # banking_knowledge: the retrieval configuration the run had (τ²-bench records it in info)
    options = {"retrieval_config": data["info"].get("retrieval_config")}
    if domain != KNOWLEDGE_DOMAIN:
        options = {}
    rows: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {}
    out = []
    for index, simulation in enumerate(data.get("simulations") or []):
        task_id = str(simulation.get("task_id"))
        if task_id not in rows:
            if task_id in current:
                task, source = current[task_id], TASK_SET
            elif task_id in embedded:
                task, source = embedded[task_id], "embedded"
            else:
                raise DatasetError(
                    f"{where}: simulation {index + 1} is of task {task_id!r}, which neither "
                    f"the file nor task set {TASK_SET} has"
                )
            rows[task_id] = (source, task, tau2_row(domain, task, policy, TASK_SET, **options))
        source, task, row = rows[task_id]
        recorded = simulation.get("reward_info") or {}
        item = Rescored(
            simulation_id=str(simulation.get("id")),
            task_id=task_id,
            trial=simulation.get("trial"),
            domain=domain,
            termination_reason=str(simulation.get("termination_reason")),
            task_source=source,
            recorded_reward=recorded.get("reward") if recorded else None,
            reward=None,
        )
        if simulation.get("messages") is None:
            item.error = "no messages (a full-duplex simulation, recorded as ticks)"
            out.append(item)
            continue
        conversation = simulation_conversation(simulation, task)
        nl = None
        if _needs_nl(task, conversation):
            nl = _recorded_nl(simulation)
            if nl is None:
                item.error = "the task grades NL assertions, and the file records no grades"
                out.append(item)
                continue
            item.nl_source = "recorded"
        result = tau2_score(conversation, row, nl_checks=nl)
        item.reward, item.reason = result.score, result.reason
        item.tau2_error = result.details.tau2_error
        item.details = result.details.model_dump(mode="json")
        out.append(item)
    return out


def write_rescored(items: Iterable[Rescored], outdir: str | Path) -> Path:
    """The re-scored simulations as ``OUTDIR/rescored.jsonl`` (one line each)."""
    folder = Path(outdir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RESCORED_FILE
    path.write_text(
        "".join(
            json.dumps({**asdict(i), "agrees": i.agrees}, ensure_ascii=False) + "\n" for i in items
        ),
        encoding="utf-8",
    )
    return path


def _pass_hat(trials: Mapping[str, list[bool]]) -> dict[int, float]:
    from agentloop.benchmarks.tau2._summary import pass_hat_k

    kept = [t for t in trials.values() if t]
    if not kept:
        return {}
    fewest = min(len(t) for t in kept)
    return {
        k: sum(pass_hat_k(len(t), sum(t), k) for t in kept) / len(kept)
        for k in range(1, fewest + 1)
    }


def _figures(items: Sequence[Rescored], recorded: bool, every: bool = False) -> str:
    """Average reward and pass^k as τ²-bench's metrics compute them: a simulation it records
    as an infrastructure error (or, re-scored, one whose env assertion raised) left out;
    ``every``: agentloop's rule instead, every simulation counted, such a one as failed."""
    trials: dict[str, list[bool]] = defaultdict(list)
    rewards = []
    for item in items:
        reward = item.recorded_reward if recorded else item.reward
        left_out = item.termination_reason == INFRASTRUCTURE_ERROR or (
            not recorded and item.tau2_error is not None
        )
        if every and (reward is None or left_out):
            reward = 0.0
        elif reward is None or left_out:
            continue
        rewards.append(reward)
        trials[item.task_id].append(abs(reward - 1.0) <= 1e-6)
    if not rewards:
        return "no simulation scored"
    ks = ", ".join(f"pass^{k} {v:.3f}" for k, v in _pass_hat(trials).items())
    return f"average reward {sum(rewards) / len(rewards):.3f} ({len(rewards)} simulations), {ks}"


def format_rescored(items: Sequence[Rescored], limit: int = 20) -> str:
    """Per domain: τ²-bench's recorded figures, agentloop's (by τ²-bench's rule and by its
    own), how many rewards agree, and each difference (the first ``limit``)."""
    by_domain: dict[str, list[Rescored]] = defaultdict(list)
    for item in items:
        by_domain[item.domain].append(item)
    lines = []
    for domain, group in by_domain.items():
        same = sum(i.agrees for i in group)
        unscored = [i for i in group if i.reward is None]
        lines += [
            f"{domain}: {len(group)} simulations, {len({i.task_id for i in group})} tasks; "
            f"agentloop's reward equals τ²-bench's recorded one on {same}",
            f"  τ²-bench (recorded): {_figures(group, recorded=True)}",
            f"  agentloop (re-scored, τ²-bench's rule): {_figures(group, recorded=False)}",
            "  agentloop (re-scored, agentloop's rule: every simulation, an infrastructure "
            f"error failed): {_figures(group, recorded=False, every=True)}",
        ]
        if unscored:
            lines.append(f"  not re-scored: {len(unscored)} ({unscored[0].error})")
        differ = [i for i in group if i.reward is not None and not i.agrees]
        for item in differ[:limit]:
            lines.append(
                f"  task {item.task_id} trial {item.trial}: recorded {item.recorded_reward}, "
                f"agentloop {item.reward}: {item.reason}"
            )
        if len(differ) > limit:
            lines.append(f"  ... and {len(differ) - limit} more (see {RESCORED_FILE})")
    return "\n".join(lines)

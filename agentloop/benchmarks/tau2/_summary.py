"""τ²-bench's metrics of a run (its summary's ``benchmarks.tau2``) or of several (``agentloop
tau2 summary``), as τ²-bench reports them, beside agentloop's own reading of the same results,
each labelled.

Per run and domain (a result's ``metadata.domain``), from each (task, trial)'s latest result
and its ``tau2_verdict`` score:

- **agentloop** (its headline rule): every result counts; one that errored, or has no verdict
  score, is a failed trial with reward 0. pass^k = the mean over tasks of C(c, k) / C(n, k)
  (c of a task's n trials passed), for k = 1 to the run's epochs.
- **τ²-bench** (``tau2.metrics.agent_metrics.compute_metrics``): a simulation its runner
  records as an infrastructure error is left out: a result that errored (τ²-bench's runner
  retries a simulation that raises, then records that), and one whose verdict says τ²-bench's
  evaluator would raise (``details.tau2_error``: an env assertion that raised). The average
  reward is the mean reward of the rest; a success is a reward of 1 (within 1e-6); pass^k is
  the mean over tasks of C(c, k) / C(n, k) with n a task's remaining trials, for k up to the
  fewest trials a task has left.
- **Comparable with τ²-bench's leaderboard** when the run is its standard setup: task set
  ``1.0.1``, every task of the domain's ``base`` split, at least 4 trials, τ²-bench's user
  (``openai:gpt-4.1-2025-04-14`` at temperature 0, with the shipped configs' guidelines), no
  agent stop signal, and no infrastructure error; otherwise the summary says what differs,
  the two kinds apart: errored results (``--retry-errors`` runs them again) and env
  assertions that raised (a scored outcome of the agent's, which no retry runs again).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentloop._records import RESULTS_FILE, latest_results
from agentloop.benchmarks.tau2._data import TASK_SET, domain_tasks
from agentloop.errors import AgentloopError

__all__ = [
    "DomainMetrics",
    "Tau2Summary",
    "format_tau2_summary",
    "summarize_tau2",
    "tau2_domains",
]

VERDICT = "agentloop.benchmarks:tau2_verdict"
STANDARD_USER = "openai:gpt-4.1-2025-04-14"
STANDARD_TRIALS = 4
_GUIDELINES = ("user_instructions.md", "user_instructions_tools.md")


def pass_hat_k(trials: int, successes: int, k: int) -> float:
    """τ²-bench's pass^k of one task: C(successes, k) / C(trials, k)."""
    return math.comb(successes, k) / math.comb(trials, k)


def _mean_pass_hat(outcomes: Mapping[str, list[bool]], max_k: int) -> dict[int, float]:
    tasks = [trials for trials in outcomes.values() if trials]
    if not tasks:
        return {}
    return {
        k: sum(pass_hat_k(len(t), sum(t), k) for t in tasks) / len(tasks)
        for k in range(1, max_k + 1)
    }


class DomainMetrics(BaseModel):
    """One domain of one run, read both ways (see the module doc)."""

    run: str
    domain: str
    task_set: str | None
    tasks: int
    results: int
    errored: int
    """Results that errored (an infrastructure error to τ²-bench)."""
    tau2_errors: int
    """Results whose verdict says τ²-bench's evaluator would raise (an env assertion)."""
    average_reward: float
    """agentloop's: the mean verdict over every result, an errored one 0."""
    pass_hat_k: dict[int, float]
    """agentloop's pass^k: every trial, an errored one failed."""
    tau2_simulations: int
    """The results τ²-bench's metrics keep."""
    tau2_average_reward: float | None
    tau2_pass_hat_k: dict[int, float]
    comparable: bool
    why_not: list[str] = []
    """What keeps the run from being comparable with τ²-bench's leaderboard."""


class Tau2Summary(BaseModel):
    domains: list[DomainMetrics] = []


def _verdict(line: Mapping[str, Any]) -> Mapping[str, Any] | None:
    score = (line.get("scores") or {}).get(VERDICT)
    return score if isinstance(score, Mapping) else None


def _why_not(
    header: Mapping[str, Any],
    domain: str,
    task_set: str | None,
    tasks: int,
    trials: int,
    errored: int,
    raised: int,
) -> list[str]:
    config = header.get("config") or {}
    user = config.get("user") or {}
    why = []
    if task_set != TASK_SET:
        why.append(f"task set {task_set} (the leaderboard runs {TASK_SET})")
    expected = len(domain_tasks(domain, task_set=TASK_SET))
    if tasks < expected:
        why.append(f"{tasks} of the {expected} tasks")
    if trials < STANDARD_TRIALS:
        why.append(f"{trials} trial(s) per task (at least {STANDARD_TRIALS})")
    if user.get("model") != STANDARD_USER or (user.get("model_params") or {}).get(
        "temperature"
    ) not in (0, 0.0):
        why.append(f"user {user.get('model')} (τ²-bench's: {STANDARD_USER} at temperature 0)")
    if not str(user.get("instructions") or "").endswith(_GUIDELINES):
        why.append("not the shipped user guidelines")
    if user.get("agent_stop_signals"):
        why.append("an agent stop signal (τ²-bench's agent has none)")
    if errored:  # what --retry-errors runs again
        why.append(f"{errored} errored result(s) (run them again: --retry-errors)")
    if raised:  # the agent's outcome, scored: a retry has nothing to run
        why.append(
            f"{raised} τ²-bench infrastructure error(s): an env assertion raised on "
            "what the agent left undone (τ²-bench's evaluator raises; scored 0 here, "
            "not an errored result, so --retry-errors does not run it again)"
        )
    return why


def tau2_domains(
    header: Mapping[str, Any], results: Iterable[Mapping[str, Any]], run: str
) -> list[DomainMetrics]:
    """The metrics of each domain of one run's latest results (``header``: its run.json;
    ``run``: its name in the figures); empty when no result is a τ²-bench one."""
    return list(_domains(header, results, run))


def _domains(
    header: Mapping[str, Any], results: Iterable[Mapping[str, Any]], run: str
) -> Iterable[DomainMetrics]:
    by_domain: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for line in results:
        domain = (line.get("metadata") or {}).get("domain")
        if domain is not None and (_verdict(line) is not None or line.get("status") == "error"):
            by_domain[str(domain)].append(line)
    epochs = int((header.get("config") or {}).get("epochs") or 1)
    for domain, lines in by_domain.items():
        ours: dict[str, list[bool]] = defaultdict(list)
        theirs: dict[str, list[bool]] = defaultdict(list)
        rewards, kept_rewards = [], []
        errored = tau2_errors = 0
        task_sets = {(line.get("metadata") or {}).get("task_set") for line in lines}
        for line in lines:
            task = str(line["id"])
            verdict = _verdict(line)
            failed = line.get("status") == "error" or verdict is None
            reward = 0.0 if verdict is None else float(verdict.get("score", 0.0))
            success = not failed and abs(reward - 1.0) <= 1e-6
            rewards.append(0.0 if failed else reward)
            ours[task].append(success)
            raised = verdict is not None and (verdict.get("details") or {}).get("tau2_error")
            if line.get("status") == "error":
                errored += 1
            elif raised:
                tau2_errors += 1
            else:
                kept_rewards.append(reward)
                theirs[task].append(success)
        task_set = task_sets.pop() if len(task_sets) == 1 else None
        fewest = min((len(t) for t in theirs.values() if t), default=0)
        trials = min(len(t) for t in ours.values())
        why = _why_not(header, domain, task_set, len(ours), trials, errored, tau2_errors)
        yield DomainMetrics(
            run=run,
            domain=domain,
            task_set=task_set,
            tasks=len(ours),
            results=len(lines),
            errored=errored,
            tau2_errors=tau2_errors,
            average_reward=sum(rewards) / len(rewards),
            pass_hat_k=_mean_pass_hat(ours, min(epochs, trials)),
            tau2_simulations=len(kept_rewards),
            tau2_average_reward=sum(kept_rewards) / len(kept_rewards) if kept_rewards else None,
            tau2_pass_hat_k=_mean_pass_hat(theirs, fewest),
            comparable=not why,
            why_not=why,
        )


def summarize_tau2(run_dirs: Sequence[str | Path]) -> Tau2Summary:
    """τ²-bench's metrics of each run directory's τ²-bench results, per domain."""
    summary = Tau2Summary()
    for run_dir in map(Path, run_dirs):
        if not (run_dir / RESULTS_FILE).is_file():
            raise AgentloopError(f"{run_dir}: no results file ({RESULTS_FILE}) found")
        header_path = run_dir / "run.json"
        header = (
            json.loads(header_path.read_text(encoding="utf-8")) if header_path.is_file() else {}
        )
        found = tau2_domains(header, latest_results(run_dir / RESULTS_FILE), str(run_dir))
        if not found:
            raise AgentloopError(f"{run_dir}: no τ²-bench results ({VERDICT} scores)")
        summary.domains.extend(found)
    return summary


def _k(values: Mapping[int, float]) -> str:
    return ", ".join(f"pass^{k} {v:.3f}" for k, v in values.items()) or "-"


def format_tau2_summary(summary: Tau2Summary) -> str:
    """The summary as text: per run and domain, agentloop's figures, τ²-bench's, and whether
    they compare with τ²-bench's leaderboard."""
    out = []
    for m in summary.domains:
        theirs = "-" if m.tau2_average_reward is None else f"{m.tau2_average_reward:.3f}"
        out += [
            f"{m.run}: {m.domain} (task set {m.task_set}), {m.tasks} tasks, {m.results} results",
            f"  agentloop (every trial; errored ones failed): average reward "
            f"{m.average_reward:.3f}, {_k(m.pass_hat_k)}",
            f"  τ²-bench (infrastructure errors left out: {m.errored} errored, {m.tau2_errors} "
            f"env assertion(s) raised; {m.tau2_simulations} simulations): average reward "
            f"{theirs}, {_k(m.tau2_pass_hat_k)}",
            "  comparable with τ²-bench's leaderboard"
            if m.comparable
            else "  not comparable with τ²-bench's leaderboard: " + "; ".join(m.why_not),
        ]
    return "\n".join(out)

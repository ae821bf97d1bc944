"""An agentloop τ²-bench run written as τ²-bench's own results file, and as a leaderboard
submission (``agentloop tau2 export RUN_DIR OUT.json [--submission DIR]``).

**The results file** is τ²-bench's ``Results`` JSON (its monolithic format, what ``tau2 run``
saves): ``info`` (``environment_info`` with the domain and its policy; the agent and the user
as ``llm_agent`` and ``user_simulator`` with their models, an ``openai:`` spec's name bare,
another ``provider/name``, and parameters; ``num_trials`` the run's epochs; ``max_steps`` and
``max_errors`` the user's limits; ``git_commit`` names agentloop and its version), ``tasks``
(the task definitions of the run's task set, as τ²-bench's files hold them, for the tasks the
run has) and one ``simulations`` entry per result (the latest of each (sample, epoch)):

- ``task_id``, ``trial`` (the epoch, from 0), ``start_time``, ``end_time``, ``duration``,
  ``agent_cost`` (the run's ``cost_usd``);
- ``messages``: the conversation as τ²-bench records it: the agent's greeting (or the task's
  ``message_history``), then in order the user's messages (its tool calls, ``requestor:
  "user"``, and their results, then its text) and the agent's (texts, tool calls and their
  results, ``error`` true for a call that failed), merged from the agent's view and the
  simulated user's;
- ``termination_reason``: ``user_stop`` and ``agent_stop`` as recorded; ``max_steps``,
  ``too_many_errors``, ``user_error`` too; a model error ``agent_error``; a time limit
  ``timeout``, a token limit ``context_window_exceeded``, agentloop's round or turn caps
  ``max_steps``. A result that errored, or whose verdict says τ²-bench's evaluator would
  raise (``tau2_error``: an env assertion that raised), is ``infrastructure_error``: what
  τ²-bench's runner records there, left out of its metrics (agentloop's headline counts it
  as failed; ``tau2 summary`` shows both). agentloop's own reason is kept in ``info``;
- ``reward_info``: ``tau2_verdict``'s result in τ²-bench's fields (``reward``, ``db_check``,
  ``env_assertions``, ``action_checks`` with each tool's type, ``communicate_checks``,
  ``nl_assertions``, ``reward_basis``, ``reward_breakdown``).

**The submission** (``--submission DIR``), per the official repository's
``docs/leaderboard-submission.md``: ``DIR/trajectories/<OUT's name>`` (the results file) and
``DIR/submission.json``, whose ``results.<domain>`` holds pass^1..pass^4 in percent as
τ²-bench's metrics compute them (infrastructure errors left out; ``null`` past the fewest
trials a task has) and the average agent cost. Exporting another domain's run into the same
DIR adds that domain. The submission says how it was made: ``submission_type: "custom"``
(agentloop's loop stands in for τ²-bench's orchestrator; the leaderboard's maintainers decide),
``methodology`` with the task set, the user's model and the notes, and
``verification.omitted_questions`` true when tasks of the domain's ``base`` split are missing.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from agentloop._content import content_text
from agentloop._records import RESULTS_FILE, latest_results
from agentloop.benchmarks.tau2._data import (
    AGENT_GREETING,
    KNOWLEDGE_DOMAIN,
    TASK_SET,
    domain_policy,
    domain_tasks,
    tau2_row,
)
from agentloop.benchmarks.tau2._env import DOMAINS
from agentloop.errors import AgentloopError

__all__ = ["export_tau2_run", "submission_results", "termination_reason", "write_submission"]

VERDICT = "agentloop.benchmarks:tau2_verdict"
INFRASTRUCTURE_ERROR = "infrastructure_error"
_SAME = frozenset({"user_stop", "agent_stop", "max_steps", "too_many_errors", "user_error"})
_MAPPED = {
    "error": "agent_error",
    "time_limit": "timeout",
    "token_limit": "context_window_exceeded",
    "max_rounds": "max_steps",
    "max_turns": "max_steps",
}
_LEADERBOARD_DOMAINS = ("retail", "airline", "telecom", "banking_knowledge")


def termination_reason(line: Mapping[str, Any]) -> str:
    """τ²-bench's termination reason for an agentloop result (see the module)."""
    verdict = (line.get("scores") or {}).get(VERDICT) or {}
    if line.get("status") == "error" or (verdict.get("details") or {}).get("tau2_error"):
        return INFRASTRUCTURE_ERROR
    stop = str(line.get("stop_reason") or (line.get("trajectory") or {}).get("stop_reason"))
    if stop in _SAME:
        return stop
    return _MAPPED.get(stop, "unexpected_error")


def _model_name(spec: Any) -> str | None:
    if not isinstance(spec, str):
        return None
    provider, colon, name = spec.partition(":")
    if not colon:
        return spec
    return name if provider == "openai" else f"{provider}/{name}"


def _text(message: Mapping[str, Any]) -> str | None:
    content = message.get("content")
    if content is None:
        return None
    return content if isinstance(content, str) else content_text(content)


def _calls(message: Mapping[str, Any], requestor: str) -> list[dict[str, Any]] | None:
    calls = message.get("tool_calls") or []
    if not calls:
        return None
    out = []
    for call in calls:
        function = call.get("function") or {}
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError:
            arguments = {}
        out.append(
            {
                "id": str(call.get("id") or ""),
                "name": str(function.get("name")),
                "arguments": arguments if isinstance(arguments, dict) else {},
                "requestor": requestor,
            }
        )
    return out


def _statuses(steps: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    return {str(c["id"]): str(c.get("status")) for s in steps for c in s.get("tool_calls") or []}


def _message(
    message: Mapping[str, Any], side: str, failed: Mapping[str, str]
) -> dict[str, Any] | None:
    """One wire message of ``side``'s view (``assistant``: the agent's, ``user``: the
    simulated user's) as τ²-bench's message, or None for a message τ²-bench does not record
    (system prompts, the other side's texts as shown)."""
    role = message.get("role")
    if role == "tool":
        call_id = str(message.get("tool_call_id"))
        return {
            "id": call_id,
            "role": "tool",
            "content": _text(message) or "",
            "requestor": side,
            "error": failed.get(call_id) not in (None, "ok"),
        }
    speaker = "assistant" if side == "assistant" else "user"
    if role == "assistant":  # the side's own reply
        return {"role": speaker, "content": _text(message), "tool_calls": _calls(message, side)}
    return None


def _user_groups(trajectory: Mapping[str, Any]) -> list[list[dict[str, Any]]]:
    """The simulated user's messages, in groups each ending with a text the agent received."""
    failed = _statuses(trajectory.get("user_steps") or [])
    groups: list[list[dict[str, Any]]] = [[]]
    for message in trajectory.get("user_messages") or []:
        made = _message(message, "user", failed)
        if made is None:
            continue
        groups[-1].append(made)
        if made["role"] == "user" and not made["tool_calls"]:
            groups.append([])
    return groups


def tau2_messages(
    trajectory: Mapping[str, Any], opening: int, history: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The conversation as τ²-bench records it (see the module); ``opening``: how many of the
    agent's messages are the row's own (system prompt and greeting or history)."""
    failed = _statuses(trajectory.get("steps") or [])
    messages = trajectory.get("messages") or []
    out: list[dict[str, Any]] = [dict(m) for m in history]
    if not history:
        greeting = next(
            (_text(m) for m in messages[:opening] if m.get("role") == "assistant"), AGENT_GREETING
        )
        out.append({"role": "assistant", "content": greeting, "tool_calls": None})
    groups = _user_groups(trajectory)
    has_user = bool(trajectory.get("user_messages"))
    for message in messages[opening:]:
        if message.get("role") == "user":
            if has_user and groups and groups[0]:
                out += groups.pop(0)
            else:
                out.append({"role": "user", "content": _text(message), "tool_calls": None})
            continue
        made = _message(message, "assistant", failed)
        if made is not None:
            out.append(made)
    for group in groups:  # calls after the user's last text (a limit ended the conversation)
        out += group
    for index, made in enumerate(out):
        made["turn_idx"] = index
    return out


def _tool_types(domain: str) -> dict[tuple[str, str], str]:
    _, agent, _, user = DOMAINS[domain]()
    types = {}
    for side, toolkit in (("assistant", agent), ("user", user)):
        if toolkit is not None:
            for name in toolkit.tool_names():
                types[side, name] = str(toolkit.info(name).kind)
    return types


def _reward_info(
    verdict: Mapping[str, Any] | None, task: Mapping[str, Any], types: Mapping[Any, str]
) -> dict[str, Any]:
    if not verdict:
        return {"reward": 0.0, "reward_basis": None, "info": {"note": "no verdict (errored)"}}
    details = verdict.get("details") or {}
    criteria = task.get("evaluation_criteria") or {}
    info: dict[str, Any] = {"agentloop_reason": verdict.get("reason")}
    reward: dict[str, Any] = {"reward": float(verdict.get("score") or 0.0), "info": info}
    if details.get("db_match") is not None:
        reward["db_check"] = {
            "db_match": bool(details["db_match"]),
            "db_reward": 1.0 if details["db_match"] else 0.0,
        }
    assertions = criteria.get("env_assertions") or []
    if details.get("env_assertions"):
        reward["env_assertions"] = [
            {"env_assertion": a, "met": c["met"], "reward": 1.0 if c["met"] else 0.0}
            for a, c in zip(assertions, details["env_assertions"], strict=False)
        ]
    actions = criteria.get("actions") or []
    if details.get("actions"):
        reward["action_checks"] = [
            {
                "action": a,
                "action_match": c["matched"],
                "action_reward": 1.0 if c["matched"] else 0.0,
                "tool_type": types.get((a.get("requestor") or "assistant", a["name"])),
            }
            for a, c in zip(actions, details["actions"], strict=False)
        ]
    if details.get("communicate"):
        reward["communicate_checks"] = [
            {"info": c["item"], "met": c["met"], "justification": c["reason"]}
            for c in details["communicate"]
        ]
    if details.get("nl_assertions"):
        reward["nl_assertions"] = [
            {"nl_assertion": c["item"], "met": c["met"], "justification": c["reason"]}
            for c in details["nl_assertions"]
        ]
    if details.get("reward_basis"):
        reward["reward_basis"] = list(details["reward_basis"])
        reward["reward_breakdown"] = dict(details.get("breakdown") or {})
    else:
        reward["reward_basis"] = None
    if details.get("tau2_error"):
        info["tau2_error"] = details["tau2_error"]
    return reward


def _times(line: Mapping[str, Any]) -> tuple[str, str, float]:
    duration = float(line.get("wall_time_s") or 0.0)
    started = str(line.get("started_at") or "1970-01-01T00:00:00+00:00")
    try:
        end = (datetime.fromisoformat(started) + timedelta(seconds=duration)).isoformat()
    except ValueError:
        end = started
    return started, end, duration


def _header(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "run.json"
    if not path.is_file():
        raise AgentloopError(f"{run_dir}: no run header (run.json)")
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _run_lines(run_dir: Path) -> tuple[str, str, list[dict[str, Any]]]:
    if not (run_dir / RESULTS_FILE).is_file():
        raise AgentloopError(f"{run_dir}: no results file ({RESULTS_FILE}) found")
    lines = [
        line
        for line in latest_results(run_dir / RESULTS_FILE)
        if (line.get("metadata") or {}).get("domain") is not None
    ]
    if not lines:
        raise AgentloopError(f"{run_dir}: no τ²-bench results (rows of a tau2: dataset)")
    domains = sorted({str(line["metadata"]["domain"]) for line in lines})
    task_sets = sorted({str(line["metadata"].get("task_set") or TASK_SET) for line in lines})
    if len(domains) > 1 or len(task_sets) > 1:
        raise AgentloopError(
            f"{run_dir}: results of {', '.join(domains)} (task sets {', '.join(task_sets)}); "
            "a τ²-bench results file holds one domain of one task set"
        )
    return domains[0], task_sets[0], lines


def _version() -> str:
    try:
        return importlib.metadata.version("agentloop")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def export_tau2_run(run_dir: str | Path) -> dict[str, Any]:
    """A run directory's τ²-bench results as τ²-bench's ``Results`` JSON (see the module)."""
    folder = Path(run_dir)
    header = _header(folder)
    domain, task_set, lines = _run_lines(folder)
    config = header.get("config") or {}
    user = config.get("user") or {}
    tasks = {str(t["id"]): t for t in domain_tasks(domain, every=True, task_set=task_set)}
    policy = domain_policy(domain, task_set=task_set)
    types = _tool_types(domain)
    order = {task_id: index for index, task_id in enumerate(tasks)}

    def task_of(line: Mapping[str, Any]) -> str:
        return str(line["metadata"].get("task_id", line["id"]))

    # τ²-bench's order: the task file's, then the trial
    lines.sort(key=lambda x: (order.get(task_of(x), -1), int(x.get("epoch") or 1)))
    # banking_knowledge: the run's retrieval configuration, which makes the agent's policy
    retrieval = {str(x["metadata"].get("retrieval_config")) for x in lines}
    options: dict[str, Any] = {}
    if domain == KNOWLEDGE_DOMAIN:
        if len(retrieval) != 1:
            raise AgentloopError(
                f"{folder}: results of several retrieval configurations "
                f"({', '.join(sorted(retrieval))})"
            )
        options["retrieval_config"] = retrieval.pop()
        first = tasks[task_of(lines[0])]
        system = tau2_row(domain, first, policy, task_set, **options)["messages"][0]["content"]
        policy = system.partition("<policy>\n")[2].removesuffix("\n</policy>")
    simulations = []
    openings: dict[str, int] = {}
    for line in lines:
        task_id = task_of(line)
        task = tasks.get(task_id)
        if task is None:
            raise AgentloopError(
                f"{folder}: task {task_id!r} is not in τ²-bench {domain} task set {task_set}"
            )
        if task_id not in openings:
            row = tau2_row(domain, task, policy, task_set, **options)
            openings[task_id] = len(row["messages"])
        history = (task.get("initial_state") or {}).get("message_history") or []
        trajectory = line.get("trajectory") or {}
        started, ended, duration = _times(line)
        verdict = (line.get("scores") or {}).get(VERDICT)
        reason = termination_reason(line)
        simulations.append(
            {
                "id": str(
                    uuid.uuid5(
                        uuid.NAMESPACE_URL,
                        f"agentloop:{folder.name}/{line['id']}/{line.get('epoch')}",
                    )
                ),
                "task_id": task_id,
                "timestamp": started,
                "start_time": started,
                "end_time": ended,
                "duration": duration,
                "termination_reason": reason,
                "agent_cost": line.get("cost_usd"),
                "user_cost": None,
                "reward_info": _reward_info(verdict, task, types),
                "messages": tau2_messages(trajectory, openings[task_id], history),
                "trial": int(line.get("epoch") or 1) - 1,
                "seed": None,
                "info": {
                    "agentloop_id": line["id"],
                    "agentloop_status": line.get("status"),
                    "agentloop_stop_reason": line.get("stop_reason"),
                    "agentloop_error": line.get("error"),
                },
            }
        )
    instructions = user.get("instructions")
    return {
        "timestamp": header.get("created_at"),
        "info": {
            "git_commit": f"agentloop {_version()}",
            "num_trials": int(config.get("epochs") or 1),
            "max_steps": int(user.get("max_steps") or 200),
            "max_errors": int(user.get("max_errors") or 10),
            "user_info": {
                "implementation": "user_simulator",
                "llm": _model_name(user.get("model")),
                "llm_args": dict(user.get("model_params") or {}),
                # a config's own text, not a file it names ("@file": a path of this machine)
                "global_simulation_guidelines": instructions
                if isinstance(instructions, str) and not instructions.startswith("@")
                else None,
            },
            "agent_info": {
                "implementation": "llm_agent",
                "llm": _model_name(config.get("model") or header.get("model")),
                "llm_args": dict(config.get("model_params") or {}),
            },
            "environment_info": {"domain_name": domain, "policy": policy},
            "seed": config.get("seed"),
            **options,
        },
        "tasks": [tasks[t] for t in tasks if t in openings],
        "simulations": simulations,
    }


def _pass_hat(results: Mapping[str, Any]) -> dict[int, float]:
    """τ²-bench's pass^k of a results file (``compute_metrics``: infrastructure errors left
    out, k up to the fewest trials a task has left and the file's ``num_trials``)."""
    trials: dict[str, list[bool]] = defaultdict(list)
    for sim in results["simulations"]:
        if sim["termination_reason"] == INFRASTRUCTURE_ERROR:
            continue
        reward = (sim.get("reward_info") or {}).get("reward")
        trials[sim["task_id"]].append(reward is not None and abs(reward - 1.0) <= 1e-6)
    if not trials:
        return {}
    top = min(min(len(t) for t in trials.values()), int(results["info"]["num_trials"]))
    return {
        k: math.fsum(math.comb(sum(t), k) / math.comb(len(t), k) for t in trials.values())
        / len(trials)
        for k in range(1, top + 1)
    }


def submission_results(results: Mapping[str, Any]) -> dict[str, Any]:
    """A results file's figures as a submission's ``results.<domain>``: pass^1..pass^4 in
    percent (``None`` past the trials there are) and the average agent cost."""
    ks = _pass_hat(results)
    costs = [
        s["agent_cost"]
        for s in results["simulations"]
        if s["termination_reason"] != INFRASTRUCTURE_ERROR and s.get("agent_cost") is not None
    ]
    figures: dict[str, Any] = {f"pass_{k}": ks[k] * 100 if k in ks else None for k in range(1, 5)}
    figures["cost"] = sum(costs) / len(costs) if costs else None
    return figures


def check_submission(results: Mapping[str, Any]) -> str:
    """The results file's domain; AgentloopError (one line) when the leaderboard has none
    such."""
    domain = str(results["info"]["environment_info"]["domain_name"])
    if domain not in _LEADERBOARD_DOMAINS:
        raise AgentloopError(
            f"τ²-bench's leaderboard has no {domain} domain (it ranks "
            f"{', '.join(_LEADERBOARD_DOMAINS)})"
        )
    return domain


def write_submission(
    results: Mapping[str, Any],
    results_name: str,
    folder: str | Path,
    *,
    model_name: str | None = None,
    organization: str | None = None,
    submitter: str | None = None,
    email: str | None = None,
) -> Path:
    """Add a results file's domain to the submission in ``folder`` (created when absent):
    ``trajectories/<results_name>`` and ``submission.json`` (see the module)."""
    root = Path(folder)
    domain = check_submission(results)
    (root / "trajectories").mkdir(parents=True, exist_ok=True)
    (root / "trajectories" / results_name).write_text(
        json.dumps(results, indent=2, ensure_ascii=False)
    )
    path = root / "submission.json"
    info = results["info"]
    agent_llm = info["agent_info"].get("llm") or "unknown"
    org = organization or "unknown"
    submission: dict[str, Any] = (
        json.loads(path.read_text(encoding="utf-8"))
        if path.is_file()
        else {
            "model_name": model_name or agent_llm,
            "model_organization": org,
            "submitting_organization": submitter or org,
            "submission_date": datetime.now(timezone.utc).date().isoformat(),
            "contact_info": {"email": email} if email else {},
            "submission_type": "custom",
            "trajectories_available": True,
            "trajectory_files": {},
            "results": {},
            "methodology": {
                "evaluation_date": str(results.get("timestamp") or "")[:10] or None,
                "tau2_bench_version": TASK_SET,
                "user_simulator": info["user_info"].get("llm"),
                "notes": f"Run with agentloop ({info['git_commit']}), whose loop and simulated "
                "user stand in for τ²-bench's orchestrator, with τ²-bench's agent system "
                "prompt, tools, user guidelines and evaluator reimplemented; exported with "
                "agentloop tau2 export.",
                "verification": {"modified_prompts": False, "omitted_questions": False},
            },
        }
    )
    submission["trajectory_files"][domain] = results_name
    submission["results"][domain] = submission_results(results)
    if domain == KNOWLEDGE_DOMAIN:  # required there by the submission's schema
        submission["results"][domain]["retrieval_config"] = info.get("retrieval_config")
    expected = {str(t["id"]) for t in domain_tasks(domain, task_set=TASK_SET)}
    if not expected <= {str(t["id"]) for t in results["tasks"]}:
        submission["methodology"]["verification"]["omitted_questions"] = True
    path.write_text(json.dumps(submission, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path

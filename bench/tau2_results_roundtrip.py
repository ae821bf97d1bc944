"""τ²-bench's results files, in and out: agentloop's export and import against τ²-bench's own code.

For each domain and kind (``canonical``: the ground-truth actions, twice per task (2 epochs);
``dropped``: without the last state-changing action; ``retyped``: one whole number sent as a
float; the cases of ``bench/tau2_agreement.py``, a task without such a case runs its canonical
calls), one ``agentloop run`` over every task of the domain's ``base`` split with a scripted
agent and a scripted user (the calls of each side in order, each side's turn ending with a
text, the agent's last saying every ``communicate_info``, then the user's ``###STOP###``) and
a scripted NL-assertion judge (every assertion met), under the shipped config's settings.
Then:

1. **agentloop → τ²-bench**: ``agentloop tau2 export`` writes the run as τ²-bench's results
   file, and a submission of airline, retail and telecom (canonical kind); in ``.venv-tau2ref``
   (``bench/tau2_results_reference.py``) τ²-bench's leaderboard trajectory checks read it,
   ``tau2 evaluate-trajs --fresh-tasks`` re-scores every simulation, and its metrics and
   submission checks run. Compared: each simulation's reward with agentloop's verdict, the
   average reward and pass^k with ``agentloop tau2 summary``'s τ²-bench figures, the
   submission's figures with the ones τ²-bench computes from its trajectories.
2. **τ²-bench → agentloop**: the file τ²-bench's ``evaluate-trajs`` wrote (its ``Results.save``,
   rewards by its evaluator) read by ``agentloop tau2 import``: each simulation's reward
   against the one τ²-bench recorded.

NL assertions are graded by the run's scripted judge; τ²-bench's evaluator is given those
grades (an LLM call otherwise). Without ``.venv-tau2ref`` it says so and measures nothing.

Run: ``.venv/bin/python bench/tau2_results_roundtrip.py [--domains airline,retail] [--limit N]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tau2_agreement import cases_of  # noqa: E402

from agentloop.benchmarks.tau2._data import domain_tasks, tau2_data_dir  # noqa: E402
from agentloop.benchmarks.tau2._results_in import rescore_tau2_results  # noqa: E402
from agentloop.benchmarks.tau2._results_out import (  # noqa: E402
    export_tau2_run,
    write_submission,
)
from agentloop.benchmarks.tau2._summary import summarize_tau2  # noqa: E402
from agentloop.harness import load_config  # noqa: E402
from agentloop.harness.run._runner import run_eval_sync  # noqa: E402

REFERENCE_PYTHON = ROOT / ".venv-tau2ref" / "bin" / "python"
VERDICT = "agentloop.benchmarks:tau2_verdict"
KINDS = {"canonical": 2, "dropped": 1, "retyped": 1}
"""Kind -> epochs."""
JUDGE_REPLY = json.dumps(
    {
        "results": [
            {"expectedOutcome": "every assertion", "reasoning": "scripted", "metExpectation": True}
        ]
    }
)


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    }


def scripts(calls: list[list[Any]], text: str) -> tuple[list[Any], list[Any]]:
    """(agent replies, user replies) of one conversation making ``calls`` (see the module)."""
    groups: list[tuple[str, list[Any]]] = []
    for side, name, args in calls:
        if groups and groups[-1][0] == side:
            groups[-1][1].append((name, args))
        else:
            groups.append((side, [(name, args)]))
    agent: list[Any] = []
    user: list[Any] = []
    expected = "user"
    for index, (side, made) in enumerate(groups):
        if side != expected:
            (user if expected == "user" else agent).append(
                "Okay." if expected == "user" else "Please go on."
            )
        target = user if side == "user" else agent
        prefix = "u" if side == "user" else "a"
        target += [_call(f"{prefix}{index}_{k}", n, a) for k, (n, a) in enumerate(made)]
        target.append("Done on my side." if side == "user" else "Done.")
        expected = "assistant" if side == "user" else "user"
    if expected == "user":
        user.append("Thanks.")
    agent.append(text)
    user.append("###STOP###")
    return agent, user


def _run(folder: Path, domain: str, plan: dict[str, str], epochs: int) -> Path:
    """One scripted run of ``plan``'s tasks (task id -> kind) of a domain."""
    agent, user = {}, {}
    tasks = [t for t in domain_tasks(domain) if str(t["id"]) in plan]
    for task in tasks:
        cases = {c["kind"]: c for c in cases_of(domain, task)}
        case = cases.get(plan[str(task["id"])], cases["canonical"])
        agent[task["id"]], user[task["id"]] = scripts(case["calls"], case["agent_text"])
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in (("agent", agent), ("user", user), ("judge", {"*": [JUDGE_REPLY]})):
        (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    shipped = ROOT / "configs" / "tau2" / f"{domain}.yaml"
    raw = yaml.safe_load(shipped.read_text(encoding="utf-8"))
    raw.update(
        model=f"scripted:{folder / 'agent.json'}",
        model_options={},
        output_dir=str(folder / "runs"),
        preflight=False,
        epochs=epochs,
        sample_ids=[str(t["id"]) for t in tasks],
        concurrency=2,
    )
    raw["user"].update(
        model=f"scripted:{folder / 'user.json'}",
        model_options={},
        instructions=str(shipped.parent / raw["user"]["instructions"].removeprefix("@")),
    )
    raw["user"]["instructions"] = "@" + raw["user"]["instructions"]
    raw["rewards"] = [
        {
            VERDICT: {
                "judge": f"scripted:{folder / 'judge.json'}",
                "judge_params": {"temperature": 0},
            }
        }
    ]
    config = folder / f"{domain}.yaml"
    config.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    run_eval_sync(load_config(config), config_path=str(config))
    (run,) = sorted((folder / "runs").iterdir())
    return run


def _reference(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(REFERENCE_PYTHON), str(ROOT / "bench" / "tau2_results_reference.py"), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the reference failed:\n{done.stderr[-3000:]}")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def _ours(run: Path) -> dict[str, tuple[float | None, str]]:
    out = {}
    for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        verdict = (record.get("scores") or {}).get(VERDICT) or {}
        out[f"{record['id']}/{record['epoch'] - 1}"] = (
            verdict.get("score"),
            verdict.get("reason", ""),
        )
    return out


def _same_metrics(average: float | None, ks: dict[int, float], theirs: dict[str, Any]) -> bool:
    their_ks = {int(k): v for k, v in theirs["pass_hat_ks"].items()}
    return (
        abs((average or 0.0) - theirs["avg_reward"]) < 1e-9
        and set(their_ks) == set(ks)
        and all(abs(their_ks[k] - ks[k]) < 1e-9 for k in ks)
    )


def _fixture_plans() -> dict[str, tuple[dict[str, str], int]]:
    """The tests' τ²-bench results files: per domain, task id -> kind, and epochs."""

    def first(domain: str, test: Any) -> str:
        return next(str(t["id"]) for t in domain_tasks(domain) if test(t))

    def criteria(task: dict[str, Any]) -> dict[str, Any]:
        return task.get("evaluation_criteria") or {}

    retyped = "12"  # a float where the ground truth stores an int: the DB check fails
    return {
        "mock": (
            {
                "create_task_1": "canonical",
                "update_task_1": "dropped",
                "create_task_1_with_env_assertions": "dropped",
            },
            2,
        ),
        "airline": (
            {
                retyped: "retyped",
                first("airline", lambda t: criteria(t).get("communicate_info")): "canonical",
            },
            1,
        ),
        "retail": (
            {
                first("retail", lambda t: criteria(t).get("nl_assertions")): "canonical",
                first("retail", lambda t: not criteria(t).get("nl_assertions")): "dropped",
            },
            1,
        ),
        "telecom": (
            {
                first(
                    "telecom",
                    lambda t: any(
                        a.get("requestor") == "user" for a in criteria(t).get("actions") or []
                    ),
                ): "canonical"
            },
            1,
        ),
    }


def write_fixtures(target: Path) -> None:
    """τ²-bench results files for the tests: a scripted run of a few tasks, exported, re-scored
    and saved by τ²-bench's ``evaluate-trajs`` (its rewards, its writer); the policy text in
    ``info`` cut short (the files stay small; nothing reads it back)."""
    data = str(tau2_data_dir(task_set="1.0.1"))
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tau2-fixture-") as tmp:
        for domain, (plan, epochs) in _fixture_plans().items():
            run = _run(Path(tmp) / domain, domain, plan, epochs)
            exported = Path(tmp) / f"{domain}.json"
            exported.write_text(json.dumps(export_tau2_run(run)), encoding="utf-8")
            written = Path(tmp) / f"{domain}_tau2.json"
            _reference("evaluate", str(exported), str(written), data)
            results = json.loads(written.read_text(encoding="utf-8"))
            policy = results["info"]["environment_info"]["policy"]
            results["info"]["environment_info"]["policy"] = policy[:120] + " [...]"
            (target / f"{domain}.json").write_text(
                json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            print(f"{target / f'{domain}.json'}: {len(results['simulations'])} simulations")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--domains", default="mock,airline,retail,telecom")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--fixtures",
        metavar="DIR",
        help="write the tests' τ²-bench results files to DIR instead of measuring",
    )
    args = parser.parse_args()
    if not REFERENCE_PYTHON.is_file():
        print(f"no {REFERENCE_PYTHON}: τ²-bench's own code is not installed; nothing measured")
        return 0
    if args.fixtures:
        write_fixtures(Path(args.fixtures))
        return 0
    data = str(tau2_data_dir(task_set="1.0.1"))
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    differences: list[str] = []
    submission_checks: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="tau2-roundtrip-") as tmp:
        base = Path(tmp)
        submission = base / "submission"
        for domain in args.domains.split(","):
            figures: dict[str, Any] = defaultdict(int, domain=domain)
            for kind in KINDS:
                plan = {str(t["id"]): kind for t in domain_tasks(domain)[: args.limit]}
                run = _run(base / domain / kind, domain, plan, KINDS[kind])
                exported = base / f"{domain}_{kind}.json"
                results = export_tau2_run(run)
                exported.write_text(json.dumps(results, indent=2), encoding="utf-8")
                if kind == "canonical" and domain != "mock":
                    # one agent and one user across the domains, as a submission's are: the
                    # scripted models' names differ by their files' paths
                    info = results["info"]
                    info["agent_info"]["llm"] = info["user_info"]["llm"] = "scripted"
                    write_submission(
                        results,
                        exported.name,
                        submission,
                        model_name="scripted",
                        organization="agentloop",
                    )
                ref = _reference("check", str(exported), data)
                ours = _ours(run)
                figures["simulations"] += len(ours)
                figures["files"] += 1
                # with --limit the task check fails by design (tasks are missing)
                passed = ref["format"][0] and ref["trials"][0] and (ref["tasks"][0] or args.limit)
                figures["checks_passed"] += bool(passed)
                if not passed:
                    differences.append(f"{domain}/{kind}: τ²-bench's checks: {ref}")
                for key, (score, reason) in ours.items():
                    theirs, _ = ref["rewards"][key]
                    if theirs is not None and score is not None and abs(theirs - score) < 1e-6:
                        figures["out_same"] += 1
                    else:
                        differences.append(
                            f"out {domain}/{kind} {key}: agentloop {score} "
                            f"({reason}), τ²-bench {theirs}"
                        )
                [mine] = summarize_tau2([run]).domains
                figures["infra"] += ref["metrics"]["infra_error_count"]
                for name, theirs_m in (
                    ("metrics_same", ref["metrics_kept"]),
                    ("metrics_raw_same", ref["metrics"]),
                ):
                    same = _same_metrics(mine.tau2_average_reward, mine.tau2_pass_hat_k, theirs_m)
                    figures[name] += same
                    if not same and name == "metrics_same":
                        differences.append(
                            f"{domain}/{kind}: metrics agentloop "
                            f"{mine.tau2_average_reward} {mine.tau2_pass_hat_k}, "
                            f"τ²-bench {theirs_m}"
                        )
                figures["pandas"] = ref["pandas"]
                # τ²-bench → agentloop
                written = base / f"{domain}_{kind}_tau2.json"
                _reference("evaluate", str(exported), str(written), data)
                for item in rescore_tau2_results(written):
                    figures["in_simulations"] += 1
                    if item.agrees:
                        figures["in_same"] += 1
                    else:
                        differences.append(
                            f"in {domain}/{kind} {item.task_id}/{item.trial}: "
                            f"recorded {item.recorded_reward}, agentloop "
                            f"{item.reward} ({item.reason or item.error})"
                        )
            rows.append(dict(figures))
        if (submission / "submission.json").is_file():
            submission_checks = _reference(
                "check",
                str(next((submission / "trajectories").glob("*.json"))),
                data,
                str(submission),
            )["submission"]
    print(
        f"{'domain':10} {'files':>5} {'checks':>6} {'simulations':>11} {'out same':>8} "
        f"{'infra':>5} {'metrics':>7} {'raw':>3} {'in same':>8}"
    )
    for r in rows:
        print(
            f"{r['domain']:10} {r['files']:5} {r['checks_passed']:6} {r['simulations']:11} "
            f"{r['out_same']:8} {r['infra']:5} {r['metrics_same']:7} {r['metrics_raw_same']:3} "
            f"{r['in_same']:4}/{r['in_simulations']}"
        )
    print(
        f"(metrics: τ²-bench's compute_metrics on the simulations it keeps; raw: as it runs "
        f"here, pandas {rows[0].get('pandas') if rows else '?'})"
    )
    print(f"submission: {json.dumps(submission_checks)}")
    print(f"{len(differences)} difference(s)")
    for line in differences[:40]:
        print("  " + line)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

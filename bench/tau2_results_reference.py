"""τ²-bench's own code on results files: runs in the separate environment that holds the official
``tau2`` package (``.venv-tau2ref``), never in agentloop's. ``bench/tau2_results_roundtrip.py``
calls it.

``check RESULTS.json DATA_DIR [SUBMISSION_DIR]``: τ²-bench's leaderboard trajectory checks
(``verify_trajectories_public``: the file loads as its ``Results``, has every task of the
domain's ``base`` split as its files define them, and ``num_trials`` trials of each), then
``tau2 evaluate-trajs --fresh-tasks`` (``compute_simulation_rewards``: its evaluator on every
simulation) and its metrics (``compute_metrics``); with a submission directory, its
submission checks (``Submission`` loads ``submission.json``, ``validate_submission_traj_set``,
and the figures ``get_metrics`` computes from the trajectories against the ones written).
Prints one JSON object.

``evaluate RESULTS.json OUT.json DATA_DIR``: ``tau2 evaluate-trajs --fresh-tasks`` writing the
re-scored file (τ²-bench's ``Results.save``), the input of the other direction.

NL assertions: τ²-bench's judge is an LLM call (gpt-4.1), which a measurement offline cannot
make; its ``NLAssertionsEvaluator`` is given the grades the file records for the simulation
(the run's own judge's), so the rest of the evaluator is τ²-bench's, unmodified.

``DATA_DIR``: agentloop's shipped task set (its files are τ²-bench 1.0.1's), laid out as
τ²-bench's data directory (``tau2/domains/<domain>/``, compressed files decompressed).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

_CURRENT: dict[str, Any] = {}


def _data_dir(source: Path) -> Path:
    root = Path(tempfile.mkdtemp(prefix="tau2-results-ref-"))
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        target = root / "tau2" / "domains" / folder.name
        target.mkdir(parents=True)
        if (folder / "files.jsonl.gz").is_file():  # banking_knowledge's tasks, documents, prompts
            with gzip.open(folder / "files.jsonl.gz", "rt", encoding="utf-8") as handle:
                for entry in filter(None, map(json.loads, handle)):
                    (target / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
                    (target / entry["path"]).write_text(entry["text"], encoding="utf-8")
        for path in folder.iterdir():
            if path.name == "files.jsonl.gz":
                continue
            name = path.name.removesuffix(".gz")
            if path.suffix == ".gz":
                with gzip.open(path, "rb") as handle:
                    (target / name).write_bytes(handle.read())
            else:
                shutil.copy(path, target / name)
        for stem in ("policy", "main_policy"):  # the solo-mode variants the constructors name
            if (target / f"{stem}.md").is_file():
                shutil.copy(target / f"{stem}.md", target / f"{stem}_solo.md")
        if (target / "tech_support_manual.md").is_file():
            for name in ("tech_support_workflow.md", "tech_support_workflow_solo.md"):
                shutil.copy(target / "tech_support_manual.md", target / name)
    return root


def _patch_nl_judge() -> None:
    """τ²-bench's NL-assertion evaluator answered with the grades the simulation records."""
    import tau2.evaluator.evaluator as evaluator
    import tau2.scripts.evaluate_trajectories as trajectories
    from tau2.data_model.simulation import NLAssertionCheck

    original = trajectories.evaluate_simulation

    def evaluate(**kwargs: Any) -> Any:
        _CURRENT["simulation"] = kwargs["simulation"]
        return original(**kwargs)

    class RecordedGrades(evaluator.NLAssertionsEvaluator):  # its own rules, the judge aside
        @classmethod
        def evaluate_nl_assertions(cls, trajectory: Any, nl_assertions: Any) -> Any:
            recorded = _CURRENT["simulation"].reward_info
            checks = list((recorded.nl_assertions if recorded else None) or [])
            return [NLAssertionCheck(**c.model_dump()) for c in checks]

    trajectories.evaluate_simulation = evaluate
    evaluator.NLAssertionsEvaluator = RecordedGrades


def _setup(data: str) -> None:
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # no network: LiteLLM's own copy
    os.environ["TAU2_DATA_DIR"] = str(_data_dir(Path(data)))
    from loguru import logger

    logger.remove()  # τ²-bench logs every call at debug level
    _patch_nl_judge()


def _check(path: str, submission_dir: str | None) -> dict[str, Any]:
    import pandas
    from tau2.metrics.agent_metrics import compute_metrics
    from tau2.scripts.evaluate_trajectories import compute_simulation_rewards
    from tau2.scripts.leaderboard.verify_trajectories_public import (
        check_format,
        check_num_trials,
        check_tasks,
    )

    results, format_ok, format_error = check_format(path)
    out: dict[str, Any] = {"format": [format_ok, format_error]}
    if results is None:
        return out
    out["tasks"] = list(check_tasks(results))
    out["trials"] = list(check_num_trials(results))
    scored = compute_simulation_rewards(results, fresh_tasks=True)
    out["rewards"] = {
        f"{s.task_id}/{s.trial}": (
            s.reward_info.reward if s.reward_info else None,
            s.termination_reason.value,
        )
        for s in scored.simulations
    }
    metrics = compute_metrics(scored)
    out["metrics"] = {
        "avg_reward": metrics.avg_reward,
        "pass_hat_ks": metrics.pass_hat_ks,
        "infra_error_count": metrics.infra_error_count,
    }
    # its metrics of the simulations it keeps: under pandas 3 (its bound, pandas>=2.2.3,
    # admits it; its lock file pins 2.3.3) get_metrics_df's filter of infrastructure errors
    # compares a string column with the enum and keeps them
    kept = scored.model_copy(
        update={
            "simulations": [
                s
                for s in scored.simulations
                if s.termination_reason.value != "infrastructure_error"
            ]
        }
    )
    again = compute_metrics(kept)
    out["metrics_kept"] = {"avg_reward": again.avg_reward, "pass_hat_ks": again.pass_hat_ks}
    out["pandas"] = pandas.__version__
    if submission_dir:
        out["submission"] = _check_submission(submission_dir)
    return out


def _check_submission(folder: str) -> dict[str, Any]:
    from tau2.scripts.leaderboard.prepare_submission import (
        check_and_load_submission_data,
        get_metrics,
        validate_submission_traj_set,
    )

    ok, error, data = check_and_load_submission_data(folder)
    if not ok:
        return {"loaded": [False, error]}
    out: dict[str, Any] = {"loaded": [True, ""]}
    out["traj_set"] = list(validate_submission_traj_set(data.results))
    _, computed, model, user = get_metrics(data.results)
    written = data.submission.results
    differences = []
    for domain, figures in computed.items():
        mine = written.get_domain_results(domain)
        for name in ("pass_1", "pass_2", "pass_3", "pass_4", "cost"):
            theirs, ours = getattr(figures, name), getattr(mine, name) if mine else None
            if theirs != ours:
                differences.append([domain, name, ours, theirs])
    out["figure_differences"] = differences
    out["model"] = [data.submission.model_name, model]
    out["user"] = [
        data.submission.methodology.user_simulator if data.submission.methodology else None,
        user,
    ]
    return out


def main() -> int:
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "check":
        _setup(args[1])
        print(json.dumps(_check(args[0], args[2] if len(args) > 2 else None)))
        return 0
    if mode == "evaluate":
        _setup(args[2])
        from tau2.data_model.simulation import Results
        from tau2.scripts.evaluate_trajectories import compute_simulation_rewards

        scored = compute_simulation_rewards(Results.load(Path(args[0])), fresh_tasks=True)
        scored.save(Path(args[1]))
        return 0
    raise SystemExit(f"unknown mode {mode!r}: check or evaluate")


if __name__ == "__main__":
    raise SystemExit(main())

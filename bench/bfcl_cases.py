"""The cases of the BFCL agreement run, and both verdicts on them.

``make_cases`` turns a category's entries into decoded model outputs (``bfcl_perturb``);
``bfcl_verdicts`` asks BFCL's own checker (``bfcl_checker.py`` in ``.venv-bfcl``);
``score_agentloop`` asks ``agentloop.evals.bfcl_verdict`` on the same case as an OpenAI message,
and, for a case with argument text (``raw``), on the trajectory a run records of it too.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from agentloop.evals import bfcl_verdict
from bfcl_literals import LANGUAGE_CATEGORIES
from bfcl_literals import cases_for_entry as language_cases
from bfcl_perturb import RELEVANCE_CATEGORIES, cases_for_entry
from bfcl_run_path import single_turn_trajectory

from agentloop.benchmarks.bfcl._convert import openai_name

ROOT = Path(__file__).resolve().parent.parent
BFCL_PYTHON = ROOT / ".venv-bfcl" / "bin" / "python"
WORKER = ROOT / "bench" / "bfcl_checker.py"
NO_CALL_TEXT = "I cannot help with that using the functions I have."


def default_data_dir() -> Path:
    """BFCL's data: $AGENTLOOP_BFCL_DATA, else the package installed in .venv-bfcl."""
    if os.environ.get("AGENTLOOP_BFCL_DATA"):
        return Path(os.environ["AGENTLOOP_BFCL_DATA"])
    found = sorted(glob.glob(str(ROOT / ".venv-bfcl/lib/python*/site-packages/bfcl_eval/data")))
    if not found:
        raise SystemExit("BFCL data not found: run `make .venv-bfcl` (or set AGENTLOOP_BFCL_DATA)")
    return Path(found[0])


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def make_cases(category: str, data: Path, limit: int | None) -> list[dict[str, Any]]:
    entries = read_jsonl(data / f"BFCL_v4_{category}.json")[:limit]
    answers: dict[str, Any] = {}
    if category not in RELEVANCE_CATEGORIES:
        answers = {
            a["id"]: a["ground_truth"]
            for a in read_jsonl(data / "possible_answer" / f"BFCL_v4_{category}.json")
        }
    cases = language_cases if category in LANGUAGE_CATEGORIES else cases_for_entry
    return [case for e in entries for case in cases(e, answers.get(e["id"]), category)]


def bfcl_verdicts(cases_file: Path, mode: str) -> dict[str, dict[str, Any]]:
    """BFCL's verdicts from the worker in .venv-bfcl (one process for the file)."""
    proc = subprocess.run(
        [str(BFCL_PYTHON), str(WORKER), "--mode", mode, str(cases_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"BFCL worker failed on {cases_file}:\n{proc.stderr[-3000:]}")
    # BFCL's JavaScript converter prints a line when it cannot parse a dict
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    verdicts = [json.loads(line) for line in lines]
    return {v["case_id"]: v for v in verdicts}


def assistant_message(output: list[dict[str, Any]], raw: list[list[str]] | None) -> dict[str, Any]:
    """The case as an OpenAI assistant message (what agentloop records for a model);
    ``raw``: the calls' argument texts as given."""
    if not output and raw is None:
        return {"role": "assistant", "content": NO_CALL_TEXT}
    calls = []
    pairs = raw if raw is not None else [[n, json.dumps(a)] for c in output for n, a in c.items()]
    for k, (name, text) in enumerate(pairs):
        calls.append(
            {
                "id": f"call_{k}",
                "type": "function",
                "function": {"name": openai_name(name), "arguments": text},
            }
        )
    return {"role": "assistant", "content": None, "tool_calls": calls}


def verdict_kwargs(messages: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any]:
    """``bfcl_verdict``'s arguments for a case."""
    return {
        "trajectory": messages,
        "ground_truth": row.get("ground_truth"),
        "metadata": row.get("metadata"),
        "row": row,
    }


def agentloop_verdict(messages: list[dict[str, Any]], row: dict[str, Any]) -> Any:
    return bfcl_verdict(**verdict_kwargs(messages, row))


def prepared(
    cases: list[dict[str, Any]], rows: dict[str, Any]
) -> list[tuple[dict[str, Any], list[Any], dict[str, Any]]]:
    out = []
    for case in cases:
        row = rows[case["id"]]
        messages = [*row["messages"], assistant_message(case["output"], case.get("raw"))]
        out.append((case, messages, row))
    return out


def run_path_verdict(case: dict[str, Any], row: dict[str, Any]) -> Any:
    """A ``raw`` case's verdict on the trajectory a run records: the reply read by
    agentloop's OpenAI client, then the engine (``bfcl_run_path``)."""
    calls = [(openai_name(name), text) for name, text in case["raw"]]
    trajectory = single_turn_trajectory(row["messages"], calls, row.get("tools") or [])
    return bfcl_verdict(**verdict_kwargs(trajectory, row))  # type: ignore[arg-type]


def score_agentloop(
    items: list[tuple[dict[str, Any], list[Any], dict[str, Any]]],
) -> dict[str, dict[str, Any]]:
    """agentloop's verdict on each case as a message list; a ``raw`` case (arguments as
    text) is also judged as a run records it, and the two must give the same verdict."""
    verdicts = {}
    for case, messages, row in items:
        try:
            result = agentloop_verdict(messages, row)
            details = getattr(result, "details", None)
            verdicts[case["case_id"]] = {
                "valid": result.score >= 1.0,
                "reason": result.reason,
                "error_type": getattr(details, "error_type", None),
            }
            if "raw" in case:
                run = run_path_verdict(case, row)
                if run.score != result.score:
                    verdicts[case["case_id"]] = {
                        "valid": None,
                        "reason": f"as a message list {result.reason}; as a run records it "
                        f"{run.reason}",
                        "error_type": "run_path_differs",
                    }
        except Exception as exc:  # a crash is a verdict to report, not a reason to stop
            verdicts[case["case_id"]] = {
                "valid": None,
                "reason": f"exception {type(exc).__name__}: {exc}",
                "error_type": "exception",
            }
    return verdicts

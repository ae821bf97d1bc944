"""inspect_evals' BFCL multi-turn logs, imported by ``agentloop import inspect``.

How often agentloop's BFCL verdict differs from the one inspect_evals' own scorer recorded in
the log.

Real logs cannot be downloaded here, so the logs are made as inspect_evals makes them: its
own ``bfcl`` task (inspect-evals 0.26.0, the files ``make test`` installs in
``.venv/inspect-evals``: its dataset loader, multi-turn solver, tools and ``bfcl_scorer``)
run by Inspect's ``eval`` against ``mockllm/model``, whose replies replay BFCL's ground
truth (``bench/bfcl_multi_turn_scripted.py``'s scripts: one call per reply, the fewest per
reply that keep a long turn within 20 steps, ``Done.`` ending each turn); for every other
entry the last call is dropped, so both verdicts occur. inspect_evals reads BFCL's files
from its cache (``INSPECT_EVALS_CACHE_DIR``), filled here with the ``bfcl-eval`` package's
data and multi-turn classes, the ones agentloop's ``bfcl:`` rows read, so both sides score
the same entries (inspect_evals pins another BFCL commit when it downloads them itself).
Nothing is fetched: Inspect's token estimate (tiktoken, whose encoding file would be
downloaded) is replaced by a plain one, and any HTTP request goes to a closed port on
127.0.0.1.

Each log is then imported with ``agentloop import inspect LOG OUTDIR --config
configs/bfcl/<category>.yaml`` (BFCL's verdict, ``agentloop.benchmarks:bfcl_multi_turn_verdict``,
on the row of the same id), and each sample's two verdicts are compared.

Run: ``.venv/bin/python bench/inspect_evals_bfcl.py [--categories a,b] [--limit N] [--out
DIR]`` (default: every multi-turn category, 20 entries each, ``runs/inspect-evals-bfcl``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_multi_turn_scripted import script  # noqa: E402

from agentloop.benchmarks.bfcl._data import bfcl_rows  # noqa: E402
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES  # noqa: E402
from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV, bfcl_data_dir  # noqa: E402
from agentloop.benchmarks.bfcl._summary import MULTI_TURN_VERDICT  # noqa: E402

INSPECT_EVALS = ROOT / ".venv" / "inspect-evals"


def _cache(out: Path) -> Path:
    """inspect_evals' BFCL cache, filled from the bfcl-eval package agentloop reads."""
    data = bfcl_data_dir()
    cache = out / "cache"
    target = cache / "BFCL"
    if not target.exists():
        shutil.copytree(data, target)
        source = data.parent / "eval_checker" / "multi_turn_eval" / "func_source_code"
        shutil.copytree(source, target / "func_source_code")
    return cache


def _log(category: str, rows: list[dict[str, Any]], drop: set[str], out: Path) -> Path:
    """inspect_evals' bfcl task on ``rows``, replies from the scripts (the last call
    dropped for the ids in ``drop``); the log's path."""
    import inspect_ai.model._model as inspect_model
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessageAssistant,
        ModelOutput,
        get_model,
    )
    from inspect_ai.tool import ToolCall

    # Inspect estimates tokens with tiktoken, which would download its encoding: offline
    # here, a plain estimate instead (it decides nothing in these conversations).
    inspect_model.count_text_tokens = lambda text: len(text) // 4  # type: ignore[assignment]

    truth = script([r for r in rows if r["id"] not in drop], drop_last=False)
    dropped = script([r for r in rows if r["id"] in drop], drop_last=True)
    by_question = {_first_question(row): {**truth, **dropped}[row["id"]] for row in rows}

    def reply(messages: list[Any], *_: Any) -> ModelOutput:
        first = next(m.text for m in messages if m.role == "user")
        replies = by_question[first]
        index = sum(m.role == "assistant" for m in messages)
        answer = replies[index] if index < len(replies) else "Done."
        if isinstance(answer, str):
            return ModelOutput.from_content("mockllm/model", answer)
        calls = [
            ToolCall(id=c["id"], function=c["function"]["name"],
                     arguments=json.loads(c["function"]["arguments"]))
            for c in answer["tool_calls"]
        ]  # fmt: skip
        message = ChatMessageAssistant(content="", tool_calls=calls, model="mockllm/model")
        choice = ChatCompletionChoice(message=message, stop_reason="tool_calls")
        return ModelOutput(model="mockllm/model", choices=[choice])

    from inspect_evals.bfcl import bfcl  # type: ignore[import-not-found]

    task = bfcl(categories=[category])
    ids = [row["id"] for row in rows]
    (log,) = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=reply),
        sample_id=ids,
        log_dir=str(out / "logs"),
        display="none",
        max_samples=4,
    )
    return Path(log.location)


def _first_question(row: dict[str, Any]) -> str:
    return str(next(m["content"] for m in row["messages"] if m["role"] == "user"))


def _groups(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The rows in as few groups as keep each group's first questions distinct: the mock
    model knows a conversation by its first question (a few entries share theirs)."""
    groups: list[list[dict[str, Any]]] = []
    for row in rows:
        question = _first_question(row)
        free = next((g for g in groups if all(_first_question(r) != question for r in g)), None)
        if free is None:
            groups.append(free := [])
        free.append(row)
    return groups


def _imported(log: Path, category: str, imported: Path) -> dict[str, Any]:
    """``agentloop import inspect`` of the log: sample id -> agentloop's verdict."""
    shutil.rmtree(imported, ignore_errors=True)
    config = ROOT / "configs" / "bfcl" / f"{category}.yaml"
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "agentloop"), "import", "inspect", str(log),
         str(imported), "--config", str(config)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if not (imported / "results.jsonl").is_file():
        raise SystemExit(f"agentloop import inspect failed:\n{done.stdout}\n{done.stderr}")
    ours = {}
    for text in (imported / "results.jsonl").read_text().splitlines():
        line = json.loads(text)
        ours[line["id"]] = (line.get("scores") or {}).get(MULTI_TURN_VERDICT, {}).get("score")
    return ours


def _recorded(log: Path) -> dict[str, Any]:
    """The verdicts inspect_evals' scorer recorded in the log: sample id -> score."""
    from inspect_ai.log import read_eval_log

    theirs = {}
    for sample in read_eval_log(str(log)).samples or []:
        score = next(iter((sample.scores or {}).values()), None)
        theirs[str(sample.id)] = None if score is None else float(score.value)  # type: ignore[arg-type]
    return theirs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--categories", default=",".join(MULTI_TURN_CATEGORIES))
    parser.add_argument("--limit", type=int, default=20, help="entries per category (0: all)")
    parser.add_argument("--out", default=str(ROOT / "runs" / "inspect-evals-bfcl"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not (INSPECT_EVALS / "inspect_evals" / "bfcl").is_dir():
        raise SystemExit(f"{INSPECT_EVALS}: no inspect_evals (make test installs it)")
    os.environ["INSPECT_EVALS_CACHE_DIR"] = str(_cache(out))
    # inspect_evals puts a module of its own under the name bfcl_eval: agentloop's rows
    # are read from the data directory found before it
    os.environ[BFCL_DATA_ENV] = str(bfcl_data_dir())
    for name in ("HTTPS_PROXY", "HTTP_PROXY"):  # nothing leaves the machine
        os.environ[name] = "http://127.0.0.1:9"
    sys.path.insert(0, str(INSPECT_EVALS))
    print("| category | samples | both pass | both fail | differ | seconds |")
    print("|---|---|---|---|---|---|")
    differ_all: list[str] = []
    for category in args.categories.split(","):
        rows = list(bfcl_rows(category))[: args.limit or None]
        start = time.perf_counter()
        ours: dict[str, Any] = {}
        theirs: dict[str, Any] = {}
        drop = {row["id"] for row in rows[1::2]}
        for number, group in enumerate(_groups(rows)):
            log = _log(category, group, drop, out)
            ours.update(_imported(log, category, out / f"{category}.{number}.imported"))
            theirs.update(_recorded(log))
        both_pass = sum(theirs[i] == 1.0 and ours.get(i) == 1.0 for i in theirs)
        both_fail = sum(theirs[i] == 0.0 and ours.get(i) == 0.0 for i in theirs)
        differ = [i for i in theirs if theirs[i] != ours.get(i)]
        differ_all += [f"{i}: inspect_evals {theirs[i]}, agentloop {ours.get(i)}" for i in differ]
        seconds = time.perf_counter() - start
        print(f"| `{category}` | {len(theirs)} | {both_pass} | {both_fail} | {len(differ)} "
              f"| {seconds:.0f} |")  # fmt: skip
    print()
    print("Samples whose verdicts differ:" if differ_all else "No sample's verdicts differ.")
    for item in differ_all:
        print(f"- {item}")
    return 0


if __name__ == "__main__":
    from bench_page import publish

    raise SystemExit(publish("inspect-evals-bfcl", main))

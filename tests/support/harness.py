"""Shared builders for the harness tests: datasets, scripts, tool files, configs."""

from __future__ import annotations

import importlib
import json
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def bench_module(name: str) -> ModuleType:
    """A script of ``bench/`` as a module; ``bench/`` joins ``sys.path``, since its
    scripts import each other by name."""
    bench = str(ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    return importlib.import_module(name)


TOOLS_PY = '''
import os
from langchain_core.tools import BaseTool, ToolException, tool


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def leak(name: str) -> str:
    """Return the value of an environment variable."""
    return os.environ.get(name, "")


@tool
def read_text(path: str) -> str:
    """Return the text of a file."""
    with open(path, encoding="utf-8") as handle:
        return handle.read()


@tool
def explode(name: str) -> str:
    """Raise an error that mentions an environment variable's value."""
    raise ToolException("cannot connect with " + os.environ.get(name, ""))


class Counter(BaseTool):
    name: str = "counter"
    description: str = "Counts its own calls."
    calls: int = 0

    def _run(self) -> str:
        self.calls += 1
        return str(self.calls)
'''


def call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-format tool call."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def ask(*calls: dict[str, Any]) -> dict[str, Any]:
    """An assistant reply requesting calls."""
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def interruptible() -> None:
    """A child process's ``preexec_fn``: Ctrl-C (SIGINT) handled as by default, even when
    the tests were started with it ignored (a background job of a shell without job
    control), so that the child turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def add_row(i: int, **extra: Any) -> dict[str, Any]:
    """A row asking for i + 1, answered by the add tool."""
    return {
        "id": f"s{i:04d}",
        "messages": [{"role": "user", "content": f"What is {i} + 1?"}],
        "answer": str(i + 1),
        **extra,
    }


def add_script(n: int) -> dict[str, list[Any]]:
    """Replies that call add(i, 1) and answer with the sum, for rows 0..n-1."""
    return {
        f"s{i:04d}": [ask(call(f"c{i}", "add", {"a": i, "b": 1})), str(i + 1)] for i in range(n)
    }


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


def tools_file(tmp: Path) -> Path:
    path = tmp / "mytools.py"
    if not path.exists():
        path.write_text(TOOLS_PY)
    return path


def write_config(path: Path, **fields: Any) -> Path:
    path.write_text(yaml.safe_dump(fields, sort_keys=False))
    return path


def add_setup(tmp: Path, n: int = 5, **config: Any) -> Path:
    """A dataset of n add questions, a script answering them, a config; returns the config."""
    data = write_jsonl(tmp / "data.jsonl", [add_row(i) for i in range(n)])
    script = write_json(tmp / "script.json", add_script(n))
    fields: dict[str, Any] = {
        "model": f"scripted:{script}",
        "tools": [f"{tools_file(tmp)}:add"],
        "dataset": str(data),
        "rewards": ["qa_f1_reward"],
        "pass_threshold": {"qa_f1_reward": 1.0},
        "output_dir": str(tmp / "runs"),
        "concurrency": 4,
    }
    fields.update(config)
    return write_config(tmp / "eval.yaml", **fields)


def read_results(run_dir: Path, name: str = "results.jsonl") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / name).read_text().splitlines() if line]


def only_run_dir(output_dir: Path) -> Path:
    dirs = [d for d in output_dir.iterdir() if d.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


def run_once(config: Path, *extra: str, code: int = 0) -> Path:
    """``agentloop run CONFIG --no-preflight EXTRA...``, which must exit with ``code`` (0:
    it succeeds; 1: every result errored); the run directory it made (under the config's
    ``runs/``)."""
    from agentloop.cli._commands import main

    out = config.parent / "runs"
    before = set(out.iterdir()) if out.exists() else set()
    assert main(["run", str(config), "--no-preflight", *extra]) == code
    (run_dir,) = set(out.iterdir()) - before
    return run_dir


def assistant_messages(line: dict[str, Any]) -> list[dict[str, Any]]:
    """The assistant messages of a results line's trajectory, as stored."""
    return [m for m in line["trajectory"]["messages"] if m["role"] == "assistant"]


def replayed(config: Path, run_dir: Path) -> list[dict[str, Any]]:
    """The results lines of ``--model replay:RUN_DIR`` over ``config``, in id order; each
    must be ok, with the recorded assistant messages."""
    recorded = sorted(read_results(run_dir), key=lambda line: line["id"])
    lines = sorted(read_results(run_once(config, "--model", f"replay:{run_dir}")),
                   key=lambda line: line["id"])  # fmt: skip
    assert [line["status"] for line in lines] == ["ok"] * len(recorded)
    assert [assistant_messages(now) for now in lines] == [
        assistant_messages(was) for was in recorded
    ]
    return lines


def shown_reasoning(run_dir: Path, sample_id: str = "s0000") -> list[Any]:
    """The reasoning the report shows for each assistant message of a sample."""
    from agentloop.cli._view_data import find_result, sample_detail

    detail = sample_detail(find_result(run_dir, sample_id))
    return [m.get("reasoning") for m in detail["messages"] if m["role"] == "assistant"]


def shipped_offline(config: Path) -> dict[str, Any]:
    """The overrides a shipped config needs to run here: BFCL web search from the recorded
    searches its offline recipe ships (live searches need a SerpAPI key and the network)."""
    if not config.stem.startswith("web_search_"):
        return {}
    replay = ROOT / "configs" / "data" / "bfcl_web_search_replay.json"
    return {"environment.args": {"search": "replay", "replay": str(replay)}}

"""Memory carried between BFCL memory entries: agentloop against BFCL's own handler.

Both sides play every entry of ``memory_kv`` and ``memory_rec_sum`` (prerequisite
conversations, then questions) with the same deterministic model
(``bfcl_memory_policy``): BFCL's ``inference_multi_turn_FC`` in ``.venv-bfcl``
(``bench/bfcl_memory_handler.py``), and agentloop's loop (``run_agent_sync`` with the
entry's turns) on ``MemoryChain`` and ``MemoryEnvironment``. Per entry they must agree on
the system prompt sent (the memory's content at the entry's start), every tool result in
order, and a prerequisite's saved memory.

Run: ``.venv/bin/python bench/bfcl_memory_state_agreement.py [--scenarios a,b]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_memory_policy import as_openai, reply  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402

from agentloop import run_agent_sync  # noqa: E402
from agentloop.benchmarks.bfcl._memory import (  # noqa: E402
    MEMORY_CATEGORIES,
    MEMORY_SCENARIOS,
    MemoryChain,
    memory_entries,
)
from agentloop.benchmarks.bfcl._memory_env import MemoryEnvironment  # noqa: E402
from agentloop.benchmarks.bfcl._package import bfcl_package  # noqa: E402
from agentloop.engine import Turn  # noqa: E402
from agentloop.testing import FunctionChatModel  # noqa: E402

BFCL_PYTHON = ROOT / ".venv-bfcl" / "bin" / "python"
_ROLES = {"human": "user", "tool": "tool", "ai": "assistant", "system": "system"}


def _model(category: str) -> FunctionChatModel:
    count = [0]

    def answer(messages: list[Any], tools: Any) -> AIMessage:
        users = sum(1 for m in messages if m.type == "human")
        choice = reply(
            category,
            str(messages[0].content),
            _ROLES[messages[-1].type],
            str(messages[-1].content),
            users,
        )
        count[0] += 1
        message = as_openai(choice, count[0])
        calls = [
            {
                "id": c["id"],
                "name": c["function"]["name"],
                "args": json.loads(c["function"]["arguments"]),
            }
            for c in message.get("tool_calls") or []
        ]
        return AIMessage(message["content"] or "", tool_calls=calls)

    return FunctionChatModel(answer)


def ours(category: str, scenarios: list[str], folder: Path) -> dict[str, dict[str, Any]]:
    bfcl_package()  # bfcl_eval importable
    from bfcl_eval.utils import get_directory_structure_by_id

    model = _model(category)
    chains: dict[str, MemoryChain] = {}
    out = {}
    for entry in memory_entries(category):
        if entry["scenario"] not in scenarios:
            continue
        chain = chains.setdefault(entry["scenario"], MemoryChain(folder, category))
        env = MemoryEnvironment(chain, entry)
        first = env.first_messages()
        trajectory = run_agent_sync(
            model,
            env.tools(),
            first,
            turns=[Turn(messages=t) for t in env.later_turns()],
            max_rounds=21,
            at_max_rounds="stop",
            tool_execution="sequential",
            max_tool_output_chars=None,
        )
        env.finish()
        snapshot = None
        if "_prereq_" in entry["id"]:
            path = (
                folder
                / get_directory_structure_by_id(entry["id"])
                / "memory_snapshot"
                / "prereq_checkpoints"
                / f"{entry['id']}.json"
            )
            snapshot = json.loads(path.read_text())
        out[entry["id"]] = {
            "system": first[0]["content"],
            "tool_results": [
                m.content for m in trajectory.messages if getattr(m, "type", "") == "tool"
            ],
            "snapshot": snapshot,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenarios", default=",".join(MEMORY_SCENARIOS))
    args = parser.parse_args(argv)
    scenarios = args.scenarios.split(",")
    failures = 0
    for category in MEMORY_CATEGORIES:
        with tempfile.TemporaryDirectory() as theirs_dir, tempfile.TemporaryDirectory() as ours_dir:
            started = time.perf_counter()
            done = subprocess.run(
                [
                    str(BFCL_PYTHON),
                    str(ROOT / "bench" / "bfcl_memory_handler.py"),
                    category,
                    theirs_dir,
                    *scenarios,
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            bfcl_seconds = time.perf_counter() - started
            theirs = {line["id"]: line for line in map(json.loads, done.stdout.splitlines())}
            started = time.perf_counter()
            mine = ours(category, scenarios, Path(ours_dir))
            our_seconds = time.perf_counter() - started
        same = {k: 0 for k in ("system", "tool_results", "snapshot")}
        for entry_id, bfcl in theirs.items():
            for key in same:
                if mine.get(entry_id, {}).get(key) == bfcl[key]:
                    same[key] += 1
                else:
                    failures += 1
                    print("DISAGREE", entry_id, key, flush=True)
        calls = sum(len(v["tool_results"]) for v in theirs.values())
        print(
            f"{category}: {len(theirs)} entries ({len(mine)} ours), {calls} tool results; "
            f"equal system prompts {same['system']}, tool results {same['tool_results']}, "
            f"saved memories {same['snapshot']}; BFCL {bfcl_seconds:.1f} s, "
            f"agentloop {our_seconds:.1f} s"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

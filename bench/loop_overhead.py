"""Engine overhead against a hand-written langchain-core loop (the standard workload).

The workload: a scripted model requests one call to an async ``add(a, b)`` tool on each
of its first 5 calls and answers on the 6th.
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
from langchain_core.tools import tool

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


RUNNERS: dict[str, Runner] = {"engine": engine, "hand-written": hand_written}


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
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                 sys.executable, __file__, "--count-only", name, str(n)],
                capture_output=True, text=True, check=True,
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
    trajectory = anyio.run(engine, make_model())
    assert trajectory.rounds == ROUNDS and trajectory.final_answer == "The sum is 5."

    anyio.run(sequential, engine, 20)  # warm-up (imports, caches)
    anyio.run(sequential, hand_written, 20)
    per_round: dict[str, list[float]] = {"engine": [], "hand-written": []}
    for _ in range(args.repeat):  # alternate so drift hits both alike
        for name, runner in (("engine", engine), ("hand-written", hand_written)):
            gc.collect()  # no trial pays for the previous one's garbage
            seconds = anyio.run(sequential, runner, args.samples)
            per_round[name].append(seconds / (args.samples * ROUNDS) * 1e6)
    eng = statistics.median(per_round["engine"])
    base = statistics.median(per_round["hand-written"])
    eng_min, base_min = min(per_round["engine"]), min(per_round["hand-written"])

    ideal = (ROUNDS + 1) * args.latency
    wall = anyio.run(concurrent, engine, args.concurrent_samples, args.latency)
    wall_base = anyio.run(concurrent, hand_written, args.concurrent_samples, args.latency)

    tracemalloc.start()
    anyio.run(concurrent, engine, args.concurrent_samples, args.latency)
    _, peak_traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    maxrss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    counted = instructions_per_round()

    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {len(os.sched_getaffinity(0))} cores")
    print(f"(a) {args.samples} samples sequential, {args.repeat} alternating trials, "
          f"per round (model call + tool call):")
    print(f"    engine        median {eng:5.0f} us/round, best {eng_min:5.0f}")
    print(f"    hand-written  median {base:5.0f} us/round, best {base_min:5.0f}")
    print(f"    ratio         median {eng / base:5.2f}x, best {eng_min / base_min:5.2f}x "
          f"(target <= 1.10x)")
    if counted is None:
        print("    (install valgrind for a load-independent instruction count)")
    else:
        e, h = counted["engine"], counted["hand-written"]
        print(f"    instructions  engine {e / 1e6:.3f} M/round, hand-written {h / 1e6:.3f} M/round"
              f" (callgrind): {e / h:.3f}x")
    print(f"(b) {args.concurrent_samples} samples concurrent, {args.latency * 1000:.0f} ms model "
          f"latency, ideal {ideal:.2f} s:")
    print(f"    engine        {wall:6.3f} s  ({wall / ideal:.2f}x ideal, target <= 1.4x)")
    print(f"    hand-written  {wall_base:6.3f} s  ({wall_base / ideal:.2f}x ideal)")
    print(f"memory: peak traced during (b) {peak_traced / 2**20:.1f} MiB; "
          f"process max RSS {maxrss_mb:.0f} MiB")


if __name__ == "__main__":
    main()

"""Reward throughput: exact_tool_match_reward, tool_call_match(unordered), qa_f1_reward.

10,000 generated cases (fixed seed), every case distinct, on one pinned core. Each
figure is the sum over 500-case chunks of the best of N runs of that chunk (noise
from other processes on a shared machine only ever slows a run down); the first,
cold pass is printed too. With a reward-kit 0.4.1 interpreter
(``--reference-python``, by default ``.venv-bench/bin/python`` when present) the
reference ``exact_tool_match_reward`` is timed the same way on the same cases in a
worker subprocess; the ratio and the score agreement are printed. reward-kit's package
``__init__`` imports an MCP client that fails, so the snippet loads
``reward_kit/rewards/function_calling.py`` by path behind stub package modules.

Side by side, our and the reference's runs of each chunk alternate, so both see the
same background load. Targets: exact match >= 2x the reference; qa_f1_reward >= 100,000 pairs/s.
Run: ``python bench/rewards.py [--n 10000] [--repeat 5] [--reference-python PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentloop.evals import exact_tool_match_reward, qa_f1_reward, tool_call_match  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from reward_cases import qa_pairs, tool_cases  # noqa: E402

CHUNK = 500


def best_rate(fn: Callable[[Any], object], items: list[Any], repeat: int) -> tuple[float, float]:
    """(best, first-pass) items per second; best sums each chunk's fastest run."""
    total = first = 0.0
    for start in range(0, len(items), CHUNK):
        chunk = items[start : start + CHUNK]
        runs = []
        for _ in range(repeat):
            began = time.perf_counter()
            for item in chunk:
                fn(item)
            runs.append(time.perf_counter() - began)
        total += min(runs)
        first += runs[0]
    return len(items) / total, len(items) / first


# Runs inside the reward-kit interpreter: loads the cases, reports its scores, then
# times whichever chunk it is asked for ("start end" per line) and prints seconds.
REFERENCE_WORKER = r"""
import importlib.util, json, sys, time, types
from importlib.metadata import version
from pathlib import Path
spec = importlib.util.find_spec("reward_kit")  # locates the package without running __init__
root = Path(spec.submodule_search_locations[0])
for name, path in (("reward_kit", root), ("reward_kit.rewards", root / "rewards")):
    stub = types.ModuleType(name)
    stub.__path__ = [str(path)]
    sys.modules[name] = stub
name = "reward_kit.rewards.function_calling"
spec = importlib.util.spec_from_file_location(name, root / "rewards" / "function_calling.py")
module = importlib.util.module_from_spec(spec)
sys.modules[name] = module
spec.loader.exec_module(module)
fn = module.exact_tool_match_reward
cases = [json.loads(line) for line in open(sys.argv[1])]
scores = [fn(messages=c["messages"], ground_truth=c["ground_truth"]).score for c in cases]
print(json.dumps({"scores": scores, "version": version("reward-kit")}), flush=True)
for line in sys.stdin:
    start, end = map(int, line.split())
    began = time.perf_counter()
    for c in cases[start:end]:
        fn(messages=c["messages"], ground_truth=c["ground_truth"])
    print(time.perf_counter() - began, flush=True)
"""


class Reference:
    """reward-kit's exact_tool_match_reward in its own interpreter, timed chunk by chunk."""

    def __init__(self, python: str, cases: list[dict[str, Any]]) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
            handle.writelines(json.dumps(c) + "\n" for c in cases)
            self._path = handle.name
        self._proc = subprocess.Popen(
            [python, "-c", REFERENCE_WORKER, self._path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._in, self._out = self._proc.stdin, self._proc.stdout
        first = self._out.readline()
        if not first:
            tail = (self._proc.communicate()[1].strip().splitlines() or ["no output"])[-1]
            self.close()
            raise RuntimeError(f"reference worker failed: {tail}")
        hello = json.loads(first)
        self.scores: list[float] = hello["scores"]
        self.version: str = hello["version"]

    def time_chunk(self, start: int, end: int) -> float:
        self._in.write(f"{start} {end}\n")
        self._in.flush()
        return float(self._out.readline())

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait(timeout=60)
        os.unlink(self._path)


def compare_with_reference(
    reference: Reference, inputs: list[Any], repeat: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """(ours, reference) as (best, first-pass) rates, runs interleaved chunk by chunk.

    Alternating the two on the same core means both see the same background load,
    which keeps the ratio honest on a busy machine.
    """
    ours = [0.0, 0.0]
    theirs = [0.0, 0.0]
    for start in range(0, len(inputs), CHUNK):
        end = min(start + CHUNK, len(inputs))
        mine, ref = [], []
        for _ in range(repeat):
            began = time.perf_counter()
            for messages, truth in inputs[start:end]:
                exact_tool_match_reward(messages, truth)
            mine.append(time.perf_counter() - began)
            ref.append(reference.time_chunk(start, end))
        ours[0] += min(mine)
        ours[1] += mine[0]
        theirs[0] += min(ref)
        theirs[1] += ref[0]
    n = len(inputs)
    return (n / ours[0], n / ours[1]), (n / theirs[0], n / theirs[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="cases per reward")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5, help="timed passes; the best counts")
    parser.add_argument("--cpu", type=int, default=0, help="core to pin to (-1: do not pin)")
    default_ref = ROOT / ".venv-bench" / "bin" / "python"
    parser.add_argument(
        "--reference-python",
        default=str(default_ref) if default_ref.exists() else None,
        help="interpreter with reward-kit==0.4.1 installed (default: .venv-bench if present)",
    )
    opts = parser.parse_args()
    if opts.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {opts.cpu})  # one core; the reference subprocess inherits it

    cases = tool_cases(opts.n, opts.seed)
    pairs = qa_pairs(opts.n, opts.seed)
    # Every case is distinct and nothing is cached between calls.
    inputs = [(c["messages"], c["ground_truth"]) for c in cases]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    machine = f"{platform.machine()} {platform.processor()}".strip()
    print(f"machine: {machine}, {os.cpu_count()} cores ({cores} used), "
          f"Python {platform.python_version()}")  # fmt: skip
    print(f"cases: {opts.n} tool-call cases, {len(pairs)} distinct QA pairs, seed {opts.seed}, "
          f"best of {opts.repeat} per {CHUNK}-case chunk (first pass in brackets)")  # fmt: skip

    def show(label: str, rates: tuple[float, float], unit: str, extra: str = "") -> None:
        print(f"{label:<37}{rates[0]:>10,.0f} {unit}/s  [{rates[1]:>9,.0f}]{extra}")

    exact = best_rate(lambda c: exact_tool_match_reward(*c), inputs, opts.repeat)
    show("exact_tool_match_reward", exact, "calls")
    unordered = best_rate(
        lambda c: tool_call_match(c[0], c[1], order="unordered"), inputs, opts.repeat
    )
    show("tool_call_match(order='unordered')", unordered, "calls")
    qa = best_rate(lambda p: qa_f1_reward(*p), pairs, opts.repeat)
    verdict = "ok" if qa[0] >= 100_000 else "BELOW TARGET"
    show("qa_f1_reward", qa, "pairs", f"  target 100,000: {verdict}")

    if not opts.reference_python:
        print("reference: skipped (no --reference-python and no .venv-bench); see the docstring")
        return
    try:
        reference = Reference(opts.reference_python, cases)
    except (RuntimeError, OSError, ValueError) as exc:
        print(f"reference: could not be measured: {exc}")
        return
    try:
        ours, ref = compare_with_reference(reference, inputs, opts.repeat)
    finally:
        reference.close()
    scores = [exact_tool_match_reward(m, t).score for m, t in inputs]
    agree = sum(a == b for a, b in zip(scores, reference.scores, strict=True))
    ratio = ours[0] / ref[0]
    verdict = "ok" if ratio >= 2 else "BELOW TARGET"
    print("side by side, interleaved per chunk:")
    show("  exact_tool_match_reward (agentloop)", ours, "calls")
    show("  exact_tool_match_reward (reference)", ref, "calls", f"  reward-kit {reference.version}")
    print(f"{'  ratio agentloop/reference':<37}{ratio:>10.2f}x  target 2x: {verdict}")
    print(f"{'  score agreement':<37}{agree:>10,} / {len(scores):,} cases")


if __name__ == "__main__":
    from bench_page import publish

    raise SystemExit(publish("rewards", main))

"""Throughput of ``executor: ray`` against the local pool, and what Ray adds per sample.

The workload: 2,000 samples; for each, a scripted model (50 ms latency per reply)
asks for one call to an async ``add`` tool, then answers (ideal: 0.1 s per sample,
so 2,000 x 0.1 s / in-flight samples for the whole run). Results go to disk as usual.

1. Local pool at concurrency 8, 16 and 32; Ray with 1, 2 and 4 workers of
   concurrency 8 each (8, 16 and 32 in flight), on a Ray head started here on
   127.0.0.1 with 2 CPUs (this machine's).
2. Per-sample cost without model latency (latency 0): local at concurrency 8 against
   Ray with 1 worker of 8, both minus a 1-sample run (Ray: connecting, starting
   workers, shipping the working directory); the driver's CPU per sample too.

Run: ``python bench/ray_bench.py [--samples 2000]``. Wall clock: the machine may be shared.
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentloop import run_eval_sync  # noqa: E402
from agentloop.harness import load_config  # noqa: E402

TOOLS = '''
from langchain_core.tools import tool


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
'''


def _setup(tmp: Path, samples: int) -> Path:
    rows, script = [], {}
    for i in range(samples):
        sid = f"s{i:05d}"
        rows.append({"id": sid, "messages": [{"role": "user", "content": f"{i} + 1?"}],
                     "answer": str(i + 1)})  # fmt: skip
        call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "add", "arguments": json.dumps({"a": i, "b": 1})},
        }
        script[sid] = [{"role": "assistant", "content": None, "tool_calls": [call]}, str(i + 1)]
    (tmp / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp / "script.json").write_text(json.dumps(script))
    (tmp / "benchtools.py").write_text(TOOLS)
    config = {
        "model": f"scripted:{tmp / 'script.json'}",
        "tools": [f"{tmp / 'benchtools.py'}:add"],
        "dataset": str(tmp / "data.jsonl"),
        "rewards": ["qa_f1_reward"],
        "output_dir": str(tmp / "runs"),
    }
    (tmp / "eval.json").write_text(json.dumps(config))
    return tmp / "eval.json"


def _run(config: Path, **overrides: Any) -> tuple[float, float, int]:
    """Wall seconds, driver CPU seconds and results of one run."""
    cfg = load_config(config, overrides=overrides)
    wall, cpu = time.perf_counter(), time.process_time()
    outcome = run_eval_sync(cfg)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert outcome.summary.errored == 0, outcome.summary.errors
    return wall, cpu, outcome.summary.results


def _start_head(temp: str) -> tuple[subprocess.Popen[bytes], str]:
    with __import__("socket").socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    os.environ["RAY_AUTH_MODE"] = "disabled"  # a loopback cluster; this process and the head
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
    head = subprocess.Popen(
        [str(Path(sys.executable).with_name("ray")), "start", "--head", "--block",
         "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2",
         "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not list(Path(temp).glob("session_*/logs/raylet.out")):
        if head.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("ray start failed")
        time.sleep(0.2)
    time.sleep(1.0)
    return head, f"127.0.0.1:{port}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    n = args.samples
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    print(f"ray bench: {n} samples, {args.latency * 1000:.0f} ms per reply, 2 replies; {machine}")
    with (
        tempfile.TemporaryDirectory() as tmp,
        tempfile.TemporaryDirectory(prefix="ray", dir="/tmp", ignore_cleanup_errors=True) as temp,
    ):
        config = _setup(Path(tmp), n)
        head, address = _start_head(temp)
        try:
            ray = {"executor": "ray", "ray_address": address}
            slow = {"model_options": {"latency": args.latency}}
            print(f"{'executor':<24}{'in flight':>10}{'seconds':>9}{'samples/s':>11}{'ideal s':>9}")
            for label, extra, flight in [
                ("local, concurrency 8", {"concurrency": 8}, 8),
                ("local, concurrency 16", {"concurrency": 16}, 16),
                ("local, concurrency 32", {"concurrency": 32}, 32),
                ("ray, 1 worker x 8", {**ray, "ray_workers": 1, "concurrency": 8}, 8),
                ("ray, 2 workers x 8", {**ray, "ray_workers": 2, "concurrency": 8}, 16),
                ("ray, 4 workers x 8", {**ray, "ray_workers": 4, "concurrency": 8}, 32),
            ]:
                wall, _, results = _run(config, **slow, **extra)
                assert results == n
                ideal = n * 2 * args.latency / flight
                print(f"{label:<24}{flight:>10}{wall:>9.2f}{n / wall:>11.1f}{ideal:>9.2f}")

            print("\nper-sample cost, no model latency (minus a 1-sample run's fixed cost):")
            costs = {}
            for label, extra in [("local", {}), ("ray, 1 worker", {**ray, "ray_workers": 1})]:
                fixed, _, _ = _run(config, limit=1, concurrency=8, **extra)
                wall, cpu, _ = _run(config, concurrency=8, **extra)
                costs[label] = (wall - fixed) / n
                print(f"  {label:<16} fixed {fixed:6.2f} s; {costs[label] * 1e3:6.3f} ms/sample "
                      f"wall; driver CPU {cpu / n * 1e3:6.3f} ms/sample")  # fmt: skip
            added = costs["ray, 1 worker"] - costs["local"]
            print(f"  Ray adds {added * 1e3:.3f} ms/sample of wall clock at 1 worker")
        finally:
            head.terminate()
            head.wait(timeout=60)


if __name__ == "__main__":
    from bench_page import publish

    raise SystemExit(publish("ray", main))

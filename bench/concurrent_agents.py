"""100 agents in other processes at once, each on its own episode's state

One run of ``--agents`` samples at concurrency ``--agents``, every sample an agent in
another process (``agent: {command: [...]}``) on its own model endpoint and MCP server
(127.0.0.1, its own token): ``--agent plain`` (the default) a loop on Python's standard
library alone (chat completions and MCP's JSON-RPC over HTTP, by hand), ``--agent sdk`` the
openai-SDK + MCP-client script of ``docs/pages/own-agent.md``, whose imports take about a
second of CPU per agent (a hundred of them on two shared cores take minutes before any
request is made). Every row has its own bank (``agentloop.tools.bank``), one account
``acct`` opening at 0; sample *i*'s scripted model deposits *i + 1* twice into it, then
reads the balance. Isolation: each episode's calls must read *i + 1*, *2(i + 1)*,
*2(i + 1)* and its final state be ``{acct: 2(i + 1)}`` (a deposit reaching another
episode's bank shows as another number). Three agents misbehave: one exits 1 (a crash),
one writes bytes that are not UTF-8 (garbage), one hangs until the run's ``time_limit``
kills it; only their own samples may fail.

Measured: the run's wall time, each well-behaved episode's (median and slowest), and,
sampled every 50 ms in the run's process, the peak of its open file descriptors, of its
sockets and of its child processes (the agents), with the process's file-descriptor limit
(the soft ``RLIMIT_NOFILE``) at the start and at the end.
Run: ``make bench`` or ``python bench/concurrent_agents.py [--agents N] [--agent sdk]
[--time-limit S]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentloop.harness import load_config  # noqa: E402
from agentloop.harness.run._runner import run_eval_sync  # noqa: E402
from tests.support.docs import block_with  # noqa: E402

# The docs' agent, unless its task names a way to misbehave (the row's last message says).
MISBEHAVING_PY = r"""
import json, os, sys, time

task = json.loads(sys.stdin.read())
mode = task["messages"][-1]["content"].rpartition("misbehave: ")[2]
if mode == "crash":
    sys.stderr.write("Traceback: the agent fell over\n")
    sys.exit(1)
if mode == "garbage":
    sys.stdout.buffer.write(b"\xff\xfe not text")
    sys.exit(0)
if mode == "hang":
    sys.stderr.write("thinking...\n")
    sys.stderr.flush()
    time.sleep(3600)
exec(open(sys.argv[1]).read())
"""

# The same loop without SDKs (the standard library only, so a hundred start in a blink):
# the model endpoint's chat completions and MCP's JSON-RPC over streamable HTTP, by hand.
PLAIN_PY = r"""
import json, os, urllib.request

TOKEN = os.environ["AGENTLOOP_TOKEN"]
session = {}


def post(url, body, extra=()):
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    headers.update(extra)
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=600) as response:
        return response.headers, response.read().decode()


def mcp(method, params, ident=None):
    body = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        body["id"] = ident
    headers, text = post(os.environ["AGENTLOOP_MCP_URL"], body, {
        "Accept": "application/json, text/event-stream", **session}.items())
    if "Mcp-Session-Id" not in session and headers.get("Mcp-Session-Id"):
        session["Mcp-Session-Id"] = headers["Mcp-Session-Id"]
    if ident is None:
        return None
    data = [line[5:] for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[0] if data else text)["result"]


init = {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "plain", "version": "1"}}
session["MCP-Protocol-Version"] = mcp("initialize", init, 0)["protocolVersion"]
mcp("notifications/initialized", {})
tools = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
          "parameters": t["inputSchema"]}} for t in mcp("tools/list", {}, 1)["tools"]]
messages = json.loads(os.environ["AGENTLOOP_TASK"])["messages"]
url = os.environ["AGENTLOOP_MODEL_BASE_URL"] + "/chat/completions"
while True:
    reply = json.loads(post(url, {"model": "any", "messages": messages, "tools": tools})[1])
    message = {k: v for k, v in reply["choices"][0]["message"].items() if v is not None}
    messages.append(message)
    if not message.get("tool_calls"):
        print(message.get("content", ""))
        break
    for call in message["tool_calls"]:
        arguments = json.loads(call["function"]["arguments"])
        result = mcp("tools/call", {"name": call["function"]["name"], "arguments": arguments},
                     len(messages))
        messages.append({"role": "tool", "tool_call_id": call["id"],
                         "content": result["content"][0]["text"]})
"""

AGENTS = {"plain": PLAIN_PY, "sdk": None}
"""The agent each sample runs: ``sdk`` the docs' example (the openai and mcp SDKs, about a
second of CPU to import each), ``plain`` the standard library's HTTP client."""

BROKEN = {1: "crash", 2: "garbage", 3: "hang"}
"""Which samples misbehave, and how (with fewer agents, the first ones)."""


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(args)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def sample_id(i: int) -> str:
    return f"a{i:03d}"


def crowd_config(
    folder: Path, n: int, *, broken: dict[int, str], agent: str = "sdk", **fields: Any
) -> Path:
    """The run's files in ``folder``: rows, scripts, the agent and the config."""
    rows, scripts = [], {}
    for i in range(n):
        ask = f"Agent {i}: deposit {i + 1} into acct twice, then read its balance."
        if i in broken:
            ask += f" misbehave: {broken[i]}"
        rows.append({
            "id": sample_id(i),
            "messages": [{"role": "user", "content": ask}],
            "environment": {"accounts": {"acct": 0}},
            "answer": str(2 * (i + 1)),
        })  # fmt: skip
        deposit = {"account": "acct", "amount": i + 1}
        scripts[sample_id(i)] = [
            _call("d1", "deposit", deposit),
            _call("d2", "deposit", deposit),
            _call("b", "balance", {"account": "acct"}),
            str(2 * (i + 1)),
        ]
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    script = folder / "script.json"
    script.write_text(json.dumps(scripts), encoding="utf-8")
    script_py = folder / "agent.py"
    script_py.write_text(AGENTS[agent] or block_with("AGENTLOOP_MODEL_BASE_URL"), encoding="utf-8")
    wrapper = folder / "misbehaving.py"
    wrapper.write_text(MISBEHAVING_PY, encoding="utf-8")
    config = {
        "model": f"scripted:{script}",
        "environment": "agentloop.tools.bank:make_bank",
        "dataset": str(data),
        "rewards": ["qa_f1_reward"],
        "pass_threshold": {"qa_f1_reward": 1.0},
        "output_dir": str(folder / "runs"),
        "concurrency": n,
        "preflight": False,
        "agent": {"command": [sys.executable, str(wrapper), str(script_py)]},
        **fields,
    }
    path = folder / "eval.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def isolation_problems(
    lines: dict[str, dict[str, Any]], n: int, broken: dict[int, str]
) -> list[str]:
    """What is wrong with a crowd's result lines (nothing: an empty list)."""
    problems = []
    for i in range(n):
        line = lines.get(sample_id(i))
        if line is None:
            problems.append(f"{sample_id(i)}: no result line")
            continue
        mode = broken.get(i)
        if mode in ("crash", "garbage"):
            if line["status"] != "error" or line.get("error_kind") != "agent":
                problems.append(f"{sample_id(i)} ({mode}): not an agent error: {line['status']}")
            continue
        if mode == "hang":
            if line["stop_reason"] != "time_limit":
                problems.append(f"{sample_id(i)} (hang): stop_reason {line['stop_reason']}")
            continue
        if line["status"] != "ok" or line["stop_reason"] != "final":
            said = f"{line['status']}, {line['stop_reason']}: {line.get('error')!r:.200}"
            problems.append(f"{sample_id(i)}: {said}")
            continue
        tools = [m["content"] for m in line["trajectory"]["messages"] if m["role"] == "tool"]
        want = [str(i + 1), str(2 * (i + 1)), str(2 * (i + 1))]
        if tools != want:
            problems.append(f"{sample_id(i)}: its calls read {tools}, not {want}")
        turns = line["trajectory"].get("turns") or [{}]
        state = turns[-1].get("state") or {}
        if state.get("accounts") != {"acct": 2 * (i + 1)}:
            problems.append(f"{sample_id(i)}: its final state is {state!r:.200}")
    return problems


class Peaks:
    """The peaks of this process's open files, sockets and children, sampled in a thread."""

    def __init__(self) -> None:
        self.files = self.sockets = self.children = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        fds = Path("/proc/self/fd")
        children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
        while not self._stop.wait(0.05):
            kinds = []
            for fd in fds.iterdir():
                try:
                    kinds.append(os.readlink(fd))
                except OSError:
                    continue
            self.files = max(self.files, len(kinds))
            self.sockets = max(self.sockets, sum(k.startswith("socket:") for k in kinds))
            if children.exists():
                self.children = max(self.children, len(children.read_text().split()))

    def __enter__(self) -> Peaks:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--agent", choices=sorted(AGENTS), default="plain")
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args()
    import tempfile

    n = args.agents
    limit_before = resource.getrlimit(resource.RLIMIT_NOFILE)
    with tempfile.TemporaryDirectory() as tmp:
        config = crowd_config(
            Path(tmp), n, broken=BROKEN, agent=args.agent, time_limit=args.time_limit
        )
        started = time.perf_counter()
        with Peaks() as peaks:
            outcome = run_eval_sync(load_config(config), config_path=str(config))
        took = time.perf_counter() - started
        text = (Path(outcome.run_dir) / "results.jsonl").read_text(encoding="utf-8")
        lines = {line["id"]: line for line in map(json.loads, text.splitlines())}
    limit_after = resource.getrlimit(resource.RLIMIT_NOFILE)
    problems = isolation_problems(lines, n, BROKEN)
    wrong = {problem.split(" ")[0].rstrip(":") for problem in problems}
    isolated = sum(sample_id(i) not in wrong for i in range(n) if i not in BROKEN)
    print(f"load average at the start: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    limit = f"time_limit {args.time_limit:.0f} s"
    print(f"{n} command agents ({args.agent}) at concurrency {n}, {limit}\n")
    print(f"wall time of the run:          {took:7.1f} s (the hung agent waits for time_limit)")
    print(f"samples ok and isolated:       {isolated}/{n - len(BROKEN)}")
    others = sorted(lines[sample_id(i)]["wall_time_s"] for i in range(n) if i not in BROKEN)
    if others:
        median, slowest = others[len(others) // 2], others[-1]
        print(f"their wall time, median / max: {median:7.1f} s / {slowest:.1f} s")
    print("misbehaving agents:")
    for i, mode in BROKEN.items():
        line = lines[sample_id(i)]
        said = line.get("error") or "; ".join(line.get("agent_notes") or [])
        print(f"  {sample_id(i)} ({mode}): {line['status']}, {line['stop_reason']}: {said:.120}")
    print(f"peak open file descriptors:    {peaks.files}")
    print(f"peak sockets:                  {peaks.sockets}")
    print(f"peak agent processes:          {peaks.children}")
    print(f"RLIMIT_NOFILE (soft, hard):    {limit_before} at the start, {limit_after} at the end")
    print(f"\nproblems: {len(problems)}")
    for problem in problems[:50]:
        print(f"  {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_page import publish

    raise SystemExit(publish("concurrent-agents", main))

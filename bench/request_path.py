"""The request path: client CPU per sample against an OpenAI-protocol server on 127.0.0.1.

The server runs in a process of its own (asyncio, HTTP/1.1 keep-alive). For each request
it counts the tool results in the conversation: fewer than 5, it asks for one call to
``add(a, b)``; otherwise it answers "The sum is 5." So a sample is 6 requests, 5 tool
rounds then the answer, and the conversation grows by two messages a round.

Five clients, each in a fresh process of its own, run the same samples one after another
against it, the server answering at once (zero latency):

- ``httpx``: a raw ``httpx.AsyncClient`` loop (JSON in, JSON out, the tool called inline);
- ``openai SDK``: ``AsyncOpenAI.chat.completions.create`` by hand;
- ``ChatOpenAI loop``: a hand-written ``ChatOpenAI.bind_tools`` loop (``ainvoke`` the
  model, ``ainvoke`` each tool call, append);
- ``run_agent``: agentloop's engine with the ``openai:`` provider (``open_model``);
- ``agentloop run``: the whole harness (``agentloop run config.json``: dataset, rewards,
  results.jsonl, summary), preflight and run directory included, at concurrency 1.

Client CPU per sample is ``resource.getrusage(RUSAGE_SELF)`` (user + system) around the
measured samples, after warm-up samples (imports and the first connection are not
counted), divided by their number. Each client is measured in ``--runs`` fresh processes:
the median, and the spread (min-max), are shown. Targets: ``agentloop run`` at most 0.5x
the ChatOpenAI loop and at most 2.5x the httpx loop.

Then 1,000 samples at concurrency 200, in one process, against the server holding each
reply 50 ms: ``agentloop run`` and the raw loop (one ``AsyncClient``, 200 tasks), each in a
fresh process; wall time and client CPU. Three yardsticks: the ideal (latency only: samples /
concurrency x 6 requests x 50 ms), which one Python process on a 2-core machine cannot reach
(the raw loop alone needs more CPU than that); the raw loop's wall time, the achievable bound;
and agentloop's own CPU for the same samples at concurrency 1 (its median above), which says
what running them concurrently costs on top (target: at most 1.3x). The raw loop uses
``httpx2``, the openai SDK's own fork of httpx with the same API: httpx 0.28's connection pool
does work in proportion to requests x connections on every request, 55-75 s of CPU for
these samples here, which makes it no bound.

Run: ``make bench`` or ``python bench/request_path.py [--samples 200] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROUNDS = 5
ANSWER = "The sum is 5."
MODEL = "bench-model"
TOOL_MODULE = '''
from langchain_core.tools import tool


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
'''
KINDS = ("httpx", "openai SDK", "ChatOpenAI loop", "run_agent", "agentloop run")
ADD_SCHEMA = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two integers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
}


# --- the server ----------------------------------------------------------------------


def _completion(body: dict[str, Any]) -> dict[str, Any]:
    done = sum(1 for m in body["messages"] if m.get("role") == "tool")
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if done < ROUNDS:
        args = json.dumps({"a": done, "b": 1})
        message["tool_calls"] = [{"id": f"call_{done}", "type": "function",
                                  "function": {"name": "add", "arguments": args}}]  # fmt: skip
    else:
        message["content"] = ANSWER
    return {
        "id": f"chatcmpl-{done}", "object": "chat.completion", "created": 0, "model": MODEL,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if done < ROUNDS else "stop"}],
        "usage": {"prompt_tokens": 20 + 10 * done, "completion_tokens": 8,
                  "total_tokens": 28 + 10 * done},
    }  # fmt: skip


async def _serve_connection(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, hold: float
) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method = lines[0].split(" ", 1)[0]
            length = 0
            for line in lines[1:]:
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            body = await reader.readexactly(length) if length else b""
            if method == "GET":
                reply: dict[str, Any] = {"object": "list", "data": [{"id": MODEL}]}
            else:
                reply = _completion(json.loads(body))
                if hold:
                    await asyncio.sleep(hold)
            data = json.dumps(reply).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(data), data)
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def _serve(hold: float) -> None:
    server = await asyncio.start_server(
        lambda r, w: _serve_connection(r, w, hold), "127.0.0.1", 0, backlog=1024
    )
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


class Server:
    """The server process; ``url`` is its base URL (``.../v1``)."""

    def __init__(self, hold: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(hold)], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline())}/v1"

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


# --- the clients (each in a process of its own) -----------------------------------------


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _httpx_loop(url: str, samples: int, concurrency: int = 1, module: str = "httpx") -> int:
    import importlib

    import anyio

    httpx: Any = importlib.import_module(module)
    requests = 0
    todo = iter(range(samples))
    # The openai SDK's connection limits (httpx's own allow 100 connections at most).
    limits = httpx.Limits(max_connections=1000, max_keepalive_connections=100)
    async with httpx.AsyncClient(
        base_url=url, headers={"Authorization": "Bearer x"}, limits=limits, timeout=120
    ) as client:

        async def worker() -> None:
            nonlocal requests
            for _ in todo:
                messages: list[dict[str, Any]] = [{"role": "user", "content": "add things"}]
                while True:
                    response = await client.post(
                        "/chat/completions",
                        json={"model": MODEL, "messages": messages, "tools": [ADD_SCHEMA]},
                    )
                    response.raise_for_status()
                    requests += 1
                    message = response.json()["choices"][0]["message"]
                    messages.append(message)
                    if not message.get("tool_calls"):
                        assert message["content"] == ANSWER
                        break
                    for tool_call in message["tool_calls"]:
                        args = json.loads(tool_call["function"]["arguments"])
                        messages.append({"role": "tool", "tool_call_id": tool_call["id"],
                                         "content": str(args["a"] + args["b"])})  # fmt: skip

        async with anyio.create_task_group() as group:
            for _ in range(concurrency):
                group.start_soon(worker)
    return requests


async def _sdk_loop(url: str, samples: int) -> int:
    import openai

    requests = 0
    async with openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0) as client:
        for _ in range(samples):
            messages: list[Any] = [{"role": "user", "content": "add things"}]
            while True:
                completion = await client.chat.completions.create(
                    model=MODEL,
                    messages=messages,
                    tools=[ADD_SCHEMA],  # type: ignore[list-item]
                )
                requests += 1
                message = completion.choices[0].message
                messages.append(message.model_dump(exclude_none=True))
                if not message.tool_calls:
                    assert message.content == ANSWER
                    break
                for tool_call in message.tool_calls:
                    args = json.loads(tool_call.function.arguments)  # type: ignore[union-attr]
                    messages.append({"role": "tool", "tool_call_id": tool_call.id,
                                     "content": str(args["a"] + args["b"])})  # fmt: skip
    return requests


def _add_tool() -> Any:
    from langchain_core.tools import tool

    @tool
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return add


async def _chat_openai_loop(url: str, samples: int) -> int:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
    from langchain_openai import ChatOpenAI

    add = _add_tool()
    model = ChatOpenAI(model=MODEL, base_url=url, api_key="x", max_retries=0)  # type: ignore[arg-type]
    bound = model.bind_tools([add])
    requests = 0
    for _ in range(samples):
        messages: list[BaseMessage] = [HumanMessage("add things")]
        while True:
            reply = await bound.ainvoke(messages)
            requests += 1
            assert isinstance(reply, AIMessage)
            messages.append(reply)
            if not reply.tool_calls:
                assert reply.content == ANSWER
                break
            for tool_call in reply.tool_calls:
                messages.append(await add.ainvoke(tool_call))
    return requests  # the client is LangChain's shared default: left open


async def _run_agent_loop(url: str, samples: int) -> int:
    from agentloop import run_agent
    from agentloop.models import open_model

    add = _add_tool()
    requests = 0
    async with open_model(f"openai:{MODEL}", None, {"base_url": url}) as source:
        for i in range(samples):
            traj = await run_agent(source.for_sample(f"s{i}", 1), [add], "add things",
                                   retry=source.retry_policy)  # fmt: skip
            assert traj.stop_reason == "final" and traj.final_answer == ANSWER, traj.error
            requests += len(traj.steps)
    return requests


def _harness_config(tmp: Path, url: str, samples: int, concurrency: int) -> Path:
    data = tmp / "data.jsonl"
    row = {"messages": [{"role": "user", "content": "add things"}], "answer": "5"}
    data.write_text("".join(json.dumps({"id": f"s{i:05d}", **row}) + "\n" for i in range(samples)))
    (tmp / "bench_tools.py").write_text(TOOL_MODULE)
    config = {
        "model": f"openai:{MODEL}",
        "model_options": {"base_url": url},
        "tools": [f"{tmp / 'bench_tools.py'}:add"],
        "dataset": str(data),
        "rewards": ["qa_f1_reward"],
        "concurrency": concurrency,
        "output_dir": str(tmp / "runs"),
    }
    path = tmp / "config.json"
    path.write_text(json.dumps(config))
    return path


def _harness_run(url: str, samples: int, concurrency: int) -> int:
    """``agentloop run`` on ``samples`` rows; the number of requests it made."""
    from agentloop.cli._commands import main

    with tempfile.TemporaryDirectory() as tmp_name:
        config = _harness_config(Path(tmp_name), url, samples, concurrency)
        code = main(["run", str(config)])
        assert code == 0, code
        (run_dir,) = (Path(tmp_name) / "runs").iterdir()
        requests = 0
        with (run_dir / "results.jsonl").open() as handle:
            for line in handle:
                result = json.loads(line)
                assert result["status"] == "ok", result
                requests += len(result["trajectory"]["steps"])
    return requests


def _client(kind: str, url: str, samples: int, warmup: int) -> dict[str, Any]:
    import anyio

    loops = {"httpx": _httpx_loop, "openai SDK": _sdk_loop,
             "ChatOpenAI loop": _chat_openai_loop, "run_agent": _run_agent_loop}  # fmt: skip
    if kind == "agentloop run":
        _harness_run(url, warmup, 1)
        cpu, wall = _cpu(), time.perf_counter()
        requests = _harness_run(url, samples, 1)
        cpu, wall = _cpu() - cpu, time.perf_counter() - wall
    else:
        loop = loops[kind]

        async def measure() -> tuple[int, float, float]:
            await loop(url, warmup)  # one event loop: LangChain's default client is shared
            cpu, wall = _cpu(), time.perf_counter()
            requests = await loop(url, samples)
            return requests, _cpu() - cpu, time.perf_counter() - wall

        requests, cpu, wall = anyio.run(measure)
    assert requests == samples * (ROUNDS + 1), requests
    return {"cpu_ms": cpu / samples * 1000, "wall_ms": wall / samples * 1000}


def _concurrent(kind: str, url: str, samples: int, concurrency: int) -> dict[str, Any]:
    import anyio

    def run(n: int, c: int) -> int:
        if kind == "agentloop run":
            return _harness_run(url, n, c)
        return anyio.run(_httpx_loop, url, n, c, "httpx2")

    run(2, 2)
    cpu, wall = _cpu(), time.perf_counter()
    requests = run(samples, concurrency)
    assert requests == samples * (ROUNDS + 1), requests
    return {"cpu_s": _cpu() - cpu, "wall_s": time.perf_counter() - wall}


def _spawn(*args: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, __file__, "--child", *args],
                          capture_output=True, text=True, cwd=ROOT, check=False)  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--concurrent-samples", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--hold", type=float, default=0.05)
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        asyncio.run(_serve(args.serve))
        return
    if args.child:
        kind, url, *numbers = args.child
        if kind.startswith("concurrent "):
            out = _concurrent(kind.removeprefix("concurrent "), url, *map(int, numbers))
        else:
            out = _client(kind, url, int(numbers[0]), int(numbers[1]))
        print(json.dumps(out))
        return

    per_request = ROUNDS + 1
    print(f"load average at the start: {_load()} (other processes share the cores)")
    print(f"{os.cpu_count()} cores; {args.samples} samples of {per_request} requests per "
          f"client process after {args.warmup} warm-up samples; {args.runs} processes each; "
          f"server at zero latency\n")  # fmt: skip
    runs: dict[str, list[float]] = {kind: [] for kind in KINDS}
    with Server(0.0) as server:
        for _ in range(args.runs):  # interleaved, so a burst of load hits every client
            for kind in KINDS:
                measured = _spawn(kind, server.url, str(args.samples), str(args.warmup))
                runs[kind].append(measured["cpu_ms"])
    median = {kind: statistics.median(values) for kind, values in runs.items()}
    print(f"{'client':<16} {'CPU ms/sample':>13} {'spread':>13} {'/ httpx':>8} "
          f"{'/ ChatOpenAI':>12}")  # fmt: skip
    for kind in KINDS:
        spread = f"{min(runs[kind]):.2f}-{max(runs[kind]):.2f}"
        print(f"{kind:<16} {median[kind]:>13.2f} {spread:>13} "
              f"{median[kind] / median['httpx']:>7.2f}x "
              f"{median[kind] / median['ChatOpenAI loop']:>11.2f}x")  # fmt: skip
    harness = median["agentloop run"]
    print(f"\nagentloop run: {harness / median['ChatOpenAI loop']:.2f}x the ChatOpenAI loop "
          f"(target <= 0.5x), {harness / median['httpx']:.2f}x the httpx loop "
          f"(target <= 2.5x)")  # fmt: skip

    n, c, hold = args.concurrent_samples, args.concurrency, args.hold
    ideal = n / c * per_request * hold
    sequential = median["agentloop run"] * n / 1000  # its CPU for n samples at concurrency 1
    concurrent: dict[str, dict[str, Any]] = {}
    with Server(hold) as server:
        for kind in ("httpx2", "agentloop run"):
            concurrent[kind] = _spawn(f"concurrent {kind}", server.url, str(n), str(c))
    raw, ours = concurrent["httpx2"], concurrent["agentloop run"]
    print(f"\n{n} samples at concurrency {c}, one process, replies held {hold * 1000:.0f} ms; "
          f"ideal (latency only) {ideal:.2f} s")  # fmt: skip
    print(f"{'client':<16} {'wall s':>8} {'CPU s':>8} {'/ ideal':>8} {'/ httpx2':>9}")
    for kind, out in (("httpx2 loop", raw), ("agentloop run", ours)):
        print(f"{kind:<16} {out['wall_s']:>8.2f} {out['cpu_s']:>8.2f} "
              f"{out['wall_s'] / ideal:>7.2f}x {out['wall_s'] / raw['wall_s']:>8.2f}x")  # fmt: skip
    print(f"\nagentloop run at concurrency {c}: {ours['wall_s']:.2f} s wall, "
          f"{ours['wall_s'] / sequential:.2f}x its own CPU for the same samples at concurrency 1 "
          f"({sequential:.2f} s; target <= 1.3x); {ours['wall_s'] / raw['wall_s']:.2f}x the "
          f"httpx2 loop's wall; {ours['wall_s'] / ideal:.1f}x the ideal")  # fmt: skip
    print(f"load average at the end: {_load()}")


def _load() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


if __name__ == "__main__":
    from bench_page import publish

    if {"--serve", "--child"} & set(sys.argv):  # the server and the clients: no page
        raise SystemExit(main())
    raise SystemExit(publish("request-path", main))

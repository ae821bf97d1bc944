"""An agent service over HTTP (config ``agent: {url: ...}``): the docs' example service, a
real HTTP server on 127.0.0.1 using the MCP tools and the model endpoint it is given, scored
as the native loop; a service that fails or hangs fails its own sample only."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("openai")

import httpx
import openai
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agentloop.harness import load_config
from tests.support.docs import block_with
from tests.support.harness import add_setup, ask, call, read_results, run_once, write_json
from tests.support.openai_stub import StubResponse, StubServer, reply
from tests.support.openai_stub import call as stub_call

SERVICE_PY = block_with("ThreadingHTTPServer")
ROOT = Path(__file__).resolve().parents[3]


class Service:
    """The docs' service on a free port, with what it was sent; ``/flaky/MODE`` misbehaves on
    the question about 2 + 1 only."""

    def __init__(self) -> None:
        space: dict[str, Any] = {"__name__": "service"}
        exec(compile(SERVICE_PY, "own-agent.md", "exec"), space)
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.release = threading.Event()  # ends a hanging request at teardown
        outer = self

        class Handler(space["AgentService"]):  # type: ignore[misc]
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                task = json.loads(raw)
                outer.bodies.append(task)
                outer.headers.append(dict(self.headers))
                mode = self.path.removeprefix("/flaky/")
                if self.path.startswith("/flaky/") and "2 + 1" in task["messages"][-1]["content"]:
                    if mode == "hang":
                        outer.release.wait(120)
                        return
                    status, body = {"500": (500, b"Traceback: the agent fell over"),
                                    "garbage": (200, b"<html>not json</html>"),
                                    "shape": (200, b'{"answer": "3"}')}[mode]  # fmt: skip
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if self.path.startswith("/proto/"):  # another protocol at the model endpoint
                    reply = asyncio.run(PROTOCOLS[self.path.removeprefix("/proto/")](task))
                    answer = json.dumps({"reply": reply}).encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                    return
                self.rfile = _Replay(raw, self.rfile)
                super().do_POST()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


async def _mcp_tools(task: dict[str, Any], run: Any) -> str:
    headers = {"Authorization": f"Bearer {task['token']}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(task["mcp_url"], http_client=http) as (r, w, _),
        ClientSession(r, w) as session,
    ):
        await session.initialize()

        async def call(name: str, args: dict[str, Any]) -> str:
            return str((await session.call_tool(name, args)).content[0].text)  # type: ignore[union-attr]

        return str(await run(call))


async def _responses_agent(task: dict[str, Any]) -> str:
    """A loop on OpenAI's Responses API, streamed."""
    tools = [{"type": "function", **t["function"]} for t in task["tools"]]
    items: list[Any] = [
        {"role": m["role"], "content": m["content"]}
        for m in task["messages"]
        if m["role"] in ("system", "user")
    ]

    async def run(call: Any) -> str:
        async with openai.AsyncOpenAI(base_url=task["model_base_url"], api_key=task["token"]) as c:
            while True:
                async with c.responses.stream(model="m", input=items, tools=tools) as events:
                    response = await events.get_final_response()
                items.extend(o.model_dump(exclude_none=True) for o in response.output)
                calls = [o for o in response.output if o.type == "function_call"]
                if not calls:
                    return response.output_text
                for o in calls:
                    output = await call(o.name, json.loads(o.arguments))
                    items.append(
                        {"type": "function_call_output", "call_id": o.call_id, "output": output}
                    )

    return await _mcp_tools(task, run)


async def _anthropic_agent(task: dict[str, Any]) -> str:
    """A loop on Anthropic's messages protocol."""
    anthropic = pytest.importorskip("anthropic")
    tools = [
        {"name": t["function"]["name"], "input_schema": t["function"]["parameters"]}
        for t in task["tools"]
    ]
    messages: list[Any] = [
        {"role": "user", "content": m["content"]} for m in task["messages"] if m["role"] == "user"
    ]
    base = task["model_base_url"].removesuffix("/v1")

    async def run(call: Any) -> str:
        async with anthropic.AsyncAnthropic(base_url=base, api_key=task["token"]) as c:
            while True:
                reply = await c.messages.create(
                    model="m", max_tokens=100, messages=messages, tools=tools
                )
                content = [b.model_dump(exclude_none=True) for b in reply.content]
                messages.append({"role": "assistant", "content": content})
                uses = [b for b in reply.content if b.type == "tool_use"]
                if not uses:
                    return "".join(b.text for b in reply.content if b.type == "text")
                results = [
                    {"type": "tool_result", "tool_use_id": u.id,
                     "content": await call(u.name, dict(u.input))}
                    for u in uses
                ]  # fmt: skip
                messages.append({"role": "user", "content": results})

    return await _mcp_tools(task, run)


PROTOCOLS = {"responses": _responses_agent, "messages": _anthropic_agent}


class _Replay:
    """The body again, for the docs' handler to read; closing it closes the connection's
    own reader, as the server does when the request ends."""

    def __init__(self, raw: bytes, reader: Any) -> None:
        self.raw, self.reader = raw, reader

    def read(self, n: int) -> bytes:
        return self.raw[:n]

    def close(self) -> None:
        self.reader.close()


@pytest.fixture
def service() -> Iterator[Service]:
    running = Service()
    yield running
    running.close()


def _lines(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {line["id"]: line for line in read_results(run_dir)}


def _wire(line: dict[str, Any], key: str = "messages") -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k != "langchain"} for m in line["trajectory"][key]]


def test_a_service_over_the_endpoint_and_mcp_scores_as_the_native_loop(
    tmp_path: Path, service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_AGENT_AUTH", "Bearer service-secret")
    native = _lines(run_once(add_setup(tmp_path, 3)))
    agent = {"url": f"{service.url}/agent", "headers_env": {"Authorization": "MY_AGENT_AUTH"}}
    run_dir = run_once(add_setup(tmp_path, 3, agent=agent))
    outside = _lines(run_dir)
    assert outside.keys() == native.keys()
    for key, line in outside.items():
        assert line["status"] == "ok", line.get("error")
        assert line["scores"] == native[key]["scores"]
        assert line["scores"]["qa_f1_reward"]["score"] == 1.0
        assert _wire(line) == _wire(native[key])
        assert line["agent_notes"] == []
        assert [s["usage"] for s in line["trajectory"]["steps"]] == [
            s["usage"] for s in native[key]["trajectory"]["steps"]
        ]
    assert len(service.bodies) == 3
    for body, headers in zip(service.bodies, service.headers, strict=True):
        assert set(body) == {"messages", "tools", "mcp_url", "model_base_url", "token",
                             "sample_id", "epoch"}  # fmt: skip
        assert [t["function"]["name"] for t in body["tools"]] == ["add"]
        assert body["mcp_url"].startswith("http://127.0.0.1:")
        assert headers["Authorization"] == "Bearer service-secret"
    assert len({b["token"] for b in service.bodies}) == 3  # fresh per call
    assert sorted((b["sample_id"], b["epoch"]) for b in service.bodies) == [
        (key, 1) for key in sorted(native)
    ]
    # the header's value is read from the environment, never written in the run directory
    for path in run_dir.iterdir():
        assert "service-secret" not in path.read_text()


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("500", "answered HTTP 500: Traceback: the agent fell over"),
        ("garbage", 'answered <html>not json</html>; expected a JSON object {"reply": "..."}'),
        ("shape", """answered {"answer": "3"}; expected"""),
        ("hang", "time_limit"),
    ],
)
def test_a_failing_service_fails_its_own_sample_only(
    tmp_path: Path, service: Service, mode: str, says: str
) -> None:
    limit = {"time_limit": 20} if mode == "hang" else {}
    agent = {"url": f"{service.url}/flaky/{mode}"}
    lines = _lines(run_once(add_setup(tmp_path, 4, agent=agent, **limit)))
    broken = {k: v for k, v in lines.items() if v["stop_reason"] != "final"}
    assert list(broken) == ["s0002"]
    line = broken["s0002"]
    if mode == "hang":  # the time limit: a stop, not an error
        assert line["status"] == "ok"
        assert line["stop_reason"] == "time_limit"
        assert line["scores"]["qa_f1_reward"]["score"] == 0.0
    else:
        assert line["status"] == "error"
        assert line["error_kind"] == "agent"
        assert says in line["error"]
        assert "\n" not in line["error"]
    for key, other in lines.items():
        if key != "s0002":
            assert other["scores"]["qa_f1_reward"]["score"] == 1.0


def test_a_service_that_is_not_there_fails_each_sample_saying_so(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    agent = {"url": f"http://me:pass-word@127.0.0.1:{port}/agent"}
    lines = _lines(run_once(add_setup(tmp_path, 2, agent=agent), code=1))
    for line in lines.values():
        assert line["status"] == "error"
        assert line["error_kind"] == "agent"
        shown = f"agent.url http://me:***@127.0.0.1:{port}/agent could not be asked: ConnectError"
        assert shown in line["error"]
        assert "pass-word" not in line["error"]


def test_with_a_simulated_user_each_turn_is_one_post_with_the_conversation_so_far(
    tmp_path: Path, service: Service
) -> None:
    from agentloop.cli import main

    scripts = ROOT / "configs/scripts"
    agent = json.loads((scripts / "tau2_mock.json").read_text())
    user = json.loads((scripts / "tau2_mock_user.json").read_text())
    agent["create_task_1"].insert(0, "For which user?")
    user["create_task_1"][0:1] = ["Hi, please create a task called 'Important Meeting'.", "user_1."]
    (tmp_path / "agent.json").write_text(json.dumps(agent))
    (tmp_path / "user.json").write_text(json.dumps(user))

    def run(name: str, *extra: str) -> dict[str, Any]:
        out = tmp_path / name
        code = main([
            "run", str(ROOT / "configs/tau2/mock.yaml"),
            "--model", f"scripted:{tmp_path / 'agent.json'}",
            "--set", f"user.model=scripted:{tmp_path / 'user.json'}",
            "--set", "epochs=1", "--limit", "1", "--no-preflight", "--output-dir", str(out),
            *extra,
        ])  # fmt: skip
        assert code == 0
        (run_dir,) = out.iterdir()
        (line,) = read_results(run_dir)
        return line

    native = run("native")
    own = run("own", "--set", f"agent.url={service.url}/agent")
    assert own["status"] == "ok", own.get("error")
    turns = own["trajectory"]["turns"]
    assert [t["stop_reason"] for t in turns] == ["final", "final", "user_stop"]
    assert turns == native["trajectory"]["turns"]
    for part in ("messages", "user_messages"):
        assert _wire(own, part) == _wire(native, part)
    assert own["scores"] == native["scores"]
    # one POST per user turn the agent answers (the third ends the conversation), each
    # with the conversation so far
    sizes = [len(b["messages"]) for b in service.bodies]
    assert len(sizes) == 2 and sizes[0] < sizes[1]
    assert service.bodies[1]["messages"][-1] == {"role": "user", "content": "user_1."}
    # both calls name the one episode
    assert {(b["sample_id"], b["epoch"]) for b in service.bodies} == {(own["id"], 1)}


def test_a_remote_service_loads_when_allowed_and_a_missing_header_variable_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentloop.cli import main

    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    remote = {"url": "https://agents.example.com/next", "allow_remote": True}
    assert load_config(add_setup(tmp_path, 1, agent=remote)).agent is not None
    agent = {"url": "http://localhost:1/", "headers_env": {"X-Api-Key": "NOT_SET_ANYWHERE"}}
    config = add_setup(tmp_path, 1, agent=agent)
    assert main(["run", str(config), "--no-preflight"]) != 0
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def _adder(body: dict[str, Any]) -> StubResponse:
    """A provider calling add(i, 1) for "What is i + 1?", then answering with the result."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        answer = reply(last["content"])
    else:
        a = int(last["content"].split()[2])
        answer = reply(tool_calls=[stub_call("add", {"a": a, "b": 1}, id=f"c{a}")])
    answer.body["usage"] = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    return answer


@pytest.mark.parametrize("protocol", ["responses", "messages"])
def test_each_protocol_is_priced_and_scored_as_the_native_run(
    tmp_path: Path, service: Service, monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    if protocol == "messages":
        pytest.importorskip("anthropic")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-key")
    fields: dict[str, Any] = {
        "model": "openai:m",
        "preflight": False,
        "prices": {"openai:m": {"input": 2.0, "output": 8.0}},
    }
    with StubServer(handler=_adder) as stub:
        fields["model_options"] = {"base_url": stub.url}
        native = _lines(run_once(add_setup(tmp_path, 2, **fields)))
        agent = {"url": f"{service.url}/proto/{protocol}"}
        outside = _lines(run_once(add_setup(tmp_path, 2, agent=agent, **fields)))
        keys = {h["authorization"] for h in stub.headers}
    assert keys == {"Bearer sk-the-users-key"}  # agentloop's credentials, not the token
    for key, line in outside.items():
        assert line["status"] == "ok", line.get("error")
        assert line["scores"] == native[key]["scores"]
        assert line["scores"]["qa_f1_reward"]["score"] == 1.0
        assert line["usage"] == native[key]["usage"]
        assert (
            line["cost_usd"]
            == native[key]["cost_usd"]
            == pytest.approx((200 * 2.0 + 40 * 8.0) / 1e6)
        )
        assert _wire(line) == _wire(native[key])
        assert line["agent_notes"] == []


def test_the_round_cap_holds_at_the_endpoint_as_in_the_loop(
    tmp_path: Path, service: Service
) -> None:
    script = {"*": [ask(call(f"c{k}", "add", {"a": k, "b": 1})) for k in range(4)] + ["done"]}
    config = add_setup(tmp_path, 2, max_rounds=2)
    write_json(tmp_path / "script.json", script)
    native = _lines(run_once(config))
    config = add_setup(tmp_path, 2, max_rounds=2, agent={"url": f"{service.url}/agent"})
    write_json(tmp_path / "script.json", script)
    outside = _lines(run_once(config))
    for key, line in outside.items():
        assert line["status"] == "ok"
        assert line["stop_reason"] == native[key]["stop_reason"] == "max_rounds"
        assert _wire(line) == _wire(native[key])
        assert line["tool_calls_by_status"] == {"ok": 2, "round_limit": 1}
        # the service's next request was refused (403) and it fell over: a stop, noted
        (note,) = line["agent_notes"]
        assert f"agent.url {service.url}/agent" in note

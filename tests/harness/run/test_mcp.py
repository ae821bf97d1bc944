"""MCP tools: a real FastMCP server on stdio and on 127.0.0.1, one session per run."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.errors import AgentloopError, ConfigError
from agentloop.harness import load_config
from agentloop.harness.run._runner import RunOutcome, run_eval_sync
from tests.support.harness import ask, call, read_results, tools_file, write_config, write_json
from tests.support.harness import write_jsonl as _write_jsonl

pytest.importorskip("langchain_mcp_adapters")

SERVER = Path(__file__).resolve().parents[2] / "support" / "mcp_server.py"
ALL_TOOLS = [
    "add",
    "profile",
    "shout",
    "fail",
    "calls",
    "die",
    "env_var",
    "header",
    "session_number",
]


def _stdio(*extra: str, **options: Any) -> dict[str, Any]:
    return {"mcp": {"command": sys.executable, "args": [str(SERVER), "stdio", *extra], **options}}


def _label() -> str:
    return repr(f"{sys.executable} {SERVER} stdio")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the test MCP server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def _config(tmp_path: Path, tools: list[Any], script: Any, n: int = 3, **fields: Any) -> Path:
    rows = [{"id": f"r{i}", "messages": [{"role": "user", "content": "go"}]} for i in range(n)]
    data = _write_jsonl(tmp_path / "data.jsonl", rows)
    script_file = write_json(tmp_path / "script.json", script)
    return write_config(
        tmp_path / "eval.yaml",
        model=f"scripted:{script_file}",
        dataset=str(data),
        tools=tools,
        output_dir=str(tmp_path / "runs"),
        **{"concurrency": 3, **fields},
    )


def _run(config: Path, *sets: str) -> RunOutcome:
    return run_eval_sync(load_config(config, sets), config_path=str(config))


def _tool_messages(line: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in line["trajectory"]["messages"] if m["role"] == "tool"]


CALLS = [
    call("c1", "add", {"a": 1, "b": 2}),
    call("c2", "profile", {"name": "Ann"}),
    call("c3", "shout", {"text": "hi"}),
    call("c4", "fail", {"why": "no such user"}),
]


def _check_results(lines: list[dict[str, Any]]) -> None:
    for line in lines:
        assert line["status"] == "ok", line["error"]
        assert line["request"]["tools"] == ALL_TOOLS
        add, profile, shout, fail, *_ = _tool_messages(line)
        # Structured results are kept: the server's structuredContent, as compact JSON
        # (a plain value FastMCP wrapped as {"result": ...} unwrapped).
        assert add["content"] == "3"
        assert profile["content"] == '{"name": "Ann", "tags": ["admin", "ops"]}'
        assert shout["content"] == "HI"
        assert fail["content"] == "Error: ToolException: Error executing tool fail: no such user"
        statuses = [c["status"] for s in line["trajectory"]["steps"] for c in s["tool_calls"]]
        assert statuses[:4] == ["ok", "ok", "ok", "error"]


def test_stdio_server_tools_run_in_one_process(tmp_path: Path) -> None:
    script = {"*": [ask(*CALLS, call("c5", "calls", {})), "done"]}
    outcome = _run(_config(tmp_path, [_stdio()], script))
    lines = read_results(outcome.run_dir)
    _check_results(lines)
    # One server process (one session) for the whole run: its counter keeps going.
    counts = sorted(json.loads(_tool_messages(r)[4]["content"]) for r in lines)
    assert counts == [1, 2, 3]


def test_http_server_tools_share_one_session(tmp_path: Path, http_url: str) -> None:
    script = {"*": [ask(*CALLS, call("c5", "session_number", {})), "done"]}
    outcome = _run(_config(tmp_path, [{"mcp": {"url": http_url}}], script), "epochs=2")
    lines = read_results(outcome.run_dir)
    assert len(lines) == 6
    _check_results(lines)
    sessions = {json.loads(_tool_messages(r)[4]["content"]) for r in lines}
    assert len(sessions) == 1


def test_env_and_headers_expand_variables(
    tmp_path: Path, http_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTLOOP_TEST_VALUE", "seven")
    tools = [
        _stdio(env={"GREETING": "${AGENTLOOP_TEST_VALUE}!"}, cwd=str(tmp_path)),
        {
            "mcp": {"url": http_url, "headers": {"X-Test": "${AGENTLOOP_TEST_VALUE}"}},
            "tools": ["header"],
        },
    ]
    tools[0]["tools"] = ["env_var"]
    calls = [call("c1", "env_var", {"name": "GREETING"}), call("c2", "header", {"name": "x-test"})]
    script = {"*": [ask(*calls), "done"]}
    (line,) = read_results(_run(_config(tmp_path, tools, script, n=1)).run_dir)
    assert [m["content"] for m in _tool_messages(line)] == ["seven!", "seven"]
    # The config (and so run.json) keeps the reference, not the value.
    header = json.loads(next((tmp_path / "runs").glob("*/run.json")).read_text())
    assert "${AGENTLOOP_TEST_VALUE}" in json.dumps(header["config"]["tools"])


def test_a_subset_of_the_servers_tools(tmp_path: Path) -> None:
    tools = [{**_stdio(), "tools": ["shout", "add"]}]
    script = {"*": [ask(call("c1", "shout", {"text": "x"})), "done"]}
    (line,) = read_results(_run(_config(tmp_path, tools, script, n=1)).run_dir)
    assert line["request"]["tools"] == ["shout", "add"]


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ([{**_stdio(), "tools": ["shout", "nope"]}], r"has no tool\(s\) \['nope'\]; it has: add, "),
        (["{tools}:add", _stdio()], "tool names must be unique; repeated: add"),
    ],
)
def test_tool_problems_stop_the_run_before_it_starts(
    tmp_path: Path, tools: list[Any], message: str
) -> None:
    tools = [t.format(tools=tools_file(tmp_path)) if isinstance(t, str) else t for t in tools]
    with pytest.raises(AgentloopError, match=message) as info:
        _run(_config(tmp_path, tools, {"*": ["done"]}, n=1))
    assert "\n" not in str(info.value)
    assert not (tmp_path / "runs").exists()


def test_a_server_that_fails_to_start_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no_server_here.py"
    tools = [{"mcp": {"command": sys.executable, "args": [str(missing)]}}]
    config = _config(tmp_path, tools, {"*": ["done"]}, n=1)
    started = time.monotonic()
    assert main(["run", str(config)]) == 2
    assert time.monotonic() - started < 20
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("agentloop: error: MCP server")
    assert f"{sys.executable} {missing}" in err and "failed to start" in err
    assert "No such file or directory" in err  # the server's own last words
    assert not (tmp_path / "runs").exists()


def test_a_server_that_dies_mid_run_fails_its_calls_not_the_run(tmp_path: Path) -> None:
    script = {
        "r0": [ask(call("c1", "die", {})), ask(call("c2", "add", {"a": 1, "b": 1})), "done"],
        "r1": [ask(call("c3", "add", {"a": 2, "b": 2})), "done"],
    }
    config = _config(tmp_path, [_stdio()], script, n=2, concurrency=1, tool_timeout=20)
    started = time.monotonic()
    lines = {r["id"]: r for r in read_results(_run(config).run_dir)}
    assert time.monotonic() - started < 20  # the calls failed, none waited for its timeout
    assert [r["status"] for r in lines.values()] == ["ok", "ok"]
    texts = [m["content"] for r in lines.values() for m in _tool_messages(r)]
    assert texts[0] == "Error: McpError: Connection closed"
    assert texts[1:] == [f"Error: ToolException: MCP server {_label()} is no longer connected "
                         "(ClosedResourceError)"] * 2  # fmt: skip


def test_a_server_that_never_answers_times_out(tmp_path: Path) -> None:
    hang = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]}
    tools = [{"mcp": hang, "startup_timeout": 1}]
    with pytest.raises(AgentloopError, match="did not answer within 1 s"):
        _run(_config(tmp_path, tools, {"*": ["done"]}, n=1))


def test_a_command_that_does_not_exist(tmp_path: Path) -> None:
    tools = [{"mcp": {"command": "agentloop-no-such-command", "args": []}}]
    with pytest.raises(AgentloopError, match="MCP server 'agentloop-no-such-command' failed"):
        _run(_config(tmp_path, tools, {"*": ["done"]}, n=1))


def test_an_unreachable_url_is_one_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/mcp"
    with pytest.raises(AgentloopError, match=f"MCP server {url} failed to start") as info:
        _run(_config(tmp_path, [{"mcp": {"url": url}}], {"*": ["done"]}, n=1))
    assert "\n" not in str(info.value)


def test_score_mode_starts_no_server(tmp_path: Path) -> None:
    tools = [{"mcp": {"command": "agentloop-no-such-command", "args": []}}]
    rows = [{"id": "r0", "messages": [{"role": "user", "content": "q"},
                                      {"role": "assistant", "content": "a"}]}]  # fmt: skip
    config = write_config(
        tmp_path / "eval.yaml",
        mode="score",
        dataset=str(_write_jsonl(tmp_path / "d.jsonl", rows)),
        tools=tools,
        output_dir=str(tmp_path / "runs"),
    )
    (line,) = read_results(_run(config).run_dir)
    assert line["status"] == "ok"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"mcp": {}}, r"tools\[0\]: mcp needs a command \(stdio\) or a url"),
        ({"mcp": {"command": "x", "url": "http://127.0.0.1/mcp"}}, "command or a url, not both"),
        ({"mcp": {"url": "http://127.0.0.1/mcp", "cwd": "."}}, r"unknown key\(s\) \['cwd'\]"),
        ({"mcp": {"command": "x", "args": "a b"}}, "args must be a list of strings"),
        ({"mcp": {"url": "ftp://x"}}, "url must start with http:// or https://"),
        ({"mcp": "python x.py"}, "mcp must be a mapping"),
        ({"mcp": {"command": "x"}, "tools": "add"}, "tools must be a list of tool names"),
        ({"mcp": {"command": "x"}, "args": {}}, r"unknown key 'args'"),
    ],
)
def test_mcp_spec_shapes(tmp_path: Path, spec: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        load_config(_config(tmp_path, [spec], {"*": ["done"]}, n=1))
    assert "\n" not in str(info.value)


def test_without_the_extra_mcp_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters", None)
    with pytest.raises(ConfigError, match=r"tools\[0\]: .*pip install 'agentloop\[mcp\]'"):
        load_config(_config(tmp_path, [_stdio()], {"*": ["done"]}, n=1))

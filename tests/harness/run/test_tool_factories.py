"""Tools configured with arguments or made by factories, fresh for every (sample, epoch)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentloop.errors import AgentloopError, ConfigError, ToolLoadError
from agentloop.harness import load_config
from agentloop.harness.run._runner import RunOutcome, run_eval_sync
from tests.support.docs import block_with
from tests.support.harness import (
    ask,
    call,
    read_results,
    tools_file,
    write_config,
    write_json,
    write_jsonl,
)

ENV_PY = '''
from langchain_core.tools import BaseTool, tool


class Greeter(BaseTool):
    name: str = "greet"
    description: str = "Greet someone."
    greeting: str = "hello"
    punctuation: str = "!"

    def _run(self, who: str) -> str:
        return f"{self.greeting}, {who}{self.punctuation}"


def make_store(row, epoch, log):
    """Tools sharing one store, seeded from the row (a docstring: it must not become a tool)."""
    with open(log, "a") as handle:
        handle.write(f"{row['id']} {epoch}\\n")
    store = dict(row["metadata"].get("seed", {}))

    @tool
    def put(key: str, value: str) -> str:
        """Store a value under a key."""
        store[key] = value
        return "ok"

    def get(key: str) -> str:
        """Read the value stored under a key."""
        return store.get(key, "missing")

    return [put, get]


def make_plain():
    """No row, no epoch: called with nothing."""
    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"
    return (ping,)


def make_add():
    """A tool named like the configured add."""
    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b
    return [add]


def not_tools():
    """Returns a number."""
    return 3


def mixed():
    """One tool and one thing that is not."""
    return [make_add()[0], 5]


async def async_factory():
    return []


def needs_dsn(dsn):
    return []


def bad_at_runtime(row):
    raise RuntimeError("cannot reach the database of " + row["id"])


NOT_CALLABLE = 4
'''


@pytest.fixture
def env_file(tmp_path: Path) -> Path:
    path = tmp_path / "env_tools.py"
    path.write_text(ENV_PY)
    return path


def _config(tmp_path: Path, tools: list[Any], script: Any, rows: list[dict[str, Any]]) -> Path:
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    script_file = write_json(tmp_path / "script.json", script)
    return write_config(
        tmp_path / "eval.yaml",
        model=f"scripted:{script_file}",
        dataset=str(data),
        tools=tools,
        output_dir=str(tmp_path / "runs"),
        concurrency=2,
    )


def _run(config: Path, *sets: str) -> RunOutcome:
    return run_eval_sync(load_config(config, sets), config_path=str(config))


def _tool_texts(line: dict[str, Any]) -> list[str]:
    return [m["content"] for m in line["trajectory"]["messages"] if m["role"] == "tool"]


def _row(i: int, **metadata: Any) -> dict[str, Any]:
    return {"id": f"r{i}", "messages": [{"role": "user", "content": "go"}], "metadata": metadata}


def test_a_tool_class_gets_its_constructor_arguments(tmp_path: Path, env_file: Path) -> None:
    spec = {"path": f"{env_file}:Greeter", "args": {"greeting": "ahoy"}}
    script = {"*": [ask(call("c1", "greet", {"who": "Ann"})), "done"]}
    outcome = _run(_config(tmp_path, [spec], script, [_row(0), _row(1)]))
    lines = read_results(outcome.run_dir)
    assert [_tool_texts(line) for line in lines] == [["ahoy, Ann!"], ["ahoy, Ann!"]]
    assert all(line["status"] == "ok" for line in lines)


def test_factory_tools_share_state_within_a_sample_only(tmp_path: Path, env_file: Path) -> None:
    log = tmp_path / "calls.log"
    spec = {"factory": f"{env_file}:make_store", "args": {"log": str(log)}}
    script = {
        "*": [
            ask(call("c1", "get", {"key": "color"})),
            ask(call("c2", "put", {"key": "color", "value": "blue"})),
            ask(call("c3", "get", {"key": "color"})),
            "done",
        ]
    }
    rows = [_row(0), _row(1, seed={"color": "red"})]
    outcome = _run(_config(tmp_path, [spec], script, rows), "epochs=2")
    texts = {(r["id"], r["epoch"]): _tool_texts(r) for r in read_results(outcome.run_dir)}
    # The row seeds the store; put is seen by get of the same sample, never by the next one.
    assert texts == {
        ("r0", 1): ["missing", "ok", "blue"],
        ("r0", 2): ["missing", "ok", "blue"],
        ("r1", 1): ["red", "ok", "blue"],
        ("r1", 2): ["red", "ok", "blue"],
    }
    calls = log.read_text().splitlines()
    # Once at startup (a dry build with the first row), then once per (sample, epoch).
    assert calls[0] == "r0 1"
    assert sorted(calls[1:]) == ["r0 1", "r0 2", "r1 1", "r1 2"]


def test_a_factory_without_parameters_and_a_tuple_result(tmp_path: Path, env_file: Path) -> None:
    script = {"*": [ask(call("c1", "ping", {})), "done"]}
    tools = [{"factory": f"{env_file}:make_plain"}, f"{tools_file(tmp_path)}:add"]
    outcome = _run(_config(tmp_path, tools, script, [_row(0)]))
    (line,) = read_results(outcome.run_dir)
    assert _tool_texts(line) == ["pong"]
    assert line["request"]["tools"] == ["ping", "add"]


def test_plain_strings_keep_their_meaning(tmp_path: Path, env_file: Path) -> None:
    # A documented function named by a plain string is wrapped as a tool, as before.
    script = {"*": [ask(call("c1", "make_plain", {})), "done"]}
    outcome = _run(_config(tmp_path, [f"{env_file}:make_plain"], script, [_row(0)]))
    (line,) = read_results(outcome.run_dir)
    assert line["request"]["tools"] == ["make_plain"]


def test_tool_specs_can_be_set_on_the_command_line(tmp_path: Path, env_file: Path) -> None:
    script = {"*": [ask(call("c1", "greet", {"who": "Bo"})), "done"]}
    config = _config(tmp_path, [], script, [_row(0)])
    outcome = _run(config, f"tools=[{{path: '{env_file}:Greeter', args: {{punctuation: '?'}}}}]")
    assert _tool_texts(read_results(outcome.run_dir)[0]) == ["hello, Bo?"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"pth": "x:y"}, r"tools\[0\]: unknown key 'pth'"),
        ({"path": "x:y", "factory": "x:z"}, r"tools\[0\]: give one of path, factory or mcp"),
        ({"factory": 3}, r"tools\[0\]: factory must be an import path string"),
        ({"path": "a:b", "args": [1]}, r"tools\[0\]: args must be a mapping"),
        (3, r"tools\[0\]: a tool is an import path string or a mapping"),
    ],
)
def test_spec_shapes_are_checked_with_the_config(tmp_path: Path, spec: Any, message: str) -> None:
    config = _config(tmp_path, [spec], {"*": ["done"]}, [_row(0)])
    with pytest.raises(ConfigError, match=message) as info:
        load_config(config)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"path": "{env}:Greeter", "args": {"greting": "x"}},
            r"Greeter: unknown argument\(s\) \['greting'\]; accepted: .*greeting",
        ),
        ({"path": "{env}:make_plain", "args": {"a": 1}}, "args are for tool classes"),
        ({"factory": "{env}:not_tools"}, "factory .*:not_tools returned int, not a list of tools"),
        ({"factory": "{env}:mixed"}, r"factory .*:mixed returned a list with int at \[1\]"),
        ({"factory": "{env}:async_factory"}, "factory .*:async_factory is async"),
        ({"factory": "{env}:needs_dsn"}, r"factory .*:needs_dsn: missing argument\(s\) \['dsn'\]"),
        ({"factory": "{env}:make_plain", "args": {"x": 1}}, r"unknown argument\(s\) \['x'\]"),
        ({"factory": "{env}:NOT_CALLABLE"}, "factory .*:NOT_CALLABLE is not callable"),
        ({"factory": "{env}:Greeter"}, "factory .*:Greeter is a tool class; use path"),
        ({"factory": "{env}:bad_at_runtime"}, "factory .*:bad_at_runtime raised RuntimeError"),
        ({"factory": "{env}:nope"}, "has no attribute 'nope'"),
    ],
)
def test_bad_tools_stop_the_run_before_it_starts(
    tmp_path: Path, env_file: Path, spec: dict[str, Any], message: str
) -> None:
    spec = {k: v.format(env=env_file) if isinstance(v, str) else v for k, v in spec.items()}
    config = _config(tmp_path, [spec], {"*": ["done"]}, [_row(0)])
    with pytest.raises(ToolLoadError, match=message) as info:
        _run(config)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "runs").exists()


def test_tool_names_are_unique_across_everything(tmp_path: Path, env_file: Path) -> None:
    tools = [f"{tools_file(tmp_path)}:add", {"factory": f"{env_file}:make_add"}]
    config = _config(tmp_path, tools, {"*": ["done"]}, [_row(0)])
    with pytest.raises(AgentloopError, match="tool names must be unique; repeated: add"):
        _run(config)


def test_a_factory_failing_on_a_later_row_errors_that_sample(
    tmp_path: Path, env_file: Path
) -> None:
    env_file.write_text(
        ENV_PY + "\n\ndef picky(row):\n    if row['id'] == 'r1':\n"
        "        raise ValueError('no env for r1')\n    return make_plain()\n"
    )
    script = {"*": [ask(call("c1", "ping", {})), "done"]}
    config = _config(tmp_path, [{"factory": f"{env_file}:picky"}], script, [_row(0), _row(1)])
    lines = {r["id"]: r for r in read_results(_run(config).run_dir)}
    assert lines["r0"]["status"] == "ok"
    assert lines["r1"]["status"] == "error"
    assert "factory" in lines["r1"]["error"] and "no env for r1" in lines["r1"]["error"]


def test_the_documented_factory_example(tmp_path: Path) -> None:
    block = block_with("# shop.py")
    shop = tmp_path / "shop.py"
    shop.write_text(block)
    script = {
        "*": [
            ask(call("c1", "buy", {"item": "apple"})),
            ask(call("c2", "buy", {"item": "apple"})),
            ask(call("c3", "count", {"item": "apple"})),
            "done",
        ]
    }
    rows = [_row(0), _row(1, inventory={"apple": 1})]
    tools = [{"factory": f"{shop}:make_shop", "args": {"stock": 3}}]
    lines = {r["id"]: r for r in read_results(_run(_config(tmp_path, tools, script, rows)).run_dir)}
    assert _tool_texts(lines["r0"]) == ["bought apple; 2 left", "bought apple; 1 left", "1"]
    assert _tool_texts(lines["r1"]) == [
        "bought apple; 0 left",
        "Error: ToolException: apple is sold out",
        "0",
    ]

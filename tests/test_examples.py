"""The agents in examples/ (LangGraph in process; a plain openai-SDK script, the OpenAI Agents
SDK and pydantic-ai as commands over the model endpoint and MCP) record and score as the
native loop does: τ²-bench's mock domain with its scripted user, AgentDojo's banking rows,
attacked and not, and BFCL multi-turn entries whose turns add tools."""

from __future__ import annotations

import importlib.util
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from agentloop.benchmarks.bfcl._data import bfcl_rows
from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV
from agentloop.cli import main
from tests.support.docs import block_with
from tests.support.harness import bench_module

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SCRIPTS = ROOT / "configs/scripts"
VERDICT = "agentloop.benchmarks:tau2_verdict"
# make test installs the Agents SDK here, without its websockets<17 pin (Makefile)
AGENTS_SDK = Path(sys.prefix) / "openai-agents"
# docs/pages/agentdojo.md's offline recipe: a user task, an injection task, both attacked
DOJO_IDS = ["user_task_3", "injection_task_1", "user_task_3+injection_task_1",
            "user_task_4+injection_task_1"]  # fmt: skip
DOJO_ROWS = f"sample_ids=[{','.join(DOJO_IDS)}]"


def _importable(name: str, *paths: Path) -> bool:
    sys.path.extend(str(p) for p in paths)
    try:
        return importlib.util.find_spec(name) is not None
    finally:
        del sys.path[len(sys.path) - len(paths) :]


def _command(example: str, *paths: Path) -> list[str]:
    command = f"agent.command=[{sys.executable}, {EXAMPLES / example}]"
    if not paths:
        return ["--set", command]
    return ["--set", command, "--set", f"agent.env={{PYTHONPATH: {paths[0]}}}"]


# door -> (the package it needs and where, the config's agent)
DOORS: dict[str, tuple[str, list[Path], list[str]]] = {
    "langgraph": ("langgraph", [], ["--set", f"agent={EXAMPLES}/langgraph_agent.py:make_agent"]),
    "openai_sdk": ("mcp", [], _command("openai_sdk_agent.py")),
    "openai_agents": ("agents", [AGENTS_SDK], _command("openai_agents_agent.py", AGENTS_SDK)),
    "pydantic_ai": ("pydantic_ai", [], _command("pydantic_ai_agent.py")),
}


def _door(name: str) -> list[str]:
    package, paths, extra = DOORS[name]
    if not _importable(package, *paths):
        pytest.skip(f"{package} is not installed (make test installs it)")
    return extra


def _run(out: Path, config: str, *extra: str) -> dict[str, dict[str, Any]]:
    code = main(["run", str(ROOT / config), "--set", "epochs=1", "--no-preflight",
                 "--output-dir", str(out), *extra])  # fmt: skip
    assert code == 0
    (run,) = out.iterdir()
    lines = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    return {line["id"]: line for line in lines}


def _wire(line: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """A stored conversation without LangChain's per-run message ids."""
    return [{k: v for k, v in m.items() if k != "langchain"} for m in line["trajectory"][key]]


def _calls(line: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Each tool call of the conversation: its name, arguments and result."""
    messages = _wire(line, "messages")
    results = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    return [
        (c["function"]["name"], c["function"]["arguments"], results[c["id"]])
        for m in messages
        for c in m.get("tool_calls") or []
    ]


def _quiet(caplog: pytest.LogCaptureFixture) -> None:
    """No error logged by the servers (the mcp SDK logs one when a client, FastMCP's in
    pydantic-ai, closes its session while its GET stream is open)."""
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]


def _agrees(own: dict[str, dict[str, Any]], native: dict[str, dict[str, Any]]) -> None:
    assert own.keys() == native.keys()
    for key, line in own.items():
        theirs = native[key]
        assert line["status"] == theirs["status"] == "ok", (key, line.get("error"))
        assert line["scores"] == theirs["scores"], key
        assert _calls(line) == _calls(theirs) and _calls(line), key
        assert _wire(line, "messages") == _wire(theirs, "messages"), key
        for part in ("stop_reason", "rounds", "tool_calls_by_status", "turns"):
            assert line["trajectory"].get(part) == theirs["trajectory"].get(part), (key, part)
        assert line["agent_notes"] == [], key


TAU2 = (
    "configs/tau2/mock.yaml",
    "--model", f"scripted:{SCRIPTS / 'tau2_mock.json'}",
    "--set", f"user.model=scripted:{SCRIPTS / 'tau2_mock_user.json'}",
)  # fmt: skip


@pytest.fixture(scope="module")
def tau2_native(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _run(tmp_path_factory.mktemp("native"), *TAU2)


@pytest.mark.parametrize("door", list(DOORS))
def test_each_example_plays_tau2_mock_with_the_user_as_the_native_loop(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    door: str,
    tau2_native: dict[str, dict[str, Any]],
) -> None:
    own = _run(tmp_path, *TAU2, *_door(door))
    _agrees(own, tau2_native)
    _quiet(caplog)
    for key, line in own.items():
        assert _wire(line, "user_messages") == _wire(tau2_native[key], "user_messages"), key
    verdicts = [line["scores"][VERDICT]["score"] for line in own.values()]
    assert len(own) == 10 and sum(verdicts) == 8  # configs/tau2/mock.yaml's offline figure


@pytest.fixture(scope="module")
def dojo_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """AgentDojo's offline recipe with a final text for each row: the recipe's replies end
    with an empty one, and pydantic-ai asks its model again after an empty reply."""
    script = json.loads((SCRIPTS / "agentdojo_banking.json").read_text())
    for replies in script.values():
        if replies[-1] == "":
            replies[-1] = "Done."
    path = tmp_path_factory.mktemp("scripts") / "agentdojo_banking.json"
    path.write_text(json.dumps(script))
    return path


@pytest.fixture(scope="module")
def dojo_native(
    tmp_path_factory: pytest.TempPathFactory, dojo_script: Path
) -> dict[str, dict[str, Any]]:
    pytest.importorskip("agentloop.benchmarks.agentdojo")
    if not _importable("agentdojo", Path(sys.prefix) / "agentdojo"):
        pytest.skip("AgentDojo is not installed (make test installs it)")
    config = ("configs/agentdojo/banking.yaml", "--model", f"scripted:{dojo_script}")
    return _run(tmp_path_factory.mktemp("native"), *config, "--set", DOJO_ROWS)


@pytest.mark.parametrize("door", list(DOORS))
def test_each_example_plays_agentdojo_attacked_and_not_as_the_native_loop(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    door: str,
    dojo_script: Path,
    dojo_native: dict[str, dict[str, Any]],
) -> None:
    config = ("configs/agentdojo/banking.yaml", "--model", f"scripted:{dojo_script}")
    own = _run(tmp_path, *config, "--set", DOJO_ROWS, *_door(door))
    _agrees(own, dojo_native)
    _quiet(caplog)
    scores = {k: {r.rsplit("_", 1)[1]: s["score"] for r, s in line["scores"].items()}
              for k, line in own.items()}  # fmt: skip
    assert scores == {  # the recipe's figures (docs/pages/agentdojo.md)
        "user_task_3": {"utility": 1.0},
        "injection_task_1": {"utility": 1.0},
        "user_task_3+injection_task_1": {"utility": 1.0, "security": 1.0},
        "user_task_4+injection_task_1": {"utility": 1.0, "security": 0.0},
    }


BFCL = "configs/bfcl/multi_turn_miss_func.yaml"  # turns that add the functions held back
# the fixture's first entry: five turns, ten calls, the fourth turn adds a function (a process
# per turn for a command: the fixture's three entries take minutes)
BFCL_ROWS = "sample_ids=[multi_turn_miss_func_0]"


@pytest.fixture(scope="module")
def bfcl_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BFCL's ground truth as replies (one reply per step, "Done." ends each turn) for the
    fixture's three entries (tests/data/bfcl)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(BFCL_DATA_ENV, str(ROOT / "tests/data/bfcl"))
        rows = list(bfcl_rows("multi_turn_miss_func"))
    script = bench_module("bfcl_multi_turn_scripted").script(rows, False)
    path = tmp_path_factory.mktemp("scripts") / "bfcl.json"
    path.write_text(json.dumps(script))
    return path


@pytest.fixture(scope="module")
def bfcl_native(
    tmp_path_factory: pytest.TempPathFactory, bfcl_script: Path
) -> dict[str, dict[str, Any]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(BFCL_DATA_ENV, str(ROOT / "tests/data/bfcl"))
        config = (BFCL, "--model", f"scripted:{bfcl_script}", "--set", BFCL_ROWS)
        return _run(tmp_path_factory.mktemp("native"), *config)


@pytest.mark.parametrize("door", list(DOORS))
def test_each_example_plays_bfcl_multi_turn_as_the_native_loop(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    door: str,
    bfcl_script: Path,
    bfcl_native: dict[str, dict[str, Any]],
) -> None:
    monkeypatch.setenv(BFCL_DATA_ENV, str(ROOT / "tests/data/bfcl"))
    config = (BFCL, "--model", f"scripted:{bfcl_script}", "--set", BFCL_ROWS)
    own = _run(tmp_path, *config, *_door(door))
    _agrees(own, bfcl_native)
    _quiet(caplog)
    verdicts = {k: line["scores"]["agentloop.benchmarks:bfcl_multi_turn_verdict"]["score"]
                for k, line in own.items()}  # fmt: skip
    assert verdicts == {"multi_turn_miss_func_0": 1.0}
    added = [t.get("tools_added") for line in own.values() for t in line["trajectory"]["turns"]]
    assert any(added)  # a turn added tools, and the agent called them


def test_the_plain_script_is_the_one_the_page_shows() -> None:
    page = block_with("AGENTLOOP_MODEL_BASE_URL").split("\n", 1)[1]  # without "# my_agent.py"
    example = (EXAMPLES / "openai_sdk_agent.py").read_text().split('"""', 2)[2]
    assert example.strip() == page.strip()

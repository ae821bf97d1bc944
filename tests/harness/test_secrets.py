"""No value of a KEY / TOKEN / SECRET environment variable is ever written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import agentloop.models._base as models_base
from agentloop.cli._commands import main
from agentloop.testing import ScriptedChatModel
from tests.support.harness import (
    add_setup,
    ask,
    call,
    only_run_dir,
    tools_file,
    write_json,
)

SECRETS = {
    "HARNESS_TEST_API_KEY": "sk-test-4f9a8b7c6d5e",
    "HARNESS_SERVICE_TOKEN": "tok_ZXhhbXBsZQ",
    "HARNESS_DB_SECRET": 'pa"ss\\wörd',
}


class _LeakySource:
    """A model source whose errors quote the API key, like a careless client library."""

    def for_sample(self, sample_id: str, epoch: int) -> Any:
        key = SECRETS["HARNESS_TEST_API_KEY"]
        if sample_id == "s0001":
            raise PermissionError(f"401 for key {key}")
        return ScriptedChatModel([RuntimeError(f"bad request with api_key={key}")])

    async def aclose(self) -> None:
        return None


@pytest.fixture(autouse=True)
def _provider(monkeypatch: pytest.MonkeyPatch) -> None:
    # Registered for this module's tests only: other tests list the known prefixes.
    monkeypatch.setitem(
        models_base._PROVIDERS, "harness-leaky", lambda value, params, options: _LeakySource()
    )


def _assert_clean(run_dir: Path) -> None:
    for path in run_dir.iterdir():
        text = path.read_text(encoding="utf-8")
        for value in SECRETS.values():
            assert value not in text, (path.name, value)
            assert json.dumps(value)[1:-1] not in text, (path.name, value)
            assert json.dumps(value, ensure_ascii=False)[1:-1] not in text, (path.name, value)


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)


@pytest.mark.usefixtures("secrets")
def test_tool_results_answers_and_config_are_scrubbed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tools_file(tmp_path)
    config = add_setup(tmp_path, n=2, tools=[f"{tools}:leak", f"{tools}:explode"])
    key, token, db = SECRETS.values()
    write_json(
        tmp_path / "script.json",
        {
            "*": [
                ask(
                    call("c1", "leak", {"name": "HARNESS_TEST_API_KEY"}),
                    call("c2", "leak", {"name": "HARNESS_DB_SECRET"}),
                    call("c3", "explode", {"name": "HARNESS_SERVICE_TOKEN"}),
                ),
                f"the key is {key} and the token {token}",
            ]
        },
    )
    code = main(
        [
            "run",
            str(config),
            "--set",
            f"model_params.user={db}",
            "--set",
            f"model_options.api_key={key}",
            "--set",
            "model_options.latency=0",
            "--set",
            f"description=uses {token}",
        ]
    )
    out, err = capsys.readouterr()
    # model_options.api_key is not an option scripted models take: a usage error, scrubbed.
    assert code == 2 and key not in err
    code = main(
        [
            "run",
            str(config),
            "--set",
            f"model_params.user={db}",
            "--set",
            f"description=uses {token}",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    run_dir = only_run_dir(tmp_path / "runs")
    _assert_clean(run_dir)
    lines = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    tools_out = [m["content"] for m in lines[0]["trajectory"]["messages"] if m["type"] == "tool"]
    assert tools_out == ["***", "***", "Error: ToolException: cannot connect with ***"]
    assert lines[0]["trajectory"]["final_answer"] == "the key is *** and the token ***"
    header = json.loads((run_dir / "run.json").read_text())
    assert (
        header["model_params"] == {"user": "***"} and header["config"]["description"] == "uses ***"
    )
    for value in SECRETS.values():
        assert value not in out and value not in err


@pytest.mark.usefixtures("secrets")
def test_model_errors_are_scrubbed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=3, model="harness-leaky:x")
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    _assert_clean(run_dir)
    lines = {
        r["id"]: r for r in map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())
    }
    assert lines["s0001"]["error"] == "PermissionError: 401 for key ***"
    assert lines["s0000"]["error"] == "RuntimeError: bad request with api_key=***"
    assert lines["s0000"]["trajectory"]["error"] == "RuntimeError: bad request with api_key=***"
    out, err = capsys.readouterr()
    assert SECRETS["HARNESS_TEST_API_KEY"] not in out + err


def test_secret_looking_options_are_redacted_even_without_env(tmp_path: Path) -> None:
    from agentloop.harness._config import EvalConfig
    from agentloop.harness._rundir import redacted_config

    config = EvalConfig(
        model="scripted:x",
        dataset="d",
        model_options={
            "api_key": "literal",
            "api_key_env": "MY_KEY",
            "access_token": "t",
            "base_url": "u",
            "max_tokens_field": "max_tokens",
        },
    )
    assert redacted_config(config)["model_options"] == {
        "api_key": "***",
        "api_key_env": "MY_KEY",
        "access_token": "***",
        "base_url": "u",
        # not a secret: masked, `run --resume RUN_DIR` rejected the config it read back
        "max_tokens_field": "max_tokens",
    }

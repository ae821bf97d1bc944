"""A model from the command line of another provider than the config's: the key and the
endpoint the config named stay with the provider they were named for, options the new
provider does not take are dropped with a note, and ``--unset`` removes a config's field.
Every shipped config opens its model as ``anthropic:``, ``ollama:`` and ``local:``;
requests go to loopback stubs, which record the headers that arrived."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from agentloop.cli._commands import main
from agentloop.errors import ModelSpecError
from agentloop.harness import EvalConfig, load_config
from agentloop.models import open_model
from tests.support.anthropic_stub import AnthropicStub, text
from tests.support.harness import ROOT, add_setup, only_run_dir, read_results
from tests.support.ollama_stub import OllamaStub, chat_reply

OPENAI_KEY, ANTHROPIC_KEY = "sk-openai-must-stay-home-1", "sk-ant-the-right-one-2"
SHIPPED = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "configs").rglob("*.yaml"))
LIVE = [p for p in SHIPPED if not load_config(ROOT / p).model.startswith("scripted:")]


def _unsets(path: str, param: str) -> list[str]:
    """A sampling param the provider has no parameter for stays an error (a setting never
    changes a number silently: ``seed`` for anthropic:, ``max_tokens`` for ollama:, whose
    own is ``num_predict``): the command line removes it."""
    return [f"model_params.{param}"] if param in load_config(ROOT / path).model_params else []


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


def _preflight(config: EvalConfig) -> None:
    async def go() -> None:
        assert config.model is not None
        async with open_model(config.model, config.request_params(), config.model_options) as m:
            await m.preflight()

    anyio.run(go)


def _key(headers: dict[str, str]) -> str:
    """The key a request carried (the SDK sends it as x-api-key or as a bearer token)."""
    return headers.get("x-api-key") or headers["authorization"].removeprefix("Bearer ")


def _sent(headers: list[dict[str, str]]) -> str:
    return " ".join(v for h in headers for v in h.values())


def test_the_shipped_configs_with_a_live_model_are_found() -> None:
    assert {"configs/tau2/airline.yaml", "configs/agentdojo/banking.yaml"} <= set(LIVE)
    assert len(LIVE) >= 25


@pytest.mark.parametrize("path", LIVE)
def test_every_shipped_config_runs_with_anthropic(path: str) -> None:
    with AnthropicStub() as stub:
        stub.replies = [text("pong")]
        sets = [f"model_options.base_url={stub.url}"]
        unsets = _unsets(path, "seed")
        config = load_config(ROOT / path, sets, {"model": "anthropic:claude-stub"}, unsets)
        _preflight(config)
    (headers,) = stub.headers
    assert _key(headers) == ANTHROPIC_KEY
    assert OPENAI_KEY not in _sent(stub.headers)
    if config.user is not None:  # the simulated user stays the config's, with its options
        assert config.user.model.startswith("openai:")


@pytest.mark.parametrize("path", LIVE)
def test_every_shipped_config_runs_with_ollama(path: str) -> None:
    with OllamaStub(lambda body: chat_reply("pong")) as stub:
        sets = [f"model_options.base_url={stub.url}"]
        unsets = _unsets(path, "max_tokens")
        config = load_config(ROOT / path, sets, {"model": "ollama:qwen3"}, unsets)
        _preflight(config)
    assert len(stub.requests) == 1 and stub.requests[0]["model"] == "qwen3"
    assert OPENAI_KEY not in _sent(stub.headers)


@pytest.mark.parametrize("path", LIVE)
def test_every_shipped_config_passes_the_local_checks(path: str, tmp_path: Path) -> None:
    # The local provider checks every option and param before it looks for its server and
    # the model file: an error about either comes after those checks passed.
    config = load_config(ROOT / path, overrides={"model": f"local:{tmp_path}/absent.gguf"})
    with pytest.raises(ModelSpecError, match=r"llama-cpp-python|local model file not found"):
        _preflight(config)


def _user_config(tmp_path: Path, **options: Any) -> Path:
    return add_setup(tmp_path, n=1, model="openai:gpt-4.1", model_params={"temperature": 0},
                     model_options={"api_key_env": "MY_OPENAI_KEY",
                                    "base_url": "http://127.0.0.1:9/v1",
                                    "max_tokens_field": "max_tokens",
                                    "request_timeout": 30, **options})  # fmt: skip


def test_a_users_openai_options_do_not_follow_anthropic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MY_OPENAI_KEY", OPENAI_KEY)
    config = _user_config(tmp_path)
    with AnthropicStub() as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.url)  # where anthropic: goes by default
        stub.replies = [text("pong"), text("1")]
        assert main(["run", str(config), "--model", "anthropic:claude-stub"]) == 0
    err = capsys.readouterr().err
    assert [_key(h) for h in stub.headers] == [ANTHROPIC_KEY, ANTHROPIC_KEY]
    assert OPENAI_KEY not in _sent(stub.headers)
    notes = [line for line in err.splitlines() if line.startswith("agentloop: note:")]
    assert notes == [
        "agentloop: note: --model: model_options.api_key_env not used (written for openai:; "
        "a key or an endpoint goes only to the provider it was named for); "
        "--set model_options.api_key_env=... sets one for it",
        "agentloop: note: --model: model_options.base_url not used (written for openai:; "
        "a key or an endpoint goes only to the provider it was named for); "
        "--set model_options.base_url=... sets one for it",
        "agentloop: note: --model: model_options.max_tokens_field not used "
        "(anthropic: models do not take it)",
    ]
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["status"] == "ok" and line["scores"]["qa_f1_reward"]["score"] == 1.0
    run = (only_run_dir(tmp_path / "runs") / "run.json").read_text()
    assert "MY_OPENAI_KEY" not in run and "max_tokens_field" not in run  # what ran is recorded


def test_options_given_on_the_command_line_go_with_the_new_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SECOND_ANTHROPIC_KEY", "sk-ant-second-3")
    config = _user_config(tmp_path)
    with AnthropicStub() as stub:
        stub.replies = [text("1")]
        assert main(["run", str(config), "--model", "anthropic:claude-stub", "--no-preflight",
                     "--set", f"model_options.base_url={stub.url}",
                     "--set", "model_options.api_key_env=SECOND_ANTHROPIC_KEY"]) == 0  # fmt: skip
    assert [_key(h) for h in stub.headers] == ["sk-ant-second-3"]
    err = capsys.readouterr().err
    assert "model_options.max_tokens_field not used" in err
    assert "api_key_env not used" not in err and "base_url not used" not in err


def test_the_same_provider_keeps_every_option(tmp_path: Path) -> None:
    config = load_config(_user_config(tmp_path), overrides={"model": "openai:gpt-4o-mini"})
    assert config.model_options["api_key_env"] == "MY_OPENAI_KEY" and config.notes == []
    replayed = load_config(_user_config(tmp_path), overrides={"model": "scripted:x.json"})
    assert replayed.model_options["base_url"] == "http://127.0.0.1:9/v1"  # sends nothing


def test_the_simulated_users_options_follow_its_own_model(tmp_path: Path) -> None:
    config = _user_config(tmp_path, api_key_env="MY_OPENAI_KEY")
    text_ = config.read_text() + (
        "user:\n  model: openai:gpt-4.1\n  model_options: {api_key_env: MY_OPENAI_KEY}\n"
    )
    config.write_text(text_)
    agent_only = load_config(config, overrides={"model": "anthropic:claude-stub"})
    assert agent_only.user is not None
    assert agent_only.user.model_options == {"api_key_env": "MY_OPENAI_KEY"}
    both = load_config(config, ["user.model=ollama:qwen3"])
    assert both.user is not None and both.user.model_options == {}
    assert both.notes == [
        "--set user.model=ollama:qwen3: user.model_options.api_key_env not used (written for "
        "openai:; a key or an endpoint goes only to the provider it was named for); "
        "--set user.model_options.api_key_env=... sets one for it"
    ]


def test_unset_removes_a_field_of_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _user_config(tmp_path)
    loaded = load_config(config, unsets=["model_options.api_key_env", "model_params"])
    assert "api_key_env" not in loaded.model_options and loaded.model_params == {}
    assert main(["run", str(config), "--unset", "model_options.api_key_envv"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "agentloop: error: --unset model_options.api_key_envv: model_options has no "
        "'api_key_envv'; did you mean 'model_options.api_key_env'?"
    )
    assert main(["run", str(config), "--unset", "user.model"]) == 2
    assert "--unset user.model: the config has no 'user'" in capsys.readouterr().err

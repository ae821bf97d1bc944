"""No secret value (``agentloop._secrets``: environment and ``./.env``) is ever written or
printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import agentloop.models._base as models_base
from agentloop.cli._commands import main
from agentloop.models import ModelSource
from agentloop.testing import ScriptedChatModel
from tests.support.harness import (
    add_setup,
    ask,
    call,
    only_run_dir,
    tools_file,
    write_json,
    write_jsonl,
)

SECRETS = {
    "HARNESS_TEST_API_KEY": "sk-test-4f9a8b7c6d5e",
    "HARNESS_SERVICE_TOKEN": "tok_ZXhhbXBsZQ",
    "HARNESS_DB_SECRET": 'pa"ss\\wörd',
}


class _LeakySource(ModelSource):
    """A model source whose errors quote the API key, like a careless client library."""

    def for_sample(self, sample_id: str, epoch: int) -> Any:
        key = SECRETS["HARNESS_TEST_API_KEY"]
        if sample_id == "s0001":
            raise PermissionError(f"401 for key {key}")
        return ScriptedChatModel([RuntimeError(f"bad request with api_key={key}")])


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
            f"model_params.extra_body.user={db}",
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
            f"model_params.extra_body.user={db}",
            "--set",
            f"description=uses {token}",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    run_dir = only_run_dir(tmp_path / "runs")
    _assert_clean(run_dir)
    lines = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    tools_out = [m["content"] for m in lines[0]["trajectory"]["messages"] if m["role"] == "tool"]
    assert tools_out == ["***", "***", "Error: ToolException: cannot connect with ***"]
    assert lines[0]["trajectory"]["final_answer"] == "the key is *** and the token ***"
    header = json.loads((run_dir / "run.json").read_text())
    assert header["model_params"] == {"extra_body": {"user": "***"}}
    assert header["config"]["description"] == "uses ***"
    for value in SECRETS.values():
        assert value not in out and value not in err


@pytest.mark.usefixtures("secrets")
def test_model_errors_are_scrubbed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=3, model="harness-leaky:x")
    assert main(["run", str(config)]) == 1  # every result errored
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
    from agentloop.harness import EvalConfig
    from agentloop.harness.rundir._header import redacted_config

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


def test_secret_names_follow_one_policy() -> None:
    from agentloop._secrets import is_secret_name

    secret = [
        "OPENAI_API_KEY", "GH_TOKEN", "db_secret", "PGPASSWORD", "MYSQL_PASSWD",
        "GOOGLE_APPLICATION_CREDENTIALS", "BASIC_AUTH", "api_key", "access_token",
        "apiKey", "X-Api-Key", "accessToken", "clientSecret", "Authorization", "auth",
        "APIKEY", "HF_TOKEN", "aws.secret_access_key", "private-key", "password",
    ]  # fmt: skip
    not_secret = [
        "PATH", "base_url", "api_key_env", "max_tokens_field", "max_tokens",
        "input_tokens", "output_tokens", "total_tokens", "max_completion_tokens",
        # near misses: the words only contain a secret word
        "keyword_boost", "author", "authors", "tokenizer", "TOKENIZERS_PARALLELISM",
        "monkey", "donkey_count", "keyboard", "secretary", "hotkeys",
        "author_name", "authority", "turkey", "tokenize", "monkeypatch",
    ]  # fmt: skip
    assert [n for n in secret if not is_secret_name(n)] == []
    assert [n for n in not_secret if is_secret_name(n)] == []


@pytest.mark.parametrize("name", ["HARNESS_DB_PASSWD", "HARNESS_CREDENTIAL", "HARNESS_AUTH"])
def test_passwd_credential_and_auth_variables_are_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    value = "hunter2-correct-horse"
    monkeypatch.setenv(name, value)
    tools = tools_file(tmp_path)
    config = add_setup(tmp_path, n=1, tools=[f"{tools}:leak"], model_options={"latency": 0})
    write_json(tmp_path / "script.json", {"*": [ask(call("c1", "leak", {"name": name})), "ok"]})
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    line = json.loads((run_dir / "results.jsonl").read_text())
    outputs = [m["content"] for m in line["trajectory"]["messages"] if m["role"] == "tool"]
    assert outputs == ["***"]
    for path in run_dir.iterdir():
        assert value not in path.read_text(encoding="utf-8"), path.name


def test_a_secret_only_in_dotenv_is_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # openai: models read keys from ./.env too, so its values are secrets as much as
    # the environment's; a tool that reads the file must not write the key out.
    value = "sk-dotenv-only-7f3e9a2b"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HARNESS_DOTENV_API_KEY", raising=False)
    (tmp_path / ".env").write_text(f"HARNESS_DOTENV_API_KEY={value}\n")
    tools = tools_file(tmp_path)
    config = add_setup(tmp_path, n=1, tools=[f"{tools}:read_text"])
    env_file = str(tmp_path / ".env")
    write_json(
        tmp_path / "script.json",
        {"*": [ask(call("c1", "read_text", {"path": env_file})), f"found {value}"]},
    )
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    line = json.loads((run_dir / "results.jsonl").read_text())
    outputs = [m["content"] for m in line["trajectory"]["messages"] if m["role"] == "tool"]
    assert outputs == ["HARNESS_DOTENV_API_KEY=***\n"]
    assert line["trajectory"]["final_answer"] == "found ***"
    for path in run_dir.iterdir():
        assert value not in path.read_text(encoding="utf-8"), path.name
    out, err = capsys.readouterr()
    assert value not in out + err
    # CLI error lines are masked with the same values.
    code = main(["run", str(config), "--set", f"model_options.latency={value}"])
    err = capsys.readouterr().err
    assert code == 2 and err == (
        "agentloop: error: model option latency must be a non-negative number, not '***'\n"
    )


def test_summary_tables_and_file_are_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Results written before the secret was known (another machine, an older .env):
    # `agentloop summary` masks what it prints and writes with today's values.
    value = "tok-later-known-5d1c"
    assert main(["run", str(add_setup(tmp_path, n=2))]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    write_jsonl(
        run_dir / "results.jsonl",
        [
            {"id": "s0000", "epoch": 1, "status": "error", "error_kind": "model",
             "error": f"401: bad token {value}"},
            {"id": "s0001", "epoch": 1, "status": "ok", "scores": {}},
        ],
    )  # fmt: skip
    monkeypatch.setenv("HARNESS_LATER_TOKEN", value)
    capsys.readouterr()
    assert main(["summary", str(run_dir)]) == 0
    out, err = capsys.readouterr()
    assert "401: bad token ***" in out and value not in out + err
    assert value not in (run_dir / "summary.json").read_text()


def test_secret_named_params_and_nested_options_are_redacted() -> None:
    from agentloop.harness import EvalConfig
    from agentloop.harness.data._dataset import DatasetScan
    from agentloop.harness.rundir._header import build_header

    config = EvalConfig(
        model="scripted:x",
        dataset="d",
        model_params={"max_tokens": 5, "extra_body": {"auth": "abc", "top_k": 3}},
        model_options={"headers": {"X-Api-Key": "k"}, "db_password": "p"},
    )
    header = build_header(config, None, DatasetScan("d", "0" * 64, 1, []), 1)
    assert header["model_params"] == {"max_tokens": 5, "extra_body": {"auth": "***", "top_k": 3}}
    assert header["config"]["model_params"] == header["model_params"]
    assert header["config"]["model_options"] == {
        "headers": {"X-Api-Key": "***"},
        "db_password": "***",
    }


def test_credentials_inside_urls_are_masked_everywhere(tmp_path: Path) -> None:
    # A URL's password and secret-named query values were written in clear in run.json's
    # config and in report.html (only the name-based rule applied there).
    url = "http://alice:pw-0123456789@db.internal:5432/v1?api_key=sk-url-abcdef&region=eu"
    tools = tmp_path / "endpoint_tools.py"
    tools.write_text(
        "from langchain_core.tools import BaseTool\n\n"
        "class Endpoint(BaseTool):\n"
        "    name: str = 'endpoint'\n"
        "    description: str = 'Say which endpoint is used.'\n"
        "    url: str = ''\n\n"
        "    def _run(self) -> str:\n"
        "        return f'using {self.url}'\n"
    )
    spec = {"path": f"{tools}:Endpoint", "args": {"url": url}}
    config = add_setup(tmp_path, n=1, tools=[spec])
    write_json(tmp_path / "script.json", {"*": [ask(call("c1", "endpoint", {})), "ok"]})
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    assert main(["view", str(run_dir)]) == 0
    written = {p.name: p.read_text(encoding="utf-8") for p in run_dir.iterdir()}
    assert "report.html" in written and "results.jsonl" in written
    for name, text in written.items():
        for secret in ("pw-0123456789", "sk-url-abcdef"):
            assert secret not in text, (name, secret)
    header = json.loads(written["run.json"])
    masked = "http://alice:***@db.internal:5432/v1?api_key=***&region=eu"
    assert header["config"]["tools"][0]["args"]["url"] == masked
    line = json.loads(written["results.jsonl"])
    assert f"using {masked}" in [m["content"] for m in line["trajectory"]["messages"]]


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("see https://tok3n@github.com/x.git", "see https://***@github.com/x.git"),
        ("http://h/p?token=abc&q=1 and ftp://u:p@h", "http://h/p?token=***&q=1 and ftp://u:***@h"),
        ("http://h/p?keyword=abc", "http://h/p?keyword=abc"),  # not a secret name
        ("no urls here: a:b@c", "no urls here: a:b@c"),
    ],
)
def test_one_url_rule(text: str, masked: str) -> None:
    from agentloop._secrets import Scrubber

    assert Scrubber({}).text(text) == masked

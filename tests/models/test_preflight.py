"""Unreachable endpoints fail fast: ``ModelSource.preflight`` and the run's connection errors.

Against the loopback OpenAI-protocol stub and a closed port on 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentloop import ModelSpecError, run_agent
from agentloop.cli._commands import main
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from agentloop.models import ModelSource, open_model
from tests.support.harness import add_setup, only_run_dir, read_results
from tests.support.openai_stub import StubServer, error, reply

SECRET = "sk-preflight-SECRET-0123456789"
FAST = {"retry_initial_delay_s": 0.01, "retry_max_delay_s": 0.05}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "LANGSMITH_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)  # no stray .env


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture
def closed_url() -> str:
    """The base URL of a port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def preflight(base_url: str, **options: Any) -> None:
    async def go() -> None:
        async with open_model("openai:stub-model", None, {"base_url": base_url, **options}) as s:
            await s.preflight()

    anyio.run(go)


def failure(base_url: str, **options: Any) -> str:
    with pytest.raises(ModelSpecError) as caught:
        preflight(base_url, **options)
    return str(caught.value)


def test_the_model_listing_is_the_check(stub: StubServer) -> None:
    preflight(stub.url)
    assert stub.gets == ["/v1/models"] and stub.requests == []


def test_without_a_listing_one_token_chat_request_decides(stub: StubServer) -> None:
    stub.models_response = error(404, "no such route")
    stub.push(reply("h"))
    preflight(stub.url)
    (request,) = stub.requests
    assert request["model"] == "stub-model" and request["max_completion_tokens"] == 1
    stub.models_response = error(404, "no such route")
    stub.push(reply("h"))
    preflight(stub.url, max_tokens_field="max_tokens")  # servers reading the legacy field
    assert stub.requests[1]["max_tokens"] == 1 and "max_completion_tokens" not in stub.requests[1]


def test_a_closed_port_fails_naming_the_url_never_the_key(closed_url: str) -> None:
    message = failure(closed_url)
    assert message.startswith(f"cannot reach the openai:stub-model endpoint {closed_url}: ")
    assert "APIConnectionError" in message and "--no-preflight" in message
    assert SECRET not in message and "\n" not in message


def test_a_rejected_key_fails_and_is_masked(stub: StubServer) -> None:
    stub.models_response = error(401, f"Incorrect API key provided: {SECRET}")
    stub.push(error(401, f"Incorrect API key provided: {SECRET}"))
    message = failure(stub.url)
    assert message.startswith(f"the openai:stub-model endpoint {stub.url} refused a test request")
    assert "401" in message and "Incorrect API key provided: ***" in message
    assert SECRET not in message and "\n" not in message


def test_an_unknown_model_or_route_fails(stub: StubServer) -> None:
    stub.models_response = error(404, "no such route")
    stub.push(error(404, "model 'stub-model' not found\ntry another"))
    message = failure(stub.url)
    assert "404" in message and "model 'stub-model' not found try another" in message
    assert "\n" not in message


def test_temporary_errors_are_left_to_the_runs_retries(stub: StubServer) -> None:
    stub.models_response = error(503, "loading")
    stub.push(error(503, "loading"))
    preflight(stub.url)  # reachable: the run retries 5xx with backoff


def test_other_sources_check_nothing_by_default() -> None:
    class Mine(ModelSource):
        def for_sample(self, sample_id: str, epoch: int) -> Any:
            raise NotImplementedError

    assert anyio.run(Mine().preflight) is None
    assert Mine().endpoint is None


def test_the_endpoint_is_shown_without_credentials() -> None:
    async def endpoint(url: str) -> str | None:
        async with open_model("openai:m", None, {"base_url": url}) as source:
            return source.endpoint

    assert anyio.run(endpoint, "http://127.0.0.1:9/v1") == "http://127.0.0.1:9/v1"
    assert anyio.run(endpoint, "http://me:pw@127.0.0.1:9/v1?api-key=k&x=1") == (
        "http://me:***@127.0.0.1:9/v1?api-key=***&x=1"
    )


def test_connection_errors_during_a_run_name_the_url(closed_url: str) -> None:
    async def go() -> str | None:
        options = {"base_url": closed_url, "max_retries": 0}
        async with open_model("openai:stub-model", None, options) as source:
            trajectory = await run_agent(source.for_sample("s", 1), [], "hi")
            return trajectory.error

    # The type is langchain-openai's (OpenAIConnectionError, an openai.APIConnectionError).
    assert anyio.run(go).endswith(f"ConnectionError: Connection error. ({closed_url})")


def _config(tmp_path: Path, base_url: str, **extra: Any) -> Path:
    options = {"base_url": base_url, "max_retries": 0, **FAST}
    return add_setup(tmp_path, n=3, model="openai:stub-model", model_options=options, **extra)


def test_the_run_stops_before_its_directory_exists(tmp_path: Path, closed_url: str) -> None:
    config = _config(tmp_path, closed_url)
    with pytest.raises(ModelSpecError, match="cannot reach"):
        run_eval_sync(load_config(config), config_path=str(config))
    assert not (tmp_path / "runs").exists()


def test_cli_exit_2_one_line(
    tmp_path: Path, closed_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(_config(tmp_path, closed_url))])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(
        f"agentloop: error: cannot reach the openai:stub-model endpoint {closed_url}"
    )
    assert err.count("\n") == 1 and SECRET not in err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("skip", [["--no-preflight"], ["--set", "preflight=false"]])
def test_the_check_can_be_skipped(
    tmp_path: Path, closed_url: str, capsys: pytest.CaptureFixture[str], skip: list[str]
) -> None:
    code = main(["run", str(_config(tmp_path, closed_url)), *skip])
    capsys.readouterr()
    assert code == 1  # the samples error and the run goes on; every result errored: exit 1
    run_dir = only_run_dir(tmp_path / "runs")
    errors = {line["error"].partition(": ")[2] for line in read_results(run_dir)}
    assert errors == {f"Connection error. ({closed_url})"}
    assert json.loads((run_dir / "run.json").read_text())["config"]["preflight"] is False


def test_one_check_per_run_and_the_header_records_the_endpoint(
    tmp_path: Path, stub: StubServer
) -> None:
    stub.handler = lambda body: reply("ok")
    config = _config(tmp_path, stub.url, tools=[])
    outcome = run_eval_sync(load_config(config), config_path=str(config))
    assert stub.gets == ["/v1/models"] and len(stub.requests) == 3
    header = json.loads((outcome.run_dir / "run.json").read_text())
    assert header["base_url"] == stub.url
    assert SECRET not in (outcome.run_dir / "run.json").read_text()


def test_a_resume_may_skip_the_check(
    tmp_path: Path, stub: StubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.handler = lambda body: reply("ok")
    config = _config(tmp_path, stub.url, tools=[])
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    capsys.readouterr()
    assert main(["run", "--resume", str(run_dir), "--no-preflight"]) == 0
    assert capsys.readouterr().err == ""
    assert stub.gets == ["/v1/models"]  # the first run's check only

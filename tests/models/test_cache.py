"""``cache:``: model replies reused on a rerun, against the loopback OpenAI-protocol stub."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.models._cache import CACHE_FILE
from tests.support.harness import add_setup, read_results, write_config
from tests.support.openai_stub import StubResponse, StubServer, call, reply


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


def _adder(body: dict[str, Any]) -> StubResponse:
    """Calls add(i, 1) for "What is i + 1?", then answers with the tool's result."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return reply(last["content"], usage={"prompt_tokens": 5, "completion_tokens": 1,
                                             "total_tokens": 6})  # fmt: skip
    a = int(last["content"].split()[2])
    return reply(tool_calls=[call("add", {"a": a, "b": 1}, id=f"c{a}")])


def _run(capsys: pytest.CaptureFixture[str], config: Path, out: Path) -> tuple[str, list[Any]]:
    assert main(["run", str(config), "--output-dir", str(out)]) == 0
    printed = capsys.readouterr().out
    (run_dir,) = out.iterdir()
    return printed, sorted(read_results(run_dir), key=lambda line: (line["id"], line["epoch"]))


def _same(line: dict[str, Any]) -> Any:
    """What was said, and the scores (LangChain's run ids differ between runs)."""
    messages = line["trajectory"]["messages"]
    said = [{k: v for k, v in m.items() if k != "langchain"} for m in messages]
    return said, line["scores"]


def test_a_rerun_makes_no_request_and_epochs_stay_independent(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    stub.handler = _adder
    cache = tmp_path / "cache"
    config = add_setup(tmp_path, n=3, model="openai:m", epochs=2, cache=str(cache),
                       model_options={"base_url": stub.url}, preflight=False)  # fmt: skip

    printed, first = _run(capsys, config, tmp_path / "one")
    # 3 samples x 2 epochs x 2 requests: the second epoch is a sample of its own.
    assert len(stub.requests) == 12
    assert all(line["cache"] == {"hits": 0, "misses": 2} for line in first)
    assert "0 hits, 12 misses" in printed

    printed, again = _run(capsys, config, tmp_path / "two")
    assert len(stub.requests) == 12  # nothing sent
    assert [line["cache"] for line in again] == [{"hits": 2, "misses": 0}] * 6
    assert "12 hits, 0 misses" in printed
    assert [_same(line) for line in again] == [_same(line) for line in first]

    # Another temperature is another request; the store holds replies as JSON, no pickle.
    fields = {**_config(config), "model_params": {"temperature": 0.5}}
    _run(capsys, write_config(config, **fields), tmp_path / "three")
    assert len(stub.requests) == 24
    with sqlite3.connect(cache / CACHE_FILE) as db:
        values = [v for (v,) in db.execute("SELECT value FROM replies")]
    assert len(values) == 24 and all(v.startswith("[") for v in values)


def test_expired_replies_are_asked_again(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub.handler = _adder
    config = add_setup(tmp_path, n=1, model="openai:m", cache=str(tmp_path / "c"),
                       cache_expiry_s=1e-9, model_options={"base_url": stub.url},
                       preflight=False)  # fmt: skip
    _run(capsys, config, tmp_path / "one")
    _, lines = _run(capsys, config, tmp_path / "two")
    assert len(stub.requests) == 4 and lines[0]["cache"] == {"hits": 0, "misses": 2}


def test_cache_needs_a_live_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = add_setup(tmp_path, n=1, cache=True)  # a scripted model: no requests to cache
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert "cache: only replies of live models are cached" in err and len(err.splitlines()) == 1


def _config(path: Path) -> dict[str, Any]:
    import yaml

    loaded: dict[str, Any] = yaml.safe_load(path.read_text())
    return loaded

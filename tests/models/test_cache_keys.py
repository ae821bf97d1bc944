"""The response cache answers only for the same request: for every provider the test extra
installs, a rerun is a hit, and another model, endpoint, sampling parameter or reasoning
setting is a miss (through ``agentloop run``, against each provider's loopback stub)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.models._cache import ResponseCache
from tests.support import anthropic_stub, gemini_stub, ollama_stub
from tests.support.harness import add_setup, only_run_dir, read_results
from tests.support.openai_stub import StubServer, reply


@contextmanager
def _openai() -> Iterator[tuple[str, Callable[[], int]]]:
    with StubServer(handler=lambda body: reply("1")) as stub:
        yield stub.url, lambda: len(stub.requests)


@contextmanager
def _anthropic() -> Iterator[tuple[str, Callable[[], int]]]:
    with anthropic_stub.AnthropicStub() as stub:
        stub.replies = [anthropic_stub.text("1") for _ in range(20)]
        yield stub.url, lambda: len(stub.requests)


@contextmanager
def _ollama() -> Iterator[tuple[str, Callable[[], int]]]:
    with ollama_stub.OllamaStub(lambda body: ollama_stub.chat_reply("1")) as stub:
        yield stub.url, lambda: len(stub.requests)


@contextmanager
def _gemini() -> Iterator[tuple[str, Callable[[], int]]]:
    with gemini_stub.GeminiStub(lambda body: gemini_stub.content([{"text": "1"}])) as stub:
        yield stub.url, lambda: len(stub.requests)


# provider -> (its stub, a reasoning setting it takes; send_back is in no request's body)
PROVIDERS: dict[str, tuple[Any, dict[str, Any]]] = {
    "openai": (_openai, {"send_back": False}),
    "deepseek": (_openai, {"send_back": False}),
    "anthropic": (_anthropic, {"effort": "low"}),
    "ollama": (_ollama, {"enabled": True}),
    "google_genai": (_gemini, {"effort": "low"}),
}


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "DEEPSEEK_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(name, "test-key-0123456789")
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_every_part_of_the_request_is_in_the_key(provider: str, tmp_path: Path) -> None:
    pytest.importorskip({"openai": "langchain_openai", "deepseek": "langchain_deepseek",
                         "anthropic": "langchain_anthropic", "ollama": "langchain_ollama",
                         "google_genai": "langchain_google_genai"}[provider])  # fmt: skip
    serve, reasoning = PROVIDERS[provider]
    model, other_model = f"{provider}:m1", f"{provider}:m2"
    cache = tmp_path / "cache"
    with serve() as (url, sent), serve() as (other_url, other_sent):

        def run(name: str, **fields: Any) -> dict[str, int]:
            settings: dict[str, Any] = {
                "model": model, "cache": str(cache), "preflight": False,
                "model_params": {"temperature": 0},
                "model_options": {"base_url": url}, "output_dir": str(tmp_path / name),
            }  # fmt: skip
            settings.update(fields)
            config = add_setup(tmp_path / name, n=1, **settings)
            before = sent() + other_sent()
            assert main(["run", str(config)]) == 0
            (line,) = read_results(only_run_dir(tmp_path / name))
            assert line["status"] == "ok", line.get("error")
            return {"requests": sent() + other_sent() - before, **line["cache"]}

        (tmp_path / "first").mkdir()
        assert run("first") == {"requests": 1, "hits": 0, "misses": 1}
        (tmp_path / "again").mkdir()
        assert run("again") == {"requests": 0, "hits": 1, "misses": 0}
        changes: dict[str, dict[str, Any]] = {
            "model": {"model": other_model},
            "endpoint": {"model_options": {"base_url": other_url}},
            "sampling": {"model_params": {"temperature": 0.5}},
            "reasoning": {"reasoning": reasoning},
        }
        for name, change in changes.items():
            (tmp_path / name).mkdir()
            assert run(name, **change) == {"requests": 1, "hits": 0, "misses": 1}, name


def _generation(**metadata: Any) -> Any:
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration

    kwargs = metadata.pop("additional_kwargs", {})
    return ChatGeneration(message=AIMessage("no", response_metadata=metadata,
                                            additional_kwargs=kwargs))  # fmt: skip


@pytest.mark.parametrize(
    "refused",
    [
        {"finish_reason": "content_filter"},
        {"stop_reason": "refusal"},
        {"finish_reason": "SAFETY"},
        {"additional_kwargs": {"refusal": "I cannot help with that."}},
    ],
)
def test_refusals_and_filtered_replies_are_not_kept(
    refused: dict[str, Any], tmp_path: Path
) -> None:
    cache = ResponseCache(tmp_path, identity={"model": "openai:m"})
    try:
        cache.update("prompt", "llm", [_generation(**refused)])
        assert cache.lookup("prompt", "llm") is None
        cache.update("prompt", "llm", [_generation(finish_reason="stop")])
        assert cache.lookup("prompt", "llm") is not None
    finally:
        cache.close()


def test_entries_under_another_identity_or_the_old_key_are_not_read(tmp_path: Path) -> None:
    import hashlib
    import json
    import sqlite3

    first = ResponseCache(tmp_path, identity={"model": "ollama:llama3"})
    first.update("prompt", "llm", [_generation(finish_reason="stop")])
    first.close()
    second = ResponseCache(tmp_path, identity={"model": "ollama:qwen3"})
    try:
        assert second.lookup("prompt", "llm") is None
        # a reply stored under the old key (llm_string, messages, epoch) is not read
        old = hashlib.sha256(json.dumps(["llm", "prompt", None], sort_keys=True).encode())
        with sqlite3.connect(tmp_path / "responses.sqlite") as db:
            db.execute("INSERT INTO replies VALUES (?, ?, 0)", (old.hexdigest(), "[]"))
        assert ResponseCache(tmp_path).lookup("prompt", "llm") is None
    finally:
        second.close()

"""``pooled_http_client``: the ``openai:`` provider's requests spread over several connection
pools, against the loopback stub: connections are reused, requests in flight are spread
evenly, every response gives its place back, and limits, errors and timeouts are the SDK's."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import anyio
import openai
import pytest

from agentloop.models import open_model
from agentloop.models._pools import SHARDS, ShardedTransport, pooled_http_client
from tests.support.openai_stub import StubServer, reply


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _transport(source: Any) -> ShardedTransport:
    transport = source._http._transport
    assert isinstance(transport, ShardedTransport) and len(transport.pools) == SHARDS
    return transport


def test_sequential_requests_reuse_one_connection() -> None:
    with StubServer(handler=lambda body: reply("ok")) as stub:

        async def main() -> list[int]:
            async with open_model("openai:stub-model", None, {"base_url": stub.url}) as source:
                model = source.for_sample("s", 1)
                for _ in range(5):
                    assert (await model.ainvoke("hi")).content == "ok"
                return list(_transport(source).in_flight)

        in_flight = anyio.run(main)
    assert len(stub.requests) == 5 and len(set(stub.ports)) == 1
    assert in_flight == [0] * SHARDS


def test_concurrent_requests_are_spread_over_the_pools_and_give_their_place_back() -> None:
    n = 2 * SHARDS
    with StubServer(handler=lambda body: reply("ok", delay=0.3)) as stub:

        async def main() -> tuple[list[int], list[int]]:
            async with open_model("openai:stub-model", None, {"base_url": stub.url}) as source:
                model, transport = source.for_sample("s", 1), _transport(source)
                seen: list[int] = []

                async def one() -> None:
                    assert (await model.ainvoke("hi")).content == "ok"

                async with anyio.create_task_group() as group:
                    for _ in range(n):
                        group.start_soon(one)
                    await anyio.sleep(0.15)  # all sent, none answered yet
                    seen = list(transport.in_flight)
                for _ in range(n):  # again: the connections are reused
                    await one()
                return seen, list(transport.in_flight)

        busy, after = anyio.run(main)
    assert busy == [2] * SHARDS and after == [0] * SHARDS
    assert len(stub.requests) == 2 * n
    assert len(set(stub.ports)) == n  # one connection per request in flight, then reused


def test_each_pool_has_its_share_of_the_sdks_limits() -> None:
    limits = openai.DEFAULT_CONNECTION_LIMITS
    for shards in (1, 3, SHARDS):
        transport = ShardedTransport(shards)
        for pool in transport.pools:
            core = pool._pool
            assert core._max_connections == math.ceil(limits.max_connections / shards)
            assert core._max_keepalive_connections == math.ceil(
                limits.max_keepalive_connections / shards
            )
            assert core._keepalive_expiry == limits.keepalive_expiry
    with pytest.raises(ValueError, match="shards must be at least 1"):
        ShardedTransport(0)


def test_a_refused_connection_and_a_timeout_fail_as_with_the_sdks_client() -> None:
    """The same errors as the SDK's default client, and no place kept in a pool."""

    async def failures(http: Any, url: str) -> list[str]:
        client = openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0, timeout=0.3,
                                    http_client=http)  # fmt: skip
        texts = []
        async with client:
            for _ in range(2):
                try:
                    await client.chat.completions.create(model="m", messages=[])
                except openai.APIError as exc:
                    texts.append(f"{type(exc).__name__}: {exc}")
        if isinstance(http._transport, ShardedTransport):
            assert http._transport.in_flight == [0] * SHARDS
        return texts

    with StubServer(handler=lambda body: reply("late", delay=2.0)) as stub:
        expected = {"http://127.0.0.1:9/v1": "APIConnectionError: Connection error.",
                    stub.url: "APITimeoutError: Request timed out."}  # fmt: skip
        for url, text in expected.items():
            default = anyio.run(failures, openai.DefaultAsyncHttpxClient(), url)
            pooled = anyio.run(failures, pooled_http_client(), url)
            assert pooled == default == [text, text]


def test_the_environments_proxy_carries_the_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    # An explicit transport turned httpx's environment proxies off: behind a proxy every
    # request failed, or went direct where a route existed. The stub plays the proxy: it gets
    # the request in absolute form, for a host that resolves nowhere.
    with StubServer(handler=lambda body: reply("via proxy")) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url.rsplit("/v1", 1)[0])
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        options = {"base_url": "http://upstream.invalid/v1"}

        async def main() -> str:
            async with open_model("openai:stub-model", None, options) as source:
                return str((await source.for_sample("s", 1).ainvoke("hi")).content)

        assert anyio.run(main) == "via proxy"
    (path, _), = proxy.raw
    assert path == "http://upstream.invalid/v1/chat/completions"


def test_no_proxy_hosts_go_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    with StubServer(handler=lambda body: reply("direct")) as stub:
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")

        async def main() -> str:
            async with open_model("openai:stub-model", None, {"base_url": stub.url}) as source:
                return str((await source.for_sample("s", 1).ainvoke("hi")).content)

        assert anyio.run(main) == "direct"
    (path, _), = stub.raw
    assert path == "/v1/chat/completions"

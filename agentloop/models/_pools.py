"""``pooled_http_client``: the openai SDK's HTTP client with its connections in several pools.

httpcore's connection pool looks at every pooled connection each time a request starts or a
response is closed, so a request costs time in proportion to the connections open: at 200
requests in flight that is about a quarter of the client's CPU. ``ShardedTransport`` spreads
the requests over ``shards`` pools of the same kind, each request going to the pool with the
fewest requests in flight (the first of them on a tie, so sequential requests keep reusing
one connection). Each pool gets its share of the SDK's connection limits, so the totals stay
the SDK's; timeouts, errors and everything above the transport are httpx's own, unchanged.

An explicit transport turns off httpx's proxies from the environment, so the client mounts
them itself, as httpx does by default: ``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY`` each get
sharded pools through that proxy, and ``NO_PROXY``'s hosts go direct.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator

import httpx2
import openai
from httpx2._utils import get_environment_proxies  # httpx's own reading of the variables

__all__ = ["SHARDS", "ShardedTransport", "pooled_http_client"]

SHARDS = 8
"""Pools per client: at 200 requests in flight, 25 or so each."""


class ShardedTransport(httpx2.AsyncBaseTransport):
    """Requests spread over ``shards`` ``AsyncHTTPTransport`` pools, the least busy first."""

    def __init__(
        self,
        shards: int = SHARDS,
        limits: httpx2.Limits | None = None,
        proxy: httpx2.Proxy | None = None,
    ) -> None:
        if shards < 1:
            raise ValueError(f"shards must be at least 1, not {shards}")
        total = limits or openai.DEFAULT_CONNECTION_LIMITS
        share = httpx2.Limits(
            max_connections=_share(total.max_connections, shards),
            max_keepalive_connections=_share(total.max_keepalive_connections, shards),
            keepalive_expiry=total.keepalive_expiry,
        )
        context = httpx2.create_ssl_context()  # one for all (building one takes ~30 ms)
        self.pools = [
            httpx2.AsyncHTTPTransport(verify=context, limits=share, proxy=proxy)
            for _ in range(shards)
        ]
        self.in_flight = [0] * shards
        """Requests sent through each pool whose response is not closed yet."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        in_flight = self.in_flight
        index = in_flight.index(min(in_flight))
        in_flight[index] += 1
        try:
            response = await self.pools[index].handle_async_request(request)
        except BaseException:
            in_flight[index] -= 1
            raise
        response.stream = _Released(response.stream, in_flight, index)
        return response

    async def aclose(self) -> None:
        for pool in self.pools:
            await pool.aclose()


def _share(limit: int | None, shards: int) -> int | None:
    return None if limit is None else math.ceil(limit / shards)


class _Released(httpx2.AsyncByteStream):
    """A response body that counts its request out of its pool when it is closed."""

    def __init__(self, stream: object, in_flight: list[int], index: int) -> None:
        assert isinstance(stream, httpx2.AsyncByteStream)
        self._stream = stream
        self._in_flight: list[int] | None = in_flight
        self._index = index

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        if self._in_flight is not None:
            self._in_flight[self._index] -= 1
            self._in_flight = None
        await self._stream.aclose()


def pooled_http_client(shards: int = SHARDS) -> openai.DefaultAsyncHttpxClient:
    """The SDK's default async client (its timeout, limits in total, redirects) over
    ``shards`` connection pools, with the environment's proxies as httpx reads them."""
    mounts: dict[str, httpx2.AsyncBaseTransport | None] = {
        pattern: None if url is None else ShardedTransport(shards, proxy=httpx2.Proxy(url))
        for pattern, url in get_environment_proxies().items()
    }
    return openai.DefaultAsyncHttpxClient(transport=ShardedTransport(shards), mounts=mounts)

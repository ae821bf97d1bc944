"""Retrying temporary model errors (429, 5xx, connection errors, timeouts) with backoff."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
from pydantic import BaseModel, Field

__all__ = ["RetryPolicy", "call_with_retry", "is_transient", "retry_after_seconds"]

T = TypeVar("T")

_TRANSIENT_STATUS = frozenset({408, 409, 429})
# Statuses that say "try again later" by definition: retried even when they repeat verbatim.
_BUSY_STATUS = frozenset({408, 409, 429, 502, 503, 504})


class RetryPolicy(BaseModel):
    """How temporary model errors are retried. Limits are data, not code."""

    max_retries: int = Field(default=4, ge=0)
    """Retries after the first attempt; 0 disables retrying."""
    initial_delay_s: float = Field(default=0.5, ge=0)
    """Delay before the first retry; doubles each time."""
    max_delay_s: float = Field(default=30.0, ge=0)
    """Upper bound of one delay (a server's Retry-After is capped by it too)."""
    max_total_s: float = Field(default=120.0, ge=0)
    """No retry starts once this much time has passed since the first attempt."""
    jitter: float = Field(default=0.25, ge=0, le=1)
    """Fraction of each delay that is randomized, so concurrent samples do not retry in step."""

    def delay(self, attempt: int, exc: BaseException) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        hinted = retry_after_seconds(exc)
        if hinted is not None:
            return min(hinted, self.max_delay_s)
        base = min(self.initial_delay_s * 2 ** (attempt - 1), self.max_delay_s)
        return base * (1 - self.jitter * random.random())


def _status_code(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying: 408/409/429/5xx, connection errors and timeouts."""
    status = _status_code(exc)
    if status is not None:
        return status in _TRANSIENT_STATUS or status >= 500
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    # openai's APIConnectionError / APITimeoutError and httpx transport errors carry no status.
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"APIConnectionError", "APITimeoutError", "TransportError"})


def retry_after_seconds(exc: BaseException) -> float | None:
    """The server's Retry-After hint (seconds or HTTP date, or retry-after-ms), if any."""
    headers: Any = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value) if value else None
        except (TypeError, ValueError):  # neither seconds nor an HTTP date: no hint
            return None
        if parsed is None:
            return None
        return max(parsed.timestamp() - time.time(), 0.0)


async def call_with_retry(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy | None,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
) -> T:
    """Await ``fn()``, retrying temporary errors per ``policy``.

    A 5xx such as 500 that comes back verbatim on a retry is the server failing on this
    request, not a passing fault: it is raised then, not retried to the end.
    ``on_retry(attempt, error, delay)`` is told of each retry before its wait.
    """
    started = time.monotonic()
    attempt = 0
    previous: tuple[int, str] | None = None
    while True:
        try:
            return await fn()
        except Exception as exc:
            if policy is None or attempt >= policy.max_retries or not is_transient(exc):
                raise
            status = _status_code(exc)
            if status is not None and status not in _BUSY_STATUS:
                if previous == (status, str(exc)):
                    raise
                previous = (status, str(exc))
            wait = policy.delay(attempt + 1, exc)
            if time.monotonic() - started + wait > policy.max_total_s:
                raise
            attempt += 1
            if on_retry is not None:
                on_retry(attempt, exc, wait)
            await anyio.sleep(wait)

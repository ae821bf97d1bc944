"""Classifying and pacing retries of temporary model errors."""

from __future__ import annotations

import email.utils
import time
from typing import Any

import anyio
import pytest

from agentloop.engine._retry import RetryPolicy, call_with_retry, is_transient, retry_after_seconds


class _Response:
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.status_code = status
        self.headers = headers or {}


class HTTPError(Exception):
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.response = _Response(status, headers)


class APIConnectionError(Exception):
    """Named like openai's, which carries no status."""


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (HTTPError(429), True),
        (HTTPError(500), True),
        (HTTPError(503), True),
        (HTTPError(408), True),
        (HTTPError(400), False),
        (HTTPError(401), False),
        (HTTPError(404), False),
        (TimeoutError(), True),
        (ConnectionResetError(), True),
        (APIConnectionError(), True),
        (ValueError("bad"), False),
    ],
)
def test_classification(exc: BaseException, expected: bool) -> None:
    assert is_transient(exc) is expected


def test_retry_after_forms() -> None:
    assert retry_after_seconds(HTTPError(429, {"retry-after": "3"})) == 3.0
    assert retry_after_seconds(HTTPError(429, {"retry-after-ms": "250"})) == 0.25
    future = email.utils.formatdate(time.time() + 10, usegmt=True)
    hinted = retry_after_seconds(HTTPError(429, {"retry-after": future}))
    assert hinted is not None and 8 <= hinted <= 10
    assert retry_after_seconds(HTTPError(429)) is None
    assert retry_after_seconds(ValueError()) is None


def test_an_unreadable_retry_after_is_no_hint_and_the_error_is_still_retried() -> None:
    # parsedate_to_datetime raises ValueError on garbage: that used to replace the
    # server's 503 with a ValueError and stop retrying.
    assert retry_after_seconds(HTTPError(503, {"retry-after": "soon"})) is None
    assert retry_after_seconds(HTTPError(503, {"retry-after": ""})) is None
    attempts: list[int] = []

    async def flaky() -> str:
        attempts.append(1)
        if len(attempts) < 2:
            raise HTTPError(503, {"retry-after": "soon"})
        return "ok"

    policy = RetryPolicy(initial_delay_s=0.0, jitter=0.0)
    assert anyio.run(call_with_retry, flaky, policy) == "ok" and len(attempts) == 2


def test_delay_backs_off_exponentially_and_is_capped() -> None:
    policy = RetryPolicy(initial_delay_s=1, max_delay_s=5, jitter=0)
    assert [policy.delay(n, ValueError()) for n in (1, 2, 3, 4)] == [1, 2, 4, 5]
    assert policy.delay(1, HTTPError(429, {"retry-after": "60"})) == 5
    jittered = RetryPolicy(initial_delay_s=1, jitter=0.5).delay(1, ValueError())
    assert 0.5 <= jittered <= 1


def _flaky(failures: list[BaseException]) -> Any:
    async def call() -> str:
        if failures:
            raise failures.pop(0)
        return "ok"

    return call


def test_retries_then_succeeds_reporting_each_retry() -> None:
    seen: list[tuple[int, float]] = []
    fn = _flaky([HTTPError(503), HTTPError(429, {"retry-after": "0"})])
    policy = RetryPolicy(initial_delay_s=0, jitter=0)
    result = anyio.run(call_with_retry, fn, policy, lambda n, e, d: seen.append((n, d)))
    assert result == "ok" and seen == [(1, 0), (2, 0)]


def test_permanent_errors_are_not_retried() -> None:
    fn = _flaky([HTTPError(401)])
    with pytest.raises(HTTPError):
        anyio.run(call_with_retry, fn, RetryPolicy(initial_delay_s=0))


def test_the_total_time_cap_stops_retrying() -> None:
    fn = _flaky([HTTPError(429, {"retry-after": "5"})])
    policy = RetryPolicy(max_total_s=1)
    started = time.monotonic()
    with pytest.raises(HTTPError):
        anyio.run(call_with_retry, fn, policy)
    assert time.monotonic() - started < 1


def test_no_policy_means_no_retry() -> None:
    with pytest.raises(HTTPError):
        anyio.run(call_with_retry, _flaky([HTTPError(500)]), None)

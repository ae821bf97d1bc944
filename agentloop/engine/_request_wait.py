"""The time a model request waited for its turn before it was sent, kept apart from the
model's own time.

A model client that lets only so many requests out at once (``max_concurrent_requests``:
``local:``'s one server slot) tells each wait to ``record_request_wait``; the round loop,
which times each model call, collects them with ``request_waits`` and records their sum
as the step's ``wait_s`` (a retried call waits once per attempt). Outside a collection the
report is dropped, so a client works the same when nobody measures it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["record_request_wait", "request_waits"]

# A list per model call: tasks started inside the call copy the context, and so share it.
_WAITS: ContextVar[list[float] | None] = ContextVar("agentloop_request_waits", default=None)


def record_request_wait(seconds: float) -> None:
    """Report that a request waited ``seconds`` for a free slot before it was sent."""
    waits = _WAITS.get()
    if waits is not None:
        waits.append(max(seconds, 0.0))


@contextmanager
def request_waits() -> Iterator[list[float]]:
    """Collect the waits reported while the block runs (in this task and those it starts)."""
    waits: list[float] = []
    token = _WAITS.set(waits)
    try:
        yield waits
    finally:
        _WAITS.reset(token)

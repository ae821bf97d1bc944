"""Daemon worker threads for sync tools: a hung tool never keeps the process alive.

anyio's worker threads are not daemons, so at exit the interpreter waits for a tool
that never returns; and its default limiter (40 threads) queues calls, their wait
counted against the tool timeout. Here a call never waits for a thread: an idle
worker takes it, or a new one is started. There is deliberately no upper bound: the
threads alive at once are one round's sync calls plus the calls abandoned after
their timeout, each holding its thread until the tool returns. Idle workers exit
after ``IDLE_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel

__all__ = ["IDLE_SECONDS", "THREADS_STARTED", "run_in_daemon_thread"]

T = TypeVar("T")

IDLE_SECONDS = 10.0

THREADS_STARTED: contextvars.ContextVar[list[anyio.Event] | None] = contextvars.ContextVar(
    "agentloop_threads_started", default=None
)
"""When set (to a list), each call started here appends an event set when its function
really returns, even after the caller gave up on it (the dispatcher keeps a stateful
tool busy until then)."""

_jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
# One token per idle worker, taken by the call it will run (ThreadPoolExecutor's scheme).
_idle = threading.Semaphore(0)


def _reset_after_fork() -> None:
    # A forked child has none of the parent's workers.
    global _jobs, _idle
    _jobs = queue.SimpleQueue()
    _idle = threading.Semaphore(0)


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_reset_after_fork)


def _work() -> None:
    jobs, idle = _jobs, _idle
    while True:
        try:
            job = jobs.get(timeout=IDLE_SECONDS)
        except queue.Empty:
            if idle.acquire(blocking=False):  # still unclaimed: nobody needs this worker
                return
            continue  # a call claimed this worker; its job is on the way
        job()
        del job  # an idle worker keeps no result alive
        idle.release()


def _submit(job: Callable[[], None]) -> None:
    # A worker first, then the job: if no thread can be started, nothing runs later.
    if not _idle.acquire(blocking=False):
        threading.Thread(target=_work, name="agentloop-tool", daemon=True).start()
    _jobs.put(job)


def _waker(token: anyio.lowlevel.EventLoopToken) -> Callable[[Callable[[], None]], object]:
    """How a worker schedules a callback on the caller's event loop."""
    if isinstance(token.native_token, asyncio.AbstractEventLoop):
        return token.native_token.call_soon_threadsafe  # does not wait for the loop
    return functools.partial(anyio.from_thread.run_sync, token=token)


class _Outcome(Generic[T]):
    __slots__ = ("error", "value")

    def __init__(self) -> None:
        self.value: T | None = None
        self.error: BaseException | None = None


async def run_in_daemon_thread(function: Callable[[], T]) -> T:
    """Run ``function`` in a daemon worker thread with the caller's context variables.

    Cancelling the caller abandons the call: the thread runs on until the function
    returns, and nothing waits for it, not even the interpreter at exit.
    """
    wake = _waker(anyio.lowlevel.current_token())
    context = contextvars.copy_context()
    done = anyio.Event()
    outcome: _Outcome[T] = _Outcome()
    started = THREADS_STARTED.get()
    if started is not None:
        started.append(done)

    def job() -> None:
        try:
            outcome.value = context.run(function)
        except BaseException as exc:  # SystemExit too: the caller decides
            outcome.error = exc
        # A closed event loop refuses the wake-up: its caller gave up long ago.
        with contextlib.suppress(Exception):
            wake(done.set)

    _submit(job)
    await done.wait()
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]

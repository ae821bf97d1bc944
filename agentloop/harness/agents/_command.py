"""The config's ``agent: {command: [...]}``: an agent in another process, in any language,
run per (sample, epoch) on the run's model and the row's tools, both served on 127.0.0.1
(``_external``); a process per agent call: per turn of a row with turns (its task and
``tools/list`` holding the tools so far), per user turn with a simulated user. The
command's stdout is its final answer.

The process gets, besides a few variables of agentloop's own environment (``_KEPT``: not
the provider's keys) and the config's ``env``:

- ``AGENTLOOP_MCP_URL``: the row's tools, MCP over streamable HTTP;
- ``AGENTLOOP_MODEL_BASE_URL``: the OpenAI base URL (ending in ``/v1``) of the model;
- ``AGENTLOOP_TOKEN``: the bearer token both require, fresh per (sample, epoch);
- ``AGENTLOOP_SAMPLE_ID``, ``AGENTLOOP_EPOCH``: the (sample, epoch) it runs for;
- ``AGENTLOOP_TASK``: ``{"messages", "tools"}`` as JSON (OpenAI chat dicts and tools),
  also written to its stdin (the variable is left out above ``MAX_TASK_VARIABLE``);
- ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``: the same URL and token, for OpenAI clients;
- ``ANTHROPIC_BASE_URL`` (without ``/v1``) and ``ANTHROPIC_API_KEY``: for Anthropic's.

A non-zero exit, a stdout that is not UTF-8, or a command that cannot start is that
sample's error with the tail of its stderr (after a limit refused the agent, a stop at
that limit, the stderr in the notes); the time limit kills it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

from agentloop.engine import AgentFactory
from agentloop.harness.agents._external import (
    DEFAULT_TIME_LIMIT,
    ExternalAgentError,
    Served,
    external_factory,
)

__all__ = ["DEFAULT_TIME_LIMIT", "AgentCommandError", "command_factory"]

MAX_TASK_VARIABLE = 100_000
"""Characters of the task's JSON above which ``AGENTLOOP_TASK`` is left out (Linux refuses
a variable above 128 KiB); stdin carries it whatever its size."""
STDERR_TAIL = 2000
"""Characters of stderr kept in the sample's error."""
_KEPT = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT", "VIRTUAL_ENV")


class AgentCommandError(ExternalAgentError):
    """The command failed: the sample's error, its stderr's tail in the text."""


async def _read_into(stream: ByteReceiveStream | None, chunks: list[bytes]) -> None:
    if stream is not None:
        async for chunk in stream:
            chunks.append(chunk)


def _tail(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    if not text:
        return "; stderr empty"
    return f"; stderr: {'...' if len(text) > STDERR_TAIL else ''}{text[-STDERR_TAIL:]}"


async def _feed(stream: ByteSendStream | None, data: bytes) -> None:
    if stream is None:
        return
    try:
        await stream.send(data)
        await stream.aclose()
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass  # a command that does not read its stdin


async def _run(command: Sequence[str], env: dict[str, str], stdin: bytes, notes: list[str]) -> str:
    """The command's stdout, once it exits 0; killed if cancelled (the time limit), its
    stderr's tail then in ``notes``."""
    try:
        process = await anyio.open_process(list(command), env=env)
    except OSError as exc:
        raise AgentCommandError(f"agent.command {command[0]!r} cannot start: {exc}") from None
    out: list[bytes] = []
    err: list[bytes] = []
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_feed, process.stdin, stdin)
            group.start_soon(_read_into, process.stdout, out)
            group.start_soon(_read_into, process.stderr, err)
        code = await process.wait()
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.kill()
                await process.wait()
                notes.append(f"agent.command was killed at the time limit{_tail(b''.join(err))}")
            await process.aclose()
    if code != 0:
        raise AgentCommandError(f"agent.command exited with code {code}{_tail(b''.join(err))}")
    try:
        return b"".join(out).decode("utf-8").rstrip()
    except UnicodeDecodeError:
        raise AgentCommandError(
            f"agent.command wrote a stdout that is not UTF-8 text{_tail(b''.join(err))}"
        ) from None


def command_factory(command: Sequence[str], env: dict[str, str]) -> AgentFactory:
    """A factory for ``run_own_agent`` running ``command`` (see the module doc)."""

    async def launch(served: Served, notes: list[str]) -> str:
        given = {k: os.environ[k] for k in _KEPT if k in os.environ}
        text = json.dumps(served.task)
        # the task on stdin always; in the environment too when it fits there
        shown = {"AGENTLOOP_TASK": text} if len(text) <= MAX_TASK_VARIABLE else {}
        variables = {
            **given,
            **env,
            "AGENTLOOP_MCP_URL": served.mcp_url,
            "AGENTLOOP_MODEL_BASE_URL": served.model_base_url,
            "AGENTLOOP_TOKEN": served.token,
            **{f"AGENTLOOP_{k.upper()}": str(v) for k, v in served.episode.items()},
            **shown,
            "OPENAI_BASE_URL": served.model_base_url,
            "OPENAI_API_KEY": served.token,
            "ANTHROPIC_BASE_URL": served.model_base_url.removesuffix("/v1"),
            "ANTHROPIC_API_KEY": served.token,
        }
        return await _run(command, variables, text.encode(), notes)

    return external_factory(launch)

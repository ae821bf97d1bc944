"""The config's ``agent: {url: ...}``: an agent service, in any language, asked for its
next reply once per agent call (per user turn with a simulated user), on the tools and the
model served for that call (``_external``).

Each call is one ``POST`` of a JSON body to the URL::

    {"messages": [...], "tools": [...], "mcp_url": "...", "model_base_url": "...",
     "token": "...", "sample_id": "...", "epoch": 1}

(the conversation so far and the tools as OpenAI chat dicts, where the row's tools are
served over MCP, the model endpoint's OpenAI base URL, the bearer token both require), with
the config's ``headers_env`` headers; ``sample_id`` and ``epoch`` name the (sample, epoch),
the same in every call of one episode. The answer is ``{"reply": "..."}`` (``null`` or
``""``: no answer), status 2xx. A refused connection, a non-2xx status, a body that is not
that JSON, is the sample's error with what came back; the time limit cancels the request.
"""

from __future__ import annotations

import json
import os
from typing import Any

import httpx

from agentloop._secrets import mask_url, read_dotenv
from agentloop.engine import AgentFactory
from agentloop.harness.agents._external import ExternalAgentError, Served, external_factory

__all__ = ["AgentHttpError", "http_factory", "resolve_headers"]

BODY_HEAD = 2000
"""The first characters of an unexpected answer's body kept in the sample's error."""


class AgentHttpError(ExternalAgentError):
    """The service failed: the sample's error, with its status and body."""


def resolve_headers(headers_env: dict[str, str], dotenv: str = ".env") -> dict[str, str]:
    """The headers' values from the variables they name (the environment wins over
    ``.env``); ValueError names one that is not set."""
    env = read_dotenv(dotenv)
    values: dict[str, str] = {}
    for header, variable in headers_env.items():
        value = os.environ.get(variable) or env.get(variable)
        if not value:
            raise ValueError(
                f"agent.headers_env: {header} names {variable}, which is not set in the "
                "environment or ./.env"
            )
        values[header] = value
    return values


def _body_head(response: httpx.Response) -> str:
    text = response.text.strip()
    if not text:
        return "an empty body"
    return f"{text[:BODY_HEAD]}{'...' if len(text) > BODY_HEAD else ''}"


def _reply(url: str, response: httpx.Response) -> str:
    if not response.is_success:
        raise AgentHttpError(
            f"agent.url {url} answered HTTP {response.status_code}: {_body_head(response)}"
        )
    try:
        body: Any = json.loads(response.content)
    except ValueError:
        body = None
    reply = body.get("reply", ...) if isinstance(body, dict) else ...
    if reply is None:
        return ""
    if not isinstance(reply, str):
        raise AgentHttpError(
            f"agent.url {url} answered {_body_head(response)}; expected a JSON object "
            '{"reply": "..."}'
        )
    return reply.rstrip()


def http_factory(url: str, headers: dict[str, str]) -> AgentFactory:
    """A factory for ``run_own_agent`` asking the service at ``url`` (see the module doc)."""

    shown = mask_url(url)  # a password in the URL stays out of errors

    async def launch(served: Served, notes: list[str]) -> str:
        body = {
            **served.task,
            "mcp_url": served.mcp_url,
            "model_base_url": served.model_base_url,
            "token": served.token,
            **served.episode,
        }
        # no read timeout of its own: the run's time limit cancels a request that hangs
        async with httpx.AsyncClient(timeout=None, trust_env=False) as client:
            try:
                response = await client.post(url, json=body, headers=headers)
            except httpx.HTTPError as exc:
                raise AgentHttpError(
                    f"agent.url {shown} could not be asked: {type(exc).__name__}: {exc}"
                ) from None
        return _reply(shown, response)

    return external_factory(launch)

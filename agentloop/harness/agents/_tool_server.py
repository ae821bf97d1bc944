"""One episode's tools over MCP (streamable HTTP, the official ``mcp`` SDK), for an agent
that runs its own loop elsewhere.

The server listens on 127.0.0.1 only, on a free port, and refuses every request that does
not carry the server's bearer token (``Authorization: Bearer <token>``, or ``x-api-key:
<token>`` as Anthropic's clients send a key; a fresh random token per server, compared in
constant time), the MCP endpoint (``/mcp``) and the caller's
own routes alike. It lists the tools ``list_tools`` gives (OpenAI schemas, asked again at
every ``tools/list``: a later turn may add tools) and answers each call with ``call``'s
text, as an error result (``isError``) when ``call`` says the call failed. Arguments are
not checked against the schema here: the handler's dispatch validates them, with the
error texts the engine's model would read.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from langchain_core.utils.function_calling import convert_to_openai_tool

from agentloop.harness.agents._file_limit import raise_file_limit

__all__ = ["CallHandler", "ToolServer", "serve_tools"]

CallHandler = Callable[[str, dict[str, Any]], Awaitable[tuple[str, bool]]]
"""Answers one call (tool name, arguments): the result's text, and whether it failed."""

HOST = "127.0.0.1"


@dataclass(frozen=True)
class ToolServer:
    """Where a running server listens, and the token it requires."""

    base_url: str
    """``http://127.0.0.1:PORT``: the caller's routes are under it."""
    token: str
    """The bearer token every request must carry."""

    @property
    def url(self) -> str:
        """The MCP endpoint (streamable HTTP)."""
        return f"{self.base_url}/mcp"

    @property
    def headers(self) -> dict[str, str]:
        """The header a client sends."""
        return {"Authorization": f"Bearer {self.token}"}


def _mcp_tool(schema: Any) -> Any:
    from mcp import types

    function = convert_to_openai_tool(schema)["function"]
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    return types.Tool(
        name=function["name"], description=function.get("description") or "", inputSchema=parameters
    )


class _BearerToken:
    """ASGI middleware: a request without the token gets 401 and reaches nothing."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.key = token.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            given = headers.get(b"authorization", b"")
            # Anthropic's clients send their key as x-api-key: the same token is accepted
            key = headers.get(b"x-api-key", b"")
            if not (
                hmac.compare_digest(given, self.expected) or hmac.compare_digest(key, self.key)
            ):
                from starlette.responses import JSONResponse

                refused = JSONResponse(
                    {"error": "a valid token is required (Authorization: Bearer <token>)"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


class _Asgi:
    """An ASGI app as a route's endpoint (Starlette wraps a plain function as a
    request-to-response handler)."""

    def __init__(self, handle: Callable[[Any, Any, Any], Awaitable[None]]) -> None:
        self.handle = handle

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.handle(scope, receive, send)


def _without_get(handle: Callable[[Any, Any, Any], Awaitable[None]]) -> Any:
    """MCP's handler with GET answered 405, the spec's way for a server that sends nothing
    unasked to decline the standalone SSE stream: with one open, a client that ends its
    session (FastMCP's, in pydantic-ai) makes the mcp SDK log a ClosedResourceError."""

    async def handled(scope: Any, receive: Any, send: Any) -> None:
        if scope["method"] == "GET":
            from starlette.responses import Response

            declined = Response(status_code=405, headers={"Allow": "POST, DELETE"})
            await declined(scope, receive, send)
            return
        await handle(scope, receive, send)

    return handled


def _uvicorn_server(app: Any) -> Any:
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield  # the process's signals stay its own (agentloop serve closes on SIGINT)

    config = uvicorn.Config(
        app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2, access_log=False
    )
    return Server(config)


@asynccontextmanager
async def serve_tools(
    list_tools: Callable[[], Awaitable[Sequence[Any]]],
    call: CallHandler,
    *,
    routes: Sequence[Any] = (),
    name: str = "agentloop",
) -> AsyncIterator[ToolServer]:
    """An MCP server of these tools, listening for the block (see the module doc);
    ``routes`` are Starlette routes served next to it, behind the same token."""
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    server: Server[Any, Any] = Server(name)

    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def listed() -> list[types.Tool]:
        return [_mcp_tool(schema) for schema in await list_tools()]

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def called(tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        text, failed = await call(tool, arguments)
        content: list[types.ContentBlock] = [types.TextContent(type="text", text=text)]
        return types.CallToolResult(content=content, isError=failed)

    raise_file_limit()  # a hundred episodes at once pass a common soft limit (the module's doc)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((HOST, 0))
    # Accepted connections inherit it: without, a small answer waits ~40 ms for an ACK
    # (Nagle against delayed ACKs), 80 times the cost of the request itself.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    # Host and Origin checked too: a web page cannot reach the server through DNS rebinding.
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{HOST}:{port}", f"localhost:{port}"],
        allowed_origins=[f"http://{HOST}:{port}", f"http://localhost:{port}"],
    )
    sessions = StreamableHTTPSessionManager(app=server, security_settings=security)

    mcp = Route("/mcp", endpoint=_Asgi(_without_get(sessions.handle_request)))
    app = Starlette(routes=[*routes, mcp])
    http = _uvicorn_server(_BearerToken(app, token))
    with sock:
        async with sessions.run(), anyio.create_task_group() as group:
            group.start_soon(http.serve, [sock])
            while not http.started:  # the socket is bound: clients queue until it serves
                if http.should_exit:
                    raise OSError(f"the tool server on {HOST}:{port} did not start")
                await anyio.sleep(0.01)
            try:
                yield ToolServer(f"http://{HOST}:{port}", token)
            finally:
                http.should_exit = True

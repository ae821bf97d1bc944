"""A small MCP server for the tests (the ``mcp`` package's FastMCP).

``python mcp_server.py stdio`` serves on stdin/stdout; ``python mcp_server.py http PORT``
serves streamable HTTP on ``http://127.0.0.1:PORT/mcp``.
"""

from __future__ import annotations

import sys
from typing import Any, TypedDict

from mcp.server.fastmcp import Context, FastMCP

server = FastMCP(
    "agentloop-test",
    host="127.0.0.1",
    port=int(sys.argv[2]) if len(sys.argv) > 2 else 8000,
    log_level="WARNING",
)
_sessions: list[Any] = []
_calls = 0


class Profile(TypedDict):
    name: str
    tags: list[str]


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def profile(name: str) -> Profile:
    """A person's profile (a structured result)."""
    return {"name": name, "tags": ["admin", "ops"]}


@server.tool()
def shout(text: str) -> str:
    """The text in capitals (plain text, no structure)."""
    return text.upper()


@server.tool()
def fail(why: str) -> str:
    """Always fails with the reason given."""
    raise ValueError(why)


@server.tool()
def calls() -> int:
    """How many times this tool was called in this server process."""
    global _calls
    _calls += 1
    return _calls


@server.tool()
def die() -> str:
    """End the server process at once, answering nothing."""
    import os

    os._exit(3)


@server.tool()
def env_var(name: str) -> str:
    """The value of an environment variable of the server process."""
    import os

    return os.environ.get(name, "")


@server.tool()
def header(name: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """A header of the HTTP request that carried this call ("" on stdio)."""
    request = ctx.request_context.request
    return "" if request is None else str(request.headers.get(name, ""))


@server.tool()
def session_number(ctx: Context) -> int:  # type: ignore[type-arg]
    """Which client session is calling (1 for the first one this process saw)."""
    session = ctx.session
    if not any(s is session for s in _sessions):
        _sessions.append(session)
    return next(i for i, s in enumerate(_sessions, 1) if s is session)


if __name__ == "__main__":
    server.run(transport="streamable-http" if sys.argv[1:2] == ["http"] else "stdio")

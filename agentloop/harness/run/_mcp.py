"""The tools of MCP servers, through langchain-mcp-adapters (the ``mcp`` extra).

Each server gets one client session for the whole run, held by a task of its own: a
server that dies mid-run fails the calls made to it (error tool messages), never the
run. Its tools are wrapped so that a result is what the model should read: the
server's structured result (``structuredContent``) when it sends one (a plain value
that FastMCP wrapped as ``{"result": value}`` unwrapped), else its text;
a result the server marks as an error raises ``ToolException`` (an error tool message).
A stdio server's stderr goes to a temporary file; its last line explains a failed start.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import IO, Any

import anyio
from langchain_core.tools import BaseTool, StructuredTool, ToolException

from agentloop._secrets import read_dotenv
from agentloop.engine import one_line
from agentloop.errors import ToolLoadError
from agentloop.harness.config._tool_specs import MCP_INSTALL_HINT, McpSpec

__all__ = ["open_servers"]

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _expand(values: dict[str, str], where: str) -> dict[str, str]:
    """``${NAME}`` replaced by the variable's value (the environment's, else ``.env``'s,
    as for model keys), so secrets stay out of configs."""
    found = {**read_dotenv(), **os.environ} if any("${" in v for v in values.values()) else {}

    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in found:
            raise ToolLoadError(f"{where} refers to ${{{name}}}, which is not set")
        return found[name]

    return {key: _VARIABLE.sub(value_of, value) for key, value in values.items()}


def _result(message: Any) -> Any:
    """What the model reads: the structured result if any (a plain value FastMCP wrapped
    as ``{"result": value}`` unwrapped), else the text blocks' text."""
    artifact = getattr(message, "artifact", None)
    if isinstance(artifact, dict) and artifact.get("structured_content") is not None:
        structured = artifact["structured_content"]
        if isinstance(structured, dict) and list(structured) == ["result"]:
            return structured["result"]
        return structured
    content = message.content
    if isinstance(content, str):
        return content
    if all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return "\n".join(str(b.get("text", "")) for b in content)
    # Images and files: the blocks, without the random ids LangChain gives them.
    return [
        {k: v for k, v in b.items() if k != "id"} if isinstance(b, dict) else b for b in content
    ]


def _wrap(tool: BaseTool, label: str) -> BaseTool:
    async def call(**args: Any) -> Any:
        request = {"type": "tool_call", "id": "mcp", "name": tool.name, "args": args}
        try:
            message = await tool.ainvoke(request)
        except ToolException as exc:  # the adapter's private subclass: keep the public name
            raise ToolException(str(exc)) from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            gone = f"MCP server {label} is no longer connected ({type(exc).__name__})"
            raise ToolException(gone) from None
        return _result(message)

    return StructuredTool(
        name=tool.name,
        description=tool.description,
        args_schema=tool.args_schema or {"type": "object", "properties": {}},
        coroutine=call,
        metadata=tool.metadata,
    )


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(inner := getattr(exc, "exceptions", None), tuple) and inner:
        exc = inner[0]  # an exception group (duck typed: Python 3.10 has none built in)
    return exc


def _last_line(errlog: IO[str] | None) -> str:
    if errlog is None:
        return ""
    errlog.seek(0)
    lines = [line.strip() for line in errlog.read().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


class _Server:
    """One server's session, opened and closed by a task of its own."""

    def __init__(self, spec: McpSpec) -> None:
        self.spec = spec
        self.tools: list[BaseTool] = []
        self.error: BaseException | None = None
        self.ready = anyio.Event()
        self.stop = anyio.Event()

    def _session(self, errlog: IO[str] | None) -> AbstractAsyncContextManager[Any]:
        server = self.spec.server
        if "url" in server:
            from langchain_mcp_adapters.sessions import create_session

            connection: Any = {
                "transport": "streamable_http",
                "url": server["url"],
                "headers": _expand(server.get("headers", {}), "mcp: headers"),
                "timeout": server.get("timeout", 30),
            }
            return create_session(connection)
        return self._stdio(errlog)

    @asynccontextmanager
    async def _stdio(self, errlog: IO[str] | None) -> AsyncIterator[Any]:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        server = self.spec.server
        env = _expand(server["env"], "mcp: env") if "env" in server else None
        params = StdioServerParameters(
            command=server["command"], args=server["args"], env=env, cwd=server.get("cwd")
        )
        async with (
            stdio_client(params, errlog=errlog) as (read, write),  # type: ignore[arg-type]
            ClientSession(read, write) as session,
        ):
            yield session

    async def serve(self) -> None:
        from langchain_mcp_adapters.tools import load_mcp_tools

        stdio = "command" in self.spec.server
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            try:
                async with self._session(errlog if stdio else None) as session:
                    with anyio.fail_after(self.spec.startup_timeout):
                        await session.initialize()
                        loaded = await load_mcp_tools(session, handle_tool_errors=False)
                    self.tools = [_wrap(t, self.spec.label) for t in loaded]
                    self.ready.set()
                    await self.stop.wait()
            except Exception as exc:  # a failed start is reported by start(); a late death is
                self.error = exc  # the failed calls' business, never the run's
                if not self.ready.is_set():
                    self.error = ToolLoadError(self._failure(exc, errlog if stdio else None))
            finally:
                self.ready.set()

    def _failure(self, exc: BaseException, errlog: IO[str] | None) -> str:
        exc = _leaf(exc)
        if isinstance(exc, ToolLoadError):
            reason = str(exc)
        elif isinstance(exc, TimeoutError):
            reason = f"it did not answer within {self.spec.startup_timeout:g} s"
        else:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        said = _last_line(errlog)
        tail = f" (its stderr: {said})" if said else ""
        return one_line(f"MCP server {self.spec.label} failed to start: {reason}{tail}")

    def selected(self) -> list[BaseTool]:
        """The tools the spec asks for, in its order (all of them, in the server's, if none)."""
        if self.spec.tools is None:
            return self.tools
        by_name = {t.name: t for t in self.tools}
        if missing := [n for n in self.spec.tools if n not in by_name]:
            raise ToolLoadError(
                f"MCP server {self.spec.label} has no tool(s) {missing}; "
                f"it has: {', '.join(by_name) or 'none'}"
            )
        return [by_name[n] for n in self.spec.tools]


@asynccontextmanager
async def open_servers(specs: Sequence[McpSpec]) -> AsyncIterator[list[list[BaseTool]]]:
    """Start every server (one session each) and yield their tools, one list per spec;
    ``ToolLoadError`` (one line, naming the command or URL) when one fails to start."""
    try:
        import langchain_mcp_adapters  # noqa: F401
    except ImportError:
        raise ToolLoadError(f"MCP tools need the mcp extra: {MCP_INSTALL_HINT}") from None
    servers = [_Server(spec) for spec in specs]
    failure: Exception | None = None
    async with anyio.create_task_group() as group:
        # Errors are raised after the group: inside it, anyio would wrap them in a group.
        try:
            for server in servers:
                group.start_soon(server.serve)
                await server.ready.wait()
                if server.error is not None:
                    raise server.error
            tools = [server.selected() for server in servers]
        except Exception as exc:
            failure = exc
        else:
            try:
                yield tools
            except Exception as exc:  # the run's own error, passed on unwrapped
                failure = exc
        finally:
            for server in servers:
                server.stop.set()
    if failure is not None:
        raise failure

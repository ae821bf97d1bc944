"""The tool specs of a config and its environment's, checked for shape (nothing is imported
or started here).

- ``"pkg.mod:name"`` / ``"./file.py:name"``: a tool, a documented function or a
  ``BaseTool`` class (instantiated afresh for every sample)
- ``{path: "pkg.mod:Cls", args: {...}}``: a ``BaseTool`` class with constructor arguments
- ``{factory: "pkg.mod:make", args: {...}}``: a function returning tools that may share
  state, called for every (sample, epoch)
- ``{mcp: {command, args, env, cwd} | {url, headers, timeout}, tools: [names],
  startup_timeout: s}``: the tools of an MCP server (stdio or streamable HTTP)

The config's ``environment`` (``"pkg.mod:make"`` or ``{factory: ..., args: {...}}``) is a
factory spec too: the environment it makes brings tools that join these (``_environment``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MCP_INSTALL_HINT",
    "FactorySpec",
    "McpSpec",
    "PathSpec",
    "ToolSpec",
    "parse_environment_spec",
    "parse_tool_spec",
    "parse_tool_specs",
    "tool_import_paths",
]

MCP_INSTALL_HINT = "pip install 'agentloop[mcp]'"
_STDIO_KEYS = frozenset({"command", "args", "env", "cwd"})
_HTTP_KEYS = frozenset({"url", "headers", "timeout"})


@dataclass(frozen=True)
class PathSpec:
    """A tool by import path; ``args`` go to a ``BaseTool`` class's constructor."""

    path: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FactorySpec:
    """A function returning tools, called with ``args`` (and the row and epoch if it asks)."""

    factory: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class McpSpec:
    """An MCP server: its connection (stdio ``command`` or HTTP ``url``) and which tools."""

    server: dict[str, Any]
    tools: tuple[str, ...] | None = None
    """Tool names to load; None loads every tool the server offers."""
    startup_timeout: float = 30.0
    """Seconds to connect, initialize and list the tools before giving up."""

    @property
    def label(self) -> str:
        """How errors name the server: its command line (quoted) or its URL."""
        if "url" in self.server:
            return str(self.server["url"])
        return repr(" ".join([self.server["command"], *self.server.get("args", [])]))


ToolSpec = PathSpec | FactorySpec | McpSpec


def _import_path(value: Any, key: str) -> str:
    if not isinstance(value, str) or ":" not in value:
        raise ValueError(f"{key} must be an import path string like 'package.module:name'")
    return value


def _args(raw: Mapping[str, Any]) -> dict[str, Any]:
    args = raw.get("args", {})
    if args is None:
        return {}
    if not isinstance(args, Mapping) or not all(isinstance(k, str) for k in args):
        raise ValueError("args must be a mapping of argument name to value")
    return dict(args)


def _strings(value: Any, what: str) -> None:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(f"{what} must map names to strings")


def _server(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ValueError("mcp must be a mapping: {command: ..., args: [...]} or {url: ...}")
    if "command" in raw and "url" in raw:
        raise ValueError("mcp takes a command or a url, not both")
    if "command" not in raw and "url" not in raw:
        raise ValueError("mcp needs a command (stdio) or a url (streamable HTTP)")
    allowed = _STDIO_KEYS if "command" in raw else _HTTP_KEYS
    if unknown := sorted(set(raw) - allowed):
        raise ValueError(f"mcp: unknown key(s) {unknown}; accepted: {', '.join(sorted(allowed))}")
    server = dict(raw)
    if "command" in raw:
        if not isinstance(raw["command"], str) or not raw["command"]:
            raise ValueError("mcp: command must be a non-empty string")
        args = raw.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ValueError("mcp: args must be a list of strings")
        server["args"] = list(args)
        if "env" in raw:
            _strings(raw["env"], "mcp: env")
        if "cwd" in raw and not isinstance(raw["cwd"], str):
            raise ValueError("mcp: cwd must be a string")
    else:
        url = raw["url"]
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError("mcp: url must start with http:// or https://")
        if "headers" in raw:
            _strings(raw["headers"], "mcp: headers")
        timeout = raw.get("timeout", 30)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValueError("mcp: timeout must be a positive number of seconds")
    return server


def _mcp(raw: Mapping[str, Any]) -> McpSpec:
    if unknown := sorted(set(raw) - {"mcp", "tools", "startup_timeout"}):
        accepted = "accepted: tools, startup_timeout"
        raise ValueError(f"unknown key {unknown[0]!r} next to mcp ({accepted})")
    server = _server(raw["mcp"])
    names = raw.get("tools")
    if names is not None and (
        not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names)
    ):
        raise ValueError("tools must be a list of tool names of the MCP server")
    timeout = raw.get("startup_timeout", 30.0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError("startup_timeout must be a positive number of seconds")
    if importlib.util.find_spec("langchain_mcp_adapters") is None:
        raise ValueError(f"MCP tools need the mcp extra: {MCP_INSTALL_HINT}")
    return McpSpec(server, tuple(names) if names is not None else None, float(timeout))


def parse_tool_spec(raw: Any) -> ToolSpec:
    """One spec of ``tools:``; ValueError (one line) when its shape is wrong."""
    if isinstance(raw, str):
        return PathSpec(raw)  # resolved (and its errors reported) when the run prepares
    if not isinstance(raw, Mapping):
        raise ValueError("a tool is an import path string or a mapping with path, factory or mcp")
    kinds = [k for k in ("path", "factory", "mcp") if k in raw]
    if len(kinds) != 1:
        unknown = sorted(set(raw) - {"path", "factory", "mcp", "args", "tools"})
        if unknown and not kinds:
            raise ValueError(f"unknown key {unknown[0]!r}; expected path, factory or mcp")
        raise ValueError("give one of path, factory or mcp")
    if kinds == ["mcp"]:
        return _mcp(raw)
    kind = kinds[0]
    if unknown := sorted(set(raw) - {kind, "args"}):
        raise ValueError(f"unknown key {unknown[0]!r} next to {kind} (accepted: args)")
    target = _import_path(raw[kind], kind)
    return PathSpec(target, _args(raw)) if kind == "path" else FactorySpec(target, _args(raw))


def parse_tool_specs(raws: Sequence[Any]) -> list[ToolSpec]:
    """Every spec of ``tools:``; errors name the entry (``tools[2]: ...``)."""
    specs = []
    for index, raw in enumerate(raws):
        try:
            specs.append(parse_tool_spec(raw))
        except ValueError as exc:
            raise ValueError(f"tools[{index}]: {exc}") from None
    return specs


def tool_import_paths(raws: Sequence[Any]) -> list[str]:
    """The import paths among the specs (tools, classes, factories), as written."""
    paths = []
    for raw in raws:
        if isinstance(raw, str):
            paths.append(raw)
        elif isinstance(raw, Mapping):
            paths.extend(raw[k] for k in ("path", "factory") if isinstance(raw.get(k), str))
    return paths


def parse_environment_spec(raw: Any) -> FactorySpec:
    """The config's ``environment`` value as a factory spec; ValueError (one line)."""
    if isinstance(raw, str):
        raw = {"factory": raw}
    if not isinstance(raw, dict) or set(raw) - {"factory", "args"} or "factory" not in raw:
        raise ValueError("environment must be 'module:factory' or {factory: ..., args: {...}}")
    factory, args = raw["factory"], raw.get("args") or {}
    if not isinstance(factory, str) or ":" not in factory:
        raise ValueError("environment: factory must be an import path like 'package.module:name'")
    if not isinstance(args, dict):
        raise ValueError("environment: args must be a mapping of argument names to values")
    return FactorySpec(factory, dict(args))

"""The configured tools of a run: what each (sample, epoch) gets to bind.

Specs (``_toolspecs``) are resolved when the run prepares: a tool path once, a factory's
signature once, and every factory is called once with the first row (a dry build) so
that a factory returning something that is not tools, or a tool name used twice, stops
the run before it starts. MCP servers start when the tool set is opened (``open``),
once per run. Names must be unique across everything configured; they are checked
again for every sample, since a factory may return other tools for another row.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from langchain_core.tools import BaseTool

from agentloop.engine import Turn, as_tools, import_object, one_line, tool_factory
from agentloop.errors import ToolLoadError
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.config._tool_specs import FactorySpec, McpSpec, PathSpec, parse_tool_specs
from agentloop.harness.data._prompt import prompt_messages
from agentloop.harness.data._rows import Sample

__all__ = ["Factory", "ToolSet", "sample_row", "turn_plan"]

_GIVEN = ("row", "sample", "epoch")  # what agentloop passes a factory that asks for it


def sample_row(sample: Sample) -> dict[str, Any]:
    """The dataset row of a sample as a dict (a copy: factories and rewards may change it);
    ``turns``, ``environment``, ``user_scenario`` and ``depends_on`` only when the row has
    them."""
    row = {
        "id": sample.id,
        "messages": sample.messages,
        "tools": sample.tools,
        "ground_truth": sample.ground_truth,
        "answer": sample.answer,
        "metadata": sample.metadata,
    }
    if sample.turns:
        row["turns"] = sample.turns
    if sample.environment is not None:
        row["environment"] = sample.environment
    if sample.user_scenario is not None:
        row["user_scenario"] = sample.user_scenario
    if sample.depends_on:
        row["depends_on"] = list(sample.depends_on)
    return copy.deepcopy(row)


class Factory:
    """A function returning tools (or an environment), checked once; called for every
    (sample, epoch)."""

    def __init__(
        self, spec: FactorySpec, kind: str = "factory", given: tuple[str, ...] = ()
    ) -> None:
        self.origin = f"{kind} {spec.factory}"
        self.given = (*_GIVEN, *given)
        fn = import_object(spec.factory, "factory")
        if isinstance(fn, type) and issubclass(fn, BaseTool):
            raise ToolLoadError(f"{self.origin} is a tool class; use path: with args for it")
        if isinstance(fn, (type, BaseTool)) or not callable(fn):
            raise ToolLoadError(f"{self.origin} is not callable (got {type(fn).__name__})")
        if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
            raise ToolLoadError(f"{self.origin} is async; a factory is a plain function")
        self.fn, self.args = fn, dict(spec.args)
        params = inspect.signature(fn).parameters
        self.wants = [n for n in self.given if n in params]
        self._check(params)

    def _check(self, params: Any) -> None:
        values = params.values()
        if taken := sorted(set(self.args) & set(self.given)):
            raise ToolLoadError(f"{self.origin}: {taken} are given by agentloop, not by args")
        if any(p.kind is p.POSITIONAL_ONLY for p in values):
            raise ToolLoadError(f"{self.origin}: positional-only parameters cannot be given")
        any_args = any(p.kind is p.VAR_KEYWORD for p in values)
        if not any_args and (unknown := sorted(set(self.args) - set(params))):
            accepted = ", ".join(n for n in params if n not in self.given) or "none"
            raise ToolLoadError(
                f"{self.origin}: unknown argument(s) {unknown}; accepted: {accepted}"
            )
        missing = [
            p.name
            for p in values
            if p.default is p.empty
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and p.name not in self.args
            and p.name not in self.given
        ]
        if missing:
            raise ToolLoadError(f"{self.origin}: missing argument(s) {missing} (give them in args)")

    def make(self, sample: Sample, epoch: int) -> list[BaseTool]:
        return as_tools(self.call(sample, epoch), self.origin)

    def call(self, sample: Sample, epoch: int, **given: Any) -> Any:
        """What the function returns for this row and epoch (``given``: the values of this
        factory's own ``given`` names); ToolLoadError when it fails."""
        kwargs = dict(self.args)
        for name in self.wants:
            if name in given:
                kwargs[name] = given[name]
            else:
                kwargs[name] = epoch if name == "epoch" else sample_row(sample)
        try:
            made = self.fn(**kwargs)
        except Exception as exc:
            raise ToolLoadError(
                one_line(f"{self.origin} raised {type(exc).__name__}: {exc}")
            ) from exc
        if inspect.isawaitable(made):
            if inspect.iscoroutine(made):
                made.close()  # never awaited: say so once, not as a RuntimeWarning
            raise ToolLoadError(f"{self.origin} is async; a factory is a plain function")
        return made


def _unique(names: list[str]) -> None:
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ToolLoadError(f"tool names must be unique; repeated: {', '.join(duplicates)}")


# What one config entry binds for a (sample, epoch).
_Source = Callable[[Sample, int], list[BaseTool]]


def _one(make: Callable[[], BaseTool]) -> _Source:
    def source(_sample: Sample, _epoch: int) -> list[BaseTool]:
        return [make()]

    return source


class ToolSet:
    """The configured tools, by name: made fresh per (sample, epoch) where they may keep state.

    A ``BaseTool`` class (with ``args``, if any) yields a new instance per sample, and a
    factory is called per (sample, epoch); tool objects and plain functions are stateless
    as far as agentloop can tell and are shared, like an MCP server's tools.
    ``first_row`` is the row a dry build calls factories with (none: no dry build).
    """

    def __init__(
        self, specs: Sequence[Any], *, first_row: Sample | None = None, live: bool = True
    ) -> None:
        try:
            parsed = parse_tool_specs(specs)
        except ValueError as exc:
            raise ToolLoadError(str(exc)) from None
        self._sources: list[tuple[str | None, _Source]] = []
        self._servers: list[tuple[int, McpSpec]] = []
        self._mcp: dict[int, list[BaseTool]] = {}
        self._live = live
        names: list[str] = []
        for spec in parsed:
            if isinstance(spec, PathSpec):
                make = tool_factory(spec.path, spec.args)
                names.append(make().name)
                self._sources.append((names[-1], _one(make)))
            elif isinstance(spec, FactorySpec):
                factory = Factory(spec)
                if first_row is not None:
                    names.extend(t.name for t in factory.make(first_row, 1))
                self._sources.append((None, factory.make))
            elif isinstance(spec, McpSpec):
                index = len(self._sources)
                self._servers.append((index, spec))
                self._sources.append((None, self._server_tools(index)))
        _unique(names)
        self._names = names

    def _server_tools(self, index: int) -> _Source:
        def source(_sample: Sample, _epoch: int) -> list[BaseTool]:
            return self._mcp.get(index, [])

        return source

    @classmethod
    def from_config(cls, config: EvalConfig) -> ToolSet:
        """The config's tools; factories get a dry build with the dataset's first row, and
        MCP servers start (on ``open``) only in generate mode."""
        first = None
        if any(isinstance(t, dict) and "factory" in t for t in config.tools):
            from agentloop.harness.data._dataset import iter_samples

            first = next(iter(iter_samples(config.dataset, config.mode)), None)
        return cls(config.tools, first_row=first, live=config.mode == "generate")

    @property
    def names(self) -> list[str]:
        """Names of the configured tools: paths and the factories' dry build in config
        order, then the MCP servers' tools while the set is open."""
        return list(self._names)

    @asynccontextmanager
    async def open(self) -> AsyncIterator[ToolSet]:
        """Start the MCP servers for the run (one session each) and close them after it."""
        if not self._servers or not self._live:
            yield self
            return
        from agentloop.harness.run._mcp import open_servers

        async with open_servers([spec for _, spec in self._servers]) as loaded:
            static = self._names
            for (index, _), tools in zip(self._servers, loaded, strict=True):
                self._mcp[index] = tools
            self._names = static + [t.name for tools in loaded for t in tools]
            try:
                _unique(self._names)
                yield self
            finally:
                self._mcp.clear()
                self._names = static

    def single_turn(self, sample: Sample) -> bool:
        """True when the row declares tools by schema and none has an implementation."""
        return bool(sample.tools) and not any(n in self._names for n in sample.tool_names)

    def for_sample(
        self, sample: Sample, epoch: int, extra: Sequence[BaseTool] = ()
    ) -> list[BaseTool | dict[str, Any]]:
        """What to bind: the row's schemas (implementations where configured), else all.

        Factories are called with this row and epoch; ``extra`` (an environment's tools)
        count as configured. ``ToolLoadError`` when one fails or names are not unique.
        """
        wanted = (set(sample.tool_names) | set(sample.later_tool_names)) if sample.tools else set()
        tools = [
            tool
            for name, source in self._sources
            if not wanted or name is None or name in wanted
            for tool in source(sample, epoch)
        ]
        tools += extra
        _unique([t.name for t in tools])
        if not sample.tools:
            return list(tools)
        by_name = {t.name: t for t in tools}
        listed = [by_name.get(schema["function"]["name"], schema) for schema in sample.tools]
        later = [by_name[n] for n in sample.later_tool_names if n in by_name]
        return listed + [t for t in later if t.name not in sample.tool_names]


def _name(tool: BaseTool | dict[str, Any]) -> str:
    return tool.name if isinstance(tool, BaseTool) else str(tool["function"]["name"])


def turn_plan(
    sample: Sample, tools: list[BaseTool | dict[str, Any]]
) -> tuple[list[BaseTool | dict[str, Any]], list[Turn]]:
    """The first turn's tools and the later turns of a row: a tool a later turn names is
    held back until that turn; a schema a turn adds is bound with its implementation
    when one is configured. ``ToolLoadError`` for a name nothing provides."""
    by_name = {_name(t): t for t in tools}
    held = set(sample.later_tool_names)
    turns = []
    for k, turn in enumerate(sample.turns):
        added: list[BaseTool | dict[str, Any]] = []
        for item in turn.get("tools") or []:
            if isinstance(item, dict):
                added.append(by_name.get(item["function"]["name"], item))
            elif item in by_name:
                added.append(by_name[item])
            else:
                known = ", ".join(sorted(by_name)) or "none"
                raise ToolLoadError(f"turns[{k}].tools: no tool named {item!r} (tools: {known})")
        messages = prompt_messages(turn.get("messages") or [])
        turns.append(Turn(messages=messages, tools=added))
    return [t for t in tools if _name(t) not in held], turns

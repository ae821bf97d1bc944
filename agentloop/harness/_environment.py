"""Environments: one stateful backend per (sample, epoch), shared by several tools.

A config names an environment factory the way it names a tool factory::

    environment: my_pkg.envs:make_bank             # or {factory: ..., args: {...}}

The factory is a plain function; it receives its ``args`` and, when it asks for them by
parameter name, ``row`` (the dataset row as a dict, ``row["environment"]`` being the
row's initial state), ``sample`` (the same) and ``epoch``. It returns an object that
follows :class:`Environment`: ``tools()`` gives the tools sharing its state and
``snapshot()`` its state as JSON. The factory is called afresh for every (sample,
epoch), so no state is shared between samples or epochs, and once more for the
ground-truth run that state-based rewards compare with (:func:`run_calls`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from langchain_core.tools import BaseTool

from agentloop.engine import PendingCall, ToolDispatcher, as_tools, one_line
from agentloop.errors import ToolLoadError
from agentloop.harness._rows import Sample
from agentloop.harness._tools import Factory
from agentloop.harness._toolspecs import parse_environment_spec

__all__ = [
    "Environment",
    "EnvironmentFactory",
    "LiveEnvironment",
    "run_calls",
]


@runtime_checkable
class Environment(Protocol):
    """What an environment factory returns."""

    def tools(self) -> Sequence[BaseTool | Callable[..., Any]]:
        """The tools acting on this environment (``BaseTool`` objects or documented
        functions, bound methods included); called once per (sample, epoch)."""
        ...

    def snapshot(self) -> Any:
        """The current state as JSON-able data (a dict of attributes is best: rewards name
        the first differing key); called after every turn."""
        ...


class LiveEnvironment:
    """One environment object, its tools made once and its snapshots checked as JSON."""

    def __init__(self, env: Any, origin: str) -> None:
        missing = [n for n in ("tools", "snapshot") if not callable(getattr(env, n, None))]
        if missing:
            raise ToolLoadError(
                f"{origin} returned {type(env).__name__}, which has no {' or '.join(missing)}() "
                "method (an environment provides tools() and snapshot())"
            )
        self.env, self.origin = env, origin
        try:
            made = env.tools()
        except Exception as exc:
            text = f"{origin}: tools() raised {type(exc).__name__}: {exc}"
            raise ToolLoadError(one_line(text)) from exc
        self.tools = as_tools(made, f"{origin}: tools()")

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    def snapshot(self) -> Any:
        """The state, as a JSON copy (later changes to the environment do not alter it)."""
        state = self.env.snapshot()
        try:
            return json.loads(json.dumps(state))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{self.origin}: snapshot() is not JSON-able: {exc}") from None


class EnvironmentFactory:
    """The configured environment: checked once (a dry build with the first row)."""

    def __init__(self, raw: Any, first_row: Sample | None = None) -> None:
        try:
            spec = parse_environment_spec(raw)
        except ValueError as exc:
            raise ToolLoadError(str(exc)) from None
        self.factory = Factory(spec, kind="environment")
        self.names: list[str] = []
        if first_row is not None:
            dry = self.make(first_row, 1)
            try:
                dry.snapshot()
            except ValueError as exc:  # not JSON
                raise ToolLoadError(one_line(str(exc))) from exc
            except Exception as exc:
                text = f"{self.factory.origin}: snapshot() raised {type(exc).__name__}: {exc}"
                raise ToolLoadError(one_line(text)) from exc
            self.names = dry.names

    def make(self, sample: Sample, epoch: int) -> LiveEnvironment:
        """A fresh environment for this (sample, epoch)."""
        return LiveEnvironment(self.factory.call(sample, epoch), self.factory.origin)


def _call_parts(call: Any, where: str) -> tuple[str, dict[str, Any]]:
    from agentloop.evals import MATCHERS

    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        function = call if isinstance(call, dict) else {}
    name, args = function.get("name"), function.get("arguments", {})
    if isinstance(args, str):
        args = json.loads(args or "{}")
    if not isinstance(name, str) or not isinstance(args, dict):
        raise ValueError(f"{where}: expected {{'name': ..., 'arguments': {{...}}}}")
    if any(isinstance(v, dict) and len(v) == 1 and next(iter(v)) in MATCHERS
           for v in args.values()):  # fmt: skip
        raise ValueError(f"{where}: matchers cannot be executed; give plain values")
    return name, args


async def run_calls(
    env: LiveEnvironment,
    tools: Sequence[BaseTool],
    turns: Sequence[Sequence[Any]],
    *,
    where: str = "ground_truth.turns",
    timeout: float | None = None,
    max_output_chars: int | None = None,
) -> tuple[list[Any], list[list[str]]]:
    """Execute each turn's calls in order with ``tools`` (``env``'s among them), the way
    the engine would; returns ``env``'s state after each turn and each turn's result texts."""
    dispatcher = ToolDispatcher(tools, timeout=timeout, max_output_chars=max_output_chars)
    states: list[Any] = []
    results: list[list[str]] = []
    for k, calls in enumerate(turns):
        pending = []
        for i, call in enumerate(calls):
            name, args = _call_parts(call, f"{where}[{k}].tool_calls[{i}]")
            pending.append(PendingCall(f"expected_{k}_{i}", name, args))
        messages, _records = await dispatcher.run(pending, parallel=False)
        results.append([str(m.content) for m in messages])
        states.append(env.snapshot())
    return states, results

"""Environments: one stateful backend per (sample, epoch), shared by several tools.

A config names an environment factory the way it names a tool factory::

    environment: my_pkg.envs:make_bank             # or {factory: ..., args: {...}}

The factory is a plain function; it receives its ``args`` and, when it asks for them by
parameter name, ``row`` (the dataset row as a dict, ``row["environment"]`` being the
row's initial state), ``sample`` (the same), ``epoch`` and ``state_dir``: the run
directory's ``environment`` folder, where state that outlives a row is kept for the rows
that depend on it (``depends_on``) and for a resume (a temporary folder at the check
before the run; None under ``executor: ray``). It returns an object that
follows :class:`Environment`: ``tools()`` gives the tools sharing its state and
``snapshot()`` its state as JSON. An environment may also have ``user_tools()``: the tools
a simulated user (config ``user:``) acts with on the same state (dual control), bound to
the user's model only; ``snapshot()`` then covers both sides' state. The factory is called
afresh for every (sample, epoch), so no state is shared between samples or epochs, and
once more for the ground-truth run that state-based rewards compare with (:func:`run_calls`).

What state-based rewards receive: the agent's states and results, and the expected ones.
The expected side comes from executing the ground truth's calls (``ground_truth.turns``,
or ``ground_truth.tool_calls`` for a one-turn row) in a fresh environment from the same
factory, turn by turn, through the engine's dispatcher, so result texts are formed the
way the agent's were. Rewards ask for it with a parameter named ``environment``::

    {"states":           [the agent's snapshot after each turn],
     "expected_states":  [the snapshot after each turn's ground-truth calls] | None,
     "results":          [[texts of the agent's executed calls of each turn], ...],
     "expected_results": [[texts of each turn's ground-truth calls], ...] | None}

``None`` when the row has no ground truth of calls.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from agentloop.engine import PendingCall, ToolDispatcher, Trajectory, TurnRecord, as_tools, one_line
from agentloop.errors import ToolLoadError
from agentloop.harness.config._tool_specs import parse_environment_spec
from agentloop.harness.data._rows import Sample
from agentloop.harness.run._tools import Factory

if TYPE_CHECKING:
    from agentloop.harness.config._fields import EvalConfig
    from agentloop.harness.run._tools import ToolSet

__all__ = [
    "Environment",
    "EnvironmentFactory",
    "LiveEnvironment",
    "environment_input",
    "executes_ground_truth",
    "recorded_environment",
    "recorded_states",
    "rewards_environment",
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

    # Optional: ``first_messages()``, the conversation's opening (OpenAI chat dicts) made
    # when the (sample, epoch) starts, in place of the row's ``messages`` (a system prompt
    # from the state at that moment). ``finish()``, called when the conversation ended
    # without error, before rewards (to save what later rows start from). And
    # ``unknown_tool``, a str attribute, the text the agent's call to a tool it
    # does not have is answered with (``{name}``, ``{available}`` filled in), as the
    # benchmark the environment stands for answers it; the engine's own otherwise. And
    # ``after_tools``, a list of messages (OpenAI chat dicts) appended after every round of
    # the agent's tool results (a defense that repeats the task, for one). And
    # ``tool_filter``, a prompt the agent's model is asked first, which keeps the tools its
    # reply names (``run_agent``'s ``tool_filter``).


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
        self.unknown_tool: str | None = getattr(env, "unknown_tool", None)
        if self.unknown_tool is not None and not isinstance(self.unknown_tool, str):
            raise ToolLoadError(f"{origin}: unknown_tool must be a str (a text to answer with)")
        self.after_tools: list[Any] = list(getattr(env, "after_tools", None) or [])
        self.tool_filter: str | None = getattr(env, "tool_filter", None)
        if self.tool_filter is not None and not isinstance(self.tool_filter, str):
            raise ToolLoadError(f"{origin}: tool_filter must be a str (a prompt)")
        self.first_messages: Callable[[], list[dict[str, Any]]] | None = None
        if callable(getattr(env, "first_messages", None)):
            self.first_messages = env.first_messages
        self.finish: Callable[[], Any] | None = None
        if callable(getattr(env, "finish", None)):
            self.finish = env.finish
        self.tools = self._tools("tools")
        self.user_tools: list[BaseTool] = []
        """The simulated user's tools (``user_tools()``, when the environment has it)."""
        if callable(getattr(env, "user_tools", None)):
            self.user_tools = self._tools("user_tools")

    def _tools(self, method: str) -> list[BaseTool]:
        """The tools the environment's ``method`` (``tools`` or ``user_tools``) gives."""
        try:
            made = getattr(self.env, method)()
        except Exception as exc:
            text = f"{self.origin}: {method}() raised {type(exc).__name__}: {exc}"
            raise ToolLoadError(one_line(text)) from exc
        return as_tools(made, f"{self.origin}: {method}()")

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
        self.factory = Factory(spec, kind="environment", given=("state_dir",))
        self.names: list[str] = []
        self.state_dir: Path | None = None
        """The run directory's ``environment`` folder (set by the runner); None: none."""
        if first_row is not None:
            with tempfile.TemporaryDirectory(prefix="agentloop-dry-") as folder:
                self.state_dir = Path(folder)  # the dry build's state is thrown away
                self._dry(first_row)
            self.state_dir = None

    def _dry(self, first_row: Sample) -> None:
        dry = self.make(first_row, 1)
        try:
            dry.snapshot()
        except ValueError as exc:  # not JSON
            raise ToolLoadError(one_line(str(exc))) from exc
        except Exception as exc:
            text = f"{self.factory.origin}: snapshot() raised {type(exc).__name__}: {exc}"
            raise ToolLoadError(one_line(text)) from exc
        self.names = dry.names

    def keep_state_in(self, run_dir: Path) -> None:
        """State that outlives a row goes to the run directory's ``environment`` folder."""
        self.state_dir = run_dir / "environment"
        self.state_dir.mkdir(exist_ok=True)

    def make(self, sample: Sample, epoch: int) -> LiveEnvironment:
        """A fresh environment for this (sample, epoch)."""
        made = self.factory.call(sample, epoch, state_dir=self.state_dir)
        return LiveEnvironment(made, self.factory.origin)


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
    if any(
        isinstance(v, dict) and len(v) == 1 and next(iter(v)) in MATCHERS for v in args.values()
    ):
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


_EXECUTED = frozenset({"ok", "error", "timeout"})


def _expected_turns(truth: Any) -> list[Any] | None:
    if not isinstance(truth, dict):
        return None
    if isinstance(truth.get("turns"), list):
        return [entry.get("tool_calls") or [] for entry in truth["turns"]]
    if isinstance(truth.get("tool_calls"), list):
        return [truth["tool_calls"]]
    return None


def turn_results(trajectory: Trajectory) -> list[list[str]]:
    """Per turn, the result texts of the calls that ran (ok, error, timeout), in call order."""
    answers = {m.tool_call_id: m for m in trajectory.messages if isinstance(m, ToolMessage)}
    out = []
    for k in range(max(1, len(trajectory.turns))):
        texts = []
        for call in trajectory.turn_tool_calls(k):
            if call.status in _EXECUTED and call.id in answers:
                texts.append(str(answers[call.id].content))
        out.append(texts)
    return out


class _Prepared(Protocol):
    """What a prepared run gives an environment's expected and recorded turns
    (``agentloop.harness.run._sample.Prepared``)."""

    config: EvalConfig
    tools: ToolSet
    environment: EnvironmentFactory | None


async def _execute(
    p: _Prepared, sample: Sample, epoch: int, turns: list[Any], where: str
) -> tuple[list[Any], list[list[str]]]:
    assert p.environment is not None
    env: LiveEnvironment = p.environment.make(sample, epoch)
    bound = p.tools.for_sample(sample, epoch, env.tools)
    tools = [t for t in bound if isinstance(t, BaseTool)]
    cfg = p.config
    return await run_calls(
        env,
        tools,
        turns,
        where=where,
        timeout=cfg.tool_timeout,
        max_output_chars=cfg.max_tool_output_chars,
    )


async def environment_input(
    p: _Prepared, sample: Sample, epoch: int, trajectory: Trajectory
) -> dict[str, Any]:
    """The ``environment`` reward input of one (sample, epoch) (see the module doc)."""
    expected = _expected_turns(sample.ground_truth)
    states, results = None, None
    if expected is not None:
        where = "ground_truth.turns" if "turns" in (sample.ground_truth or {}) else "ground_truth"
        states, results = await _execute(p, sample, epoch, expected, where)
    return {
        **recorded_environment(trajectory),
        "expected_states": states,
        "expected_results": results,
    }


async def rewards_environment(
    p: _Prepared, asking: Sequence[str], sample: Sample, epoch: int, trajectory: Trajectory
) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """The ``environment`` input for the rewards ``asking`` for it (none: None), and the
    error of each of them when it cannot be made: those rewards fail, the others stand."""
    if p.environment is None or not asking:
        return None, {}
    try:
        return await environment_input(p, sample, epoch, trajectory), {}
    except Exception as exc:
        return None, dict.fromkeys(asking, f"{type(exc).__name__}: {exc}")


def recorded_environment(trajectory: Trajectory) -> dict[str, Any]:
    """The ``environment`` input of a row without ground-truth calls: the agent's side only,
    all of it recorded in the trajectory, so a results file rebuilds it."""
    return {
        "states": [t.state for t in trajectory.turns],
        "expected_states": None,
        "results": turn_results(trajectory),
        "expected_results": None,
    }


def executes_ground_truth(ground_truth: Any) -> bool:
    """Whether a row's ``environment`` input runs its ground-truth calls in a fresh
    environment (which only a run, not a results file, can do)."""
    return _expected_turns(ground_truth) is not None


async def recorded_states(p: _Prepared, sample: Sample, epoch: int, trajectory: Trajectory) -> None:
    """Score mode: run a recorded conversation's calls again in a fresh environment, turn
    by turn, and record the state after each turn in ``trajectory.turns``."""
    if not trajectory.turns:
        trajectory.turns = [
            TurnRecord(message_start=0, step_start=0, stop_reason=trajectory.stop_reason)
        ]
    calls = [
        [{"name": c.name, "arguments": c.args or {}} for c in trajectory.turn_tool_calls(k)]
        for k in range(len(trajectory.turns))
    ]
    states, _ = await _execute(p, sample, epoch, calls, "recorded turns")
    for record, state in zip(trajectory.turns, states, strict=True):
        record.state = state

"""How every reward is called: the inputs it asks for by parameter name, its config
parameters, and its return value made a :class:`RewardResult`.

A reward's parameters named after an input receive it: ``final_answer`` (the last
assistant text), ``trajectory`` (what the caller scored: a Trajectory or a message
list), ``messages`` (OpenAI-format dicts), ``ground_truth``, ``answer``, ``metadata``
(``{}`` when none), ``row`` (the dataset row as a dict, when the caller has one) and
``environment`` (a stateful environment's states and results per turn, agent's and
expected, when the caller ran one: see ``agentloop.evals._env``).
Every other parameter is set by the config (the required ones must be).
"""

from __future__ import annotations

import inspect
import math
from numbers import Real
from typing import Any, NamedTuple

from ._messages import final_answer_of, is_trajectory
from ._result_models import RewardResult

__all__ = ["INPUTS", "Inputs", "Signature", "as_result", "read_signature"]

INPUTS = (
    "final_answer",
    "trajectory",
    "messages",
    "ground_truth",
    "answer",
    "metadata",
    "row",
    "environment",
)


class Signature(NamedTuple):
    """What a reward function takes, read from its signature."""

    inputs: tuple[str, ...]
    """Inputs it asks for, by name."""
    params: frozenset[str] | None
    """Parameters a config may set; None when it takes ``**kwargs`` (any)."""
    required: frozenset[str]
    """Parameters without a default: a config must set them."""


def read_signature(name: str, fn: Any) -> Signature:
    """The inputs and parameters of ``fn``; ValueError (one line) when it cannot be
    called by name, or is async.

    >>> def judge(final_answer, answer, *, threshold, strict=False): ...
    >>> found = read_signature("judge", judge)
    >>> found.inputs, sorted(found.params or ()), sorted(found.required)
    (('final_answer', 'answer'), ['strict', 'threshold'], ['threshold'])
    """
    call = getattr(fn, "__call__", None)  # noqa: B004 - a callable object's own method
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call):
        raise ValueError(f"reward {name!r} is async; a reward is a plain function")
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        raise ValueError(f"reward {name!r}: its signature cannot be read") from None
    inputs, params, required, any_params = [], set(), set(), False
    for p in parameters:
        if p.kind is p.VAR_KEYWORD:
            any_params = True
        elif p.kind is p.POSITIONAL_ONLY:
            raise ValueError(f"reward {name!r}: positional-only parameter {p.name!r} "
                             "cannot be passed by name")  # fmt: skip
        elif p.kind is not p.VAR_POSITIONAL:
            if p.name in INPUTS:
                inputs.append(p.name)
            else:
                params.add(p.name)
                if p.default is p.empty:
                    required.add(p.name)
    return Signature(tuple(inputs), None if any_params else frozenset(params), frozenset(required))


def _openai_messages(trajectory: Any) -> list[Any]:
    if is_trajectory(trajectory):
        return list(trajectory.to_openai_messages())
    messages = list(trajectory) if isinstance(trajectory, (list, tuple)) else []
    if all(isinstance(m, dict) for m in messages):
        return messages
    from langchain_core.messages import convert_to_openai_messages  # LangChain objects only

    return list(convert_to_openai_messages(messages))


class Inputs:
    """The inputs of one sample, each computed once and only when a reward asks for it."""

    __slots__ = ("_computed", "_given", "trajectory")

    def __init__(self, trajectory: Any, **given: Any) -> None:
        self.trajectory = trajectory
        self._given = given
        self._computed: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        if name == "trajectory":
            return self.trajectory
        if name in self._given:
            return self._given[name]
        if name not in self._computed:
            if name == "final_answer":
                self._computed[name] = final_answer_of(self.trajectory)
            elif name == "messages":
                self._computed[name] = _openai_messages(self.trajectory)
            else:
                self._computed[name] = None
        return self._computed[name]


def as_result(value: Any, name: str) -> RewardResult[Any]:
    """A reward's return value as a result: a RewardResult as it is, a number or a bool
    in [0, 1] as its score; anything else raises (TypeError, ValueError).

    >>> as_result(True, "pkg.rewards:short").model_dump()
    {'score': 1.0, 'reason': 'short returned True', 'details': None}
    """
    if isinstance(value, RewardResult):
        return value
    if isinstance(value, Real):
        score = float(value)
        if math.isnan(score) or not 0.0 <= score <= 1.0:
            raise ValueError(f"reward {name!r} returned {value!r}, outside [0, 1]")
        short = name.rpartition(":")[2]
        return RewardResult(score=score, reason=f"{short} returned {value!r}", details=None)
    raise TypeError(
        f"reward {name!r} returned {type(value).__name__}, not a RewardResult or a number"
    )

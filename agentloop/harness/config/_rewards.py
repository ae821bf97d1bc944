"""Rewards of a config: registered names, or functions named by import path.

``my_pkg.rewards:short_answer`` and ``./my_rewards.py:judge`` are imported with the
same resolver (and one-line errors) as tools, then called exactly like the built-ins
(``agentloop.evals.register_reward``). Their results are keyed by the path as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agentloop.engine import import_object
from agentloop.errors import ModelSpecError, ToolLoadError

if TYPE_CHECKING:
    from agentloop.evals import RewardEntry, RewardSpec

__all__ = ["parse_rewards", "resolve_reward"]


def resolve_reward(name: str) -> RewardEntry | None:
    """The reward at an import path (None for a name without ``:``); ValueError (one
    line) when it does not resolve to a plain function."""
    if ":" not in name:
        return None
    from agentloop.evals import reward_entry

    try:
        fn = import_object(name, "reward")
    except ToolLoadError as exc:
        raise ValueError(str(exc)) from None
    if isinstance(fn, type) or not callable(fn):
        raise ValueError(f"{name} is not callable (got {type(fn).__name__})")
    return reward_entry(name, fn)


def parse_rewards(specs: Sequence[Any]) -> list[RewardSpec]:
    """``agentloop.evals.parse_reward_specs`` with import paths resolved and each judge's
    model spec (a known provider prefix) and ``judge_params`` names checked; ValueError (one
    line). The judge's options are its provider's to check, when the run opens it."""
    from agentloop.evals import judge_spec, parse_reward_specs  # loaded on use (~60 ms)

    parsed = parse_reward_specs(list(specs), resolve=resolve_reward)
    for spec in parsed:
        described = judge_spec(spec.params) if spec.entry and spec.entry.judge else None
        if described is not None:
            from agentloop.models import check_spec
            from agentloop.models._base import check_param_names

            try:
                check_spec(described.model)
                check_param_names(dict(described.params))
            except ModelSpecError as exc:  # an unknown prefix or sampling param
                raise ValueError(f"{spec.key}: judge: {exc}") from None
    return parsed

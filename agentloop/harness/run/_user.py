"""The simulated user of a config (``user:``): its model source, its instructions for one
row, and the engine's ``SimulatedUser`` for one (sample, epoch).

The user's model is opened from its own spec (``user.model``) with its own parameters and
options, next to the agent's (``agentloop.harness.run._sources.open_user_source``);
``ModelSource.for_user`` hands out the model that plays the user of a sample (replay serves
the recorded user's side). Its tools are the environment's ``user_tools()``. The response
cache applies to the user's model when it is a live one.
"""

from __future__ import annotations

import json
from typing import Any

from agentloop.engine import SimulatedUser
from agentloop.harness.config._fields import UserConfig
from agentloop.harness.data._rows import Sample
from agentloop.harness.run._environment import LiveEnvironment
from agentloop.models import ModelSource

__all__ = ["SCENARIO", "render_instructions", "simulated_user"]

SCENARIO = "{scenario}"
"""The placeholder of ``user.instructions`` that the row's ``user_scenario`` replaces."""


def render_instructions(template: str, scenario: Any, sample_id: str) -> str:
    """The user's system message for one row: ``{scenario}`` replaced by the row's scenario
    (a string as is, anything else as indented JSON); other braces are left alone."""
    if SCENARIO not in template:
        return template
    if scenario is None:
        raise ValueError(
            f"sample {sample_id!r} has no user_scenario, and user.instructions uses {SCENARIO}"
        )
    text = (
        scenario
        if isinstance(scenario, str)
        else json.dumps(scenario, indent=2, ensure_ascii=False)
    )
    return template.replace(SCENARIO, text)


def simulated_user(
    user: UserConfig,
    instructions: str,
    source: ModelSource,
    sample: Sample,
    epoch: int,
    env: LiveEnvironment | None,
) -> SimulatedUser:
    """The engine's simulated user for one (sample, epoch); ``instructions`` is the template
    (the file's text when ``user.instructions`` names one)."""
    model = source.for_user(sample.id, epoch)
    if source.cache is not None:
        model.cache = source.cache
    return SimulatedUser(
        model=model,
        instructions=render_instructions(instructions, sample.user_scenario, sample.id),
        tools=env.user_tools if env is not None else (),
        stop_signals=tuple(user.stop_signals),
        agent_stop_signals=tuple(user.agent_stop_signals),
        max_rounds=user.max_rounds,
        max_turns=user.max_turns,
        max_steps=user.max_steps,
        max_errors=user.max_errors,
        retry=source.retry_policy,
        tool_executor=source.user_tool_executor(sample.id, epoch),
    )

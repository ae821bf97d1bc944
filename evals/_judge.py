"""A model a reward asks (a judge), handed to the reward by whoever scores.

A reward that needs a model has a parameter named ``judge``. A config sets it to a model
spec, with ``judge_params`` (sampling parameters: ``temperature``, ``max_tokens``, ...) and
``judge_options`` (connection options: ``base_url``, ``api_key_env``, ``max_retries``,
``request_timeout``, ...) beside it when needed, as ``model``, ``model_params`` and
``model_options`` describe the agent's model::

    rewards:
      - llm_judge: {judge: openai:gpt-4o-mini, judge_params: {temperature: 0}}

The reward function is not given the spec but a :class:`Judge`, which ``agentloop run``
opens from that description once per run, through the agent's machinery: its retries,
timeouts, response cache and replay, its usage and cost counted apart from the agent's
(``agentloop.harness.run._judges``). ``judge_params`` and ``judge_options`` are the judge's,
never passed to the function. Outside a run, pass an object of your own that has the
Judge's ``model`` and ``ask`` as the ``judge`` parameter.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["JUDGE_PARAMS", "Judge", "JudgeSpec", "check_judge_params", "judge_spec"]

JUDGE_PARAMS = ("judge", "judge_params", "judge_options")
"""The config parameters that describe a reward's judge model."""


@runtime_checkable
class Judge(Protocol):
    """What a reward with a ``judge`` parameter is given: a model it can ask."""

    model: str
    """The judge's model spec (``openai:gpt-4o-mini``), for the reward's details."""

    async def ask(self, messages: Sequence[Mapping[str, Any]], *, draw: int = 0) -> str:
        """The judge's reply text to OpenAI-format ``messages`` (``role`` and ``content``).

        ``draw`` numbers independent samples of one request (0, 1, ...): each is a request
        of its own, never served another draw's cached or recorded reply. Raises when the
        judge cannot answer (after the run's retries): the reward fails with that error.
        """
        ...


@dataclass(frozen=True)
class JudgeSpec:
    """A judge model as a reward's config describes it."""

    model: str
    """The model spec (``provider:name``)."""
    params: Mapping[str, Any]
    """Sampling parameters sent with each request (``judge_params``)."""
    options: Mapping[str, Any]
    """Connection options (``judge_options``)."""

    def key(self) -> str:
        """The spec as canonical JSON: equal keys open one model source per run."""
        return json.dumps(
            [self.model, dict(self.params), dict(self.options)], sort_keys=True, default=str
        )


def judge_spec(params: Mapping[str, Any]) -> JudgeSpec | None:
    """The judge a reward's (validated) config parameters describe; None when they give
    none, or give a :class:`Judge` object already.

    >>> judge_spec({"judge": "openai:gpt-4o-mini", "judge_params": {"temperature": 0}})
    JudgeSpec(model='openai:gpt-4o-mini', params={'temperature': 0}, options={})
    >>> judge_spec({"samples": 3}) is None
    True
    """
    model = params.get("judge")
    if not isinstance(model, str):
        return None
    return JudgeSpec(model, params.get("judge_params") or {}, params.get("judge_options") or {})


def check_judge_params(params: Mapping[str, Any]) -> None:
    """ValueError (one line) when a reward's judge parameters cannot describe a model.

    >>> check_judge_params({"judge": "gpt-4o"})
    Traceback (most recent call last):
    ...
    ValueError: judge must be a model spec such as openai:gpt-4o-mini (provider:name), not 'gpt-4o'
    """
    model = params.get("judge")
    if model is not None and not isinstance(model, Judge):
        prefix, colon, name = model.partition(":") if isinstance(model, str) else ("", "", "")
        if not (prefix and colon and name):
            raise ValueError(
                "judge must be a model spec such as openai:gpt-4o-mini (provider:name), "
                f"not {model!r}"
            )
    for name in JUDGE_PARAMS[1:]:
        value = params.get(name)
        if value is not None and not isinstance(value, Mapping):
            raise ValueError(f"{name} must be a mapping, not {type(value).__name__}")
        if value and model is None:
            raise ValueError(f"{name} is set but judge (the model) is not")

"""Who caused an error: the model (the agent under test), a tool, the environment, or the
infrastructure. Read from a result line, so any run's errors can be split, old ones too.

An errored result, by its ``error_kind``:

- ``model``: the model's request failed after its retries. A temporary error (a rate
  limit, a 408/409/429/5xx status, a connection error or a timeout, as the retries
  judge them) or a replay or script that has no reply is the **infrastructure**'s; any
  other (a request refused: context too long, content filtered) is the **model**'s;
- ``agent``: your own agent (``agent:``) raised: the **model** (the agent under test);
- ``user_model``: the simulated user's model failed: the **infrastructure** when
  temporary, else the **environment** (the user is part of the task's environment);
- ``dataset``: a row the config cannot run: the **environment** (the task as set up);
- ``crash``, ``reward`` and any other kind: the **infrastructure** (agentloop, a
  reward, a wrapper: nothing the agent did).

A failed tool call (the results' trajectories; the result itself need not have errored):

- ``malformed``, ``invalid_args``, ``unknown_tool``: the **model** (the call was wrong,
  never run);
- ``error`` with an ``exception`` (the tool raised something other than a
  ``ToolException``: its own bug), ``timeout``, ``no_implementation``: the **tool**;
- ``error`` without one (the tool refused the call with a ``ToolException``, as its
  environment stands: a record not found, a rule broken): the **environment**.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["CAUSES", "ErrorCauseTally", "ErrorCauses", "result_cause", "tool_call_cause"]

CAUSES = ("model", "tool", "environment", "infrastructure")

# Exception type names of temporary failures (agentloop.engine._retry.is_transient's
# families, read back from the "Type: message" text a result keeps) and of the harness's
# own stand-ins for a model (a replay or a script with no reply).
_INFRASTRUCTURE_TYPES = frozenset(
    {
        "RateLimitError",
        "APIConnectionError",
        "APITimeoutError",
        "InternalServerError",
        "ServiceUnavailableError",
        "TimeoutError",
        "ConnectionError",
        "ConnectError",
        "ConnectTimeout",
        "ReadTimeout",
        "ReadError",
        "RemoteProtocolError",
        "TransportError",
        "ReplayedTransientError",
        "ReplayMismatchError",
        "ScriptExhaustedError",
    }
)
_STATUS = re.compile(r"\b(?:Error code|status(?: code)?):? (\d{3})\b", re.IGNORECASE)
_TEMPORARY_STATUS = frozenset({408, 409, 429})


def _temporary(error: str) -> bool:
    """Whether a result's ``error`` text names a temporary or harness-side failure."""
    name = error.partition(":")[0].strip()
    if name in _INFRASTRUCTURE_TYPES:
        return True
    found = _STATUS.search(error)
    return found is not None and (int(found[1]) in _TEMPORARY_STATUS or int(found[1]) >= 500)


def result_cause(line: Mapping[str, Any]) -> str | None:
    """Who caused an errored result (one of ``CAUSES``); None when it did not error."""
    if line.get("status") == "ok":
        return None
    kind, error = line.get("error_kind"), str(line.get("error") or "")
    if kind == "model":
        return "infrastructure" if _temporary(error) else "model"
    if kind == "agent":
        return "model"
    if kind == "user_model":
        return "infrastructure" if _temporary(error) else "environment"
    if kind == "dataset":
        return "environment"
    return "infrastructure"


_CALL_CAUSES = {
    "malformed": "model",
    "invalid_args": "model",
    "unknown_tool": "model",
    "timeout": "tool",
    "no_implementation": "tool",
}


def tool_call_cause(call: Mapping[str, Any]) -> str | None:
    """Who caused a failed tool call (a trajectory's ``tool_calls`` entry); None when it
    did not fail (ran, or was never run because a limit stopped the run)."""
    status = call.get("status")
    if status == "error":
        return "tool" if call.get("exception") else "environment"
    return _CALL_CAUSES.get(str(status))


class ErrorCauses(BaseModel):
    """Errors split by who caused them (``agentloop.harness.stats._causes``)."""

    results: dict[str, int] = Field(default_factory=dict)
    """Cause -> errored results (every cause listed, 0 included)."""
    tool_calls: dict[str, int] = Field(default_factory=dict)
    """Cause -> failed tool calls over every result's trajectory (every cause listed)."""


class ErrorCauseTally:
    """Folds result lines into :class:`ErrorCauses`."""

    def __init__(self) -> None:
        self.results: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()

    def add(self, line: Mapping[str, Any]) -> None:
        if (cause := result_cause(line)) is not None:
            self.results[cause] += 1
        steps = (line.get("trajectory") or {}).get("steps") or []
        for step in steps:
            for call in step.get("tool_calls") or []:
                if (cause := tool_call_cause(call)) is not None:
                    self.calls[cause] += 1

    def result(self) -> ErrorCauses:
        return ErrorCauses(
            results={c: self.results[c] for c in CAUSES},
            tool_calls={c: self.calls[c] for c in CAUSES},
        )

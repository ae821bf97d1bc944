"""agentloop: an agent tool-execution loop with built-in scoring.

The engine's API is imported here; the harness's (``run_eval``, ``load_config``, ...)
is imported on first use, so ``import agentloop`` stays as light as the engine.
"""

from __future__ import annotations

import importlib
from typing import Any

from agentloop.engine import (
    RetryPolicy,
    StepRecord,
    TokenUsage,
    ToolCallRecord,
    Trajectory,
    load_tool,
    load_tools,
    run_agent,
    run_agent_sync,
)
from agentloop.errors import (
    AgentloopError,
    ConfigError,
    DatasetError,
    ModelSpecError,
    ReplayMismatchError,
    ScriptExhaustedError,
    ToolLoadError,
)

__version__ = "0.1.0"

_FROM_HARNESS = frozenset({"EvalConfig", "RunOutcome", "load_config", "run_eval", "run_eval_sync"})

__all__ = [
    "AgentloopError",
    "ConfigError",
    "DatasetError",
    "EvalConfig",
    "ModelSpecError",
    "ReplayMismatchError",
    "RetryPolicy",
    "RunOutcome",
    "ScriptExhaustedError",
    "StepRecord",
    "TokenUsage",
    "ToolCallRecord",
    "ToolLoadError",
    "Trajectory",
    "__version__",
    "load_config",
    "load_tool",
    "load_tools",
    "run_agent",
    "run_agent_sync",
    "run_eval",
    "run_eval_sync",
]


def __getattr__(name: str) -> Any:
    if name in _FROM_HARNESS:
        return getattr(importlib.import_module("agentloop.harness"), name)
    raise AttributeError(f"module 'agentloop' has no attribute {name!r}")

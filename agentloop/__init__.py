"""agentloop: an agent tool-execution loop with built-in scoring.

The errors are imported here; the engine's and the harness's names on first use
(``agentloop._lazy_exports``), so ``import agentloop`` and the ``agentloop`` command start
without loading LangChain or the run machinery until they are needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentloop.errors import (
    AgentloopError,
    ConfigError,
    DatasetError,
    ModelSpecError,
    ReplayMismatchError,
    ScriptExhaustedError,
    ToolLoadError,
)

if TYPE_CHECKING:
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
    from agentloop.harness import EvalConfig, RunOutcome, load_config, run_eval, run_eval_sync
else:
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, __file__)
    del lazy_exports

from agentloop._version import __version__

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

"""agentloop: an agent tool-execution loop with built-in scoring."""

from agentloop.errors import (
    AgentloopError,
    ConfigError,
    DatasetError,
    ModelSpecError,
    ReplayMismatchError,
    ScriptExhaustedError,
    ToolLoadError,
)
from agentloop.loop import run_agent, run_agent_sync
from agentloop.retry import RetryPolicy
from agentloop.tool_loading import load_tool, load_tools
from agentloop.trajectory import StepRecord, TokenUsage, ToolCallRecord, Trajectory

__version__ = "0.1.0"

__all__ = [
    "AgentloopError",
    "ConfigError",
    "DatasetError",
    "ModelSpecError",
    "ReplayMismatchError",
    "RetryPolicy",
    "ScriptExhaustedError",
    "StepRecord",
    "TokenUsage",
    "ToolCallRecord",
    "ToolLoadError",
    "Trajectory",
    "__version__",
    "load_tool",
    "load_tools",
    "run_agent",
    "run_agent_sync",
]

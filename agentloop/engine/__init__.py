"""The engine: the tool-call loop and everything one agent run needs.

Rounds (``_loop``), reply normalisation (``_reply``: call ids, malformed and recovered
calls), dispatch (``_dispatch``: lookup, validation, timeouts, error templates), tool
invocation (``_invoke``; sync tools in daemon threads, ``_threads``), who answers a
round's calls (``_tool_executor``: the dispatcher or recorded results), tool-output
serialisation (``_serialize``), retrying model errors (``_retry``), the time a request
waited for its turn, apart from the model's (``_request_wait``), the trajectory
record (``_trajectory``) and its stored form as OpenAI messages (``_wire``), tool
loading by import path (``_tool_loading``), ``<tool_call>`` text recovery
(``_content_calls``), the sync wrappers' event loop (``_sync``: ``run_sync``), and
conversations with a simulated user (``_conversation``, its limits in ``_budget``), and an
agent of your own run on the run's model and tools (``_own_agent``; its calls per turn in
``_own_calls``, with a simulated user in ``_own_conversation``, what it is handed in
``_observer``). The
defaults a config reads (tool timeout, stop signals) are in ``_defaults``, which imports
nothing.

The engine knows nothing of models' providers, the harness or the CLI. ``__all__`` is what
users import (``run_agent``, the trajectory types, tool loading, the tool-executor hook) and
what the packages above it use; each name is imported on first use (``_lazy_exports``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentloop.engine._budget import FAILED_STATUSES
    from agentloop.engine._content_calls import (
        format_content_tool_calls,
        parse_content_tool_calls,
    )
    from agentloop.engine._conversation import SimulatedUser
    from agentloop.engine._defaults import (
        AGENT_STOP_SIGNALS,
        DEFAULT_TOOL_TIMEOUT,
        USER_STOP_SIGNALS,
    )
    from agentloop.engine._dispatch import (
        PendingCall,
        ToolDispatcher,
        ToolFailure,
    )
    from agentloop.engine._loop import (
        Turn,
        run_agent,
        run_agent_sync,
        split_tools,
    )
    from agentloop.engine._observer import AgentStopped, Observer
    from agentloop.engine._own_agent import (
        AgentFactory,
        OwnAgentRun,
        run_own_agent,
        run_own_conversation,
    )
    from agentloop.engine._reply import ContentCallParser
    from agentloop.engine._request_wait import record_request_wait
    from agentloop.engine._retry import RetryPolicy
    from agentloop.engine._serialize import DEFAULT_MAX_TOOL_OUTPUT_CHARS
    from agentloop.engine._sync import run_sync
    from agentloop.engine._tool_executor import ExecutorFactory, RecordedToolResults, ToolExecutor
    from agentloop.engine._tool_loading import (
        as_tools,
        import_object,
        load_tool,
        load_tools,
        module_tools,
        one_line,
        tool_factory,
    )
    from agentloop.engine._trajectory import (
        FROM_CACHE,
        StepRecord,
        StopReason,
        TokenUsage,
        ToolCallRecord,
        ToolCallStatus,
        Trajectory,
        TurnRecord,
        message_to_openai,
    )
else:  # imported on first use: a config reads the defaults without LangChain
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, __file__)
    del lazy_exports

__all__ = [
    "AGENT_STOP_SIGNALS",
    "DEFAULT_MAX_TOOL_OUTPUT_CHARS",
    "DEFAULT_TOOL_TIMEOUT",
    "FAILED_STATUSES",
    "FROM_CACHE",
    "USER_STOP_SIGNALS",
    "AgentFactory",
    "AgentStopped",
    "ContentCallParser",
    "ExecutorFactory",
    "Observer",
    "OwnAgentRun",
    "PendingCall",
    "RecordedToolResults",
    "RetryPolicy",
    "SimulatedUser",
    "StepRecord",
    "StopReason",
    "TokenUsage",
    "ToolCallRecord",
    "ToolCallStatus",
    "ToolDispatcher",
    "ToolExecutor",
    "ToolFailure",
    "Trajectory",
    "Turn",
    "TurnRecord",
    "as_tools",
    "format_content_tool_calls",
    "import_object",
    "load_tool",
    "load_tools",
    "message_to_openai",
    "module_tools",
    "one_line",
    "parse_content_tool_calls",
    "record_request_wait",
    "run_agent",
    "run_agent_sync",
    "run_own_agent",
    "run_own_conversation",
    "run_sync",
    "split_tools",
    "tool_factory",
]

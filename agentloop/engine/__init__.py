"""The engine: the tool-call loop and everything one agent run needs.

Rounds (``_loop``), reply normalisation (``_reply``: call ids, malformed and recovered
calls), dispatch (``_dispatch``: lookup, validation, timeouts, error templates), tool
invocation (``_invoke``; sync tools in daemon threads, ``_threads``), who answers a
round's calls (``_tool_executor``: the dispatcher or recorded results), tool-output
serialisation (``_serialize``), retrying model errors (``_retry``), the trajectory
record (``_trajectory``) and its stored form as OpenAI messages (``_wire``), tool
loading by import path (``_tool_loading``), ``<tool_call>`` text recovery
(``_content_calls``) and the sync wrapper's event loop (``_sync``).

The engine knows nothing of models' providers, the harness or the CLI.
"""

from __future__ import annotations

from agentloop.engine._content_calls import (
    format_content_tool_calls,
    parse_content_tool_calls,
)
from agentloop.engine._dispatch import (
    PendingCall,
    ToolDispatcher,
)
from agentloop.engine._loop import (
    MessagesInput,
    ToolExecution,
    ToolsInput,
    Turn,
    run_agent,
    run_agent_sync,
    split_tools,
)
from agentloop.engine._reply import ContentCallParser
from agentloop.engine._retry import (
    RetryPolicy,
    call_with_retry,
    is_transient,
    retry_after_seconds,
)
from agentloop.engine._serialize import (
    DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    to_jsonable,
    tool_output_to_text,
    truncate,
)
from agentloop.engine._tool_executor import ExecutorFactory, RecordedToolResults, ToolExecutor
from agentloop.engine._tool_loading import (
    as_tools,
    import_object,
    load_tool,
    load_tools,
    one_line,
    tool_factory,
)
from agentloop.engine._trajectory import (
    StepRecord,
    StopReason,
    TokenUsage,
    ToolCallRecord,
    ToolCallStatus,
    Trajectory,
    TurnRecord,
    message_to_openai,
)

__all__ = [
    "DEFAULT_MAX_TOOL_OUTPUT_CHARS",
    "ContentCallParser",
    "ExecutorFactory",
    "MessagesInput",
    "PendingCall",
    "RecordedToolResults",
    "RetryPolicy",
    "StepRecord",
    "StopReason",
    "TokenUsage",
    "ToolCallRecord",
    "ToolCallStatus",
    "ToolDispatcher",
    "ToolExecution",
    "ToolExecutor",
    "ToolsInput",
    "Trajectory",
    "Turn",
    "TurnRecord",
    "as_tools",
    "call_with_retry",
    "format_content_tool_calls",
    "import_object",
    "is_transient",
    "load_tool",
    "load_tools",
    "message_to_openai",
    "one_line",
    "parse_content_tool_calls",
    "retry_after_seconds",
    "run_agent",
    "run_agent_sync",
    "split_tools",
    "to_jsonable",
    "tool_factory",
    "tool_output_to_text",
    "truncate",
]

"""Bridges to public benchmarks. BFCL (Berkeley Function Calling Leaderboard): its
categories as dataset rows (``dataset: bfcl:<category>``, ``agentloop bfcl export``), its
multi-turn classes as an environment (``bfcl_environment``) with BFCL's multi-turn verdict
(``bfcl_multi_turn_verdict``), and its leaderboard's aggregation of verdicts
(``agentloop bfcl summary``).

Layering: this package may use the engine, models, errors and ``evals``; the harness
and the command line use it, never the other way round.
"""

from agentloop.benchmarks._bfcl_convert import (
    bfcl_row,
    checker_functions,
    expected_calls,
    openai_name,
    openai_tools,
)
from agentloop.benchmarks._bfcl_data import (
    BFCL_CATEGORIES,
    BFCL_DATA_ENV,
    BFCL_INSTALL,
    BFCL_PREFIX,
    NO_CALL_CATEGORIES,
    bfcl_category,
    bfcl_data_dir,
    bfcl_lines,
    bfcl_rows,
    check_bfcl_category,
    export_bfcl,
)
from agentloop.benchmarks._bfcl_env import (
    BFCL_CLASSES,
    BfclEnvironment,
    bfcl_class_docs,
    bfcl_environment,
    bfcl_instances,
    bfcl_methods,
    call_bfcl_method,
)
from agentloop.benchmarks._bfcl_multi import (
    MISSED_FUNCTION_PROMPT,
    MULTI_TURN_CATEGORIES,
    bfcl_multi_turn_row,
    parse_bfcl_call,
)
from agentloop.benchmarks._bfcl_multi_verdict import (
    BfclMultiTurnDetails,
    bfcl_multi_turn_verdict,
    conversation_turns,
)
from agentloop.benchmarks._bfcl_summary import (
    BfclSummary,
    CategoryScore,
    GroupScore,
    format_bfcl_summary,
    summarize_bfcl,
)

__all__ = [
    "BFCL_CATEGORIES",
    "BFCL_CLASSES",
    "BFCL_DATA_ENV",
    "BFCL_INSTALL",
    "BFCL_PREFIX",
    "MISSED_FUNCTION_PROMPT",
    "MULTI_TURN_CATEGORIES",
    "NO_CALL_CATEGORIES",
    "BfclEnvironment",
    "BfclMultiTurnDetails",
    "BfclSummary",
    "CategoryScore",
    "GroupScore",
    "bfcl_category",
    "bfcl_class_docs",
    "bfcl_data_dir",
    "bfcl_environment",
    "bfcl_instances",
    "bfcl_lines",
    "bfcl_methods",
    "bfcl_multi_turn_row",
    "bfcl_multi_turn_verdict",
    "bfcl_row",
    "bfcl_rows",
    "call_bfcl_method",
    "check_bfcl_category",
    "checker_functions",
    "conversation_turns",
    "expected_calls",
    "export_bfcl",
    "format_bfcl_summary",
    "openai_name",
    "openai_tools",
    "parse_bfcl_call",
    "summarize_bfcl",
]

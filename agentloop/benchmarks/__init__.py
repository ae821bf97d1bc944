"""Bridges to public benchmarks. BFCL (Berkeley Function Calling Leaderboard): its
single-turn categories as dataset rows (``dataset: bfcl:<category>``, ``agentloop bfcl
export``) and its leaderboard's aggregation of verdicts (``agentloop bfcl summary``).

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
from agentloop.benchmarks._bfcl_summary import (
    BfclSummary,
    CategoryScore,
    GroupScore,
    format_bfcl_summary,
    summarize_bfcl,
)

__all__ = [
    "BFCL_CATEGORIES",
    "BFCL_DATA_ENV",
    "BFCL_INSTALL",
    "BFCL_PREFIX",
    "NO_CALL_CATEGORIES",
    "BfclSummary",
    "CategoryScore",
    "GroupScore",
    "bfcl_category",
    "bfcl_data_dir",
    "bfcl_lines",
    "bfcl_row",
    "bfcl_rows",
    "check_bfcl_category",
    "checker_functions",
    "expected_calls",
    "export_bfcl",
    "format_bfcl_summary",
    "openai_name",
    "openai_tools",
    "summarize_bfcl",
]

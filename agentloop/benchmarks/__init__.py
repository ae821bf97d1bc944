"""Bridges to public benchmarks. BFCL (Berkeley Function Calling Leaderboard): its
categories as dataset rows (``dataset: bfcl:<category>``, ``agentloop bfcl export``), its
multi-turn classes as an environment (``bfcl_environment``) with BFCL's multi-turn verdict
(``bfcl_multi_turn_verdict``), and its leaderboard's aggregation of verdicts
(``agentloop bfcl summary``).

Layering: this package may use the engine, models, errors and ``evals``; the harness
and the command line use it, never the other way round. ``__all__`` holds what configs name
(``bfcl_environment``, ``bfcl_multi_turn_verdict``) and what the harness reads ``bfcl:``
datasets with; the CLI, tests and benches import the rest from the private modules.
"""

from agentloop.benchmarks._bfcl_data import (
    bfcl_category,
    bfcl_data_dir,
    bfcl_lines,
    check_bfcl_category,
)
from agentloop.benchmarks._bfcl_env import bfcl_environment
from agentloop.benchmarks._bfcl_multi_verdict import bfcl_multi_turn_verdict

__all__ = [
    "bfcl_category",
    "bfcl_data_dir",
    "bfcl_environment",
    "bfcl_lines",
    "bfcl_multi_turn_verdict",
    "check_bfcl_category",
]

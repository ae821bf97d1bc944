"""BFCL (Berkeley Function Calling Leaderboard): its categories as dataset rows
(``dataset: bfcl:<category>``, ``agentloop bfcl export``), its multi-turn classes as an
environment (``bfcl_environment``) with BFCL's multi-turn verdict
(``bfcl_multi_turn_verdict``), its web-search categories over a live or recorded search
(``bfcl_web_search_environment``) with BFCL's agentic verdict (``bfcl_agentic_verdict``),
its memory categories' entries on a memory kept in the run directory
(``bfcl_memory_environment``),
and its leaderboard's aggregation of verdicts (``agentloop bfcl summary``). BFCL's data
and classes come from the ``bfcl-eval`` package, imported on first
use. ``agentloop.benchmarks`` exports the same names.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentloop.benchmarks.bfcl._agentic_verdict import bfcl_agentic_verdict
    from agentloop.benchmarks.bfcl._data import bfcl_category, bfcl_lines, check_bfcl_category
    from agentloop.benchmarks.bfcl._env import bfcl_environment
    from agentloop.benchmarks.bfcl._memory_env import bfcl_memory_environment
    from agentloop.benchmarks.bfcl._multi_verdict import bfcl_multi_turn_verdict
    from agentloop.benchmarks.bfcl._package import bfcl_data_dir
    from agentloop.benchmarks.bfcl._web_search import bfcl_web_search_environment
else:  # imported on first use: a config checks its dataset's prefix without LangChain
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, __file__)
    del lazy_exports

__all__ = [
    "bfcl_agentic_verdict",
    "bfcl_category",
    "bfcl_data_dir",
    "bfcl_environment",
    "bfcl_lines",
    "bfcl_memory_environment",
    "bfcl_multi_turn_verdict",
    "bfcl_web_search_environment",
    "check_bfcl_category",
]

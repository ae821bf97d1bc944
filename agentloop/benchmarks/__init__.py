"""Bridges to public benchmarks, a sub-package each (``bfcl``, ``tau2``, ``agentdojo``) with
its data, environment, rows and verdict modules. BFCL (Berkeley Function Calling Leaderboard): its
categories as dataset rows (``dataset: bfcl:<category>``, ``agentloop bfcl export``), its
multi-turn classes as an environment (``bfcl_environment``) with BFCL's multi-turn verdict
(``bfcl_multi_turn_verdict``), and its leaderboard's aggregation of verdicts
(``agentloop bfcl summary``). τ²-bench: its domains as rows (``dataset: tau2:<domain>``, or
``tau2:<domain>@<task set>``), their tools as an environment (``tau2_environment``, with the
user's tools in dual control) and its official evaluator's reward (``tau2_verdict``).
AgentDojo: its suites as rows (``dataset: agentdojo:<suite>``), a
task's environment run by AgentDojo's runtime (``agentdojo_environment``) and its utility and
security checks (``agentdojo_utility``, ``agentdojo_security``).

Layering: this package may use the engine, models, errors and ``evals``; the harness
and the command line use it, never the other way round. ``__all__`` holds what configs name
(``bfcl_environment``, ``bfcl_multi_turn_verdict``, ``bfcl_web_search_environment``,
``bfcl_agentic_verdict``, ``bfcl_memory_environment``, ``tau2_environment``, ``tau2_verdict``,
``agentdojo_environment``, ``agentdojo_utility``, ``agentdojo_security``) and what the harness
reads ``bfcl:``, ``tau2:`` and ``agentdojo:`` datasets with; the CLI, tests and benches
import the rest from the private modules.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentloop.benchmarks.agentdojo import (
        agentdojo_environment,
        agentdojo_lines,
        agentdojo_security,
        agentdojo_suite,
        agentdojo_utility,
        check_agentdojo_source,
    )
    from agentloop.benchmarks.bfcl import (
        bfcl_agentic_verdict,
        bfcl_category,
        bfcl_data_dir,
        bfcl_environment,
        bfcl_lines,
        bfcl_memory_environment,
        bfcl_multi_turn_verdict,
        bfcl_web_search_environment,
        check_bfcl_category,
    )
    from agentloop.benchmarks.tau2 import (
        LEGACY_TASK_SET,
        check_tau2_domain,
        check_tau2_options,
        tau2_data_dir,
        tau2_domain,
        tau2_environment,
        tau2_lines,
        tau2_retrieval_config,
        tau2_task_set,
        tau2_verdict,
    )
else:  # each sub-package's names, imported on first use
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, __file__)
    del lazy_exports

__all__ = [
    "LEGACY_TASK_SET",
    "agentdojo_environment",
    "agentdojo_lines",
    "agentdojo_security",
    "agentdojo_suite",
    "agentdojo_utility",
    "bfcl_agentic_verdict",
    "bfcl_category",
    "bfcl_data_dir",
    "bfcl_environment",
    "bfcl_lines",
    "bfcl_memory_environment",
    "bfcl_multi_turn_verdict",
    "bfcl_web_search_environment",
    "check_agentdojo_source",
    "check_bfcl_category",
    "check_tau2_domain",
    "check_tau2_options",
    "tau2_data_dir",
    "tau2_domain",
    "tau2_environment",
    "tau2_lines",
    "tau2_retrieval_config",
    "tau2_task_set",
    "tau2_verdict",
]

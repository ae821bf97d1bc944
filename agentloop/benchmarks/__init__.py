"""Bridges to public benchmarks. BFCL (Berkeley Function Calling Leaderboard): its
categories as dataset rows (``dataset: bfcl:<category>``, ``agentloop bfcl export``), its
multi-turn classes as an environment (``bfcl_environment``) with BFCL's multi-turn verdict
(``bfcl_multi_turn_verdict``), and its leaderboard's aggregation of verdicts
(``agentloop bfcl summary``). τ²-bench: its domains as rows (``dataset: tau2:<domain>``, or
``tau2:<domain>@<task set>``), their tools as an environment (``tau2_environment``, with the
user's tools in dual control) and its official evaluator's reward (``tau2_verdict``).
AgentDojo (sub-package ``agentdojo``): its suites as rows (``dataset: agentdojo:<suite>``), a
task's environment run by AgentDojo's runtime (``agentdojo_environment``) and its utility and
security checks (``agentdojo_utility``, ``agentdojo_security``).

Layering: this package may use the engine, models, errors and ``evals``; the harness
and the command line use it, never the other way round. ``__all__`` holds what configs name
(``bfcl_environment``, ``bfcl_multi_turn_verdict``, ``tau2_environment``, ``tau2_verdict``,
``agentdojo_environment``, ``agentdojo_utility``, ``agentdojo_security``) and what the harness
reads ``bfcl:``, ``tau2:`` and ``agentdojo:`` datasets with; the CLI, tests and benches
import the rest from the private modules.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentloop.benchmarks._bfcl_data import (
        bfcl_category,
        bfcl_data_dir,
        bfcl_lines,
        check_bfcl_category,
    )
    from agentloop.benchmarks._bfcl_env import bfcl_environment
    from agentloop.benchmarks._bfcl_multi_verdict import bfcl_multi_turn_verdict
    from agentloop.benchmarks._tau2_data import (
        LEGACY_TASK_SET,
        check_tau2_domain,
        tau2_data_dir,
        tau2_domain,
        tau2_lines,
        tau2_task_set,
    )
    from agentloop.benchmarks._tau2_env import tau2_environment
    from agentloop.benchmarks._tau2_verdict import tau2_verdict
    from agentloop.benchmarks.agentdojo._agentdojo_env import agentdojo_environment
    from agentloop.benchmarks.agentdojo._agentdojo_rows import (
        agentdojo_lines,
        agentdojo_suite,
        check_agentdojo_source,
    )
    from agentloop.benchmarks.agentdojo._agentdojo_verdict import (
        agentdojo_security,
        agentdojo_utility,
    )
else:  # imported on first use: a config checks its dataset's prefix without LangChain
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "agentloop.benchmarks._bfcl_data": [
                "bfcl_category",
                "bfcl_data_dir",
                "bfcl_lines",
                "check_bfcl_category",
            ],
            "agentloop.benchmarks._bfcl_env": ["bfcl_environment"],
            "agentloop.benchmarks._bfcl_multi_verdict": ["bfcl_multi_turn_verdict"],
            "agentloop.benchmarks._tau2_data": [
                "LEGACY_TASK_SET",
                "check_tau2_domain",
                "tau2_data_dir",
                "tau2_domain",
                "tau2_lines",
                "tau2_task_set",
            ],
            "agentloop.benchmarks._tau2_env": ["tau2_environment"],
            "agentloop.benchmarks._tau2_verdict": ["tau2_verdict"],
            "agentloop.benchmarks.agentdojo._agentdojo_env": ["agentdojo_environment"],
            "agentloop.benchmarks.agentdojo._agentdojo_rows": [
                "agentdojo_lines",
                "agentdojo_suite",
                "check_agentdojo_source",
            ],
            "agentloop.benchmarks.agentdojo._agentdojo_verdict": [
                "agentdojo_security",
                "agentdojo_utility",
            ],
        },
    )
    del lazy_exports

__all__ = [
    "LEGACY_TASK_SET",
    "agentdojo_environment",
    "agentdojo_lines",
    "agentdojo_security",
    "agentdojo_suite",
    "agentdojo_utility",
    "bfcl_category",
    "bfcl_data_dir",
    "bfcl_environment",
    "bfcl_lines",
    "bfcl_multi_turn_verdict",
    "check_agentdojo_source",
    "check_bfcl_category",
    "check_tau2_domain",
    "tau2_data_dir",
    "tau2_domain",
    "tau2_environment",
    "tau2_lines",
    "tau2_task_set",
    "tau2_verdict",
]

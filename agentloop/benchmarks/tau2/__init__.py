"""τ²-bench: its domains as rows (``dataset: tau2:<domain>``, or ``tau2:<domain>@<task set>``;
task set 1.0.1 ships in ``data/``), their tools as an environment (``tau2_environment``, with
the user's tools in dual control) and its official evaluator's reward (``tau2_verdict``).
``agentloop.benchmarks`` exports the same names.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentloop.benchmarks.tau2._data import (
        LEGACY_TASK_SET,
        check_tau2_domain,
        check_tau2_options,
        tau2_data_dir,
        tau2_domain,
        tau2_lines,
        tau2_retrieval_config,
        tau2_task_set,
    )
    from agentloop.benchmarks.tau2._env import tau2_environment
    from agentloop.benchmarks.tau2._verdict import tau2_verdict
else:  # imported on first use: a config checks its dataset's prefix without LangChain
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, __file__)
    del lazy_exports

__all__ = [
    "LEGACY_TASK_SET",
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

"""AgentDojo (ETH Zürich's prompt-injection benchmark) run by its own code: its suites as rows
(``dataset: agentdojo:<suite>``), a task's environment with the suite's tools run by AgentDojo's
runtime (``agentdojo_environment``), and AgentDojo's utility and security checks as rewards
(``agentdojo_utility``, ``agentdojo_security``). Needs the ``agentdojo`` extra, imported on
first use. ``agentloop.benchmarks`` exports the same names.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentloop.benchmarks.agentdojo._env import agentdojo_environment
    from agentloop.benchmarks.agentdojo._rows import (
        agentdojo_lines,
        agentdojo_suite,
        check_agentdojo_source,
    )
    from agentloop.benchmarks.agentdojo._verdict import (
        agentdojo_security,
        agentdojo_utility,
    )
else:  # imported on first use: a config checks its dataset's prefix without AgentDojo
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, __file__)
    del lazy_exports

__all__ = [
    "agentdojo_environment",
    "agentdojo_lines",
    "agentdojo_security",
    "agentdojo_suite",
    "agentdojo_utility",
    "check_agentdojo_source",
]

"""The harness: configs and datasets in, run directories of scored results out.

``__all__`` is what users import: loading a config, running it, the outcome and summary
types, reading, re-scoring and comparing finished runs, the progress and environment
protocols. The CLI, tests and benchmarks import the rest from the private modules:

- the config (``_config``; read, overridden and checked in ``_config_loading``; YAML
  without duplicate keys, ``_yaml``);
- dataset files (``_dataset``), their rows (``_rows``), which rows run and in which order
  (``_selection``), the prompt a sample sends (``_prompt``), and the tools a row binds
  against its ground truth, checked before the run (``_bound_tools``);
- the runner (``_runner``), where (sample, epoch) pairs run (``_executor``, ``_executor_ray``),
  one sample's run (``_sample``) and progress reporting (``_reporting``);
- scoring (``_scoring``; rewards by import path, ``_rewards``), the configured tools
  (``_tools``; their specs and the environment's, ``_toolspecs``; MCP servers, ``_mcp``)
  and stateful environments with the reward input they feed (``_environment``);
- the run directory: its files (``_run_files``), its header, resume checks and summary
  (``_rundir``), its writer lock (``_lock``) and the input files a resume checks
  (``_run_inputs``);
- summary statistics (``_stats``, ``_estimators``) and their error bars (``_error_bars``:
  intervals, paired tests, power), offline re-scoring (``_rescore``), run comparison
  (``_comparison``) and planning a comparison's size (``_power``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentloop._records import latest_results
    from agentloop.harness._comparison import ChangedSample, Comparison, RewardDelta, compare_runs
    from agentloop.harness._config import EvalConfig, UserConfig
    from agentloop.harness._config_loading import load_config
    from agentloop.harness._environment import Environment
    from agentloop.harness._lock import RunLockedError
    from agentloop.harness._reporting import Reporter
    from agentloop.harness._rescore import rescore_run
    from agentloop.harness._runner import RunOutcome, run_eval, run_eval_sync
    from agentloop.harness._stats import (
        ErrorExamples,
        LatencyStats,
        RewardStats,
        RunSummary,
        summarize,
    )
else:  # imported on first use: loading a config must not load the runner
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "agentloop._records": ["latest_results"],
            "agentloop.harness._comparison": [
                "ChangedSample",
                "Comparison",
                "RewardDelta",
                "compare_runs",
            ],
            "agentloop.harness._config": ["EvalConfig", "UserConfig"],
            "agentloop.harness._config_loading": ["load_config"],
            "agentloop.harness._environment": ["Environment"],
            "agentloop.harness._lock": ["RunLockedError"],
            "agentloop.harness._reporting": ["Reporter"],
            "agentloop.harness._rescore": ["rescore_run"],
            "agentloop.harness._runner": ["RunOutcome", "run_eval", "run_eval_sync"],
            "agentloop.harness._stats": [
                "ErrorExamples",
                "LatencyStats",
                "RewardStats",
                "RunSummary",
                "summarize",
            ],
        },
    )
    del lazy_exports

__all__ = [
    "ChangedSample",
    "Comparison",
    "Environment",
    "ErrorExamples",
    "EvalConfig",
    "LatencyStats",
    "Reporter",
    "RewardDelta",
    "RewardStats",
    "RunLockedError",
    "RunOutcome",
    "RunSummary",
    "UserConfig",
    "compare_runs",
    "latest_results",
    "load_config",
    "rescore_run",
    "run_eval",
    "run_eval_sync",
    "summarize",
]

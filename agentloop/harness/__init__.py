"""The harness: configs and datasets in, run directories of scored results out.

``__all__`` is what users import: loading a config, running it, the outcome and summary
types, reading, re-scoring and comparing finished runs, the progress and environment
protocols. The CLI, tests and benchmarks import the rest from the sub-packages' private
modules. The sub-packages, each in a layer that uses only the layers below it (kept by
import-linter: ``make lint``):

- ``exchange``: runs in and out of other tools' formats: Inspect eval logs written and
  read, OpenTelemetry traces of an agent run elsewhere scored here;
- ``run``: the runner, the executors (a local pool, Ray), one (sample, epoch) from prepare
  to scored result, environments, simulated users, tools and MCP, scoring, judges,
  progress reporting, a sample served to an outside agent, re-scoring a finished run;
- ``agents`` (beside ``stats``): agents of your own (in process, a command, an HTTP
  service) and what they are served: the row's tools over MCP, the run's model behind an
  endpoint (chat completions, the Responses API, Anthropic's messages);
- ``stats``: the summary's figures and its file, error bars, breakdowns, benchmarks'
  figures, comparisons of runs and the sample size they need;
- ``rundir``: a run directory's files, its writer lock, its header and resume checks;
- ``data``: datasets, rows and samples, the messages a sample sends, which rows run, the
  checks of rows and ground truth before the first sample;
- ``config``: the config model, reading and overrides, tool and environment specs,
  ``@file`` prompts, the rewards a config names, prices, the inputs a resume compares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentloop._records import latest_results
    from agentloop.harness.config._fields import EvalConfig, UserConfig
    from agentloop.harness.config._loading import load_config
    from agentloop.harness.run._environment import Environment
    from agentloop.harness.run._reporting import Reporter
    from agentloop.harness.run._rescore import rescore_run
    from agentloop.harness.run._runner import RunOutcome, run_eval, run_eval_sync
    from agentloop.harness.rundir._lock import RunLockedError
    from agentloop.harness.stats._compare import (
        ChangedSample,
        Comparison,
        RewardDelta,
        compare_runs,
    )
    from agentloop.harness.stats._summary import (
        ErrorExamples,
        LatencyStats,
        RewardStats,
        RunSummary,
        summarize,
    )
else:  # imported on first use: loading a config must not load the runner
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, __file__)
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

"""The harness: configs and datasets in, run directories of scored results out.

Config (``_config``; read, overridden and checked in ``_config_loading``; YAML without
duplicate keys, ``_yaml``), dataset files (``_dataset``) and their rows (``_rows``),
which rows run and in which order (``_selection``), the prompt a sample sends (``_prompt``),
the runner (``_runner``) and one sample's run (``_sample``), progress reporting
(``_reporting``), scoring (``_scoring``; rewards by import path, ``_rewards``), the
configured tools (``_tools``; their specs, ``_toolspecs``; MCP servers, ``_mcp``),
result files (``_run_files``), the run directory's header, resume checks and summary
(``_rundir``), its writer lock (``_lock``), the input files a resume checks
(``_run_inputs``), summary statistics (``_stats``, ``_estimators``), offline re-scoring
(``_rescore``), run comparison (``_comparison``) and stateful environments
(``_environment``, with the reward input they feed).
"""

from __future__ import annotations

from agentloop.harness._comparison import (
    ChangedSample,
    Comparison,
    RewardDelta,
    compare_runs,
    resolve_results,
)
from agentloop.harness._config import EvalConfig
from agentloop.harness._config_loading import (
    apply_overrides,
    check_tool_choice,
    load_config,
    override,
    read_raw_config,
    validate_config,
)
from agentloop.harness._dataset import DatasetScan, LineProblem, iter_samples, scan_dataset
from agentloop.harness._environment import (
    Environment,
    EnvironmentFactory,
    LiveEnvironment,
    environment_input,
    recorded_states,
    run_calls,
)
from agentloop.harness._estimators import pass_at_k, pass_hat_k, percentile
from agentloop.harness._lock import (
    LOCK_FILE,
    RunLock,
    RunLockedError,
)
from agentloop.harness._prompt import (
    load_system_prompt,
    prompt_inputs,
    prompt_messages,
    recorded_generation_start,
    wire_messages,
    with_system_prompt,
)
from agentloop.harness._reporting import (
    Reporter,
    SilentProgress,
)
from agentloop.harness._rescore import (
    rescore_line,
    rescore_run,
)
from agentloop.harness._rewards import parse_rewards, resolve_reward
from agentloop.harness._rows import Mode, Sample, parse_line
from agentloop.harness._run_files import (
    FORMAT,
    HEADER_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    ResultIndex,
    ResultWriter,
    Scrubber,
    completed_pairs,
    encode_result,
    index_results,
    iter_results,
    latest_results,
    latest_status,
    new_run_dir,
    read_json,
    repair_tail,
    utc_now,
    write_json_atomic,
)
from agentloop.harness._run_inputs import (
    changed_inputs,
    run_inputs,
)
from agentloop.harness._rundir import (
    RESUMABLE_CHANGES,
    build_header,
    check_resume,
    open_run,
    read_header,
    redacted_config,
    write_summary,
)
from agentloop.harness._runner import (
    RunOutcome,
    run_eval,
    run_eval_sync,
)
from agentloop.harness._sample import Prepared, prepare, run_sample
from agentloop.harness._scoring import (
    RewardPlan,
    ScoreOutcome,
    recorded_trajectory,
)
from agentloop.harness._selection import Selection, iter_selected, select_rows, shuffle_key
from agentloop.harness._stats import (
    ErrorExamples,
    LatencyStats,
    RewardStats,
    RunSummary,
    failure_reason,
    summarize,
)
from agentloop.harness._tools import ToolSet, sample_row, turn_plan
from agentloop.harness._toolspecs import (
    MCP_INSTALL_HINT,
    FactorySpec,
    McpSpec,
    PathSpec,
    ToolSpec,
    parse_tool_spec,
    parse_tool_specs,
    tool_import_paths,
)

__all__ = [
    "FORMAT",
    "HEADER_FILE",
    "LOCK_FILE",
    "MCP_INSTALL_HINT",
    "RESULTS_FILE",
    "RESUMABLE_CHANGES",
    "SUMMARY_FILE",
    "ChangedSample",
    "Comparison",
    "DatasetScan",
    "Environment",
    "EnvironmentFactory",
    "ErrorExamples",
    "EvalConfig",
    "FactorySpec",
    "LatencyStats",
    "LineProblem",
    "LiveEnvironment",
    "McpSpec",
    "Mode",
    "PathSpec",
    "Prepared",
    "Reporter",
    "ResultIndex",
    "ResultWriter",
    "RewardDelta",
    "RewardPlan",
    "RewardStats",
    "RunLock",
    "RunLockedError",
    "RunOutcome",
    "RunSummary",
    "Sample",
    "ScoreOutcome",
    "Scrubber",
    "Selection",
    "SilentProgress",
    "ToolSet",
    "ToolSpec",
    "apply_overrides",
    "build_header",
    "changed_inputs",
    "check_resume",
    "check_tool_choice",
    "compare_runs",
    "completed_pairs",
    "encode_result",
    "environment_input",
    "failure_reason",
    "index_results",
    "iter_results",
    "iter_samples",
    "iter_selected",
    "latest_results",
    "latest_status",
    "load_config",
    "load_system_prompt",
    "new_run_dir",
    "open_run",
    "override",
    "parse_line",
    "parse_rewards",
    "parse_tool_spec",
    "parse_tool_specs",
    "pass_at_k",
    "pass_hat_k",
    "percentile",
    "prepare",
    "prompt_inputs",
    "prompt_messages",
    "read_header",
    "read_json",
    "read_raw_config",
    "recorded_generation_start",
    "recorded_states",
    "recorded_trajectory",
    "redacted_config",
    "repair_tail",
    "rescore_line",
    "rescore_run",
    "resolve_results",
    "resolve_reward",
    "run_calls",
    "run_eval",
    "run_eval_sync",
    "run_inputs",
    "run_sample",
    "sample_row",
    "scan_dataset",
    "select_rows",
    "shuffle_key",
    "summarize",
    "tool_import_paths",
    "turn_plan",
    "utc_now",
    "validate_config",
    "wire_messages",
    "with_system_prompt",
    "write_json_atomic",
    "write_summary",
]

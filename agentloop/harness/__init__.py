"""The harness: configs and datasets in, run directories of scored results out.

Config (``_config``), dataset files (``_dataset``) and their rows (``_rows``), the
runner (``_runner``) and one sample's run (``_sample``), progress reporting
(``_reporting``), scoring (``_scoring``), result files (``_results``), the run
directory's header, resume checks and summary (``_rundir``), its writer lock
(``_lock``), the input files a resume checks (``_inputs``), summary statistics
(``_stats``), offline re-scoring (``_rescore``) and run comparison (``_compare``).
"""

from __future__ import annotations

from agentloop.harness._compare import (
    ChangedSample,
    Comparison,
    RewardDelta,
    compare_runs,
    resolve_results,
)
from agentloop.harness._config import (
    EvalConfig,
    apply_overrides,
    load_config,
    override,
    read_raw_config,
    validate_config,
)
from agentloop.harness._dataset import DatasetScan, LineProblem, iter_samples, scan_dataset
from agentloop.harness._inputs import (
    changed_inputs,
    run_inputs,
)
from agentloop.harness._lock import (
    LOCK_FILE,
    RunLock,
    RunLockedError,
)
from agentloop.harness._reporting import (
    Reporter,
    SilentProgress,
)
from agentloop.harness._rescore import (
    rescore_line,
    rescore_run,
)
from agentloop.harness._results import (
    FORMAT,
    HEADER_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    ResultWriter,
    Scrubber,
    completed_pairs,
    encode_result,
    iter_results,
    new_run_dir,
    read_json,
    repair_tail,
    utc_now,
    write_json_atomic,
)
from agentloop.harness._rows import (
    Mode,
    Sample,
    parse_line,
    prompt_messages,
    recorded_generation_start,
    wire_messages,
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
    ToolSet,
    recorded_trajectory,
)
from agentloop.harness._stats import (
    ErrorExamples,
    LatencyStats,
    RewardStats,
    RunSummary,
    failure_reason,
    pass_at_k,
    pass_hat_k,
    percentile,
    summarize,
)

__all__ = [
    "FORMAT",
    "HEADER_FILE",
    "LOCK_FILE",
    "RESULTS_FILE",
    "RESUMABLE_CHANGES",
    "SUMMARY_FILE",
    "ChangedSample",
    "Comparison",
    "DatasetScan",
    "ErrorExamples",
    "EvalConfig",
    "LatencyStats",
    "LineProblem",
    "Mode",
    "Prepared",
    "Reporter",
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
    "SilentProgress",
    "ToolSet",
    "apply_overrides",
    "build_header",
    "changed_inputs",
    "check_resume",
    "compare_runs",
    "completed_pairs",
    "encode_result",
    "failure_reason",
    "iter_results",
    "iter_samples",
    "load_config",
    "new_run_dir",
    "open_run",
    "override",
    "parse_line",
    "pass_at_k",
    "pass_hat_k",
    "percentile",
    "prepare",
    "prompt_messages",
    "read_header",
    "read_json",
    "read_raw_config",
    "recorded_generation_start",
    "recorded_trajectory",
    "redacted_config",
    "repair_tail",
    "rescore_line",
    "rescore_run",
    "resolve_results",
    "run_eval",
    "run_eval_sync",
    "run_inputs",
    "run_sample",
    "scan_dataset",
    "summarize",
    "utc_now",
    "validate_config",
    "wire_messages",
    "write_json_atomic",
    "write_summary",
]

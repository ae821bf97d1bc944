"""A run directory's life: the header written at the start, resume checks, the summary.

See ``agentloop.harness._results`` for the file formats.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentloop.errors import AgentloopError
from agentloop.harness._config import EvalConfig
from agentloop.harness._dataset import DatasetScan
from agentloop.harness._results import (
    FORMAT,
    HEADER_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    Scrubber,
    completed_pairs,
    iter_results,
    new_run_dir,
    read_json,
    repair_tail,
    utc_now,
    write_json_atomic,
)
from agentloop.harness._stats import RunSummary, summarize

__all__ = [
    "RESUMABLE_CHANGES",
    "build_header",
    "check_resume",
    "open_run",
    "read_header",
    "redacted_config",
    "write_summary",
]

RESUMABLE_CHANGES = frozenset({"concurrency", "output_dir", "fail_on_error", "fsync"})
"""Config fields a resume may change: they change how the run goes, not what it computes."""
_SECRET_OPTION_WORDS = ("key", "token", "secret", "password")
# Known options whose names contain such a word but hold no secret: masking them would
# make ``run --resume RUN_DIR`` (config read back from run.json) reject the value.
_NOT_SECRET_OPTIONS = frozenset({"max_tokens_field"})
_VERSIONED = ("agentloop", "langchain-core", "langchain-openai", "pydantic", "anyio")


def redacted_config(config: EvalConfig) -> dict[str, Any]:
    """The config as JSON data, with secret-looking model option values masked
    (``api_key: ...`` is masked; ``api_key_env: NAME`` names a variable and is kept)."""
    data = config.model_dump(mode="json")
    options = data.get("model_options") or {}
    for key in options:
        lowered = key.lower()
        if key in _NOT_SECRET_OPTIONS or lowered.endswith("_env"):
            continue
        if any(w in lowered for w in _SECRET_OPTION_WORDS):
            options[key] = "***"
    return data


def _versions() -> dict[str, str]:
    found = {}
    for name in _VERSIONED:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["python"] = platform.python_version()
    return found


def build_header(
    config: EvalConfig, config_path: str | None, scan: DatasetScan, samples: int
) -> dict[str, Any]:
    """The ``run.json`` header of a new run."""
    from agentloop import __version__

    return {
        "format": FORMAT,
        "name": config.run_name(config_path),
        "created_at": utc_now(),
        "agentloop_version": __version__,
        "config_path": config_path,
        "config": redacted_config(config),
        "model": config.model,
        "model_params": config.model_params,
        "versions": _versions(),
        "dataset": {
            "path": config.dataset,
            "abs_path": str(Path(config.dataset).resolve()),
            "sha256": scan.sha256,
            "valid_rows": scan.valid,
            "invalid_lines": [str(x) for x in scan.problems],
        },
        "planned": {
            "samples": samples,
            "epochs": config.epochs,
            "results": samples * config.epochs,
        },
        "host": {"pid": os.getpid(), "platform": platform.platform()},
        "resumed_at": [],
    }


def read_header(run_dir: Path) -> dict[str, Any]:
    """A run's ``run.json``; ``AgentloopError`` when ``run_dir`` is not a run directory."""
    if not (run_dir / HEADER_FILE).is_file():
        raise AgentloopError(f"{run_dir}: not a run directory (no {HEADER_FILE})")
    header = read_json(run_dir / HEADER_FILE)
    if header.get("format") != FORMAT:
        raise AgentloopError(f"{run_dir}/{HEADER_FILE}: not an agentloop run header ({FORMAT})")
    return header


def _comparable(config_data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config_data.items() if k not in RESUMABLE_CHANGES}


def check_resume(
    run_dir: Path, header: Mapping[str, Any], config: EvalConfig, scan: DatasetScan
) -> None:
    """Refuse to resume against a changed dataset or config (a clear one-line message)."""
    stored = header.get("dataset", {}).get("sha256")
    if stored != scan.sha256:
        raise AgentloopError(
            f"cannot resume {run_dir}: the dataset {config.dataset} changed since the run "
            f"started (sha256 {str(stored)[:12]}..., now {scan.sha256[:12]}...)"
        )
    old, new = _comparable(header.get("config", {})), _comparable(redacted_config(config))
    changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if changed:
        raise AgentloopError(
            f"cannot resume {run_dir}: the config differs from the run's in: {', '.join(changed)}"
        )


def open_run(
    config: EvalConfig,
    config_path: str | None,
    scan: DatasetScan,
    samples: int,
    scrub: Scrubber,
    resume: Path | None,
) -> tuple[Path, dict[str, Any], set[tuple[str, int]]]:
    """Create a run directory, or reopen one: (directory, header, pairs already done)."""
    if resume is None:
        run_dir = new_run_dir(config.output_dir, config.run_name(config_path))
        header = build_header(config, config_path, scan, samples)
        write_json_atomic(run_dir / HEADER_FILE, header, scrub)
        return run_dir, header, set()
    header = read_header(resume)
    check_resume(resume, header, config, scan)
    repair_tail(resume / RESULTS_FILE)
    header.setdefault("resumed_at", []).append(utc_now())
    current = redacted_config(config)
    header["config"].update({k: current[k] for k in RESUMABLE_CHANGES})
    write_json_atomic(resume / HEADER_FILE, header, scrub)
    return resume, header, completed_pairs(resume / RESULTS_FILE)


def write_summary(
    run_dir: Path,
    header: Mapping[str, Any],
    scrub: Scrubber,
    results_name: str = RESULTS_FILE,
    summary_name: str = SUMMARY_FILE,
) -> RunSummary:
    """Summarize one results file of the run and write the summary atomically."""
    config = header.get("config", {})
    summary = summarize(
        iter_results(run_dir / results_name),
        epochs=int(config.get("epochs", 1)),
        invalid_lines=header.get("dataset", {}).get("invalid_lines", []),
        fail_on_error=config.get("fail_on_error", False),
    )
    data = summary.model_dump(mode="json")
    data["run"] = {
        "name": header.get("name"),
        "model": header.get("model"),
        "results_file": results_name,
        "written_at": utc_now(),
    }
    write_json_atomic(run_dir / summary_name, data, scrub)
    return summary

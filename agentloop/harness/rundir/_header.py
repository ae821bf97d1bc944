"""A run directory's header (``run.json``): written when the run opens, read back, and
compared by a resume; the rewards and their directions it records.

See ``agentloop.harness.rundir._files`` for the file formats. One process writes a run
directory at a time (``agentloop.harness.rundir._lock``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import re
import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentloop._secrets import MASK, is_secret_name
from agentloop.benchmarks import agentdojo_suite, bfcl_category, tau2_domain, tau2_task_set
from agentloop.errors import AgentloopError
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.config._inputs import changed_inputs, run_inputs
from agentloop.harness.config._pricing import resolve_pricing
from agentloop.harness.config._prompt_files import prompt_inputs
from agentloop.harness.data._dataset import DatasetScan
from agentloop.harness.rundir._files import (
    FORMAT,
    FORMATS,
    HEADER_FILE,
    RESULTS_FILE,
    Scrubber,
    latest_status,
    new_run_dir,
    read_json,
    repair_tail,
    utc_now,
    write_json_atomic,
)
from agentloop.harness.rundir._lock import RunLock

__all__ = [
    "RESUMABLE_CHANGES",
    "build_header",
    "check_resume",
    "configured_rewards",
    "not_a_run",
    "open_run",
    "read_header",
    "redacted_config",
]

RESUMABLE_CHANGES = frozenset(
    {"concurrency", "output_dir", "fail_on_error", "fsync", "preflight", "otel"}
    | {"executor", "ray_address", "ray_workers", "ray_env"}  # where pairs run, not what
)
"""Config fields a resume may change: they change how the run goes, not what it computes."""
_VERSIONED = ("agentloop", "langchain-core", "langchain-openai", "pydantic", "anyio")


_REFERENCE = re.compile(r"\$\{\w+\}")


def _mask(value: Any) -> Any:
    # A ${NAME} reference (MCP env and headers) names a variable: it holds no secret.
    return value if isinstance(value, str) and _REFERENCE.fullmatch(value) else MASK


def _mask_secret_names(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _mask(v) if is_secret_name(str(k)) else _mask_secret_names(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_mask_secret_names(v) for v in value]
    return value


def redacted_config(config: EvalConfig) -> dict[str, Any]:
    """The config as JSON data, with the values of secret-named keys masked in model
    options, model params (the simulated user's too) and tool specs (tool args, MCP env and
    headers), nested ones
    too (``api_key: ...`` is masked; ``api_key_env: NAME`` and ``${NAME}`` name a
    variable and are kept: see ``agentloop._secrets.is_secret_name``); secrets in URLs
    and secret values from the environment are masked wherever they appear."""
    data = config.model_dump(mode="json")
    for field in ("model_options", "model_params", "tools"):
        data[field] = _mask_secret_names(data[field])
    if data.get("user"):  # the simulated user's model has options and params of its own
        for field in ("model_options", "model_params"):
            data["user"][field] = _mask_secret_names(data["user"][field])
    # Values too, by the one rule for what is written: secrets in URLs, known secret values.
    masked: dict[str, Any] = Scrubber().obj(data)
    return masked


def config_digests(config: EvalConfig, salt: str) -> dict[str, str]:
    """A salted sha256 of each config field's real value (``run.json``'s
    ``config_digests``): a resume compares these, since the config copy is masked."""
    data = config.model_dump(mode="json")
    return {
        name: hashlib.sha256(
            (salt + json.dumps(value, sort_keys=True, ensure_ascii=False)).encode()
        ).hexdigest()
        for name, value in data.items()
        if name not in RESUMABLE_CHANGES
    }


def _inputs(config: EvalConfig) -> dict[str, dict[str, Any]]:
    """Files that decide results (``run.json``'s ``inputs``): tools, model, prompt file."""
    return {**run_inputs(config), **prompt_inputs(config.system_prompt)}


def _versions() -> dict[str, str]:
    found = {}
    for name in _VERSIONED:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["python"] = platform.python_version()
    return found


def _user_pricing(config: EvalConfig, endpoint: str | None) -> dict[str, Any]:
    """``user_pricing`` of a run with a simulated user (its model is priced on its own, at
    the endpoint its source resolved, as each result is charged)."""
    if config.user is None:
        return {}
    pricing = resolve_pricing(
        config.user.model, endpoint, config.prices, score_mode=config.mode == "score"
    )
    return {"user_base_url": endpoint, "user_pricing": pricing.record()}


def _task_set(dataset: str) -> dict[str, str]:
    """``task_set``: the benchmark task set a ``tau2:`` dataset reads (none for a file)."""
    task_set = tau2_task_set(dataset)
    return {} if task_set is None else {"task_set": task_set}


def build_header(
    config: EvalConfig,
    config_path: str | None,
    scan: DatasetScan,
    samples: int,
    *,
    base_url: str | None = None,
    user_base_url: str | None = None,
) -> dict[str, Any]:
    """The ``run.json`` header of a new run; ``base_url`` is the model source's
    ``endpoint`` (without credentials; None for models that call no server), and
    ``user_base_url`` the simulated user's."""
    from agentloop._version import __version__

    redacted = redacted_config(config)
    salt = secrets.token_hex(16)
    return {
        "format": FORMAT,
        "name": config.run_name(config_path),
        "created_at": utc_now(),
        "agentloop_version": __version__,
        "config_path": config_path,
        "config": redacted,
        "config_digests": {"salt": salt, "fields": config_digests(config, salt)},
        "model": config.model,
        "model_params": redacted["model_params"],
        "base_url": base_url,
        "pricing": resolve_pricing(
            config.model, base_url, config.prices, score_mode=config.mode == "score"
        ).record(),
        **_user_pricing(config, user_base_url),
        "versions": _versions(),
        "dataset": {
            "path": config.dataset,
            "abs_path": (
                None
                if bfcl_category(config.dataset)
                or tau2_domain(config.dataset)
                or agentdojo_suite(config.dataset)
                else str(Path(config.dataset).resolve())
            ),
            "sha256": scan.sha256,
            "valid_rows": scan.valid,
            "invalid_lines": [str(x) for x in scan.problems],
            **_task_set(config.dataset),
        },
        "inputs": _inputs(config),
        "reward_better": _reward_better(config),
        "planned": {
            "samples": samples,
            "epochs": config.epochs,
            "results": samples * config.epochs,
        },
        "host": {"pid": os.getpid(), "platform": platform.platform()},
        "resumed_at": [],
    }


def not_a_run(path: Path, why: str) -> AgentloopError:
    """The error for a path that is not a run directory, naming the newest run directory
    inside it when it holds some (an ``output_dir`` such as ``runs/``, or the folder an
    import ran into)."""
    headers = path.glob(f"*/{HEADER_FILE}") if path.is_dir() else iter(())
    runs = sorted((h.parent for h in headers), key=lambda run: run.stat().st_mtime)
    hint = ""
    if len(runs) == 1:
        hint = f"; it holds the run directory {runs[0]}"
    elif runs:
        hint = f"; it holds {len(runs)} run directories, the newest {runs[-1]}"
    return AgentloopError(f"{path}: {why}{hint}")


def read_header(run_dir: Path) -> dict[str, Any]:
    """A run's ``run.json``; ``AgentloopError`` when ``run_dir`` is not a run directory."""
    if not (run_dir / HEADER_FILE).is_file():
        raise not_a_run(run_dir, f"not a run directory (no {HEADER_FILE})")
    header = read_json(run_dir / HEADER_FILE)
    if header.get("format") not in FORMATS:
        raise AgentloopError(f"{run_dir}/{HEADER_FILE}: not an agentloop run header ({FORMAT})")
    return header


def _comparable(config_data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config_data.items() if k not in RESUMABLE_CHANGES}


def check_resume(
    run_dir: Path,
    header: Mapping[str, Any],
    config: EvalConfig,
    scan: DatasetScan,
    *,
    allow_changed: bool = False,
) -> dict[str, dict[str, str | None]]:
    """Refuse to resume against a changed dataset, config or input file (tool code, model
    script) with a one-line message; ``allow_changed`` accepts changed input files.
    Returns the changed input files (name -> ``{"was", "now"}`` digests)."""
    stored = header.get("dataset", {}).get("sha256")
    if stored != scan.sha256:
        raise AgentloopError(
            f"cannot resume {run_dir}: the dataset {config.dataset} changed since the run "
            f"started (sha256 {str(stored)[:12]}..., now {scan.sha256[:12]}...)"
        )
    digests = header.get("config_digests")
    if isinstance(digests, dict):  # the real values, masked ones included
        old, new = digests.get("fields", {}), config_digests(config, digests.get("salt", ""))
    else:  # written before digests were recorded: the masked copy is all there is
        old, new = _comparable(header.get("config", {})), _comparable(redacted_config(config))
    changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if changed:
        raise AgentloopError(
            f"cannot resume {run_dir}: the config differs from the run's in: {', '.join(changed)}"
        )
    if "inputs" not in header:
        return {}  # written before inputs were recorded: nothing to compare with
    inputs = changed_inputs(header["inputs"], _inputs(config))
    if inputs and not allow_changed:
        raise AgentloopError(
            f"cannot resume {run_dir}: changed since the run started: {', '.join(inputs)} "
            "(add --allow-changed to resume anyway)"
        )
    return inputs


@contextmanager
def open_run(
    config: EvalConfig,
    config_path: str | None,
    scan: DatasetScan,
    samples: int,
    scrub: Scrubber,
    resume: Path | None,
    *,
    allow_changed: bool = False,
    retry_errors: bool = False,
    base_url: str | None = None,
    user_base_url: str | None = None,
) -> Iterator[tuple[Path, dict[str, Any], set[tuple[str, int]]]]:
    """Create a run directory, or reopen one to resume, holding its writer lock:
    ``with open_run(...) as (run_dir, header, done)``, ``done`` being the (id, epoch)
    pairs already written (with ``retry_errors``: those whose latest result is ok, so
    the errored ones run again). A directory another writer holds is refused
    (``RunLockedError``); the lock is released when the block ends.
    """
    if resume is None:
        run_dir = new_run_dir(config.output_dir, config.run_name(config_path))
        lock = RunLock(run_dir)
        try:
            header = build_header(
                config, config_path, scan, samples, base_url=base_url, user_base_url=user_base_url
            )
            write_json_atomic(run_dir / HEADER_FILE, header, scrub)
            yield run_dir, header, set()
        finally:
            lock.release()
        return
    read_header(resume)  # not a run directory: say so before creating a lock file in it
    lock = RunLock(resume)
    try:
        header = read_header(resume)  # again: the previous writer may have changed it
        changed = check_resume(resume, header, config, scan, allow_changed=allow_changed)
        repair_tail(resume / RESULTS_FILE)
        states = latest_status(resume / RESULTS_FILE)
        done = {pair for pair, status in states.items() if not retry_errors or status == "ok"}
        entry: dict[str, Any] = {"at": utc_now(), "pid": os.getpid()}
        if changed:
            entry["allowed_changes"] = changed
            header["inputs"] = _inputs(config)
        if retry_errors:
            entry["retry_errors"] = len(states) - len(done)
        if base_url is not None and base_url != header.get("base_url"):
            entry["base_url"] = base_url  # the server moved (the run's own is kept)
        header.setdefault("resumed_at", []).append(entry)
        current = redacted_config(config)
        header["config"].update({k: current[k] for k in RESUMABLE_CHANGES})
        write_json_atomic(resume / HEADER_FILE, header, scrub)
        yield resume, header, done
    finally:
        lock.release()


def _reward_better(config: EvalConfig) -> dict[str, str]:
    """Reward key -> which way its score is good (``agentloop.evals.reward_better``)."""
    from agentloop.evals import registered_rewards, reward_better
    from agentloop.harness.config._rewards import parse_rewards

    return {
        spec.key: reward_better((spec.entry or registered_rewards()[spec.name]).fn)
        for spec in parse_rewards(config.rewards)
    }


def reward_directions(header: Mapping[str, Any]) -> dict[str, str]:
    """Reward key -> ``higher`` or ``lower`` (is better), from a run header (a header
    written before agentloop recorded it: none, every reward read as higher-is-better)."""
    return dict(header.get("reward_better") or {})


def configured_rewards(header: Mapping[str, Any]) -> list[str]:
    """The result keys of the rewards in a run header's config, in order (read from the
    specs alone: a summary needs no reward importable)."""
    from agentloop.evals import reward_keys

    return reward_keys((header.get("config") or {}).get("rewards") or [])

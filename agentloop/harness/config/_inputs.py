"""Files besides the config and the dataset that decide a run's results, by sha256.

``run.json`` records them under ``inputs`` (name -> ``{"file", "sha256"}``): the source
file of each configured tool's module and of the environment factory's, the file a
``scripted:`` or ``replay:`` model reads (the simulated user's too) and the user's
instructions file. A resume compares them, so changed tool code
or a changed script cannot mix old and new results silently. The weights of ``local:``
models are not hashed (gigabytes).
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentloop._records import RESULTS_FILE
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.config._tool_specs import parse_environment_spec, tool_import_paths

__all__ = ["changed_inputs", "run_inputs"]


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def _tool_file(spec: str) -> Path | None:
    """The source file of a tool path's module, found without importing it where possible
    (``find_spec`` imports the parent packages of a dotted name)."""
    module, sep, _ = spec.rpartition(":")
    if not sep or not module:
        return None
    if module.endswith(".py") or "/" in module or "\\" in module:
        return Path(module).expanduser().resolve()
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    origin = found.origin if found is not None else None
    if origin is None or not Path(origin).is_file():
        return None  # built-in, frozen or a namespace package: no source to hash
    return Path(origin)


def _model_file(spec: str | None, role: str = "model") -> tuple[str, Path] | None:
    prefix, _, value = (spec or "").partition(":")
    if prefix == "scripted" and value:
        return f"scripted {role} {value}", Path(value)
    if prefix == "replay" and value:
        path = Path(value)
        return f"replay recording {value}", path / RESULTS_FILE if path.is_dir() else path
    return None


def run_inputs(config: EvalConfig) -> dict[str, dict[str, Any]]:
    """Name -> ``{"file", "sha256"}`` of the files that decide this config's results."""
    if config.mode == "score":
        return {}  # rows are scored as recorded: no tool runs, no model answers
    found: dict[str, Path | None] = {
        f"tool {spec}": _tool_file(spec) for spec in tool_import_paths(config.tools)
    }  # an MCP server's code is not hashed: agentloop does not know which files it runs
    if config.environment is not None:
        factory = parse_environment_spec(config.environment).factory
        found[f"environment {factory}"] = _tool_file(factory)
    models = [_model_file(config.model)]
    if config.user is not None:
        models.append(_model_file(config.user.model, "user model"))
        instructions = config.user.instructions
        if instructions.startswith("@"):
            found[f"user instructions {instructions}"] = Path(instructions[1:]).resolve()
    for model in models:
        if model is not None:
            found[model[0]] = model[1]
    return {
        name: {"file": str(path) if path else None, "sha256": _sha256(path) if path else None}
        for name, path in found.items()
    }


def changed_inputs(
    stored: Mapping[str, Any], current: Mapping[str, Any]
) -> dict[str, dict[str, str | None]]:
    """Inputs whose digest differs: name -> ``{"was", "now"}`` (None: absent)."""
    changed = {}
    for name in sorted(stored.keys() | current.keys()):
        was = (stored.get(name) or {}).get("sha256")
        now = (current.get(name) or {}).get("sha256")
        if was != now:
            changed[name] = {"was": was, "now": now}
    return changed

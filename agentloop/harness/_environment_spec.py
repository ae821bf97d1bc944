"""The shape of the config's ``environment`` value (nothing is imported here)."""

from __future__ import annotations

from typing import Any

from agentloop.harness._toolspecs import FactorySpec

__all__ = ["parse_environment_spec"]


def parse_environment_spec(raw: Any) -> FactorySpec:
    """The config's ``environment`` value as a factory spec; ValueError (one line)."""
    if isinstance(raw, str):
        raw = {"factory": raw}
    if not isinstance(raw, dict) or set(raw) - {"factory", "args"} or "factory" not in raw:
        raise ValueError("environment must be 'module:factory' or {factory: ..., args: {...}}")
    factory, args = raw["factory"], raw.get("args") or {}
    if not isinstance(factory, str) or ":" not in factory:
        raise ValueError("environment: factory must be an import path like 'package.module:name'")
    if not isinstance(args, dict):
        raise ValueError("environment: args must be a mapping of argument names to values")
    return FactorySpec(factory, dict(args))

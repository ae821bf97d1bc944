"""AgentDojo's own package (``agentloop[agentdojo]``): found, imported, and its suites, versions
and attacks named.

AgentDojo is imported only when a row, an environment or a reward needs it (importing it
imports its model clients: about three seconds); a missing package is one line naming the
extra. ``make test`` installs it without its dependencies into ``<prefix>/agentdojo``
(``agentloop._packages``), found there as well.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

from agentloop._packages import data_package
from agentloop.errors import DatasetError

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "AGENTDOJO_INSTALL",
    "AGENTDOJO_TARGET",
    "DEFAULT_ATTACK",
    "DEFAULT_VERSION",
    "SUITES",
    "agentdojo_module",
    "attack_names",
    "benchmark_versions",
    "load_suite",
]

AGENTDOJO_INSTALL = "pip install 'agentloop[agentdojo]'"
AGENTDOJO_TARGET = "agentdojo"
"""The folder, under the environment's prefix, where ``make`` installs AgentDojo."""
SUITES = ("workspace", "travel", "banking", "slack")
"""The suites AgentDojo ships (each in every benchmark version)."""
DEFAULT_VERSION = "v1.2.2"
"""The benchmark version AgentDojo's command line runs by default (``--benchmark-version``)."""
DEFAULT_ATTACK = "important_instructions"


def agentdojo_module(name: str) -> ModuleType:
    """``agentdojo.<name>``, imported; ``DatasetError`` (one line naming the extra) when
    AgentDojo or a package it imports is missing."""
    data_package("agentdojo", AGENTDOJO_TARGET)  # make's folder joins sys.path
    try:
        return importlib.import_module(f"agentdojo.{name}")
    except ImportError as exc:
        raise DatasetError(f"AgentDojo is not installed ({exc}); {AGENTDOJO_INSTALL}") from None


@functools.cache
def benchmark_versions() -> tuple[str, ...]:
    """Every benchmark version the installed package ships, oldest first."""
    loader = agentdojo_module("task_suite.load_suites")
    return tuple(loader._SUITES)


def load_suite(version: str, suite: str) -> Any:
    """AgentDojo's ``TaskSuite`` of ``suite`` in benchmark ``version``; ``DatasetError`` for
    an unknown one (listing the known ones)."""
    loader = agentdojo_module("task_suite.load_suites")
    if version not in benchmark_versions():
        known = ", ".join(benchmark_versions())
        raise DatasetError(f"unknown AgentDojo benchmark version {version!r}; known: {known}")
    suites = loader.get_suites(version)
    if suite not in suites:
        raise DatasetError(f"unknown AgentDojo suite {suite!r}; known: {', '.join(suites)}")
    return suites[suite]


def attack_names() -> tuple[str, ...]:
    """The attacks AgentDojo registers (``important_instructions``, ``tool_knowledge``, ...)."""
    return tuple(agentdojo_module("attacks.attack_registry").ATTACKS)

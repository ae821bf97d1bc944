"""How a run reports progress: one call per finished result (the CLI draws it)."""

from __future__ import annotations

from typing import Protocol

__all__ = ["Reporter", "SilentProgress"]


class Reporter(Protocol):
    """Receives one call per finished result."""

    def start(self, total: int, done: int) -> None:
        """``total`` results in the run, ``done`` of them finished before (a resume)."""
        ...

    def advance(self, errored: bool) -> None:
        """One more result finished."""
        ...

    def close(self) -> None:
        """The run ended."""
        ...


class SilentProgress:
    """Reports nothing (library use, tests)."""

    def start(self, total: int, done: int) -> None:
        return None

    def advance(self, errored: bool) -> None:
        return None

    def close(self) -> None:
        return None

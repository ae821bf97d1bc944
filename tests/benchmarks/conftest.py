"""BFCL tests read the small fixture under tests/data/bfcl, never the installed package
(unless a test says so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "bfcl"


@pytest.fixture(autouse=True)
def _fixture_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BFCL_DATA_ENV, str(FIXTURE))

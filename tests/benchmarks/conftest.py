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


@pytest.fixture
def installed_bfcl_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """The installed bfcl-eval package's data instead (for what the fixture lacks: memory);
    the test is skipped where the package is not installed."""
    from agentloop.benchmarks.bfcl._package import bfcl_package

    monkeypatch.delenv(BFCL_DATA_ENV, raising=False)
    if bfcl_package() is None:
        pytest.skip("bfcl-eval is not installed")

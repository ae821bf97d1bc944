"""One headless Chromium for all the browser tests (Debian's ``chromium`` driven by
Playwright); the browser tests skip, saying why, where none can be started."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _chromium() -> str | None:
    for name in (os.environ.get("AGENTLOOP_CHROMIUM"), "chromium", "chromium-browser"):
        if name and (path := shutil.which(name)):
            return path
    return None


# Package scope, not session: Playwright's sync API runs an event loop in this thread
# until the browser closes, and the tests after these start event loops of their own.
@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[dev]')")
    executable = _chromium()
    if executable is None:
        pytest.skip("no chromium binary found (apt-get install chromium; make test tries)")
    with sync_playwright() as playwright:
        try:
            # --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
            chromium = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        except Error as exc:
            pytest.skip(f"chromium ({executable}) did not start: {str(exc).splitlines()[0]}")
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots are kept after the run (gitignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS

"""An exported run in Inspect's own viewer (``inspect view bundle``, served on 127.0.0.1), in
a real headless Chromium: its samples, epochs, scores and the rewards' metrics."""

from __future__ import annotations

import functools
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentloop.harness import load_config, run_eval_sync
from agentloop.harness.exchange._inspect_export import export_inspect
from tests.support.harness import add_setup, only_run_dir, write_json


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Inspect's viewer bundle of an exported run (2 rows, 2 epochs, one answered wrongly),
    served on 127.0.0.1; its URL."""
    tmp = tmp_path_factory.mktemp("inspect")
    script = write_json(tmp / "s.json", {"s0000": ["1"], "s0001": ["7"]})
    config = add_setup(tmp, n=2, model=f"scripted:{script}", tools=[], epochs=2, preflight=False)
    with ThreadPoolExecutor(1) as pool:  # Playwright's loop runs in this thread
        pool.submit(lambda: run_eval_sync(load_config(config))).result()
    (tmp / "logs").mkdir()
    export_inspect(only_run_dir(tmp / "runs"), tmp / "logs" / "run.eval")
    out = tmp / "bundle"
    subprocess.run(
        [sys.executable, "-m", "inspect_ai", "view", "bundle", "--log-dir", str(tmp / "logs"),
         "--output-dir", str(out)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    handler = functools.partial(_Quiet, directory=str(out))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_inspects_viewer_shows_the_samples_and_scores(
    browser: Any, bundle: str, artifacts: Path
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(bundle)
        page.get_by_text("s0001").first.wait_for(timeout=30_000)
        body = page.inner_text("body")
        assert body.count("s0000") == 2 and body.count("s0001") == 2  # one row per epoch
        assert "qa_f1_reward" in body  # the scorer
        for metric in ("MEAN", "HEADLINE", "PASS_RATE"):
            assert metric in body.upper()
        page.screenshot(path=str(artifacts / "inspect-view.png"))
    finally:
        page.close()

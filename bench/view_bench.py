"""``agentloop view`` on a 10,000-sample run: report size, generation time, and in
headless Chromium the time to first render, to filter, to sort and to open a sample.

The run is synthetic but in the harness's own format, written by its own writer: a
real scripted run of 9 varied samples (tool calls ok, unknown and long, a wrong answer,
an injected-markup reply, a model error) is the seed; its result lines are written
again under new ids (``encode_result`` + ``ResultWriter``) up to N lines, then
``write_summary`` writes summary.json as a finished run would. The same is done with
100 samples: the 10,000/100 ratios show what grows with the run (parsing the data)
and what does not (the table renders only the rows in view).

Run: ``python bench/view_bench.py [--samples 10000] [--small 100]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentloop._records import RESULTS_FILE  # noqa: E402
from agentloop._secrets import Scrubber  # noqa: E402
from agentloop.cli._view import write_report  # noqa: E402
from agentloop.harness.rundir._files import ResultWriter, encode_result, write_json_atomic  # noqa: E402
from agentloop.harness.rundir._header import read_header  # noqa: E402
from agentloop.harness.stats._summary_file import write_summary  # noqa: E402
from tests.browser.runs import make_run  # noqa: E402


def synthetic_run(seed: Path, target: Path, samples: int) -> Path:
    """``samples`` result lines made from the seed run's, in a new run directory."""
    target.mkdir(parents=True)
    lines = [json.loads(x) for x in (seed / RESULTS_FILE).read_text().splitlines() if x]
    scrub = Scrubber()
    with ResultWriter(target / RESULTS_FILE) as writer:
        for n in range(samples):
            base = lines[n % len(lines)]
            record = {k: v for k, v in base.items() if k != "trajectory"}
            record["id"] = f"{base['id']}-{n:05d}"
            record["wall_time_s"] = round(0.05 + (n * 7919 % 1000) / 1000, 3)
            trajectory = json.dumps(base["trajectory"], ensure_ascii=False)
            writer.write(encode_result(record, trajectory, scrub))
    header = read_header(seed)
    header["planned"] = {"samples": samples, "epochs": 1, "results": samples}
    header["name"] = f"synthetic-{samples}"
    write_json_atomic(target / "run.json", header)
    write_summary(target, header, scrub)
    return target


def generate(run_dir: Path, repeats: int = 3) -> tuple[Path, int, float]:
    """The report's path, size, and the best of ``repeats`` generation times."""
    times = []
    for _ in range(repeats):
        outcome = write_report([run_dir])
        times.append(outcome.seconds)
    return outcome.path, outcome.bytes, min(times)


_FILTER = """() => { const t = performance.now();
  const box = document.getElementById('filter-text');
  box.value = 'inject'; box.dispatchEvent(new Event('input'));
  const shown = document.getElementById('row-count').textContent;
  box.value = ''; box.dispatchEvent(new Event('input')); return [performance.now() - t, shown]; }"""
_SORT = """() => { const t = performance.now();
  document.querySelectorAll('.vt-head [role=columnheader]')[1].click();
  return performance.now() - t; }"""
_OPEN = """(id) => new Promise((done) => { const t = performance.now();
  window.addEventListener('hashchange', () => done(performance.now() - t), { once: true });
  location.hash = 'sample=' + encodeURIComponent(id); })"""


def browse(browser: Any, report: Path, sample_id: str, repeats: int = 3) -> dict[str, float]:
    """Median milliseconds of first render (navigation start to the table painted), a
    text filter over every row (applied and cleared), a sort, and opening a sample."""
    found: dict[str, list[float]] = {"first_render": [], "filter": [], "sort": [], "open": []}
    for _ in range(repeats):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(report.resolve().as_uri())
        page.wait_for_selector("body[data-ready='1']")
        found["first_render"].append(page.evaluate("window.agentloopRenderedAt"))
        took, shown = page.evaluate(_FILTER)
        assert shown.endswith(" samples") and not shown.startswith("0 of"), shown
        found["filter"].append(took)
        found["sort"].append(page.evaluate(_SORT))
        found["open"].append(page.evaluate(_OPEN, sample_id))
        assert page.locator("#sample-view .sample").count() == 1
        page.close()
    return {key: statistics.median(values) for key, values in found.items()}


def _in_thread(fn: Any, *args: Any) -> Any:
    # Playwright's sync API runs an event loop in the main thread; runs go in another.
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn(*args)))
    thread.start()
    thread.join()
    return out[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=100)
    args = parser.parse_args()
    cores = os.cpu_count()
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        seed = _in_thread(make_run, base / "seed", "seed")
        runs = {n: synthetic_run(seed, base / f"run-{n}", n) for n in (args.small, args.samples)}
        reports = {}
        for n, run_dir in runs.items():
            path, size, seconds = generate(run_dir)
            reports[n] = path
            print(
                f"view {n:>6} samples: report {size / 1e6:7.2f} MB, "
                f"generated in {seconds:6.3f} s (best of 3)"
            )
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            chromium = None
        if chromium is None:
            print("browser: skipped (needs the playwright package and a chromium binary)")
            return
        timings = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            print(f"browser: {chromium} {browser.version}, headless; median of 3 page loads")
            for n, report in reports.items():
                last = (runs[n] / RESULTS_FILE).read_text().splitlines()[-1]
                timings[n] = browse(browser, report, json.loads(last)["id"])
                t = timings[n]
                print(f"view {n:>6} samples: first render {t['first_render']:7.1f} ms, "
                      f"filter {t['filter']:6.1f} ms, sort {t['sort']:6.1f} ms, "
                      f"open a sample {t['open']:6.1f} ms")  # fmt: skip
            browser.close()
        small, large = timings[args.small], timings[args.samples]
        ratios = ", ".join(f"{k} {large[k] / max(small[k], 0.1):.1f}x" for k in large)
        print(f"{args.samples} vs {args.small} samples: {ratios}")


if __name__ == "__main__":
    from bench_page import publish

    raise SystemExit(publish("view", main))

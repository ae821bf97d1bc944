"""The bench scripts' dated pages (bench/bench_page.py): what a run writes, and when not."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from tests.support.harness import bench_module

bench_page = bench_module("bench_page")

DOC = """Throughput of a made-up thing.

Two paragraphs of method:
what is timed, and how.
"""


def _as_script(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    main = types.ModuleType("__main__")
    main.__doc__ = DOC
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setattr(sys, "argv", ["bench/thing_bench.py", *argv])


def test_a_finished_run_writes_its_dated_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _as_script(monkeypatch, ["--n", "5"])

    def main() -> int:
        print("thing        calls/s")
        print("fast         1,000")
        return 1  # e.g. a speed guard that failed: the page is written all the same

    assert bench_page.publish("thing", main, pages=tmp_path) == 1
    assert "fast         1,000" in capsys.readouterr().out  # shown as usual
    page = (tmp_path / "thing.md").read_text(encoding="utf-8")
    assert page.startswith("# Throughput of a made-up thing\n")
    assert "Written by `python bench/thing_bench.py --n 5` on 20" in page
    for row in ("| CPU |", "| memory |", "| Python |", "| agentloop commit |"):
        assert row in page
    assert "## Method\n\nTwo paragraphs of method:\nwhat is timed, and how.\n" in page
    assert page.endswith("```text\nthing        calls/s\nfast         1,000\n```\n")


def test_a_run_that_fails_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _as_script(monkeypatch, [])

    def main() -> None:
        print("half a table")
        raise RuntimeError("broken")

    with pytest.raises(RuntimeError):
        bench_page.publish("thing", main, pages=tmp_path)
    assert not (tmp_path / "thing.md").exists()
    assert not isinstance(sys.stdout, bench_page._Tee)  # the output is the caller's again

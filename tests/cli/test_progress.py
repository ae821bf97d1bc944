"""Progress reporting: plain lines off a terminal, a live bar on one."""

from __future__ import annotations

import io

from rich.console import Console

from agentloop.cli._progress import PlainProgress, RichProgress, make_reporter
from agentloop.harness._reporting import SilentProgress


def test_plain_lines_at_every_tenth_and_at_the_end() -> None:
    buffer = io.StringIO()
    reporter = make_reporter(Console(file=buffer, width=120))
    assert isinstance(reporter, PlainProgress)
    reporter.start(100, 0)
    for i in range(100):
        reporter.advance(i % 25 == 0)
    reporter.close()
    lines = buffer.getvalue().splitlines()
    assert len(lines) == 11  # start, 10 %, 20 %, ..., 90 %, end
    assert lines[0].startswith("progress: 0/100 done, 0 errored")
    assert lines[1].startswith("progress: 10/100 done, 1 errored")
    assert lines[-1].startswith("progress: 100/100 done, 4 errored")
    assert lines[-1].endswith("/s")


def test_resumed_runs_count_what_was_done() -> None:
    buffer = io.StringIO()
    reporter = PlainProgress(Console(file=buffer, width=120))
    reporter.start(10, 7)
    reporter.advance(False)
    reporter.close()
    assert buffer.getvalue().splitlines()[-1].startswith("progress: 8/10 done")


def test_a_terminal_gets_a_live_bar() -> None:
    buffer = io.StringIO()
    reporter = make_reporter(Console(file=buffer, force_terminal=True, width=100))
    assert isinstance(reporter, RichProgress)
    reporter.start(2, 0)
    reporter.advance(True)
    reporter.advance(False)
    reporter.close()
    assert "2/2" in buffer.getvalue() and "1 errored" in buffer.getvalue()
    SilentProgress().start(1, 0)

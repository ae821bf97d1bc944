"""Progress reporting: plain lines off a terminal, a live bar on one."""

from __future__ import annotations

import io

from rich.console import Console

from agentloop.cli._progress import PlainProgress, RichProgress, make_reporter
from agentloop.harness.run._reporting import SilentProgress


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


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_slow_run_shows_seconds_per_sample_and_the_time_left() -> None:
    """A small model on a small machine: 40 s a sample showed ``0.0/s`` for the whole run."""
    buffer, clock = io.StringIO(), _Clock()
    reporter = PlainProgress(Console(file=buffer, width=200), clock=clock)
    reporter.start(25, 0)
    for _ in range(3):  # a line at every 2 samples (10 % of 25)
        clock.now += 40
        reporter.advance(False)
    clock.now += 40
    reporter.advance(True)
    reporter.close()
    lines = buffer.getvalue().splitlines()
    assert lines[0] == "progress: 0/25 done, 0 errored, 0.0 s elapsed, -/s, time left unknown"
    assert lines[1] == (
        "progress: 2/25 done, 0 errored, 80.0 s elapsed, 40 s/sample, about 15 min left"
    )  # 23 x 40 s = 15.3 min
    assert lines[-1] == (
        "progress: 4/25 done, 1 errored, 160.0 s elapsed, 40 s/sample, about 14 min left"
    )


def test_the_pace_switches_units_at_one_sample_a_second() -> None:
    from agentloop.cli._progress import pace, time_left

    assert pace(10, 4.0) == "2.5/s"
    assert pace(3, 3.0) == "1.0/s"
    assert pace(3, 4.5) == "1.5 s/sample"
    assert pace(2, 85.0) == "42 s/sample"
    assert pace(0, 12.0) == "-/s"
    assert time_left(5, 2, 85.0) == "about 4 min left"  # 5 x 42.5 s
    assert time_left(100, 10, 4.0) == "about 40 s left"
    assert time_left(600, 1, 30.0) == "about 5 h 00 min left"
    assert time_left(3, 0, 12.0) == "time left unknown"
    assert time_left(0, 4, 12.0) == ""


def test_a_resumed_run_paces_on_what_this_process_finished() -> None:
    buffer, clock = io.StringIO(), _Clock()
    reporter = PlainProgress(Console(file=buffer, width=200), clock=clock)
    reporter.start(10, 7)  # 7 done before: not part of the pace
    clock.now += 30
    reporter.advance(False)
    reporter.close()
    assert buffer.getvalue().splitlines()[-1] == (
        "progress: 8/10 done, 0 errored, 30.0 s elapsed, 30 s/sample, about 1 min left"
    )


def test_the_live_bar_shows_seconds_per_sample_and_the_time_left() -> None:
    buffer, clock = io.StringIO(), _Clock()
    reporter = RichProgress(Console(file=buffer, force_terminal=True, width=160), clock=clock)
    reporter.start(6, 2)  # resumed: 2 done before
    clock.now += 60
    reporter.advance(False)
    reporter.close()  # stops while 3 remain: its last frame shows the pace and the estimate
    out = buffer.getvalue()
    assert "3/6" in out and "60 s/sample" in out and "about 3 min left" in out
    assert "0.0/s" not in out

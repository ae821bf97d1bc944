"""Progress while a run goes: a live bar on a terminal, a few plain lines otherwise.

Both show the pace as samples per second, or as seconds per sample when the run does less
than one a second (a small model on a small machine: ``40 s/sample``, not ``0.0/s``), and
an estimate of the time left at that pace. The pace counts the samples this process
finished since it started (a resume's earlier results are not part of it).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn, TimeElapsedColumn
from rich.text import Text

from agentloop.harness import Reporter

__all__ = ["PlainProgress", "RichProgress", "make_reporter", "pace", "time_left"]

Clock = Callable[[], float]


def pace(finished: int, elapsed: float) -> str:
    """``finished`` samples in ``elapsed`` seconds: ``2.5/s`` at one a second or more, else
    ``12 s/sample`` (``-/s`` before the first)."""
    if finished <= 0 or elapsed <= 0:
        return "-/s"
    if finished >= elapsed:
        return f"{finished / elapsed:.1f}/s"
    per_sample = elapsed / finished
    return f"{per_sample:.1f} s/sample" if per_sample < 10 else f"{per_sample:.0f} s/sample"


def time_left(remaining: int, finished: int, elapsed: float) -> str:
    """The time ``remaining`` samples take at the pace so far: ``about 4 min left``
    (``time left unknown`` before the first sample finished; empty when none remain)."""
    if remaining <= 0:
        return ""
    if finished <= 0 or elapsed <= 0:
        return "time left unknown"
    return f"about {_duration(remaining * elapsed / finished)} left"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{max(seconds, 1):.0f} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class _Counts:
    def __init__(self, clock: Clock) -> None:
        self.total = self.done = self.errors = self.new = 0
        self.clock = clock
        self.started = clock()

    def line(self) -> str:
        elapsed = self.clock() - self.started
        left = time_left(self.total - self.done, self.new, elapsed)
        return (
            f"progress: {self.done}/{self.total} done, {self.errors} errored, "
            f"{elapsed:.1f} s elapsed, {pace(self.new, elapsed)}" + (f", {left}" if left else "")
        )


class PlainProgress:
    """A line at start, at every 10 % and at the end (stdout is not a terminal)."""

    def __init__(self, console: Console, clock: Clock = time.monotonic) -> None:
        self.console = console
        self.counts = _Counts(clock)
        self._next_mark = 0

    def _print(self) -> None:
        self.console.print(self.counts.line(), markup=False, highlight=False)

    def start(self, total: int, done: int) -> None:
        self.counts.total, self.counts.done = total, done
        self._next_mark = done + max(1, total // 10)
        self._print()

    def advance(self, errored: bool) -> None:
        c = self.counts
        c.done += 1
        c.new += 1
        c.errors += errored
        if c.done >= self._next_mark and c.done < c.total:
            self._next_mark = c.done + max(1, c.total // 10)
            self._print()

    def close(self) -> None:
        self._print()


def _finished_here(task: Task) -> tuple[int, float]:
    """Samples finished since this process started the task, and the time it took."""
    return int(task.completed) - task.fields["resumed"], task.finished_time or task.elapsed or 0.0


class _PaceColumn(ProgressColumn):
    """The pace over the whole run so far (Rich's own speed looks at the last 30 s only,
    which holds no finished sample when one takes longer)."""

    def render(self, task: Task) -> Text:
        return Text(pace(*_finished_here(task)))


class _LeftColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        remaining = int((task.total or 0) - task.completed)
        return Text(time_left(remaining, *_finished_here(task)))


class RichProgress:
    """A live progress bar: done/total, errors, elapsed, pace, time left."""

    def __init__(self, console: Console, clock: Clock = time.monotonic) -> None:
        self.progress = Progress(
            TextColumn("running"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TextColumn("[red]{task.fields[errors]} errored"),
            TimeElapsedColumn(),
            _PaceColumn(),
            _LeftColumn(),
            console=console,
            get_time=clock,
        )
        self.errors = 0
        self.task: object = None

    def start(self, total: int, done: int) -> None:
        self.progress.start()
        self.task = self.progress.add_task(
            "run", total=total, completed=done, errors=0, resumed=done
        )

    def advance(self, errored: bool) -> None:
        self.errors += errored
        self.progress.update(self.task, advance=1, errors=self.errors)  # type: ignore[arg-type]

    def close(self) -> None:
        self.progress.stop()


def make_reporter(console: Console) -> Reporter:
    """A live bar when the console is a terminal, plain lines otherwise."""
    if console.is_terminal:
        return RichProgress(console)
    return PlainProgress(console)

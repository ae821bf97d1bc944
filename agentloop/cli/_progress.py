"""Progress while a run goes: a live bar on a terminal, a few plain lines otherwise."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn, TimeElapsedColumn
from rich.text import Text

from agentloop.harness import Reporter

__all__ = ["PlainProgress", "RichProgress", "make_reporter"]


class _Counts:
    def __init__(self) -> None:
        self.total = self.done = self.errors = self.new = 0
        self.started = time.monotonic()

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        rate = self.new / elapsed if elapsed > 0 else 0.0
        return (
            f"progress: {self.done}/{self.total} done, {self.errors} errored, "
            f"{elapsed:.1f} s elapsed, {rate:.1f}/s"
        )


class PlainProgress:
    """A line at start, at every 10 % and at the end (stdout is not a terminal)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.counts = _Counts()
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


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f}/s" if speed else "-/s")


class RichProgress:
    """A live progress bar: done/total, errors, elapsed, rate."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(
            TextColumn("running"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TextColumn("[red]{task.fields[errors]} errored"),
            TimeElapsedColumn(),
            _RateColumn(),
            console=console,
        )
        self.errors = 0
        self.task: object = None

    def start(self, total: int, done: int) -> None:
        self.progress.start()
        self.task = self.progress.add_task("run", total=total, completed=done, errors=0)

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

"""Each bench script's dated page in the docs: ``docs/pages/benchmarks/<name>.md``.

Figures live on these pages, not in the docs' prose. A bench script ends with
``raise SystemExit(publish("<name>", main))``: ``main`` runs with its output shown as
usual and recorded; when it returns, its page is written anew with the date, the
machine, the command, the script's docstring (what it measures and how) and the output
(its tables). A script that fails before returning (a bad argument, an exception)
writes nothing.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "pages" / "benchmarks"


class _Tee(io.TextIOBase):
    """Writes to ``stream`` and keeps a copy."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> str:
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return "unknown"
    return f"{pages * size / 2**30:.0f} GiB"


def _commit() -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip()


def machine() -> list[tuple[str, str]]:
    """What the figures were measured on, as (what, value) rows."""
    return [
        ("CPU", f"{_cpu()}, {os.cpu_count()} cores"),
        ("memory", _memory_gib()),
        ("system", f"{platform.system()} {platform.release()} {platform.machine()}"),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("agentloop commit", _commit()),
    ]


def render(script: str, argv: list[str], doc: str, output: str, now: dt.datetime) -> str:
    """The page's Markdown."""
    title, _, method = (doc or script).strip().partition("\n")
    command = " ".join(["python", f"bench/{script}", *argv])
    lines = [
        f"# {title.strip().rstrip('.')}",
        "",
        f"Written by `{command}` on {now:%Y-%m-%d at %H:%M} UTC; the next run of the script",
        "replaces this page. Seconds vary from run to run on a shared machine: compare",
        "ratios measured in the same run.",
        "",
        "| machine | |",
        "|---|---|",
        *(f"| {what} | {value} |" for what, value in machine()),
        "",
        "## Method",
        "",
        method.strip(),
        "",
        "## Results",
        "",
        "```text",
        output.rstrip("\n").replace("```", "'''"),
        "```",
        "",
    ]
    return "\n".join(lines)


def publish(name: str, main: Callable[[], Any], pages: Path = PAGES) -> int:
    """Run ``main``, then write ``pages/<name>.md``; returns ``main``'s exit code."""
    tee = _Tee(sys.stdout)
    sys.stdout = tee  # type: ignore[assignment]
    try:
        code = main()
    finally:
        sys.stdout = tee.stream
    script = Path(sys.argv[0]).name
    doc = sys.modules["__main__"].__doc__ or ""
    now = dt.datetime.now(dt.timezone.utc)
    pages.mkdir(parents=True, exist_ok=True)
    page = pages / f"{name}.md"
    page.write_text(render(script, sys.argv[1:], doc, tee.copy.getvalue(), now), "utf-8")
    print(f"page: {page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}")
    return int(code or 0)

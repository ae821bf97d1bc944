"""``agentloop view``: a run (or two runs compared) as one self-contained HTML file.

The page is a Jinja2 template with its stylesheet and scripts inlined; the data goes in
as JSON inside ``<script type="application/json">`` blocks, escaped by Jinja's
``tojson`` (``<``, ``>``, ``&`` and ``'`` become ``\\uXXXX``), so no model output can
close the block, and the scripts only ever put data on the page as text. A
Content-Security-Policy with a per-file nonce forbids every network request and any
script but the report's own.
"""

from __future__ import annotations

import json
import math
import secrets
import time
import webbrowser
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from agentloop import __version__
from agentloop._secrets import Scrubber
from agentloop.cli._view_data import Report, Source, load_comparison, load_run, resolve_source
from agentloop.harness.rundir._files import utf8_safe

__all__ = ["ViewOutcome", "default_report_path", "render_report", "write_report"]

TEMPLATES = Path(__file__).with_name("templates")
_SCRIPTS = [
    "base.js",
    "table.js",
    "sample.js",
    "report.js",
    "triage.js",
    "compare.js",
    "reliability.js",
    "app.js",
]


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    # Compact and unsorted: reward columns keep the run's order; the file stays small.
    env.policies["json.dumps_kwargs"] = {"ensure_ascii": False, "separators": (",", ":")}
    env.policies["json.dumps_function"] = lambda obj, **kw: utf8_safe(json.dumps(obj, **kw))
    return env


def _source(names: list[str], closing: str) -> markupsafe.Markup:
    """Stylesheet or script files, inlined as they are (not read as templates)."""
    text = "\n".join((TEMPLATES / name).read_text(encoding="utf-8") for name in names)
    if closing in text.lower():  # would end the element early: a bug in the sources
        raise ValueError(f"{closing} in {', '.join(names)}")
    return markupsafe.Markup(text)


def _finite(value: Any) -> Any:
    """NaN and infinities (a model may send them in arguments) as strings: the page reads
    its data with ``JSON.parse``, which has neither."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value).replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def render_report(report: Report, title: str) -> str:
    """The HTML page of report data (from ``load_run`` or ``load_comparison``)."""
    # Results are masked when written; a report of a run made elsewhere is masked here.
    report = _finite(Scrubber().obj(report))
    template = _environment().get_template("report.html.j2")
    return template.render(
        page=report["page"],
        details=report["details"],
        title=title,
        version=__version__,
        nonce=secrets.token_urlsafe(18),
        style=_source(["report.css"], "</style"),
        script=_source(_SCRIPTS, "</script"),
    )


def _suffix(source: Source) -> str:
    return f".{source.rescored}" if source.rescored else ""


def default_report_path(runs: list[Path]) -> Path:
    """``RUN_DIR/report.html`` (``report.<x>.html`` for ``results.<x>.jsonl``); for a
    comparison ``RUN_B/compare-<name of A>.html`` (with the same suffixes)."""
    sources = [resolve_source(run) for run in runs]
    if len(sources) == 1:
        return sources[0].run_dir / f"report{_suffix(sources[0])}.html"
    a, b = sources
    return b.run_dir / f"compare{_suffix(b)}-{a.run_dir.resolve().name}{_suffix(a)}.html"


def _name(header: dict[str, Any]) -> str:
    rescored = header.get("rescored")
    return f"{header['name']} ({rescored})" if rescored else str(header["name"])


@dataclass(frozen=True)
class ViewOutcome:
    """What ``write_report`` wrote."""

    path: Path
    samples: int
    bytes: int
    seconds: float
    """Time to read the run(s) and render the page."""
    opened: bool = False
    """A browser took the page (asked with ``open_it``; False where none can be found)."""


def write_report(
    run_dirs: list[Path], out: Path | None = None, *, open_it: bool = False
) -> ViewOutcome:
    """Write the report of one run, or of two runs compared, and optionally open it.

    A run is its directory or one results file in it (``agentloop score`` writes
    ``results.rescored-<ts>.jsonl``)."""
    if len(run_dirs) not in (1, 2):
        raise ValueError(f"a report shows one run or compares two, not {len(run_dirs)}")
    started = time.perf_counter()
    if len(run_dirs) == 1:
        report = load_run(run_dirs[0])
        title = f"agentloop: {_name(report['page']['header'])}"
    else:
        report = load_comparison(run_dirs[0], run_dirs[1])
        names = [_name(h) for h in report["page"]["headers"]]
        title = f"agentloop: {names[0]} vs {names[1]}"
    html = render_report(report, title)
    target = out or default_report_path(run_dirs)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = html.encode("utf-8")
    partial = target.with_name(f".{target.name}.partial")
    try:
        partial.write_bytes(data)
        partial.replace(target)  # a reader never sees half a report, nor does a failure leave one
    finally:
        partial.unlink(missing_ok=True)
    elapsed = time.perf_counter() - started
    opened = bool(open_it and webbrowser.open(target.resolve().as_uri()))
    return ViewOutcome(target, len(report["details"]), len(data), elapsed, opened)

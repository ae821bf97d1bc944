"""``agentloop export otel RUN_DIR OUT.json`` and ``agentloop import otel FILE OUTDIR``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from agentloop._secrets import Scrubber

__all__ = ["export_otel", "import_otel"]


def export_otel(args: argparse.Namespace, out: Console) -> int:
    from agentloop.harness.rundir._genai_spans import SEMCONV_VERSION, run_spans
    from agentloop.harness.rundir._header import read_header
    from agentloop.harness.rundir._otlp_json import spans_request, write_otlp

    run_dir = Path(args.run_dir)
    header = read_header(run_dir)
    scrub = Scrubber()
    spans = run_spans(run_dir, content=args.content, scrub=scrub)
    resource = {"service.name": "agentloop", "agentloop.run.name": header.get("name")}
    target = Path(args.output)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_otlp(target, spans_request(spans, resource), scrub)
    traces = len({s.trace_id for s in spans})
    contents = "with contents" if args.content else "without contents (--content adds them)"
    out.print(
        f"wrote {target}: {traces} traces, {len(spans)} spans (OpenTelemetry GenAI semantic "
        f"conventions {SEMCONV_VERSION}), {contents}",
        markup=False,
    )
    return 0


def import_otel(args: argparse.Namespace, out: Console) -> int:
    import anyio

    from agentloop.cli._command_name import command_name
    from agentloop.harness.exchange._trace_import import import_traces

    done = anyio.run(
        lambda: import_traces(
            args.traces,
            args.outdir,
            args.config,
            sets=args.sets,
            sample_attribute=args.sample_attribute,
        )
    )
    scrub = Scrubber()
    for trace_id, reason in done.refused:  # one line each
        print(scrub.text(f"agentloop: not imported: trace {trace_id}: {reason}"), file=sys.stderr)
    run_dir = done.outcome.run_dir
    found = done.imported + len(done.refused)
    out.print(
        f"imported {done.imported} of {found} traces into {run_dir}; scored with the config's "
        f"rewards (its summary: {command_name()} summary {run_dir})",
        markup=False,
    )
    if done.tool_results_compared:
        out.print(
            f"tool results: {done.tool_results_differ} of {done.tool_results_compared} the "
            "traces recorded differ from the ones the tools gave here",
            markup=False,
        )
    out.print(f"re-score with other rewards: {command_name()} score {run_dir} --rewards ...")
    return 0 if done.outcome.exit_code == 0 else 1

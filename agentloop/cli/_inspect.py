"""``agentloop export inspect RUN_DIR OUT.eval`` and ``agentloop import inspect LOG OUTDIR``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from agentloop._secrets import Scrubber

__all__ = ["export_inspect", "import_inspect"]


def export_inspect(args: argparse.Namespace, out: Console) -> int:
    from agentloop.harness.exchange._inspect_export import export_inspect as write_log

    target, samples = write_log(args.run_dir, args.output)
    out.print(f"wrote {target}: {samples} samples (view it with: inspect view)", markup=False)
    return 0


def import_inspect(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._command_name import command_name
    from agentloop.harness import load_config
    from agentloop.harness.exchange._inspect_import import import_inspect as read_log

    config = load_config(args.config, args.sets)
    done = read_log(args.log, args.outdir, config, args.config)
    if done.unmatched:
        shown = ", ".join(repr(i) for i in done.unmatched[:5])
        more = ", ..." if len(done.unmatched) > 5 else ""
        print(
            Scrubber().text(
                f"agentloop: {len(done.unmatched)} sample id(s) of the log have no row in "
                f"{config.dataset}: {shown}{more} (errored lines, kind dataset)"
            ),
            file=sys.stderr,
        )
    run_dir = Path(done.run_dir)
    out.print(
        f"imported {done.samples} samples into {run_dir}, scored with the config's rewards "
        f"(see them with: {command_name()} view {run_dir}; other rewards: "
        f"{command_name()} score {run_dir} --rewards ...)",
        markup=False,
    )
    return 1 if done.summary.failed else 0

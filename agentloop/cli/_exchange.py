"""``agentloop export FORMAT ...`` and ``agentloop import FORMAT ...``: a run in another tool's
format, and another tool's runs as a run directory.

Each format adds its sub-command in ``_parser._add_exchange`` and its handler to ``_EXPORTS``
or ``_IMPORTS`` here; a handler imports its format's machinery itself, so ``--help`` stays light.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from rich.console import Console

from agentloop.cli._inspect import export_inspect, import_inspect

__all__ = ["cmd_export", "cmd_import"]

Handler = Callable[[argparse.Namespace, Console], int]


def _export_otel(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._otel import export_otel

    return export_otel(args, out)


def _import_otel(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._otel import import_otel

    return import_otel(args, out)


_EXPORTS: dict[str, Handler] = {"otel": _export_otel, "inspect": export_inspect}
_IMPORTS: dict[str, Handler] = {"otel": _import_otel, "inspect": import_inspect}


def cmd_export(args: argparse.Namespace, out: Console) -> int:
    return _EXPORTS[args.export_format](args, out)


def cmd_import(args: argparse.Namespace, out: Console) -> int:
    return _IMPORTS[args.import_format](args, out)

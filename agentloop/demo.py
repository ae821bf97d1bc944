"""``make demo``: run ``configs/quickstart.yaml`` end to end, offline, into ``runs/``.

A scripted agent answers the quickstart tasks with real calls to the calculator,
weather and search tools; the summary table is printed at the end.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from agentloop.cli import main as cli_main

__all__ = ["CONFIG", "main"]

CONFIG = Path("configs/quickstart.yaml")


def main(argv: Sequence[str] = ()) -> int:
    """Run the demo from the project root; extra arguments go to ``agentloop run``."""
    root = Path(__file__).resolve().parent.parent
    if not CONFIG.is_file() and (root / CONFIG).is_file():
        os.chdir(root)  # config paths are relative to the working directory
    return cli_main(["run", str(CONFIG), *argv])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""MkDocs hook: lays out the installed namespace for mkdocstrings' static analysis.

The repository's ``tools/`` and ``evals/`` folders install as ``agentloop.tools`` and
``agentloop.evals`` (see pyproject.toml), which a reader of the source tree cannot see.
Before the build, ``build/api-src/agentloop/`` is made of links: every entry of
``agentloop/`` plus ``tools`` and ``evals``, so the API reference reads the names users
import, straight from the working tree (nothing is imported or installed).
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API_SRC = ROOT / "build" / "api-src"


def lay_out_namespace(root: Path = ROOT, target: Path = API_SRC) -> Path:
    """Make ``target/agentloop`` mirror the installed package; returns ``target``."""
    package = target / "agentloop"
    if target.exists():
        shutil.rmtree(target)
    package.mkdir(parents=True)
    for entry in (root / "agentloop").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for folder in ("tools", "evals"):
        (package / folder).symlink_to(root / folder)
    return target


def on_startup(command: str, dirty: bool) -> None:
    """Before the config's plugins start: mkdocstrings reads ``paths`` when it starts."""
    lay_out_namespace()

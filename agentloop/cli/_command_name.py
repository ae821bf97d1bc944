"""How the user calls agentloop here, for the commands the CLI prints (``next:``, resume
hints): ``agentloop`` when that name on ``PATH`` is this installation's command, else this
installation's script by its path (``.venv/bin/agentloop`` after ``make demo`` without an
activated environment), else ``python -m agentloop.cli`` with this interpreter."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

__all__ = ["command_name"]

_SCRIPT = "agentloop.exe" if os.name == "nt" else "agentloop"


def _shown(path: Path, base: Path | None) -> str:
    """``path`` relative to ``base`` (default: the working directory) when under it, else
    absolute; quoted for a shell."""
    absolute = Path(os.path.abspath(path))
    try:
        text = str(absolute.relative_to(os.path.abspath(base or Path.cwd())))
    except ValueError:
        text = str(absolute)
    return shlex.quote(text)


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def command_name(base: Path | None = None) -> str:
    """The command that runs this agentloop from ``base`` (default: the working directory)."""
    ran = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    script = ran if ran is not None and ran.name == _SCRIPT and ran.is_file() else None
    if script is None:  # python -m agentloop.cli: the script installed beside the interpreter
        beside = Path(sys.executable).parent / _SCRIPT
        script = beside if beside.is_file() else None
    on_path = shutil.which("agentloop")
    if on_path is not None and (script is None or _same(Path(on_path), script)):
        return "agentloop"
    if script is not None:
        return _shown(script, base)
    return f"{_shown(Path(sys.executable), base)} -m agentloop.cli"

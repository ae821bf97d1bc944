"""The commands agentloop prints (``next:``, ``init``'s, resume hints) are ones that run
here: ``agentloop`` when it is on PATH, else the path of the command that ran (the
environment's script, also under ``python -m agentloop.cli``). Real processes, with the
PATH a shell without an activated environment has."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.harness import add_setup

BIN = Path(sys.executable).parent
SCRIPT = BIN / ("agentloop.exe" if os.name == "nt" else "agentloop")
pytestmark = pytest.mark.skipif(not SCRIPT.is_file(), reason="no agentloop script installed")
BARE_PATH = os.pathsep.join(p for p in ("/usr/bin", "/bin") if Path(p).is_dir())


def _run(command: list[str], cwd: Path, path: str) -> str:
    env = {**os.environ, "PATH": path}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def _next_lines(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    return lines[lines.index("next:") + 1 :]


def test_without_agentloop_on_path_next_steps_name_the_script(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=1)
    out = _run([str(SCRIPT), "run", str(config)], tmp_path, BARE_PATH)
    view, show = _next_lines(out)
    assert view.startswith(f"  {SCRIPT} view {tmp_path}/runs/")
    assert show.startswith(f"  {SCRIPT} show {tmp_path}/runs/")
    # from the folder that holds the environment: the path as one types it (.venv/bin/...)
    home = BIN.parent.parent
    out = _run([sys.executable, "-m", "agentloop.cli", "run", str(config)], home, BARE_PATH)
    assert _next_lines(out)[0].startswith(f"  {SCRIPT.relative_to(home)} view ")


def test_with_agentloop_on_path_next_steps_say_agentloop(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=1)
    out = _run([str(SCRIPT), "run", str(config)], tmp_path, os.pathsep.join([str(BIN), BARE_PATH]))
    assert _next_lines(out)[0].startswith(f"  agentloop view {tmp_path}/runs/")


def test_init_prints_commands_that_run_after_its_cd(tmp_path: Path) -> None:
    out = _run([sys.executable, "-m", "agentloop.cli", "init", "my-eval"], tmp_path, BARE_PATH)
    assert f"  cd my-eval && {SCRIPT} run eval.yaml --model scripted:scripts.json" in out
    assert f"  cd my-eval && {SCRIPT} tools schemas my_tools" in out

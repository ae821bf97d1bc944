"""What the ``agentloop`` command imports before it does anything.

A command imports what it needs when it needs it: ``--help`` or a config error must not
load LangChain, the OpenAI SDK, the runner or rich's progress display (together about a
second and a half of start-up; figures in bench/startup.py). The tests say *what* is
imported, never how long it takes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "langchain_core",
    "langchain_openai",
    "langsmith",
    "openai",
    "rich.progress",
    "jinja2",
    "anyio",
    "agentloop.engine._loop",
    "agentloop.harness.run._runner",
    "agentloop.models._base",
)

# runs the command in a fresh process, then prints its exit code and the HEAVY modules loaded
_PROBE = """
import json, sys
from agentloop.cli import main
code = main(sys.argv[1:])
heavy = {heavy!r}
loaded = sorted(h for h in heavy if h in sys.modules)
print(json.dumps([code, loaded]), file=sys.__stdout__)
"""


def _probe(cwd: Path, *argv: str) -> tuple[int, list[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=HEAVY), *argv],
        cwd=cwd, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    code, loaded = json.loads(done.stdout.splitlines()[-1])
    return code, loaded, done.stderr


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--help"], 0, ""),
        ([], 0, ""),
        (["--version"], 0, ""),
        (["frobnicate"], 2, "invalid choice: 'frobnicate'"),
        (["run", "missing.yaml"], 2, "agentloop: error: config file not found: missing.yaml"),
        (["run", "bad.yaml"], 2, "bad.yaml: modle: Extra inputs are not permitted"),
        (["run", "bad.yaml", "--set", "max_rounds=[1"], 2, "value is not valid YAML"),
    ],
)
def test_help_and_config_errors_load_nothing_heavy(
    tmp_path: Path, argv: list[str], code: int, message: str
) -> None:
    (tmp_path / "bad.yaml").write_text(
        "model: scripted:s.json\ndataset: d.jsonl\nmodle: openai:gpt-4o-mini\n"
    )
    got, loaded, err = _probe(tmp_path, *argv)
    assert got == code and message in err, err
    assert loaded == []


def test_a_valid_config_loads_the_run_machinery(tmp_path: Path) -> None:
    # the probe sees heavy modules when a command needs them (a run that then fails on
    # its dataset: it got past the config)
    (tmp_path / "ok.yaml").write_text("model: scripted:s.json\ndataset: d.jsonl\n")
    code, loaded, err = _probe(tmp_path, "run", "ok.yaml")
    assert code == 2 and "d.jsonl" in err, err
    assert "langchain_core" in loaded and "agentloop.harness.run._runner" in loaded


def test_import_agentloop_loads_the_engine_on_first_use(tmp_path: Path) -> None:
    code = (
        "import sys, agentloop\n"
        "before = 'langchain_core' in sys.modules\n"
        "from agentloop import run_agent_sync, load_config, Trajectory, ConfigError\n"
        "print(before, 'langchain_core' in sys.modules, run_agent_sync.__module__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.split() == ["False", "True", "agentloop.engine._loop"], done.stderr

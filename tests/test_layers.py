"""The layers that ``make lint`` keeps (import-linter's contracts in ``pyproject.toml``): the
tree as it is keeps them, and a forbidden import breaks them.

The contracts are checked on a copy of ``agentloop/`` renamed ``probe_agentloop`` (the
installed ``agentloop`` would be read in place of a copy of the same name), with the
contracts' text renamed the same way; ``agentloop.evals`` and ``agentloop.tools``, which
install from folders of their own, are checked here by reading their imports.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).parent / "lint-imports"
_NAME = re.compile(r"\bagentloop\b")


def _contracts() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text[text.index("\n[tool.importlinter]\n") : text.index("\n[tool.mypy]\n")]
    return _NAME.sub("probe_agentloop", section)


def _not_python(folder: str, names: list[str]) -> list[str]:
    """What the copy leaves out: caches and every file but Python's."""
    return [
        n for n in names
        if n == "__pycache__" or (not n.endswith(".py") and not (Path(folder) / n).is_dir())
    ]  # fmt: skip


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("layers")
    shutil.copytree(ROOT / "agentloop", where / "probe_agentloop", ignore=_not_python)
    for path in (where / "probe_agentloop").rglob("*.py"):
        path.write_text(_NAME.sub("probe_agentloop", path.read_text(encoding="utf-8")))
    (where / "contracts.toml").write_text(_contracts(), encoding="utf-8")
    return where


def _lint(where: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT), "contracts.toml", "--no-cache"],
        cwd=where, capture_output=True, text=True, timeout=300,
        env={"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip


def _with(probe: Path, module: str, line: str) -> Path:
    """A copy of the probe with ``line`` added to ``module`` (a path in the package)."""
    where = probe.parent / f"{probe.name}-{module.replace('/', '-')}"
    shutil.copytree(probe, where)
    path = where / "probe_agentloop" / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    return where


def test_the_tree_keeps_its_layers(probe: Path) -> None:
    done = _lint(probe)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("engine/_loop.py", "import probe_agentloop.harness",
         "The engine knows nothing of the harness"),
        ("harness/data/_rows.py", "from probe_agentloop.harness.run import _runner",
         "The harness's sub-packages in layers"),
        ("harness/agents/_file_limit.py", "from probe_agentloop.harness.stats import _summary",
         "The harness's sub-packages in layers"),
        ("benchmarks/tau2/_data.py", "from probe_agentloop.benchmarks.bfcl import _data",
         "Each benchmark on its own"),
        ("models/_base.py", "from probe_agentloop.cli import _commands",
         "Top-level packages in layers"),
        ("harness/run/_pool.py", "from probe_agentloop.harness.run import _executor",
         "No import circle among the modules"),
    ],
)  # fmt: skip
def test_a_forbidden_import_breaks_a_contract(
    probe: Path, module: str, line: str, broken: str
) -> None:
    done = _lint(_with(probe, module, line))
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(re.escape(broken) + r".* BROKEN", done.stdout), done.stdout


@pytest.mark.parametrize("folder", ["evals", "tools"])
def test_evals_and_tools_use_only_the_engine_and_the_shared_core(folder: str) -> None:
    above = ("agentloop.cli", "agentloop.harness", "agentloop.benchmarks", "agentloop.models")
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""] if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names] if isinstance(node, ast.Import) else []
            )  # fmt: skip
            for name in names:
                assert not name.startswith(above), f"{path.relative_to(ROOT)} imports {name}"

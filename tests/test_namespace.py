"""One installed namespace: ``agentloop``, with ``tools/`` and ``evals/`` inside it.

A user's own ``tools.py`` or ``evals.py`` must never shadow (or be shadowed by) ours.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.support.docs import block_with, blocks_of

ROOT = Path(__file__).resolve().parent.parent


def _build_wheel(tmp_path: Path) -> Path:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("agentloop", "tools", "evals"):
        shutil.copytree(ROOT / name, source / name, ignore=ignore)
    out = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-w", str(out), str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = out.glob("agentloop-*.whl")
    return wheel


def test_the_wheel_installs_one_top_level_package(tmp_path: Path) -> None:
    names = zipfile.ZipFile(_build_wheel(tmp_path)).namelist()
    top = {n.split("/", 1)[0] for n in names if ".dist-info/" not in n}
    assert top == {"agentloop"}
    # the folders land inside it, with their data files
    assert "agentloop/tools/calculator.py" in names
    assert "agentloop/tools/data/corpus.jsonl" in names
    assert "agentloop/evals/__init__.py" in names
    assert any(n.startswith("agentloop/cli/templates/") for n in names)
    # what `agentloop init` writes
    for name in ("my_tools.py", "data.jsonl", "scripts.json", "eval.yaml"):
        assert f"agentloop/cli/templates/first_eval/{name}" in names
    assert not any(n.startswith(("tools/", "evals/")) for n in names)
    # τ²-bench's current task set, read without a network (agentloop.benchmarks.tau2._data)
    for name in ("LICENSE", "SOURCE", "airline/tasks.json.gz", "telecom/db.toml"):
        assert f"agentloop/benchmarks/tau2/data/{name}" in names
    assert sum(n.startswith("agentloop/benchmarks/tau2/data/") for n in names) == 23


def test_the_documented_api_example_runs_beside_a_users_own_tools_and_evals(
    tmp_path: Path,
) -> None:
    block = block_with("run_eval_sync(")
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    # a user's own modules with the generic names, importable from the working directory
    (tmp_path / "tools.py").write_text("def convert_units(x):\n    return x\n")
    (tmp_path / "evals.py").write_text("def my_reward(*args):\n    return 1.0\n")
    done = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    run_dir, mean, exit_code = done.stdout.split()
    assert Path(tmp_path, run_dir, "results.jsonl").is_file()
    assert 0.0 <= float(mean) <= 1.0 and exit_code == "0"
    # and the user's modules stay theirs
    probe = "import tools, evals, agentloop.tools; print(tools.__file__, evals.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.split() == [str(tmp_path / "tools.py"), str(tmp_path / "evals.py")]


def test_the_readme_example_runs_from_the_folder_that_holds_the_clone(tmp_path: Path) -> None:
    # the clone seen from the folder above it: a folder named agentloop, without an
    # __init__.py, which Python would import as an empty namespace package ahead of an
    # editable install (pypa/setuptools#3557) unless the install's finder comes first
    clone = tmp_path / "agentloop"
    for name in ("agentloop", "tools", "evals"):
        (clone / name).mkdir(parents=True)
    (clone / "pyproject.toml").write_text("[project]\nname = 'agentloop'\n")
    (block,) = [b for b in blocks_of(ROOT / "README.md") if "run_agent_sync(" in b.text]
    (tmp_path / "example.py").write_text(block.text)
    (tmp_path / "tools.py").write_text("NAME = 'mine'\n")
    done = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (
        f"{done.stderr}\nan editable install needs agentloop-editable-first.pth beside "
        "setuptools' own .pth: see docs/pages/development.md"
    )
    assert done.stdout.strip() == "final 2 + 3 = 5"
    # the installed package wins, and the user's own tools.py is still theirs
    probe = "import agentloop, agentloop.tools, tools; print(agentloop.__file__, tools.NAME)"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    package, users = done.stdout.split()
    assert Path(package).parts[-2:] == ("agentloop", "__init__.py"), done.stderr
    assert not Path(package).is_relative_to(tmp_path) and users == "mine"

"""``dataset: bfcl:<category>``: a dataset source like a file, equal to its export."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import shutil
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from agentloop.benchmarks import bfcl_data_dir
from agentloop.benchmarks.bfcl._data import BFCL_CATEGORIES, bfcl_rows, export_bfcl
from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV, BFCL_TARGET, bfcl_package
from agentloop.errors import DatasetError
from agentloop.harness import load_config
from agentloop.harness.data._dataset import iter_samples, scan_dataset
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import ask, call, only_run_dir, read_results, write_config, write_json


@pytest.mark.parametrize("category", BFCL_CATEGORIES)
def test_every_category_is_a_valid_dataset(category: str) -> None:
    scan = scan_dataset(f"bfcl:{category}")
    assert scan.problems == [] and scan.valid == len(list(bfcl_rows(category))) >= 2
    assert scan.path == f"bfcl:{category}"
    samples = list(iter_samples(f"bfcl:{category}"))
    assert [s.line for s in samples] == list(range(1, len(samples) + 1))  # line = row
    assert all(s.metadata["bfcl_category"] == category and s.tools for s in samples)


@pytest.mark.parametrize("category", ["simple_python", "live_multiple", "live_relevance"])
def test_the_export_gives_the_same_rows_and_digest(category: str, tmp_path: Path) -> None:
    out = tmp_path / f"{category}.jsonl"
    count = export_bfcl(category, out)
    source, exported = scan_dataset(f"bfcl:{category}"), scan_dataset(out)
    assert count == source.valid == exported.valid
    assert source.sha256 == exported.sha256
    assert source.tool_names == exported.tool_names
    assert list(iter_samples(f"bfcl:{category}")) == list(iter_samples(out))
    assert list(iter_samples(f"bfcl:{category}", "score")) == list(iter_samples(out, "score"))


def test_an_unknown_category_is_one_line_listing_the_known_ones() -> None:
    with pytest.raises(DatasetError) as info:
        scan_dataset("bfcl:simple")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(
        "unknown BFCL category 'simple'; known: simple_python, simple_java, simple_javascript,"
    )
    assert "live_relevance" in message


def test_without_the_package_the_error_names_the_pip_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(BFCL_DATA_ENV)
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "bfcl_eval" else real(name)
    )
    with pytest.raises(DatasetError) as info:
        scan_dataset("bfcl:multiple")
    assert str(info.value) == (
        "BFCL data: the bfcl-eval package is not installed; "
        "pip install --no-deps 'bfcl-eval==2026.3.23'"
    )


def test_bfcl_installed_in_its_own_folder_as_make_does_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `make` installs bfcl-eval with `pip install --no-deps --target <prefix>/bfcl-eval`,
    # outside site-packages, so that pip's dependency check stays clean.
    from tests.benchmarks.conftest import FIXTURE

    monkeypatch.delenv(BFCL_DATA_ENV)
    target = tmp_path / BFCL_TARGET
    (target / "bfcl_eval").mkdir(parents=True)
    (target / "bfcl_eval" / "__init__.py").write_text("")
    shutil.copytree(FIXTURE, target / "bfcl_eval" / "data")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setattr(sys, "path", list(sys.path))
    real = importlib.util.find_spec

    def site_packages_without_bfcl(name: str, *args: Any) -> Any:
        if name != "bfcl_eval":
            return real(name, *args)
        # the environment's own bfcl-eval (if any) is not there; only the target folder
        folders = [p for p in sys.path if p == str(target)]
        return importlib.machinery.PathFinder.find_spec(name, folders)

    monkeypatch.setattr(importlib.util, "find_spec", site_packages_without_bfcl)
    assert bfcl_package() == target / "bfcl_eval"
    scan = scan_dataset("bfcl:multiple")
    assert scan.problems == [] and scan.valid == len(list(bfcl_rows("multiple", FIXTURE)))


def test_a_missing_data_directory_or_answer_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="BFCL data directory not found"):
        list(bfcl_rows("multiple", tmp_path / "nowhere"))
    (tmp_path / "possible_answer").mkdir()
    entry = {"id": "multiple_0", "question": [[{"role": "user", "content": "q"}]], "function": []}
    (tmp_path / "BFCL_v4_multiple.json").write_text(json.dumps(entry) + "\n")
    (tmp_path / "possible_answer" / "BFCL_v4_multiple.json").write_text("")
    with pytest.raises(DatasetError, match="no possible answer for 'multiple_0'"):
        list(bfcl_rows("multiple", tmp_path))


def test_a_config_runs_a_category_single_turn(tmp_path: Path) -> None:
    script = {
        "simple_python_0": [ask(call("c0", "calculate_triangle_area", {"base": 10, "height": 5}))],
        "simple_python_2": [ask(call("c1", "math_hypot", {"x": 4, "y": 5}))],
    }
    path = write_config(
        tmp_path / "bfcl.yaml",
        model=f"scripted:{write_json(tmp_path / 'script.json', script)}",
        dataset="bfcl:simple_python",
        sample_ids=["simple_python_0", "simple_python_2"],
        tool_choice="auto",
        output_dir=str(tmp_path / "runs"),
    )
    outcome = run_eval_sync(load_config(path), config_path=str(path))
    assert outcome.exit_code == 0 and outcome.summary.errored == 0
    run_dir = only_run_dir(tmp_path / "runs")
    lines = {r["id"]: r for r in read_results(run_dir)}
    assert sorted(lines) == ["simple_python_0", "simple_python_2"]
    for line in lines.values():
        assert line["single_turn"] and line["rounds"] <= 1
        assert line["metadata"]["bfcl_category"] == "simple_python"
    header = json.loads((run_dir / "run.json").read_text())
    assert header["dataset"]["path"] == "bfcl:simple_python"
    assert header["dataset"]["sha256"] == scan_dataset("bfcl:simple_python").sha256


def test_a_shuffled_selection_of_a_category(tmp_path: Path) -> None:
    from agentloop.harness.data._selection import iter_selected, select_rows

    config = load_config(
        write_config(
            tmp_path / "c.yaml", model="scripted:x.json", dataset="bfcl:multiple", shuffle=True
        )
    )
    selection = select_rows(config, scan_dataset(config.dataset))
    assert sorted(s.id for s in iter_selected(config, selection)) == sorted(
        s.id for s in iter_samples("bfcl:multiple")
    )


# The real data, when the package is installed (counts pinned to bfcl-eval 2026.3.23).
_COUNTS = {
    "simple_python": 400,
    "simple_java": 100,
    "simple_javascript": 50,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "irrelevance": 240,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "live_irrelevance": 884,
    "live_relevance": 16,
}


def _installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BFCL_DATA_ENV)
    if bfcl_package() is None:
        pytest.skip("bfcl-eval is not installed: pip install --no-deps 'bfcl-eval==2026.3.23'")
    assert bfcl_data_dir().is_dir()


def _check_installed(category: str) -> None:
    scan = scan_dataset(f"bfcl:{category}")
    assert scan.problems == [], (category, [str(p) for p in scan.problems[:3]])
    if metadata.version("bfcl-eval") == "2026.3.23":
        assert scan.valid == _COUNTS[category], category


@pytest.mark.parametrize("category", [c for c in BFCL_CATEGORIES if c != "live_simple"])
def test_the_installed_package_reads_whole(category: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _installed(monkeypatch)
    _check_installed(category)


def test_the_installed_live_simple_reads_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    _installed(monkeypatch)
    _check_installed("live_simple")

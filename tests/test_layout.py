"""The package layout: small public surfaces, and file names that mean one thing.

A sub-package's ``__all__`` is what users import (the CLI, tests and benches import the
rest from the private modules). A module's file name says which concept it holds, read
with its folder's name (``tau2/_data.py``, not ``tau2/_tau2_data.py``), so sibling
packages share the names of their common parts (each benchmark's ``_data``, ``_env``,
``_summary``); a name shared by unrelated folders is listed with its one meaning
(``agentloop.tools`` and ``agentloop.evals`` included: they install inside ``agentloop``).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest

import agentloop
import agentloop.harness
from agentloop._lazy_exports import type_checking_imports
from tests.support.docs import doc_text

ROOT = Path(__file__).resolve().parent.parent
SUB_PACKAGES = ("agentloop.engine", "agentloop.models", "agentloop.harness", "agentloop.benchmarks")
LAZY_PACKAGES = ("agentloop", *SUB_PACKAGES)
MAX_HARNESS_NAMES = 25


def _modules(package: ModuleType) -> list[str]:
    """Every module below ``package`` (packages themselves and ``__main__`` excepted)."""
    found = pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
    return [m.name for m in found if not m.ispkg and not m.name.endswith(".__main__")]


def _shared_file_names(modules: list[str]) -> dict[str, list[str]]:
    by_name: dict[str, list[str]] = defaultdict(list)
    for module in modules:
        by_name[module.rsplit(".", 1)[1]].append(module)
    return {name: sorted(where) for name, where in by_name.items() if len(where) > 1}


def _across_folders(modules: list[str]) -> dict[str, list[str]]:
    """The file names shared by modules that are not siblings' (not all in sub-packages of
    one package: ``benchmarks/bfcl/_data.py`` and ``benchmarks/tau2/_data.py`` are the same
    role in sibling benchmarks)."""
    return {
        name: where
        for name, where in _shared_file_names(modules).items()
        if len({m.rsplit(".", 2)[0] for m in where}) > 1
    }


def _installed_modules() -> list[str]:
    # an editable install maps tools/ and evals/ in with an import hook, outside
    # agentloop.__path__: walk them on their own (a wheel finds them twice; kept once)
    packages = [agentloop, *(importlib.import_module(f"agentloop.{n}") for n in ("tools", "evals"))]
    return sorted({module for package in packages for module in _modules(package)})


# A file name that modules of unrelated folders share, and the one thing it means in each.
SHARED_NAMES = {
    "_env": "a stateful environment: a benchmark's, or the rewards over one (evals)",
    "_summary": "the figures over a run's results: the harness's, or a benchmark's own",
    "_rows": "dataset rows: the harness's row format, or a benchmark's tasks as rows",
}


def test_a_file_name_means_one_thing() -> None:
    modules = _installed_modules()
    # the walk reaches every installed folder, tools/ and evals/ included
    reached = ["agentloop.harness.run._runner", "agentloop.engine._loop", "agentloop._records"]
    reached += ["agentloop.tools.calculator", "agentloop.evals._qa"]
    assert set(reached) <= set(modules)
    assert set(_across_folders(modules)) == set(SHARED_NAMES)


def test_a_module_is_read_with_its_folder_name() -> None:
    # tau2/_data.py, not tau2/_tau2_data.py
    for module in _installed_modules():
        *_, folder, name = module.split(".")
        assert not name.lstrip("_").startswith(f"{folder}_"), module


def test_names_shared_across_folders_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for folder in ("probe", "probe/one", "probe/two", "probe/two/three", "probe/two/four"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    for path in ("probe/one/_results.py", "probe/two/three/_results.py", "probe/two/_other.py",
                 "probe/two/three/_data.py", "probe/two/four/_data.py"):  # fmt: skip
        (tmp_path / path).write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        found = _across_folders(_modules(importlib.import_module("probe")))
    finally:
        for name in [n for n in sys.modules if n == "probe" or n.startswith("probe.")]:
            del sys.modules[name]
    # three/_data and four/_data are siblings' parts; one/ and two/three/ are unrelated
    assert found == {"_results": ["probe.one._results", "probe.two.three._results"]}


@pytest.mark.parametrize("name", SUB_PACKAGES)
def test_every_exported_name_resolves_once(name: str) -> None:
    package = importlib.import_module(name)
    assert len(package.__all__) == len(set(package.__all__))
    for exported in package.__all__:
        assert getattr(package, exported) is not None, exported


def test_the_harness_exports_what_users_import_and_nothing_else() -> None:
    exported = agentloop.harness.__all__
    assert len(exported) <= MAX_HARNESS_NAMES
    # no helper is reachable as a public attribute without being exported (dir() lists the
    # names imported on first use too)
    public = {
        n
        for n in dir(agentloop.harness)
        if not n.startswith("_")
        and not isinstance(getattr(agentloop.harness, n), ModuleType)
        and n not in ("annotations", "TYPE_CHECKING")
    }
    assert public == set(exported)
    for name in ("load_config", "run_eval", "run_eval_sync", "EvalConfig", "RunOutcome",
                 "RunSummary", "Reporter", "Environment"):  # fmt: skip
        assert name in exported
    for helper in ("utc_now", "percentile", "write_json_atomic", "Scrubber", "parse_line"):
        assert not hasattr(agentloop.harness, helper)


def test_what_the_docs_import_is_exported() -> None:
    # the README and every page of docs/pages/ but the bench pages, which quote the bench
    # scripts' own docstrings (benches import private modules)
    text = doc_text(generated=False)
    named = set(re.findall(r"`agentloop\.(harness|engine|models|benchmarks)[.:](\w+)", text))
    named |= {
        (package, name.strip())
        for package, names in re.findall(
            r"^from agentloop\.(harness|engine|models|benchmarks) import ([\w, ]+)$", text, re.M
        )
        for name in names.split(",")
    }
    assert ("harness", "latest_results") in named and ("models", "register_provider") in named
    for package, name in named:
        assert name in importlib.import_module(f"agentloop.{package}").__all__, (package, name)


def test_the_top_level_api_resolves() -> None:
    for name in agentloop.__all__:
        assert getattr(agentloop, name) is not None, name


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_the_lazy_exports_are_the_type_checkers_imports(name: str) -> None:
    package = importlib.import_module(name)
    lazy = type_checking_imports(Path(package.__file__ or ""))
    names = set(lazy)
    assert names <= set(package.__all__)
    for exported, module in lazy.items():
        assert getattr(importlib.import_module(module), exported) is getattr(package, exported)
    # the rest of __all__ is imported at once
    assert all(n in vars(package) for n in set(package.__all__) - names)

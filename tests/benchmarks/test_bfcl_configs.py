"""The shipped configs/bfcl/*.yaml: valid, one per category, scored by bfcl_verdict."""

from __future__ import annotations

from pathlib import Path

import agentloop.evals as evals
import pytest

from agentloop.benchmarks.bfcl._data import BFCL_CATEGORIES
from agentloop.benchmarks.bfcl._summary import summarize_bfcl
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from agentloop.harness.run._sample import prepare
from tests.support.harness import ROOT, ask, call, read_results, write_json

# single-turn configs (test_bfcl_multi_turn_configs.py checks the multi_turn_* ones,
# test_bfcl_web_search.py the web_search_* ones, test_bfcl_format_sensitivity.py its own,
# test_bfcl_memory.py the memory_* ones)
_OTHERS = ("multi_turn_", "web_search_", "format_sensitivity", "memory_")
CONFIGS = sorted(
    p for p in (ROOT / "configs" / "bfcl").glob("*.yaml") if not p.stem.startswith(_OTHERS)
)

needs_verdict = pytest.mark.skipif(
    "bfcl_verdict" not in evals.registered_rewards(),
    reason="the bfcl_verdict reward (evals) is not registered yet",
)


def test_one_config_per_category() -> None:
    assert sorted(p.stem for p in CONFIGS) == sorted(BFCL_CATEGORIES)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_the_config_reads_its_category(path: Path) -> None:
    config = load_config(path)
    assert config.dataset == f"bfcl:{path.stem}"
    assert config.model == "openai:gpt-4o-mini" and config.tool_choice == "auto"
    assert config.tools == []  # schema-only tools: single turn
    if path.stem in ("simple_java", "simple_javascript"):
        # the model writes strings; the ground truth holds the values BFCL converts them to
        assert config.rewards == ["bfcl_verdict"]
    else:
        assert config.rewards == ["bfcl_verdict", {"tool_call_match": {"order": "unordered"}}]


@needs_verdict
@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_the_config_validates(path: Path) -> None:
    prepared = prepare(load_config(path))
    assert prepared.scan.valid >= 2 and prepared.scan.problems == []


@needs_verdict
def test_a_scripted_run_and_its_bfcl_summary(tmp_path: Path) -> None:
    script = {
        "simple_python_0": [ask(call("c0", "calculate_triangle_area", {"base": 10, "height": 5}))],
        "simple_python_1": [ask(call("c1", "math_factorial", {"number": 6}))],
        "simple_python_2": ["I cannot help with that."],
    }
    path = ROOT / "configs" / "bfcl" / "simple_python.yaml"
    config = load_config(
        path,
        overrides={
            "model": f"scripted:{write_json(tmp_path / 'script.json', script)}",
            "output_dir": str(tmp_path),
            "preflight": False,
        },
    )
    outcome = run_eval_sync(config, config_path=str(path))
    assert outcome.exit_code == 0 and outcome.summary.errored == 0
    lines = {r["id"]: r for r in read_results(outcome.run_dir)}
    verdicts = {sid: line["scores"]["bfcl_verdict"]["score"] for sid, line in lines.items()}
    assert verdicts == {"simple_python_0": 1.0, "simple_python_1": 0.0, "simple_python_2": 0.0}
    assert all(line["single_turn"] for line in lines.values())
    summary = summarize_bfcl([outcome.run_dir])
    assert summary.categories["simple_python"].accuracy == pytest.approx(1 / 3)

"""``bfcl:format_sensitivity``: each entry in each of BFCL's 26 prompt formats, the
system prompt BFCL builds for it, and the reply's text decoded and checked as BFCL does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agentloop.evals import BFCL_PROMPT_FORMATS, bfcl_prompt_format, bfcl_verdict

from agentloop.benchmarks.bfcl._data import bfcl_rows, check_bfcl_category
from agentloop.benchmarks.bfcl._format_sensitivity import format_sensitivity_rows
from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV
from agentloop.benchmarks.bfcl._summary import summarize_bfcl
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import ROOT, only_run_dir, read_results, write_config, write_json

HINT = " Note that the provided function is in Python 3 syntax."


def _rows() -> list[dict[str, Any]]:
    return list(bfcl_rows("format_sensitivity"))


def _row(source: str, **fmt: str) -> dict[str, Any]:
    """The row of ``source`` in the first format whose fields are ``fmt``."""
    for row in _rows():
        parsed = bfcl_prompt_format(row["metadata"]["bfcl_format"])._asdict()
        if row["id"].endswith(":" + source) and all(str(parsed[k]) == v for k, v in fmt.items()):
            return row
    raise AssertionError(f"no row {source} {fmt}")


def _score(row: dict[str, Any], text: str) -> float:
    reply = [{"role": "assistant", "content": text}]
    return bfcl_verdict(reply, row["ground_truth"], row["metadata"], row).score


def test_every_listed_entry_in_every_format_in_bfcls_order() -> None:
    rows = _rows()
    assert len(BFCL_PROMPT_FORMATS) == 26 and len(rows) == 3 * 26  # irrelevance listed empty
    sources = [r["id"].split(":")[-1] for r in rows[::26]]
    assert sources == ["simple_python_0", "simple_python_2", "parallel_multiple_0"]
    assert [r["id"].split(":")[0] for r in rows] == [f"format_sensitivity_{i}" for i in range(78)]
    assert [r["metadata"]["bfcl_format"] for r in rows[:26]] == list(BFCL_PROMPT_FORMATS)
    for row in rows:
        assert "tools" not in row and row["messages"][0]["role"] == "system"
        assert row["metadata"]["bfcl_category"] == "format_sensitivity"
    assert rows[-1]["metadata"]["bfcl_source_category"] == "parallel_multiple"
    check_bfcl_category("format_sensitivity")  # a known category


def test_the_system_prompt_follows_the_format() -> None:
    tagged_xml = _row("simple_python_2", tool_call_tag="True", function_doc_format="xml")
    prompt = tagged_xml["messages"][0]["content"]
    assert "<TOOLCALL>[func_name1(params_name1=params_value1" in prompt
    assert '<function name="math.hypot">' in prompt and "in xml format" in prompt
    assert f"{HINT}{HINT}</desc>" in prompt  # BFCL appends its hint twice here
    python_doc = _row("simple_python_2", return_format="json", function_doc_format="python")
    prompt = python_doc["messages"][0]["content"]
    assert "# Function: math.hypot" in prompt and '"function":"func_name1"' in prompt
    assert (
        "<TOOLCALL>" not in _row("simple_python_2", tool_call_tag="False")["messages"][0]["content"]
    )
    assert "## Task" in _row("simple_python_2", prompt_format="markdown")["messages"][0]["content"]
    experimental = _row("simple_python_2", style="experimental")["messages"][0]["content"]
    assert experimental.startswith("You are an expert in generating structured function calls.")


def test_a_question_with_its_own_system_message_gets_the_prompt_in_front() -> None:
    entry = {
        "id": "simple_python_9",
        "question": [
            [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "q"}]
        ],
        "function": [{"name": "f", "description": "d", "parameters": {"properties": {}}}],
    }
    rows = format_sensitivity_rows(entry, [{"f": {}}], "simple_python", 2)
    assert rows[0]["id"].startswith("format_sensitivity_52:")
    system = rows[0]["messages"][0]["content"]
    assert system.endswith("\n\nBe brief.") and system.startswith("You are an expert")
    assert entry["question"][0][0]["content"] == "Be brief."  # the entry is left as it was


@pytest.mark.parametrize(
    ("fmt", "reply"),
    [
        ({"return_format": "python", "tool_call_tag": "False"}, "[math.hypot(x=4, y=5)]"),
        (
            {"return_format": "python", "tool_call_tag": "True"},
            "<TOOLCALL>[math.hypot(x=4, y=2+3)]</TOOLCALL>",
        ),
        (
            {"return_format": "json", "tool_call_tag": "False"},
            '```json\n[{"function": "math.hypot", "parameters": {"x": 4, "y": 5}}]\n```',
        ),
        (
            {"return_format": "verbose_xml", "tool_call_tag": "False"},
            '<functions><function name="math.hypot"><params>'
            '<param name="x" value="4" type="integer"/>'
            '<param name="y" value="5" type="integer"/></params></function></functions>',
        ),
        (
            {"return_format": "concise_xml", "tool_call_tag": "False"},
            'Here: <functions><function name="math.hypot"><param name="x" type="integer">4</param>'
            '<param name="y" type="integer">5</param></function></functions>',
        ),
    ],
)
def test_a_right_reply_in_the_rows_format_passes(fmt: dict[str, str], reply: str) -> None:
    assert _score(_row("simple_python_2", **fmt), reply) == 1.0


def test_replies_bfcl_rejects_are_rejected() -> None:
    python_tag = _row("simple_python_2", return_format="python", tool_call_tag="True")
    assert _score(python_tag, "[math.hypot(x=4, y=5)]") == 0.0  # the tag is missing
    python = _row("simple_python_2", return_format="python", tool_call_tag="False")
    assert _score(python, "[math_hypot(x=4, y=5)]") == 0.0  # a prompting model keeps the dots
    assert _score(python, "[math.hypot(4, 5)]") == 0.0  # BFCL reads keyword arguments only
    assert _score(python, "[math.hypot(x=+4, y=5)]") == 0.0  # BFCL reads +4 as -4
    assert _score(python, "[math.hypot(x=len('ab') + 2, y=5)]") == 0.0  # no model code is run
    assert (
        _score(python, '```json\n[{"function": "math.hypot", "parameters": {"x": 4, "y": 5}}]\n```')
        == 0.0
    )
    result = bfcl_verdict(
        [{"role": "assistant", "content": "[math.hypot(x=4"}],
        python["ground_truth"],
        python["metadata"],
    )
    assert result.details.error_type == "ast_decoder:decoder_failed"


def test_a_parallel_source_is_checked_without_order() -> None:
    row = _row("parallel_multiple_0", return_format="python", tool_call_tag="False")
    both = (
        "math_toolkit.product_of_primes(count=5), "
        "math_toolkit.sum_of_multiples(lower_limit=1, upper_limit=1000, multiples=[3, 5])"
    )
    assert _score(row, f"[{both}]") == 1.0
    assert _score(row, "[math_toolkit.product_of_primes(count=5)]") == 0.0


def test_a_config_runs_the_category_from_scripted_text_replies(tmp_path: Path) -> None:
    rows = _rows()[:26]
    script = {}
    for row in rows:
        fmt = bfcl_prompt_format(row["metadata"]["bfcl_format"])
        assert fmt.return_format in {"python", "json", "verbose_xml", "concise_xml"}
        # the same Python reply in every format
        script[row["id"]] = [
            {"role": "assistant", "content": "[calculate_triangle_area(base=10, height=5)]"}
        ]
    path = write_config(
        tmp_path / "fs.yaml",
        model=f"scripted:{write_json(tmp_path / 'script.json', script)}",
        dataset="bfcl:format_sensitivity",
        sample_ids=[r["id"] for r in rows],
        rewards=["bfcl_verdict"],
        output_dir=str(tmp_path / "runs"),
    )
    outcome = run_eval_sync(load_config(path), config_path=str(path))
    assert outcome.exit_code == 0 and outcome.summary.errored == 0
    lines = read_results(only_run_dir(tmp_path / "runs"))
    passed = {
        line["metadata"]["bfcl_format"]
        for line in lines
        if line["scores"]["bfcl_verdict"]["score"] == 1.0
    }
    # the Python reply passes exactly the formats that ask for Python calls without the tag
    assert passed == {
        c for c in BFCL_PROMPT_FORMATS if c.startswith("ret_fmt=python&tool_call_tag=False")
    }
    assert json.dumps(lines)  # written as JSON


CONFIG = ROOT / "configs" / "bfcl" / "format_sensitivity.yaml"


def test_the_shipped_config_and_its_offline_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(BFCL_DATA_ENV)  # the recipe answers the installed package's rows
    config = load_config(CONFIG)
    assert config.dataset == "bfcl:format_sensitivity" and config.tools == []
    assert config.rewards == ["bfcl_verdict"] and config.tool_choice is None
    script = ROOT / "configs" / "scripts" / "bfcl_format_sensitivity.json"
    config = load_config(
        CONFIG,
        overrides={"model": f"scripted:{script}", "output_dir": str(tmp_path), "limit": 26},
    )
    outcome = run_eval_sync(config, config_path=str(CONFIG))
    assert outcome.exit_code == 0 and outcome.summary.errored == 0
    summary = summarize_bfcl([outcome.run_dir])
    score = summary.categories["format_sensitivity"]
    assert (score.total, score.correct) == (26, 24)  # as the config's comment says
    spread = summary.format_sensitivity
    assert spread is not None and spread.max_delta == 100.0
    failed = {f for f, acc in spread.accuracy.items() if acc == 0.0}
    assert failed == {BFCL_PROMPT_FORMATS[0], BFCL_PROMPT_FORMATS[9]}

"""Odd values in rows and model outputs: NaN and Infinity, lone surrogates. A bad row is a
line error; a sample holding such text is stored, scored and shown."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentloop.cli._commands import main
from agentloop.harness.data._rows import parse_line
from tests.support.harness import ask, call, only_run_dir, write_config, write_json

USER = {"role": "user", "content": "hi"}


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_in_a_row_are_a_line_error(constant: str) -> None:
    # pandas writes them; they passed, and broke report.html's JSON.parse later.
    text = json.dumps({"messages": [USER], "metadata": {"w": "CONSTANT"}})
    text = text.replace('"CONSTANT"', constant)
    with pytest.raises(ValueError, match=rf"invalid JSON \({re.escape(constant)} is not JSON"):
        parse_line(text, 1)


def _page_data(report: Path) -> dict[str, object]:
    html = report.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="page">(.*?)</script>', html, re.S)
    assert found is not None

    def strict(name: str) -> object:
        raise AssertionError(f"{name} in the page data: JSON.parse would fail")

    return json.loads(found.group(1), parse_constant=strict)  # type: ignore[no-any-return]


def test_lone_surrogates_and_non_finite_arguments_are_stored_scored_and_shown(
    tmp_path: Path,
) -> None:
    # A lone surrogate made the sample a crash; Infinity in a model's arguments (Python's
    # json reads it) made the report unreadable.
    tools = tmp_path / "t.py"
    tools.write_text(
        "from langchain_core.tools import tool\n\n"
        "@tool\n"
        "def scale(x: float) -> str:\n"
        '    """Scale a number."""\n'
        "    return str(x * 2)\n"
    )
    row = {"id": "a", "messages": [{"role": "user", "content": "hi \ud83d"}]}
    row["answer"] = "inf \udc00"
    (tmp_path / "d.jsonl").write_text(json.dumps(row) + "\n")  # escaped, as JSON allows
    reply = ask(call("c1", "scale", {}))
    reply["tool_calls"][0]["function"]["arguments"] = '{"x": Infinity}'
    script = write_json(tmp_path / "s.json", [reply, "inf \udc00"])
    config = write_config(
        tmp_path / "c.yaml",
        model=f"scripted:{script}",
        dataset=str(tmp_path / "d.jsonl"),
        tools=[f"{tools}:scale"],
        rewards=["qa_f1_reward"],
        output_dir=str(tmp_path / "runs"),
    )
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    raw = (run_dir / "results.jsonl").read_bytes()
    line = json.loads(raw.decode("utf-8"))  # valid UTF-8, the surrogates escaped
    assert line["status"] == "ok" and line["scores"]["qa_f1_reward"]["score"] == 1.0
    messages = line["trajectory"]["messages"]
    assert messages[0]["content"] == "hi \ud83d" and messages[-1]["content"] == "inf \udc00"
    assert messages[2]["content"] == "inf"  # the tool ran with x = Infinity
    assert line["answer"] == "inf \udc00"
    assert main(["view", str(run_dir)]) == 0
    page = _page_data(run_dir / "report.html")
    assert page

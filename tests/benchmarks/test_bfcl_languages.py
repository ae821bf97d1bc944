"""BFCL's Java and JavaScript categories: the tools BFCL shows the model, and the verdict
on argument strings as BFCL's own converters read them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from agentloop.evals import bfcl_verdict

from agentloop.benchmarks.bfcl._convert import openai_name
from agentloop.benchmarks.bfcl._data import bfcl_rows
from agentloop.benchmarks.bfcl._package import BFCL_DATA_ENV, bfcl_package
from agentloop.benchmarks.bfcl._summary import format_bfcl_summary, summarize_bfcl
from agentloop.cli import main
from tests.support.harness import ROOT, only_run_dir, read_results

LANGUAGES = ("simple_java", "simple_javascript")


def rows(category: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in bfcl_rows(category)}


def verdict(row: dict[str, Any], **args: Any) -> Any:
    (tool,) = row["tools"]
    call = {"name": tool["function"]["name"], "arguments": json.dumps(args)}
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c0", "type": "function", "function": call}
    ]}  # fmt: skip
    return bfcl_verdict([message], row["ground_truth"], row["metadata"], row)


@pytest.mark.parametrize("category", LANGUAGES)
def test_tools_are_what_bfcls_own_preprocessing_gives(category: str) -> None:
    bfcl_package()  # importable from here on, wherever make put it
    from bfcl_eval.utils import _func_doc_language_specific_pre_processing

    data = bfcl_package() / "data"  # type: ignore[operator]
    text = (data / f"BFCL_v4_{category}.json").read_text(encoding="utf-8")
    entries = [json.loads(line) for line in text.splitlines()]
    ours = {r["id"]: r for r in bfcl_rows(category, data)}  # all of them
    assert len(ours) == len(entries) > 0
    for entry in entries:
        theirs = _func_doc_language_specific_pre_processing(
            copy.deepcopy(entry["function"]), category
        )
        (tool,) = ours[entry["id"]]["tools"]
        function = tool["function"]
        assert function["name"] == openai_name(theirs[0]["name"])
        assert function["description"] == theirs[0]["description"]
        # every parameter a string, its description BFCL's
        assert function["parameters"]["properties"] == theirs[0]["parameters"]["properties"]
        assert {p["type"] for p in function["parameters"]["properties"].values()} <= {"string"}
        # the checker keeps BFCL's own types
        original = entry["function"][0]["parameters"]["properties"]
        checker = ours[entry["id"]]["metadata"]["bfcl_functions"][0]["parameters"]["properties"]
        assert checker == original


def test_java_literals_read_as_bfcl_reads_them() -> None:
    row = rows("simple_java")["simple_java_25"]  # id: long, sort: integer; answers 42, 5
    assert verdict(row, id="42L", sort="5").score == 1.0
    assert verdict(row, id="42l", sort="5").score == 1.0
    refused = verdict(row, id="42", sort="5")  # a long without L stays a string
    assert refused.score == 0.0 and refused.details.error_type == "type_error:simple"
    native = verdict(row, id="42L", sort=5)  # not a string
    assert native.score == 0.0 and native.details.error_type == "type_error:java"
    assert verdict(row, id="43L", sort="5").details.error_type == "value_error:others"


def test_java_collections_read_as_bfcl_reads_them() -> None:
    row = rows("simple_java")["simple_java_22"]  # ids: ArrayList<long> [101, 202, 303]
    ids = "new ArrayList<>(Arrays.asList(101L, 202L, 303L))"
    assert verdict(row, ids=ids, newStatus="2").score == 1.0
    added = "new ArrayList<Long>() {{ add(101L); add(202L); add(303L); }}"
    assert verdict(row, ids=added, newStatus="2").score == 1.0
    plain = verdict(row, ids="new ArrayList<>(Arrays.asList(101, 202, 303))", newStatus="2")
    assert plain.details.error_type == "type_error:nested"  # longs without L stay strings
    row = rows("simple_java")["simple_java_1"]  # params: HashMap {limit: 50, schemaFilter}
    params = 'new HashMap<String, Object>() {{ put("limit", 50); put("schemaFilter", "public"); }}'
    assert verdict(row, object="Customers", useShortName="true", params=params).score == 1.0
    wrong = verdict(row, object="Customers", useShortName="True", params=params)
    assert wrong.score == 0.0


def test_javascript_literals_read_as_bfcl_reads_them() -> None:
    row = rows("simple_javascript")["simple_javascript_12"]  # dicts
    args = {
        "apiEndpoint": "https://api.example.com/data",
        "requestConfig": "{method: 'GET'}",
        "expectedResponse": "{'key': 'value'}",
        "handleErrors": "true",
    }
    result = verdict(row, **args)
    assert result.score == 1.0, result.reason
    assert verdict(row, **{**args, "requestConfig": "{method: 'POST'}"}).score == 0.0
    native = verdict(row, **{**args, "handleErrors": True})
    assert native.details.error_type == "type_error:js"
    # BFCL checks an array's items one level deep: a 2-D array of floats never passes
    row = rows("simple_javascript")["simple_javascript_16"]
    good = {"vertices": "[[10.0, 15.0], [20.0, 25.0]]", "pivot": "[12.0, 17.0]", "angle": "30"}
    assert verdict(row, **good).details.error_type == "type_error:nested"


def test_a_literal_bfcls_converter_raises_on_fails_without_raising() -> None:
    row = rows("simple_java")["simple_java_25"]
    result = verdict(row, id="42L", sort="9" * 5000)  # more digits than int() reads
    assert result.score == 0.0
    assert "converter raised ValueError" in result.reason


def test_the_offline_recipe_of_simple_java(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # configs/bfcl/simple_java.yaml's recipe (docs/pages/bfcl.md): the first 10 rows,
    # written as Java literals, scored on BFCL's data by its verdict
    monkeypatch.delenv(BFCL_DATA_ENV)
    monkeypatch.chdir(ROOT)
    argv = ["run", "configs/bfcl/simple_java.yaml", "--limit", "10", "--output-dir", str(tmp_path),
            "--model", "scripted:configs/scripts/bfcl_simple_java.json"]  # fmt: skip
    assert main(argv) == 0
    assert capsys.readouterr().err == ""
    lines = {
        line["id"]: line["scores"]["bfcl_verdict"] for line in read_results(only_run_dir(tmp_path))
    }
    failed = {sid: v["reason"] for sid, v in lines.items() if v["score"] != 1.0}
    assert failed == {
        "simple_java_6": "simple_java: call 0 ('SpreadsheetPresentation_refreshData'): type of "
        "'refreshMetadata': expected a string (Java boolean), got bool",
        "simple_java_8": "simple_java: call 0 ('EFSNIOFile_setContents'): type of 'keepHistory': "
        "expected boolean, got str",
    }
    summary = summarize_bfcl([only_run_dir(tmp_path)])
    assert summary.categories["simple_java"].accuracy == pytest.approx(0.8)
    assert "(partial: 10 of 100 entries)" in format_bfcl_summary(summary)


def test_without_bfcl_eval_the_verdict_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentloop.evals import _bfcl_languages

    def no_package(name: str) -> Any:
        raise ImportError(name)

    _bfcl_languages._loaded.cache_clear()
    monkeypatch.setattr(_bfcl_languages.importlib, "import_module", no_package)
    try:
        with pytest.raises(ValueError, match=r"pip install --no-deps 'bfcl-eval==2026\.3\.23'"):
            _bfcl_languages.bfcl_language("simple_javascript")
        assert _bfcl_languages.bfcl_language("simple_python") is None  # Python needs none
    finally:
        monkeypatch.undo()
        _bfcl_languages._loaded.cache_clear()
    assert _bfcl_languages.bfcl_language("simple_javascript").name == "JavaScript"

"""``agentloop view``: the report's data, its escaping, the command line, and a report of
a run of every shipped config (the browser tests are in tests/browser)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli import main
from agentloop.cli._triage import failure_types, histogram
from agentloop.cli._view import write_report
from agentloop.cli._view_data import load_comparison, load_run
from agentloop.harness import load_config, run_eval_sync
from tests.browser.runs import INJECTED, make_run
from tests.support.harness import ROOT, shipped_offline, write_json

DATA_BLOCK = re.compile(r'<script type="application/json" id="(\w+)">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("view")
    return make_run(tmp, "run-a"), make_run(tmp, "run-b", improved=True)


def _blocks(html: str) -> dict[str, object]:
    return {name: json.loads(text) for name, text in DATA_BLOCK.findall(html)}


def test_untrusted_text_cannot_leave_its_data_block(runs: tuple[Path, Path]) -> None:
    html = write_report([runs[0]]).path.read_text()
    assert INJECTED not in html and "<img" not in html
    assert html.count("<script") == 3  # the two data blocks and the report's own script
    blocks = _blocks(html)
    details = blocks["details"]
    assert isinstance(details, list)
    inject = next(d for d in details if d["id"] == "inject")
    assert inject["final_answer"] == INJECTED  # the text round-trips unchanged
    nonce = re.search(r"script-src 'nonce-([\w-]+)'", html)
    assert nonce and html.count(f'nonce="{nonce[1]}"') == 2  # the style and the script


def test_the_run_data_is_the_runs(runs: tuple[Path, Path]) -> None:
    report = load_run(runs[0])
    page = report["page"]
    summary = json.loads((runs[0] / "summary.json").read_text())
    assert page["summary"] == {k: v for k, v in summary.items() if k != "run"}  # run: who wrote it
    assert page["rewards"] == ["qa_f1_reward", "tool_call_match"]
    rows = {row[0]: row for row in page["rows"]}
    assert len(rows) == 10 and rows["no-replies"][2:4] == ["error", "model"]
    assert rows["wrong-args"][4] == [0.0, 0.0] and rows["wrong-args"][5] == [False, False]
    assert rows["unknown-tool"][8:10] == [1, 1]  # one call, not ok
    detail = next(d for d in report["details"] if d["id"] == "unknown-tool")
    assistant = detail["messages"][1]
    assert assistant["tool_calls"][0]["status"] == "unknown_tool"
    assert assistant["tool_calls"][0]["arguments"] == {"x": 2}
    tool = detail["messages"][2]
    assert tool["role"] == "tool" and tool["status"] == "unknown_tool" and tool["error"]
    assert "langchain" not in json.dumps(detail["messages"])


def test_a_run_without_summary_json_gets_the_harness_summary(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("run.json", "results.jsonl"):
        (copy / name).write_bytes((runs[0] / name).read_bytes())
    original = json.loads((runs[0] / "summary.json").read_text())
    computed = load_run(copy)["page"]["summary"]
    for key in ("results", "ok", "errored", "rewards", "latency", "tool_calls_by_status"):
        assert computed[key] == original[key]
    assert computed["notes"][-1].startswith("computed by agentloop view")
    # A summary.json older than the results (a resumed run killed again) is not used.
    (copy / "summary.json").write_text(json.dumps(original))
    line = json.loads((copy / "results.jsonl").read_text().splitlines()[0])
    with (copy / "results.jsonl").open("a") as handle:
        handle.write(json.dumps({**line, "id": "added-later"}) + "\n")
    assert load_run(copy)["page"]["summary"]["results"] == original["results"] + 1
    (copy / "results.jsonl").write_text((runs[0] / "results.jsonl").read_text())
    assert load_run(copy)["page"]["summary"]["notes"] == original["notes"]


def test_a_format_1_run_renders_its_messages() -> None:
    report = load_run(ROOT / "tests" / "data" / "run_v1")
    messages = report["details"][0]["messages"]
    assert [m["role"] for m in messages][:2] == ["user", "assistant"]
    assert messages[1]["tool_calls"][0]["name"] == "add"


def test_the_comparison_puts_changed_verdicts_first(runs: tuple[Path, Path]) -> None:
    page = load_comparison(*runs)["page"]
    changes = [(row[0], row[2]) for row in page["rows"]]
    assert sorted(changes[:2]) == [("add-1", 2), ("wrong-args", 2)]
    assert all(change == 0 for _, change in changes[2:])
    assert page["changed"] == 4  # two samples, two rewards each


def test_the_command_line(runs: tuple[Path, Path], tmp_path: Path, capsys) -> None:
    out = tmp_path / "r.html"
    assert main(["view", str(runs[0]), "--out", str(out)]) == 0
    assert f"report: {out} (10 samples," in capsys.readouterr().out
    assert main(["view", *map(str, runs)]) == 0
    assert (runs[1] / f"compare-{runs[0].name}.html").is_file()
    assert main(["view", str(runs[0]), str(runs[1]), str(runs[0])]) == 2
    assert capsys.readouterr().err.strip() == (
        "agentloop view: give one RUN_DIR, or two to compare (A B)"
    )
    assert main(["view", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a run directory" in err


def _configs() -> list[Path]:
    return sorted((ROOT / "configs").glob("*.yaml")) + sorted(
        (ROOT / "configs/bfcl").glob("*.yaml")
    )


@pytest.mark.parametrize("config", _configs(), ids=lambda p: p.stem)
def test_every_shipped_config_run_has_a_report(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixture = ROOT / "tests" / "data" / "bfcl"
    if (fixture / f"BFCL_v4_{config.stem}.json").is_file():  # else the bfcl-eval package's
        monkeypatch.setenv("AGENTLOOP_BFCL_DATA", str(fixture))
    monkeypatch.chdir(ROOT)  # configs name their files relative to the project root
    scripts = ROOT / "configs" / "scripts" / f"{config.stem}.json"
    if not scripts.is_file():  # one plain answer for every sample
        scripts = write_json(tmp_path / "script.json", {"*": ["I cannot help with that."]})
    overrides = {"model": f"scripted:{scripts}", "output_dir": str(tmp_path), "limit": 3,
                 "preflight": False}  # fmt: skip
    loaded = load_config(config, overrides={**overrides, **shipped_offline(config)})
    run_dir = run_eval_sync(loaded, config_path=str(config)).run_dir
    outcome = write_report([run_dir])
    blocks = _blocks(outcome.path.read_text())
    page = blocks["page"]
    planned = json.loads((run_dir / "run.json").read_text())["planned"]["results"]
    assert isinstance(page, dict) and 1 <= planned <= 3
    assert len(page["rows"]) == outcome.samples == page["summary"]["results"] == planned
    verdicts = [(i, d["scores"].get("bfcl_verdict")) for i, d in enumerate(blocks["details"])]
    failed = {i: v["details"]["error_type"] for i, v in verdicts if v and v["score"] < 1}
    grouped = {
        i: group["type"]
        for group in page["failures"]
        if group["reward"] == "bfcl_verdict"
        for i in group["rows"]
    }
    assert grouped == failed  # a BFCL failure is grouped under BFCL's own error type
    if config.stem.startswith("multi_turn"):  # each turn starts at one of its user messages
        for detail in blocks["details"]:
            starts = [turn["message_start"] for turn in detail["turns"]]
            assert len(starts) >= 2
            assert all(detail["messages"][i]["role"] == "user" for i in starts)


def test_open_hands_the_file_to_the_browser(
    runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    out = tmp_path / "r.html"
    assert main(["view", str(runs[0]), "--out", str(out), "--open"]) == 0
    assert opened == [out.resolve().as_uri()]


def test_open_without_a_browser_says_where_the_report_is(
    runs: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # webbrowser.open answers False where it finds no browser; that was silent
    monkeypatch.setattr("webbrowser.open", lambda url: False)
    monkeypatch.chdir(tmp_path)
    assert main(["view", str(runs[0]), "--out", "r.html", "--open"]) == 0
    out, err = capsys.readouterr()
    assert "report: r.html" in out
    where = (tmp_path / "r.html").resolve()
    assert err == f"agentloop view: no browser to open here; the report is {where}\n"
    # asked to open nothing, it says nothing
    assert main(["view", str(runs[0]), "--out", "r.html"]) == 0
    assert capsys.readouterr().err == ""


def test_a_failed_write_leaves_the_previous_report_whole(
    runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r.html"
    out.write_text("the previous report")
    real_write = Path.write_bytes

    def half_then_fail(self: Path, data: bytes) -> int:  # a disk that fills up mid-write
        real_write(self, data[: len(data) // 2])
        raise OSError("No space left on device")

    monkeypatch.setattr(Path, "write_bytes", half_then_fail)
    with pytest.raises(OSError):
        write_report([runs[0]], out)
    assert out.read_text() == "the previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def _scored(**scores: tuple[float, Any]) -> dict[str, Any]:
    """An ok result line with ``reward=(score, details)``."""
    return {"id": "s", "epoch": 1, "status": "ok",
            "scores": {k: {"score": v, "reason": "", "details": d} for k, (v, d) in scores.items()},
            "passed": {}}  # fmt: skip


def test_failures_are_typed_by_the_rewards_own_error_type_else_by_call_else_by_score() -> None:
    errored = {"id": "e", "epoch": 1, "status": "error", "error_kind": "model",
               "error": "RateLimitError: slow down"}  # fmt: skip
    assert failure_types(errored) == [(None, "model error (RateLimitError)")]
    assert failure_types({**errored, "error": "the server said no"}) == [(None, "model error")]

    def calls(**diag: Any) -> dict[str, Any]:
        base = {"expected_index": 0, "generated_index": 0, "expected_name": "f",
                "generated_name": "f", "matched": False}  # fmt: skip
        return {"calls": [{"matched": True}, {**base, **diag}]}

    line = _scored(
        bfcl=(0.0, {"error_type": "value_error:string", "category": "simple_python"}),
        multi=(0.0, {"error_type": "multi_turn:instance_state_mismatch"}),
        bfcl_ok=(1.0, {"error_type": ""}),
        absent=(0.0, calls(generated_index=None)),
        extra=(0.5, calls(expected_index=None)),
        name=(0.0, calls(generated_name="g")),
        args=(0.0, calls()),
        zero=(0.0, None),
        partial=(0.4, {"error_type": ""}),
    )
    assert failure_types(line) == [
        ("bfcl", "value_error:string"),
        ("multi", "multi_turn:instance_state_mismatch"),
        ("absent", "call not made"),
        ("extra", "unexpected call"),
        ("name", "wrong function"),
        ("args", "wrong arguments"),
        ("zero", "score 0"),
        ("partial", "partial score"),
    ]
    # A pass threshold decides: a verdict of pass is no failure, whatever the score.
    graded = {**_scored(r=(0.5, None), q=(0.8, None)), "passed": {"r": True, "q": False}}
    assert failure_types(graded) == [("q", "partial score")]
    unjudged = {**_scored(r=(0.5, None), q=(1.0, None)), "passed": {"r": None, "q": None}}
    assert failure_types(unjudged) == [("r", "partial score")]  # no verdict: the score says


def test_histogram_bars() -> None:
    bars = histogram([0.0, 1.0, 0.05, 0.1, 0.95, 1.0, None, None], ["ok"] * 6 + ["error", "ok"])
    assert [(b["label"], b["rows"]) for b in bars if b["rows"]] == [
        ("0", [0]),
        ("(0, 0.1)", [2]),
        ("[0.1, 0.2)", [3]),
        ("[0.9, 1)", [4]),
        ("1", [1, 5]),
        ("errored", [6]),
        ("not scored", [7]),
    ]
    assert len(bars) == 14  # 0, ten bars between, 1, errored, not scored
    wide = histogram([-2.0, 3.0, 8.0], ["ok"] * 3)  # beyond [0, 1]: ten bars, low to high
    assert [(b["label"], b["rows"]) for b in wide if b["rows"]] == [
        ("[-2, -1)", [0]),
        ("[3, 4)", [1]),
        ("[7, 8]", [2]),
    ]
    assert len(wide) == 10


def test_the_run_page_groups_its_rows_for_triage(runs: tuple[Path, Path]) -> None:
    page = load_run(runs[0])["page"]
    ids = [row[0] for row in page["rows"]]

    def named(indices: list[int]) -> list[str]:
        return sorted(ids[i] for i in indices)

    failures = {(g["reward"], g["type"]): named(g["rows"]) for g in page["failures"]}
    assert failures == {
        (None, "model error (ScriptExhaustedError)"): ["no-replies"],
        ("qa_f1_reward", "score 0"): ["empty-answer", "inject", "wrong-args"],
        ("tool_call_match", "wrong arguments"): ["wrong-args"],
        ("tool_call_match", "call not made"): ["unknown-tool"],
    }
    assert page["failures"][0]["type"] == "score 0"  # the most frequent first
    # Metadata: "category" groups the samples; "source" (one per row) does not.
    assert list(page["summary"]["by_metadata"]) == ["category"]
    assert {v: named(rows) for v, rows in page["metadata_rows"]["category"].items()} == {
        "arithmetic": sorted(set(ids) - {"inject", "long-result"}),
        "text": ["inject", "long-result"],
    }
    text = page["summary"]["by_metadata"]["category"]["text"]
    intervals = text.pop("intervals")
    assert text == {"results": 2, "errored": 0,
                    "scores": {"qa_f1_reward": 0.5, "tool_call_match": 1.0}}  # fmt: skip
    assert intervals["qa_f1_reward"]["low"] is None  # 2 samples: too few for an interval
    bars = {b["label"]: named(b["rows"]) for b in page["histograms"]["qa_f1_reward"]}
    assert bars["0"] == ["empty-answer", "inject", "wrong-args"]
    assert bars["errored"] == ["no-replies"] and len(bars["1"]) == 6


def test_a_rescored_results_file_has_its_own_report(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = Path(shutil.copytree(runs[0], tmp_path / "run"))
    (run_dir / "report.html").unlink(missing_ok=True)
    assert main(["score", str(run_dir), "--rewards", "qa_f1_reward_format"]) == 0
    rescored = next(run_dir.glob("results.rescored-*.jsonl"))
    stamp = rescored.name.removeprefix("results.").removesuffix(".jsonl")
    assert f"agentloop view {rescored}" in capsys.readouterr().out  # said where to look
    assert main(["view", str(rescored)]) == 0
    report = run_dir / f"report.{stamp}.html"
    assert f"report: {report} (10 samples" in capsys.readouterr().out
    page = _blocks(report.read_text())["page"]
    assert isinstance(page, dict)
    assert page["header"]["rescored"] == stamp and page["rewards"] == ["qa_f1_reward_format"]
    written = json.loads((run_dir / f"summary.{stamp}.json").read_text())
    assert page["summary"] == {k: v for k, v in written.items() if k != "run"}
    assert not (run_dir / "report.html").exists()  # the run's own report is another file
    # The run against its re-scoring: the same samples, other rewards.
    assert main(["view", str(run_dir), str(rescored)]) == 0
    compared = run_dir / f"compare.{stamp}-run.html"
    assert f"report: {compared}" in capsys.readouterr().out
    headers = _blocks(compared.read_text())["page"]["headers"]  # type: ignore[index]
    assert [h["results_file"] for h in headers] == ["results.jsonl", rescored.name]


def test_view_names_what_it_cannot_read(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stray = tmp_path / "results.jsonl"
    stray.write_text((runs[0] / "results.jsonl").read_text())
    other = runs[0] / "notes.txt"
    summary = runs[0] / "summary.json"
    for path, message in [
        (stray, f"{stray}: a results file is read in its run directory, and {tmp_path} has "
                "no run.json"),
        (summary, f"{summary}: not a results file (results.jsonl or results.<name>.jsonl)"),
        (other, f"{other}: no such run directory or results file"),
    ]:  # fmt: skip
        assert main(["view", str(path)]) == 2
        assert capsys.readouterr().err == f"agentloop: error: {message}\n"


def test_an_older_summary_without_the_breakdown_is_computed_anew(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    run_dir = Path(shutil.copytree(runs[0], tmp_path / "run"))
    summary = json.loads((run_dir / "summary.json").read_text())
    del summary["by_metadata"]  # as an agentloop before the breakdown wrote it
    (run_dir / "summary.json").write_text(json.dumps(summary))
    page = load_run(run_dir)["page"]
    assert list(page["summary"]["by_metadata"]) == ["category"]
    assert page["summary"]["notes"][-1].startswith("computed by agentloop view")

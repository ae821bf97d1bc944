"""``agentloop view``: the report's data, its escaping, the command line, and a report of
a run of every shipped config (the browser tests are in tests/browser)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentloop.cli import main
from agentloop.cli._view import write_report
from agentloop.cli._view_data import load_comparison, load_run
from agentloop.harness import load_config, run_eval_sync
from tests.browser.runs import INJECTED, make_run
from tests.support.harness import ROOT, write_json

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
    assert len(rows) == 9 and rows["no-replies"][2:4] == ["error", "model"]
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
    assert f"report: {out} (9 samples," in capsys.readouterr().out
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
    loaded = load_config(
        config,
        overrides={"model": f"scripted:{scripts}", "output_dir": str(tmp_path), "limit": 3,
                   "preflight": False},
    )  # fmt: skip
    run_dir = run_eval_sync(loaded, config_path=str(config)).run_dir
    outcome = write_report([run_dir])
    blocks = _blocks(outcome.path.read_text())
    page = blocks["page"]
    planned = json.loads((run_dir / "run.json").read_text())["planned"]["results"]
    assert isinstance(page, dict) and 1 <= planned <= 3
    assert len(page["rows"]) == outcome.samples == page["summary"]["results"] == planned
    if config.stem.startswith("multi_turn"):  # each turn starts at one of its user messages
        for detail in blocks["details"]:
            starts = [turn["message_start"] for turn in detail["turns"]]
            assert len(starts) >= 2
            assert all(detail["messages"][i]["role"] == "user" for i in starts)


def test_open_hands_the_file_to_the_browser(
    runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", opened.append)
    out = tmp_path / "r.html"
    assert main(["view", str(runs[0]), "--out", str(out), "--open"]) == 0
    assert opened == [out.resolve().as_uri()]


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

"""A reward that does not apply to some samples (it returns ``NotApplicable``): absent from
those samples' scores, with its reason, and left out of every figure of that reward, in a
real run, its summary, its printed tables and ``compare``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentloop.evals import NotApplicable, parse_reward_specs, reward_entry, score_sample

from agentloop.cli._commands import main
from agentloop.harness.stats._summary import summarize
from tests.support.harness import add_setup, read_results, run_once, write_json

# Applies to the even-numbered questions only (metadata.parity says which), scoring 1 where
# the answer is right; the odd ones are not its business.
REWARD = """
from agentloop.evals import NotApplicable


def even_only(final_answer, answer, metadata):
    if metadata["parity"] == "odd":
        return NotApplicable(reason="an odd question: not this reward's business")
    return float(str(answer) in (final_answer or ""))
"""
KEY = "./even.py:even_only"


def _run(tmp: Path, name: str, wrong: set[int], epochs: int = 2) -> Path:
    folder = tmp / name
    folder.mkdir()
    (tmp / "even.py").write_text(REWARD)  # ./even.py: read from the working directory
    config = add_setup(folder, n=8, rewards=["qa_f1_reward", KEY], epochs=epochs,
                       pass_threshold={"qa_f1_reward": 1.0, KEY: 1.0})  # fmt: skip
    rows = [json.loads(x) for x in (folder / "data.jsonl").read_text().splitlines()]
    for i, row in enumerate(rows):
        row["metadata"] = {"parity": "odd" if i % 2 else "even"}
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    script = json.loads((folder / "script.json").read_text())
    for i in wrong:
        script[f"s{i:04d}"][-1] = "wrong"
    write_json(folder / "script.json", script)
    return run_once(config)


def test_a_reward_that_does_not_apply_is_left_out_of_its_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # wrong on 2 (even) and 3 (odd): even_only scores 3 of the 4 even questions
    run = _run(tmp_path, "a", wrong={2, 3})
    lines = {(x["id"], x["epoch"]): x for x in read_results(run)}
    odd, even = lines[("s0003", 1)], lines[("s0002", 1)]
    assert KEY not in odd["scores"] and odd["status"] == "ok"
    assert odd["not_applicable"] == {KEY: "an odd question: not this reward's business"}
    assert even["scores"][KEY]["score"] == 0.0 and even["not_applicable"] == {}
    summary = json.loads((run / "summary.json").read_text())
    stats = summary["rewards"][KEY]
    # over the 4 even questions x 2 epochs, not 8 x 2
    assert stats["headline"] == pytest.approx(6 / 8)
    assert stats["not_applicable"] == 8 and stats["errored"] == 0
    assert stats["count"] == 4 and stats["results"] == 8
    assert stats["pass_hat_k"]["2"] == pytest.approx(3 / 4)
    assert (stats["interval"]["clusters"], stats["interval"]["results"]) == (4, 8)
    # the other reward still counts every sample
    assert summary["rewards"]["qa_f1_reward"]["headline"] == pytest.approx(12 / 16)
    # by metadata: the odd group has no figure of it, the even group its own
    groups = summary["by_metadata"]["parity"]
    assert KEY not in groups["odd"]["scores"] and KEY not in groups["odd"]["intervals"]
    assert groups["even"]["scores"][KEY] == pytest.approx(6 / 8)
    assert any(f"{KEY} does not apply to 8 result(s)" in n for n in summary["notes"])


def test_the_printed_summary_and_compare_leave_it_out_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    a = _run(tmp_path, "a", wrong={2, 3, 4})
    b = _run(tmp_path, "b", wrong={1, 3, 5, 7})  # only odd ones wrong: even_only all right
    capsys.readouterr()
    assert main(["summary", str(a)]) == 0
    out = capsys.readouterr().out
    assert "does not apply to 8 result(s)" in out
    assert main(["compare", str(a), str(b), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (delta,) = [d for d in data["rewards"] if d["reward"] == KEY]
    assert (delta["a"], delta["b"]) == (pytest.approx(4 / 8), pytest.approx(1.0))
    # paired over the 4 even samples (x 2 epochs) only: the mean difference is 0.5, where
    # pairing all 8 samples (the odd ones as 0 and 0) would halve it
    assert delta["paired"]["mean"] == pytest.approx(0.5)
    assert (delta["paired"]["pairs"], delta["paired"]["clusters"]) == (8, 4)


def test_score_sample_records_why_and_none_is_still_an_error() -> None:
    def maybe(final_answer: str) -> NotApplicable | float:
        return NotApplicable(reason="empty") if not final_answer else 1.0

    def forgot(final_answer: str) -> None:  # a forgotten return is not "not applicable"
        return None

    functions = {"maybe": maybe, "forgot": forgot}
    specs = parse_reward_specs(list(functions), resolve=lambda n: reward_entry(n, functions[n]))
    said = [{"role": "assistant", "content": ""}]
    result = score_sample(said, None, specs, on_error="record")
    assert result.not_applicable == {"maybe": "empty"}
    assert "maybe" not in result.results and "maybe" not in result.passed
    assert result.errors["forgot"].startswith("TypeError: reward 'forgot' returned NoneType")


def test_a_summary_of_lines_without_the_field_reads_as_before() -> None:
    lines = [
        {"id": f"s{i}", "epoch": 1, "status": "ok", "scores": {"r": {"score": float(i % 2)}}}
        for i in range(4)
    ]
    summary = summarize(lines, rewards=["r"])
    assert summary.rewards["r"].headline == 0.5 and summary.rewards["r"].not_applicable == 0


# Applies to the first result of each sample it meets (in the run's process) and not to the
# others: as a reward whose applicability depends on the trajectory does, epoch by epoch.
# Samples whose metadata says ``always`` are scored in every epoch.
ONCE = """
from agentloop.evals import NotApplicable

seen = set()


def once(final_answer, answer, row, metadata):
    if not metadata.get("always"):
        if row["id"] in seen:
            return NotApplicable(reason="seen already")
        seen.add(row["id"])
    return float(str(answer) in (final_answer or ""))
"""
ONCE_KEY = "./once.py:once"  # beside the config: keyed by its resolved path


def _once_run(tmp: Path, always: set[int], wrong: set[int]) -> Path:
    (tmp / "once.py").write_text(ONCE)
    config = add_setup(tmp, n=6, rewards=[ONCE_KEY], epochs=2,
                       pass_threshold={ONCE_KEY: 1.0}, concurrency=1)  # fmt: skip
    rows = [json.loads(x) for x in (tmp / "data.jsonl").read_text().splitlines()]
    for i, row in enumerate(rows):
        row["metadata"] = {"always": i in always}
    (tmp / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    script = json.loads((tmp / "script.json").read_text())
    for i in wrong:
        script[f"s{i:04d}"][-1] = "wrong"
    write_json(tmp / "script.json", script)
    return run_once(config)


def test_a_reward_applying_to_some_epochs_counts_the_same_results_above_and_below(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # samples 0-3 scored in one epoch of two, 4 and 5 in both; 0 and 4 answered wrongly:
    # 2 + 3 of 4 + 4 applicable results right (before: 6 scored ones over 4 slots, 1.5)
    monkeypatch.chdir(tmp_path)
    run = _once_run(tmp_path, always={4, 5}, wrong={0, 4})
    (stats,) = json.loads((run / "summary.json").read_text())["rewards"].values()
    assert stats["headline"] == pytest.approx(5 / 8)
    assert (stats["not_applicable"], stats["errored"], stats["results"]) == (4, 0, 8)
    assert stats["pass_rate"] == pytest.approx(5 / 8)
    assert stats["interval"]["results"] == 8 and stats["interval"]["clusters"] == 6
    # pass@k up to the fewest applicable epochs of a sample: one here; a mean over samples
    assert stats["pass_at_k"] == {"1": pytest.approx((0 + 1 + 1 + 1 + 0 + 1) / 6)}
    assert stats["pass_at_k_interval"]["1"]["method"] == "bootstrap"
    capsys.readouterr()
    assert main(["summary", str(run)]) == 0
    assert "0.625" in capsys.readouterr().out


def test_every_sample_with_an_epoch_it_does_not_apply_to_still_has_a_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: ZeroDivisionError in run and summary, and no summary.json
    monkeypatch.chdir(tmp_path)
    run = _once_run(tmp_path, always=set(), wrong={1})
    (stats,) = json.loads((run / "summary.json").read_text())["rewards"].values()
    assert stats["headline"] == pytest.approx(5 / 6)
    assert (stats["not_applicable"], stats["results"]) == (6, 6)
    capsys.readouterr()
    assert main(["summary", str(run)]) == 0


NEVER = """
from agentloop.evals import NotApplicable


def never(final_answer):
    return NotApplicable(reason="nothing was attacked")
"""
NEVER_KEY = "./never.py:never"


def _never_run(tmp: Path, name: str) -> Path:
    folder = tmp / name
    folder.mkdir()
    (tmp / "never.py").write_text(NEVER)
    return run_once(add_setup(folder, n=6, rewards=["qa_f1_reward", NEVER_KEY],
                              pass_threshold={NEVER_KEY: 1.0}))  # fmt: skip


def test_a_reward_that_applies_to_no_result_has_no_headline_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: headline 0.0 (read as "0% attack success"), and compare took a delta of it
    monkeypatch.chdir(tmp_path)
    a, b = _never_run(tmp_path, "a"), _never_run(tmp_path, "b")
    stats = json.loads((a / "summary.json").read_text())["rewards"][NEVER_KEY]
    assert stats["headline"] is None and stats["pass_rate"] is None
    assert stats["pass_at_k"] == {} and stats["not_applicable"] == 6
    assert stats["interval"]["low"] is None and "applies to no result" in stats["interval"]["note"]
    capsys.readouterr()
    assert main(["summary", str(a)]) == 0
    (row,) = [x for x in capsys.readouterr().out.splitlines() if "never" in x and "│" in x]
    assert "0.000" not in row and "n/a" in row
    assert main(["compare", str(a), str(b), "--json"]) == 0
    (delta,) = [d for d in json.loads(capsys.readouterr().out)["rewards"]
                if d["reward"] == NEVER_KEY]  # fmt: skip
    assert (delta["a"], delta["b"], delta["delta"], delta["paired"]) == (None, None, None, None)
    assert main(["compare", str(a), str(b)]) == 0
    (row,) = [x for x in capsys.readouterr().out.splitlines() if "never" in x and "│" in x]
    assert "0.000" not in row and "n/a" in row

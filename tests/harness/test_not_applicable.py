"""A reward that does not apply to some samples (it returns ``NotApplicable``): absent from
those samples' scores, with its reason, and left out of every figure of that reward, in a
real run, its summary, its printed tables and ``compare``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentloop.evals import NotApplicable, parse_reward_specs, reward_entry, score_sample

from agentloop.cli._commands import main
from agentloop.harness._stats import summarize
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

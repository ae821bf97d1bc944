"""Reliability, errors by cause and cost through real runs (an OpenAI-compatible stub on
127.0.0.1, priced by the config): ``agentloop summary`` prints them and writes them in
summary.json, and ``agentloop compare A B C D`` marks the Pareto-optimal runs."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from tests.harness.config.test_cost import (
    ANSWER_USAGE,
    CALL_USAGE,
    PRICE,
    SAMPLE_USD,
    _with_usage,
)
from tests.support.harness import add_setup, only_run_dir
from tests.support.openai_stub import StubResponse, StubServer, call, error, reply

N = 4  # questions 0..3, asking i + 1
EPOCHS = 2


def _handler(answer: Callable[[int, int], str | None]) -> Callable[[dict[str, Any]], Any]:
    """Calls add(i, 1), then answers ``answer(i, nth answer to i)``: the sum, a wrong
    answer, or None for a 400 (a request the provider refuses: the model's error)."""
    seen: Counter[int] = Counter()
    lock = threading.Lock()

    def handle(body: dict[str, Any]) -> StubResponse:
        first = body["messages"][0]["content"]
        i = int(first.split()[2])
        if body["messages"][-1]["role"] != "tool":
            return _with_usage(reply(tool_calls=[call("add", {"a": i, "b": 1}, id=f"c{i}")]),
                               CALL_USAGE)  # fmt: skip
        with lock:
            seen[i] += 1
            nth = seen[i]
        text = answer(i, nth)
        if text is None:
            return error(400, "maximum context length exceeded")
        return _with_usage(reply(text), ANSWER_USAGE)

    return handle


def _a(i: int, nth: int) -> str | None:
    # q0 always wrong; q1 refused once, then wrong; q2 right then wrong (flips); q3 right
    if i == 0 or (i == 1 and nth > 1) or (i == 2 and nth > 1):
        return "wrong"
    return None if i == 1 else str(i + 1)


def _run(tmp: Path, name: str, answer: Callable[[int, int], str | None], **fields: Any) -> Path:
    folder = tmp / name
    folder.mkdir()
    with StubServer(handler=_handler(answer)) as stub:
        config = add_setup(folder, n=N, model="openai:m", preflight=False, epochs=EPOCHS,
                           concurrency=1, model_options={"base_url": stub.url},
                           **fields)  # fmt: skip
        assert main(["run", str(config)]) == 0
    return only_run_dir(folder / "runs")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Path]]:
    tmp = tmp_path_factory.mktemp("reliability")
    dear = {k: 2 * v for k, v in PRICE.items()}
    yield [
        _run(tmp, "a", _a, prices={"openai:m": PRICE}),  # cheap, 3 of 8 passed
        _run(tmp, "b", lambda i, n: str(i + 1), prices={"openai:m": dear}),  # dear, all
        # as dear as b, and worse: dominated
        _run(tmp, "c", lambda i, n: "wrong" if i == 0 else str(i + 1), prices={"openai:m": dear}),
        _run(tmp, "d", lambda i, n: str(i + 1)),  # no price: not placed
    ]


def test_the_summary_has_reliability_causes_and_cost_per_pass(runs: list[Path]) -> None:
    summary = json.loads((runs[0] / "summary.json").read_text())
    found = summary["reliability"]["qa_f1_reward"]
    assert found["passed"] == 3 and found["without_verdict"] == 1
    failed = found["errors_counted_failed"]
    # q0, q1 never passed; q2 flipped; q3 always passed
    assert (failed["repeated_tasks"], failed["flipped"]) == (4, 1)
    assert (failed["always_passed"], failed["never_passed"]) == (1, 2)
    assert failed["flip_rate"] == 0.25 and failed["consistency"] == 0.75
    assert failed["pass_hat_k"] == summary["rewards"]["qa_f1_reward"]["pass_hat_k"]
    left = found["errors_left_out"]
    # q1's refused epoch dropped: one trial left, no longer a repeated task
    assert (left["tasks"], left["repeated_tasks"], left["never_passed"]) == (4, 3, 1)
    # the refused request is the model's error; 7 results made both requests, the
    # refused one its tool call only (its cost as agentloop prices an errored request)
    assert summary["error_causes"]["results"] == {
        "model": 1, "tool": 0, "environment": 0, "infrastructure": 0,
    }  # fmt: skip
    assert summary["cost_usd"] > 7 * SAMPLE_USD
    assert summary["cost_per_pass_usd"]["qa_f1_reward"] == pytest.approx(summary["cost_usd"] / 3)


def test_agentloop_summary_prints_them(
    runs: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    main(["summary", str(runs[0])])
    out = capsys.readouterr().out
    assert "Reliability across epochs" in out
    rows = {cells[1]: cells[2:8] for cells in map(_cells, out.splitlines()) if len(cells) == 8}
    assert rows["counted failed"] == ["4 of 4", "0.250", "0.250", "0.500", "0.750", "pass^2 0.250"]
    # left out: q1 has one trial left; of q0, q2, q3: one never, one flipped, one always
    assert rows["left out"] == ["3 of 4", "0.333", "0.333", "0.333", "0.667", "-"]
    assert "Errors by cause" in out
    per_pass = next(_cells(x) for x in out.splitlines() if "cost per pass" in x)
    assert per_pass == ["cost per pass (USD)", "qa_f1_reward: 0.013167"]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("│").split("│")]


def _front(out: str) -> dict[str, str]:
    """run label -> its Pareto column, from the printed accuracy-cost table."""
    start = out.index("qa_f1_reward: accuracy and cost")
    rows = {}
    for cells in map(_cells, out[start:].splitlines()[1:]):
        if len(cells) == 5 and cells[0] in ("A", "B", "C", "D"):
            rows[cells[0]] = cells[4]
    return rows


def test_compare_marks_the_pareto_front(
    runs: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *map(str, runs)]) == 0
    out = capsys.readouterr().out
    assert _front(out) == {"A": "yes", "B": "yes", "C": "no", "D": "not placed"}
    assert "not placed: D: no cost data: 8 of 8 result(s) have no known cost" in out
    assert main(["compare", *map(str, runs), "--json"]) == 0
    (table,) = json.loads(capsys.readouterr().out)["cost_accuracy"]
    assert [row["pareto"] for row in table["rows"]] == [True, True, False, None]
    assert [row["score"] for row in table["rows"]] == [3 / 8, 1.0, 0.75, 1.0]


def test_two_runs_compared_have_the_table_too(
    runs: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", str(runs[1]), str(runs[2])]) == 0
    assert _front(capsys.readouterr().out) == {"A": "yes", "B": "no"}

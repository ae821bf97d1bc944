"""A conversation with a simulated user in ``agentloop show`` and the report's data: the
user's messages as the user's, its own side (instructions, calls, results), the stop
reason and signal."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentloop.cli import main
from agentloop.cli._view_data import find_result, load_run, sample_detail
from tests.support.harness import only_run_dir
from tests.support.help_desk import conversation_config


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("conversation")
    assert main(["run", str(conversation_config(tmp))]) == 0
    return only_run_dir(tmp / "runs")


def test_the_detail_holds_both_sides_with_who_said_what(run_dir: Path) -> None:
    detail = sample_detail(find_result(run_dir, "ann"))
    assert (detail["stop_reason"], detail["stop_signal"]) == ("user_stop", "###STOP###")
    said = [(m["role"], m.get("content")) for m in detail["messages"] if m["role"] == "user"]
    assert said == [("user", "Please move me to gold."), ("user", "Done, it is on."),
                    ("user", "Thanks! ###STOP###")]  # fmt: skip
    side = detail["user_messages"]
    assert [m.get("who") or m["role"] for m in side] == [
        "user instructions", "agent", "simulated user", "agent", "simulated user", "tool",
        "simulated user", "agent", "simulated user",
    ]  # fmt: skip
    # Its replies are drawn as the user's, its call with its outcome beside it.
    (asking,) = [m for m in side if m.get("tool_calls")]
    assert asking["role"] == "user"
    assert asking["tool_calls"][0]["name"] == "switch_modem"
    assert asking["tool_calls"][0]["status"] == "ok"
    (result,) = [m for m in side if m["role"] == "tool"]
    assert (result["content"], result["status"]) == ("the modem is on", "ok")
    assert load_run(run_dir)["details"][0]["user_messages"]  # what the report embeds


def test_show_prints_the_users_side_and_the_stop_signal(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", str(run_dir), "ann"]) == 0
    out = capsys.readouterr().out
    assert "stop user_stop (###STOP###)" in out
    conversation, user_side = out.split("the simulated user's side", 1)
    assert "switch_modem" not in conversation  # the agent never saw the user's calls
    assert "simulated user" in user_side and "user instructions" in user_side
    assert "switch_modem ok" in user_side and "the modem is on" in user_side

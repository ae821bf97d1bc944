"""``agentloop run`` with a simulated user (config ``user:``): a scripted agent and a scripted
user on a stateful environment, replay of the whole conversation, resume checks, config
errors, and the live path against the loopback OpenAI stub (with the response cache)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.errors import ConfigError
from agentloop.harness.config._loading import load_config, validate_config
from tests.support.harness import only_run_dir, read_results, write_json, write_jsonl
from tests.support.help_desk import USER_SCRIPT, agent_script, desk_row
from tests.support.help_desk import conversation_config as setup
from tests.support.openai_stub import StubResponse, StubServer, reply
from tests.support.openai_stub import call as stub_call


def without_timings(value: Any) -> Any:
    """A trajectory with its measured times taken out (they differ from run to run)."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items()
                if k not in ("latency_s", "duration_s", "wall_time_s")}  # fmt: skip
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def test_a_scripted_agent_and_a_scripted_user_converse_on_a_shared_state(tmp_path: Path) -> None:
    assert main(["run", str(setup(tmp_path))]) == 0
    lines = {line["id"]: line for line in read_results(only_run_dir(tmp_path / "runs"))}
    for name, line in lines.items():
        assert (line["status"], line["stop_reason"]) == ("ok", "user_stop")
        trajectory = line["trajectory"]
        assert trajectory["stop_signal"] == "###STOP###"
        # Each turn's state: the agent's change, then the user's own (dual control).
        assert [t["state"] for t in trajectory["turns"]] == [
            {"customers": {name: "gold"}, "modem": "off"},
            {"customers": {name: "gold"}, "modem": "on"},
            {"customers": {name: "gold"}, "modem": "on"},
        ]
        # The user's instructions carry the row's scenario as indented JSON.
        system = trajectory["user_messages"][0]
        assert system["role"] == "system"
        assert system["content"] == "You are a customer.\n" + json.dumps(
            {"name": name, "goal": "gold plan and a working modem"}, indent=2
        )
        assert [m["role"] for m in trajectory["messages"]] == [
            "assistant", "user", "assistant", "tool", "assistant", "user", "assistant", "user",
        ]  # fmt: skip
        assert line["request"]["user"]["tools"] == ["switch_modem", "modem_light"]
        assert line["request"]["tools"] == ["lookup", "change_plan"]


def test_replay_reproduces_the_whole_conversation_offline(tmp_path: Path) -> None:
    config = setup(tmp_path)
    assert main(["run", str(config)]) == 0
    first = only_run_dir(tmp_path / "runs")
    again = tmp_path / "again"
    # --model replay: alone replays the user too: no model in this run is a live one.
    assert main(["run", str(config), "--model", f"replay:{first}",
                 "--output-dir", str(again)]) == 0  # fmt: skip
    recorded = {line["id"]: line for line in read_results(first)}
    for line in read_results(only_run_dir(again)):
        assert line["status"] == "ok", line["error"]
        want = without_timings(recorded[line["id"]]["trajectory"])
        assert without_timings(line["trajectory"]) == want


def test_a_replayed_agent_keeps_a_user_model_set_on_the_command_line(tmp_path: Path) -> None:
    config = setup(tmp_path, [desk_row("ann")])
    assert main(["run", str(config)]) == 0
    first = only_run_dir(tmp_path / "runs")
    flags = {"model": f"replay:{first}"}
    with_user = load_config(config, [], flags)
    assert with_user.user is not None and with_user.user.model == f"replay:{first}"
    kept = load_config(config, ["user.model=scripted:other.json"], flags)
    assert kept.user is not None and kept.user.model == "scripted:other.json"
    whole = load_config(config, ["user={model: 'scripted:other.json'}"], flags)
    assert whole.user is not None and whole.user.model == "scripted:other.json"
    # A config without a simulated user does not gain one.
    (tmp_path / "plain").mkdir()
    plain = setup(tmp_path / "plain", [desk_row("ann")], user=None)
    assert load_config(plain, [], flags).user is None


def test_a_replayed_user_asked_something_new_fails_loudly(tmp_path: Path) -> None:
    config = setup(tmp_path, [desk_row("ann")])
    assert main(["run", str(config)]) == 0
    first = only_run_dir(tmp_path / "runs")
    # The agent now says something else: the user's second request was never recorded.
    script = agent_script("ann")
    script[1] = "You are on gold now."
    write_json(tmp_path / "agent.json", {"ann": script})
    again = tmp_path / "again"
    assert main(["run", str(config), "--set", f"user.model=replay:{first}",
                 "--output-dir", str(again)]) == 1  # fmt: skip (its one result errored)
    (line,) = read_results(only_run_dir(again))
    assert (line["status"], line["error_kind"], line["stop_reason"]) == (
        "error", "user_model", "user_error",
    )  # fmt: skip
    where = "replay: sample 'ann' epoch 1, user model call 2: message 3 (user) differs"
    assert where in line["error"]


def test_a_user_replayed_from_a_run_without_one_has_no_recording(tmp_path: Path) -> None:
    config = setup(tmp_path, [desk_row("ann")])
    assert main(["run", str(config)]) == 0
    first = only_run_dir(tmp_path / "runs")
    lines = read_results(first)
    for line in lines:  # the same run as if recorded without a simulated user
        line["trajectory"].update(user_messages=[], user_steps=[])
    write_jsonl(first / "results.jsonl", lines)
    again = tmp_path / "again"
    assert main(["run", str(config), "--set", f"user.model=replay:{first}",
                 "--output-dir", str(again)]) == 1  # fmt: skip (its one result errored)
    (line,) = read_results(only_run_dir(again))
    assert line["error_kind"] == "user_model"
    assert "user model call 1: the user's side of the recording has only 0 model call(s)" in (
        line["error"]
    )


def test_resume_refuses_a_changed_user_setting_and_a_changed_user_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = setup(tmp_path)
    assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    capsys.readouterr()
    assert main(["run", str(config), "--resume", str(run_dir), "--set", "user.max_turns=3"]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: cannot resume {run_dir}: the config differs from the run's in: user\n"
    )
    write_json(tmp_path / "user.json", [*USER_SCRIPT[:-1], "Bye ###STOP###"])
    assert main(["run", str(config), "--resume", str(run_dir)]) == 2
    assert "changed since the run started: scripted user model" in capsys.readouterr().err


def test_limits_and_signals_come_from_the_config(tmp_path: Path) -> None:
    user = {"model": f"scripted:{tmp_path / 'user.json'}", "max_turns": 1,
            "stop_signals": ["Thanks!"], "max_steps": 50, "max_errors": 3}  # fmt: skip
    config = setup(tmp_path, [desk_row("ann")], max_rounds=0, user=user)
    write_json(tmp_path / "user.json", USER_SCRIPT)
    assert main(["run", str(config)]) == 0
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["stop_reason"] == "max_turns"
    # max_rounds: 0, the agent's call is refused and it answers at once.
    assert line["tool_calls_by_status"] == {"round_limit": 1}


def test_rows_and_config_that_do_not_go_together_are_errors_of_their_sample(
    tmp_path: Path,
) -> None:
    plain = {"id": "plain", "messages": [{"role": "user", "content": "hi"}]}
    config = setup(tmp_path, [desk_row("ann"), plain])
    assert main(["run", str(config)]) == 0
    lines = {line["id"]: line for line in read_results(only_run_dir(tmp_path / "runs"))}
    assert lines["plain"]["error_kind"] == "dataset"
    assert "sample 'plain' has no user_scenario, and user.instructions uses {scenario}" in (
        lines["plain"]["error"]
    )
    no_user = setup(tmp_path, [desk_row("ann")], user=None, output_dir=str(tmp_path / "r2"))
    assert main(["run", str(no_user)]) == 1  # its one result errored
    (line,) = read_results(only_run_dir(tmp_path / "r2"))
    assert line["error_kind"] == "dataset"
    assert "the row has a user_scenario but the config no user:" in line["error"]


def test_user_config_errors_name_the_field(tmp_path: Path) -> None:
    base = {"model": "scripted:x.json", "dataset": "d.jsonl"}
    with pytest.raises(ConfigError, match=r"^c: user.max_turn: Extra inputs are not permitted "
                       r"\(did you mean 'max_turns'\?\)$"):  # fmt: skip
        validate_config({**base, "user": {"model": "scripted:u.json", "max_turn": 2}}, "c")
    with pytest.raises(ConfigError, match=r"^c: user.model: unknown model spec prefix 'nope'"):
        validate_config({**base, "user": {"model": "nope:x"}}, "c")
    with pytest.raises(ConfigError, match=r"^c: user.model: Field required"):
        validate_config({**base, "user": {}}, "c")
    with pytest.raises(ConfigError, match=r"^c: user.instructions: file not found: missing.md$"):
        validate_config({**base, "user": {"model": "scripted:u", "instructions": "@missing.md"}},
                        "c")  # fmt: skip
    with pytest.raises(ConfigError, match=r"^c: user.max_steps: Input should be greater than"):
        validate_config({**base, "user": {"model": "scripted:u", "max_steps": 0}}, "c")
    with pytest.raises(ConfigError, match=r"^c: user: score mode scores the rows as recorded"):
        validate_config({**base, "mode": "score", "user": {"model": "scripted:u"}}, "c")
    config = validate_config({**base, "environment": "m:make",
                              "user": {"model": "replay:runs/x"}})  # fmt: skip
    assert config.user is not None and config.user.model_options == {"replay_tools": "live"}
    assert config.user.stop_signals == ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"]
    assert (config.user.max_steps, config.user.max_errors, config.user.max_rounds) == (200, 10, 5)


def test_instructions_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "persona.md").write_text("Play this: {scenario} (and keep {braces})")
    write_json(tmp_path / "user.json", USER_SCRIPT)
    user = {"model": f"scripted:{tmp_path / 'user.json'}",
            "instructions": f"@{tmp_path}/persona.md"}  # fmt: skip
    config = setup(tmp_path, [desk_row("ann", user_scenario="a plain text scenario")], user=user)
    assert main(["run", str(config)]) == 0
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert line["trajectory"]["user_messages"][0]["content"] == (
        "Play this: a plain text scenario (and keep {braces})"
    )
    header = json.loads((only_run_dir(tmp_path / "runs") / "run.json").read_text())
    assert f"user instructions @{tmp_path}/persona.md" in header["inputs"]


def openai_only(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k != "langchain"} for m in messages]


class HelpDeskServer:
    """Answers the agent and the user, told apart by the tools they are offered."""

    def __call__(self, body: dict[str, Any]) -> StubResponse:
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        messages = body["messages"]
        if "switch_modem" in tools:  # the simulated user
            said = sum(m["role"] == "assistant" for m in messages)
            usage = {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}
            return reply(["Move me to gold.", "Thanks! ###STOP###"][min(said, 1)], usage=usage)
        usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
        if messages[-1]["role"] == "tool":
            return reply("You are on gold.", usage=usage)
        call = stub_call("change_plan", {"name": "ann", "plan": "gold"}, "c1")
        return reply(tool_calls=[call], usage=usage)


def test_the_user_model_live_through_openai_and_cached(tmp_path: Path) -> None:
    with StubServer(handler=HelpDeskServer()) as stub:
        live = {"base_url": stub.url, "api_key_env": "STUB_KEY"}
        config = setup(
            tmp_path, [desk_row("ann")], model="openai:stub-model", model_options=live,
            preflight=False, cache=str(tmp_path / "cache"),
            prices={"openai:stub-model": {"input": 1, "output": 2},
                    "openai:stub-user": {"input": 10, "output": 100}},
            user={"model": "openai:stub-user", "model_options": live,
                  "model_params": {"temperature": 0.5},
                  "instructions": "You are a customer. {scenario}"},
        )  # fmt: skip
        env = {"STUB_KEY": "sk-stub"}
        with pytest.MonkeyPatch.context() as patch:
            for key, value in env.items():
                patch.setenv(key, value)
            assert main(["run", str(config)]) == 0
            (line,) = read_results(only_run_dir(tmp_path / "runs"))
            assert (line["status"], line["stop_reason"]) == ("ok", "user_stop")
            users = [r for r in stub.requests if r["model"] == "stub-user"]
            assert len(users) == 2 and len(stub.requests) == 4
            assert users[0]["temperature"] == 0.5
            assert users[0]["messages"][0]["content"].startswith("You are a customer. {\n")
            assert users[1]["messages"][1:] == [
                {"role": "user", "content": "Hi! How can I help you today?"},
                {"role": "assistant", "content": "Move me to gold."},
                {"role": "user", "content": "You are on gold."},
            ]
            assert line["trajectory"]["user_usage"]["total_tokens"] == 18
            # Both sides are billed, each at its own model's price (USD per million tokens).
            agent_usd, user_usd = 2 * (3 * 1 + 1 * 2), 2 * (7 * 10 + 2 * 100)
            assert line["cost_usd"] == pytest.approx((agent_usd + user_usd) / 1e6)
            header = json.loads((only_run_dir(tmp_path / "runs") / "run.json").read_text())
            assert header["user_pricing"]["usd_per_million"] == {"input": 10.0, "output": 100.0}
            # The same run again: every reply of both sides comes from the cache.
            assert main(["run", str(config), "--output-dir", str(tmp_path / "again")]) == 0
            assert len(stub.requests) == 4
            (cached,) = read_results(only_run_dir(tmp_path / "again"))
            assert cached["cache"] == {"hits": 4, "misses": 0}
            assert cached["cost_usd"] == 0.0  # nothing was requested, nothing billed
            for side in ("messages", "user_messages"):  # as sent (reply ids and costs differ)
                assert openai_only(cached["trajectory"][side]) == openai_only(
                    line["trajectory"][side]
                )


def test_a_row_with_no_opening_lets_the_user_speak_first(tmp_path: Path) -> None:
    config = setup(tmp_path, [desk_row("ann", messages=[])], system_prompt="You help customers.")
    assert main(["run", str(config)]) == 0
    (line,) = read_results(only_run_dir(tmp_path / "runs"))
    assert (line["status"], line["stop_reason"]) == ("ok", "user_stop")
    messages = line["trajectory"]["messages"]
    assert [m["role"] for m in messages[:2]] == ["system", "user"]
    assert messages[1]["content"] == "Please move me to gold."
    # Its own view opens with its instructions only.
    assert [m["role"] for m in line["trajectory"]["user_messages"][:2]] == ["system", "assistant"]


def test_rewards_and_factories_see_the_rows_scenario() -> None:
    from agentloop.harness.data._rows import parse_line
    from agentloop.harness.run._tools import sample_row

    sample = parse_line(json.dumps(desk_row("ann")), 1)
    assert sample_row(sample)["user_scenario"] == {
        "name": "ann", "goal": "gold plan and a working modem",
    }  # fmt: skip
    assert "user_scenario" not in sample_row(parse_line(json.dumps({"messages": [
        {"role": "user", "content": "hi"}]}), 2))  # fmt: skip


def test_the_users_price_in_run_json_is_the_one_each_result_is_charged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run.json priced the user at model_options.base_url (unset: OpenAI's own host, so a
    # known price) while each result was charged at the endpoint the source resolved
    # (OPENAI_BASE_URL: a server the table has no price for).
    with StubServer(handler=HelpDeskServer()) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stub")
        config = setup(tmp_path, [desk_row("ann")], model="openai:gpt-4o-mini", preflight=False,
                       user={"model": "openai:gpt-4o-mini",
                             "instructions": "You are a customer. {scenario}"})  # fmt: skip
        assert main(["run", str(config)]) == 0
    run_dir = only_run_dir(tmp_path / "runs")
    (line,) = read_results(run_dir)
    header = json.loads((run_dir / "run.json").read_text())
    assert header["user_base_url"] == header["base_url"] == stub.url
    for pricing in (header["pricing"], header["user_pricing"]):
        assert pricing["usd_per_million"] is None and "127.0.0.1" in pricing["source"]
    assert line["cost_usd"] is None

"""tau2_verdict: τ²-bench's reward components on known conversations (the ground truth, and
perturbations that each fail the right component), the stop-reason gate, the NL judge
(scripted), and the verdict read from a trajectory the engine recorded."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from agentloop.benchmarks import tau2_verdict
from agentloop.benchmarks.tau2._data import tau2_rows
from agentloop.benchmarks.tau2._env import same_state, tau2_environment
from agentloop.benchmarks.tau2._verdict import (
    Conversation,
    conversation_of,
    tau2_judged,
    tau2_score,
)
from agentloop.engine import run_agent_sync
from agentloop.testing import ScriptedChatModel


def _row(domain: str, task_id: str) -> dict[str, Any]:
    return next(r for r in tau2_rows(domain) if r["id"] == task_id)


def _criteria(row: dict[str, Any]) -> dict[str, Any]:
    return row["ground_truth"]["evaluation_criteria"]


def _canonical(row: dict[str, Any]) -> list[tuple[str, str, dict[str, Any], bool]]:
    return [
        (a.get("requestor") or "assistant", a["name"], dict(a["arguments"]), True)
        for a in _criteria(row).get("actions") or []
    ]


def _said(row: dict[str, Any]) -> list[str]:
    return [" ".join(_criteria(row).get("communicate_info") or []) or "Done."]


def _score(
    row: dict[str, Any],
    calls: list,
    texts: list[str] | None = None,
    stop: str = "user_stop",
    **options: Any,
):
    conversation = Conversation(
        stop_reason=stop, calls=calls, agent_texts=_said(row) if texts is None else texts
    )
    return tau2_score(conversation, row, **options)


def _airline_with_write() -> dict[str, Any]:
    """An airline task whose ground truth changes the database and must be communicated."""
    return next(
        r
        for r in tau2_rows("airline")
        if any(
            a["name"].startswith(("update", "book", "cancel"))
            for a in _criteria(r)["actions"] or []
        )
    )


def test_the_ground_truth_passes_every_component() -> None:
    for row in [_row("mock", "create_task_1"), _airline_with_write(), next(tau2_rows("retail"))]:
        result = _score(row, _canonical(row))
        assert result.score == 1.0, (row["id"], result.reason)
        assert result.details.db_match is True
        assert all(a.matched for a in result.details.actions)
        assert result.details.breakdown == {b: 1.0 for b in row["metadata"]["reward_basis"]}


def test_a_task_whose_expected_actions_changed_in_1_0_is_scored_by_the_new_criteria() -> None:
    # airline task 2: before τ²-bench 1.0 the ground truth sent a delayed-flight certificate,
    # which the policy does not allow for this passenger; 1.0 expects none
    new = _row("airline", "2")
    old = next(r for r in tau2_rows("airline", task_set="0.2") if r["id"] == "2")
    no_certificate = _canonical(new)  # the lookups only
    assert [c[1] for c in _canonical(old)][-1] == "send_certificate"
    assert _score(new, no_certificate).score == 1.0
    result = _score(old, no_certificate)
    assert result.score == 0.0 and result.details.db_match is False
    assert result.details.db_reason.startswith(
        "the agent's databases differ from the ground truth's: the agent changed nothing in "
        'db.users, where the ground truth changed {"noah_muller_9847"'
    )
    assert [a.name for a in result.details.actions if not a.matched] == ["send_certificate"]


def test_a_dropped_write_fails_the_db_check_and_says_where() -> None:
    row = _airline_with_write()
    calls = _canonical(row)
    last_write = max(
        i for i, c in enumerate(calls) if c[1].startswith(("update", "book", "cancel"))
    )
    result = _score(row, calls[:last_write] + calls[last_write + 1 :])
    assert result.score == 0.0
    assert result.details.db_match is False
    assert result.details.breakdown["DB"] == 0.0
    assert result.reason.startswith("DB: the agent's databases differ from the ground truth's: ")


def test_a_wrong_argument_fails_db_and_the_action_check() -> None:
    row = _row("mock", "create_task_1")
    [(side, name, args, ran)] = _canonical(row)
    wrong = [(side, name, {**args, "title": "Unimportant Meeting"}, ran)]
    result = _score(row, wrong)
    assert result.details.db_match is False
    assert "tasks.task_2.title" in result.details.db_reason
    assert [a.matched for a in result.details.actions] == [False]
    assert result.score == 0.0  # mock's default basis: DB, COMMUNICATE


def test_an_extra_write_fails_only_the_db_check() -> None:
    row = _row("mock", "create_task_1")
    extra = [
        *_canonical(row),
        ("assistant", "create_task", {"user_id": "user_1", "title": "More"}, True),
    ]
    result = _score(row, extra)
    assert result.details.db_match is False
    assert result.details.db_reason == (
        "the agent's databases differ from the ground truth's: the agent changed "
        'db.tasks.task_3 (to {"task_id": "task_3", "title": "More", "description": null, '
        '"status": "pending"}), which the ground truth left unchanged'
    )
    assert all(a.matched for a in result.details.actions)


def test_no_write_is_said_to_change_nothing_the_ground_truth_changed() -> None:
    # the snapshots hold changes: a table the agent never wrote is absent from its snapshot
    row = _row("mock", "create_task_1")
    result = _score(row, [])
    assert result.score == 0.0 and result.details.db_match is False
    assert result.reason.startswith(
        "DB: the agent's databases differ from the ground truth's: the agent changed nothing "
        'in db.tasks, where the ground truth changed {"task_2": {"task_id": "task_2", '
    )
    assert "is missing" not in result.reason


def test_a_call_that_did_not_run_changes_nothing() -> None:
    row = _row("mock", "create_task_1")
    extra = [
        *_canonical(row),
        ("assistant", "create_task", {"user_id": "user_1", "title": "x"}, False),
    ]
    assert _score(row, extra).details.db_match is True


def test_actions_compare_only_their_compare_args() -> None:
    row = _row("mock", "impossible_task_1")  # transfer with compare_args [] and basis DB, ACTION
    assert row["metadata"]["reward_basis"] == ["DB", "ACTION"]
    call = [("assistant", "transfer_to_human_agents", {"summary": "anything at all"}, True)]
    assert _score(row, call).score == 1.0
    result = _score(row, [])
    assert result.score == 0.0 and result.reason == (
        "ACTION: no call matches transfer_to_human_agents (transfer_1)"
    )
    # no compare_args: the call's own arguments are compared, the action's others ignored
    row = _row("mock", "create_task_1")
    partial = [("assistant", "create_task", {"title": "Important Meeting"}, False)]
    assert [a.matched for a in _score(row, partial).details.actions] == [True]


def test_communicated_information_is_found_as_tau2_finds_it() -> None:
    row = next(r for r in tau2_rows("airline") if _criteria(r).get("communicate_info"))
    info = _criteria(row)["communicate_info"][0]
    said = [f"Sure. The answer is {info.upper()}."]
    assert _score(row, _canonical(row), said).details.communicate[0].met
    result = _score(row, _canonical(row), ["I cannot tell."])
    assert result.details.breakdown["COMMUNICATE"] == 0.0
    assert result.reason == f"COMMUNICATE: not said: {info!r}"
    if info.isdigit() and len(info) > 3:  # commas are removed from the agent's text
        grouped = f"{int(info):,}"
        assert _score(row, _canonical(row), [grouped]).details.communicate[0].met


def test_env_assertions_run_on_the_agents_final_state() -> None:
    row = _row("mock", "update_task_with_history_and_env_assertions")
    assert row["metadata"]["reward_basis"] == ["ENV_ASSERTION"]
    done = [("assistant", "update_task_status", {"task_id": "task_2", "status": "completed"}, True)]
    assert _score(row, done).score == 1.0
    result = _score(row, [])
    assert result.score == 0.0
    assert result.reason == (
        "ENV_ASSERTION: assert_task_status returned False, not as asserted (True)"
    )
    raising = _score(_row("mock", "create_task_1_with_env_assertions"), [])
    assert raising.details.env_assertions[0].reason == (
        "assert_task_status raised ValueError: Task task_2 not found"
    )


def test_an_env_assertion_that_raises_is_unmet_here_and_tau2s_infrastructure_error() -> None:
    row = _row("mock", "create_task_1_with_env_assertions")  # asserts on task_2: never created
    result = _score(row, [])
    [check] = result.details.env_assertions
    assert (check.met, check.raised) == (False, True)
    assert result.score == 0.0  # agentloop's rule: unmet
    assert result.details.tau2_error == (
        "infrastructure error: the env assertion assert_task_status raised ValueError: Task "
        "task_2 not found (τ²-bench's evaluator raises; its metrics leave the simulation out)"
    )
    assert result.reason.endswith(f" [τ²-bench: {result.details.tau2_error}]")
    # an assertion that returns is unmet without that label
    unmet = _score(_row("mock", "update_task_with_history_and_env_assertions"), [])
    assert unmet.details.env_assertions[0].raised is False
    assert unmet.details.tau2_error is None and "τ²-bench:" not in unmet.reason


def test_a_retyped_number_fails_the_db_check_as_in_tau2s_hashes() -> None:
    # airline task 12 ends with update_reservation_baggages(total_baggages=2, nonfree=0): an
    # agent that sends 2.0 (or False) leaves that in the database, which τ²-bench's hash of
    # the JSON dump tells apart from 2 (and 0), though Python's == does not
    row = _row("airline", "12")
    calls = _canonical(row)
    assert calls[-1][1] == "update_reservation_baggages" and calls[-1][2]["total_baggages"] == 2
    assert _score(row, calls).score == 1.0

    def retyped(**change: Any) -> list:
        return [*calls[:-1], (*calls[-1][:2], {**calls[-1][2], **change}, True)]

    result = _score(row, retyped(total_baggages=2.0))
    assert result.score == 0.0 and result.details.db_match is False
    assert result.details.db_reason == (
        "the agent's databases differ from the ground truth's: "
        "db.reservations.YAX4DR.total_baggages: 2.0 where 2 was expected"
    )
    result = _score(row, retyped(nonfree_baggages=False))
    assert result.details.db_reason.endswith("nonfree_baggages: false where 0 was expected")
    assert same_state({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]})
    assert not same_state({"a": 2}, {"a": 2.0}) and not same_state([True], [1])


@pytest.mark.parametrize("stop", ["max_steps", "too_many_errors", "max_turns", "final"])
def test_a_conversation_that_did_not_end_by_a_stop_scores_0(stop: str) -> None:
    row = _row("mock", "create_task_1")
    result = _score(row, _canonical(row), stop=stop)
    assert result.score == 0.0
    assert result.reason.startswith(f"the conversation ended with {stop}, not by the user")
    assert _score(row, _canonical(row), stop="agent_stop").score == 1.0


def test_a_task_without_criteria_passes() -> None:
    row = {**_row("mock", "create_task_1"), "ground_truth": {"evaluation_criteria": None}}
    result = _score(row, [], texts=[])
    assert result.score == 1.0 and result.reason == "the task has no evaluation criteria"


class _Judge:
    """A Judge (``agentloop.evals.Judge``) with one scripted reply; keeps what it was asked."""

    model = "stub:judge"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.asked: list[list[dict[str, Any]]] = []

    async def ask(self, messages: Any, *, draw: int = 0) -> str:
        self.asked.append(list(messages))
        return self.reply


def _judge(verdicts: list[bool]) -> _Judge:
    reply = {
        "results": [
            {"expectedOutcome": f"outcome {i}", "reasoning": f"why {i}", "metExpectation": met}
            for i, met in enumerate(verdicts)
        ]
    }
    return _Judge(json.dumps(reply))


def _judged(row: dict[str, Any], judge: _Judge | None, stop: str = "user_stop") -> Any:
    conversation = Conversation(stop_reason=stop, agent_texts=["Done."],
                                transcript=[("assistant", "Done.")])  # fmt: skip
    return anyio.run(lambda: tau2_judged(conversation, row, judge=judge))


def test_nl_assertions_are_graded_by_the_judge_when_the_basis_has_them() -> None:
    base = _row("mock", "create_task_1_nl_eval")
    row = json.loads(json.dumps(base))
    _criteria(row)["reward_basis"] = ["NL_ASSERTION"]
    judge = _judge([True, True])
    passed = _judged(row, judge)
    assert passed.score == 1.0
    assert [c.reason for c in passed.details.nl_assertions] == ["why 0", "why 1"]
    [(system, user)] = judge.asked  # τ²-bench's prompt, the transcript and the outcomes
    assert system["role"] == "system" and "expectedOutcome" in system["content"]
    assert "assistant: Done." in user["content"]
    assert str(_criteria(row)["nl_assertions"]) in user["content"]
    failed = _judged(row, _judge([True, False]))
    assert failed.score == 0.0 and failed.reason == "NL_ASSERTION: 'outcome 1'"
    with pytest.raises(ValueError, match="is scored on NL assertions: give tau2_verdict a judge"):
        _judged(row, None)
    # not in the basis, or ended otherwise: the judge is not asked (as τ²-bench's evaluator)
    unasked = _judge([True])
    assert _judged(base, unasked).details.nl_assertions == []
    assert _judged(row, unasked, stop="max_steps").score == 0.0
    assert unasked.asked == []


def test_retail_1_0_is_graded_on_its_database_and_the_judges_nl_assertions() -> None:
    # τ²-bench 1.0 moved retail from COMMUNICATE to NL assertions: 40 of its 114 tasks
    judged = [
        r
        for r in tau2_rows("retail")
        if "NL_ASSERTION" in r["metadata"]["reward_basis"] and _criteria(r)["nl_assertions"]
    ]
    assert len(judged) == 40
    row = judged[0]
    assert row["metadata"]["reward_basis"] == ["DB", "NL_ASSERTION"]
    assertions = _criteria(row)["nl_assertions"]
    conversation = Conversation(
        stop_reason="user_stop", calls=_canonical(row), agent_texts=["Done."],
        transcript=[("assistant", "Done.")],
    )  # fmt: skip
    judge = _judge([True] * len(assertions))
    result = anyio.run(lambda: tau2_judged(conversation, row, judge=judge))
    assert result.score == 1.0 and result.details.breakdown == {"DB": 1.0, "NL_ASSERTION": 1.0}
    assert str(assertions) in judge.asked[0][1]["content"]
    unmet = _judge([True] * (len(assertions) - 1) + [False])
    result = anyio.run(lambda: tau2_judged(conversation, row, judge=unmet))
    assert result.score == 0.0 and result.details.breakdown["NL_ASSERTION"] == 0.0


def test_a_judge_reply_that_is_not_tau2s_json_is_an_error() -> None:
    row = json.loads(json.dumps(_row("mock", "create_task_1_nl_eval")))
    _criteria(row)["reward_basis"] = ["NL_ASSERTION"]
    with pytest.raises(ValueError, match="the NL-assertion judge's reply is not τ²-bench's JSON"):
        _judged(row, _Judge("all good"))


def test_the_verdict_reads_a_trajectory_the_engine_recorded() -> None:
    row = _row("mock", "create_task_1")
    env = tau2_environment(row)
    model = ScriptedChatModel(
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {
                            "name": "create_task",
                            "arguments": json.dumps(
                                {"user_id": "user_1", "title": "Important Meeting"}
                            ),
                        },
                    }
                ],
            },
            "Your task Important Meeting is created.",
        ]
    )
    trajectory = run_agent_sync(
        model,
        env.tools(),
        row["messages"]
        + [{"role": "user", "content": "Create a task called 'Important Meeting' for user_1."}],
    )
    conversation = conversation_of(trajectory)
    assert conversation.calls == [
        ("assistant", "create_task", {"user_id": "user_1", "title": "Important Meeting"}, True)
    ]
    assert conversation.agent_texts[0] == "Hi! How can I help you today?"
    assert conversation.transcript[0] == ("assistant", "Hi! How can I help you today?")
    assert env.databases()["db"]["tasks"]["task_2"]["title"] == "Important Meeting"
    # the engine alone ends with "final": τ²-bench scores it 0 (a simulated user stops it)
    result = anyio.run(lambda: tau2_verdict(trajectory, row))
    assert result.score == 0.0 and result.details.stop_reason == "final"
    assert (
        tau2_score(conversation.model_copy(update={"stop_reason": "user_stop"}), row).score == 1.0
    )


TELECOM_ROAMING = (
    "[mobile_data_issue]airplane_mode_on|user_abroad_roaming_enabled_off[PERSONA:None]"
)
TELECOM_OVERDUE = "[service_issue]overdue_bill_suspension|unseat_sim_card[PERSONA:Easy]"


def test_telecom_the_users_own_actions_are_replayed_for_the_env_assertions() -> None:
    row = _row("telecom", TELECOM_ROAMING)
    assert row["metadata"]["reward_basis"] == ["ENV_ASSERTION"]
    calls = _canonical(row)
    assert [c[:2] for c in calls] == [("user", "toggle_airplane_mode"), ("user", "toggle_roaming")]
    done = _score(row, calls)
    assert done.score == 1.0, done.reason
    assert done.details.db_match is True  # the phone's state equals the ground truth's
    assert [a.matched for a in done.details.actions] == [True, True]
    # without the user's roaming switch, mobile data stays off abroad
    half = _score(row, calls[:1])
    assert half.score == 0.0
    assert half.details.db_match is False
    assert half.reason.startswith(
        "ENV_ASSERTION: assert_mobile_data_status returned False, not as asserted (True); "
        "assert_internet_speed returned False"
    )
    # the same calls by the wrong side change nothing: the agent has no such tools
    wrong_side = _score(row, [("assistant", name, args, ran) for _, name, args, ran in calls])
    assert wrong_side.score == 0.0
    # an extra write on the phone: data saver mode slows the connection below "excellent"
    saver = _score(row, [*calls, ("user", "toggle_data_saver_mode", {}, True)])
    assert [c.met for c in saver.details.env_assertions] == [True, False]


def test_telecom_payments_go_both_ways_and_the_db_check_is_tau2s() -> None:
    row = _row("telecom", TELECOM_OVERDUE)
    calls = _canonical(row)
    sides = [(side, name) for side, name, _, _ in calls]
    assert ("user", "make_payment") in sides and ("assistant", "resume_line") in sides
    done = _score(row, calls)
    assert done.score == 1.0, done.reason
    assert [c.met for c in done.details.env_assertions] == [True, True]
    # τ²-bench runs the ground truth without syncing the sides, so there the user's payment
    # never reaches the carrier's bill: the DB check fails, outside this basis
    assert done.details.db_match is False
    assert done.details.db_reason.endswith('.status: "Paid" where "Awaiting Payment" was expected')
    unpaid = _score(row, [c for c in calls if c[1] != "make_payment"])
    assert unpaid.score == 0.0
    assert [c.met for c in unpaid.details.env_assertions] == [True, False]  # bill not paid
    assert unpaid.reason == (
        "ENV_ASSERTION: assert_no_overdue_bill returned False, not as asserted (True)"
    )

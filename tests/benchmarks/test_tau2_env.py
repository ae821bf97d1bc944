"""τ²-bench's domains as agentloop environments: tool schemas, result and error texts, state
changes, the task's initial state, and the tools through agentloop's dispatcher."""

from __future__ import annotations

import asyncio
import json

import pytest

from agentloop.benchmarks import tau2_environment
from agentloop.benchmarks.tau2._data import domain_db, tau2_rows
from agentloop.benchmarks.tau2._env import Tau2Environment
from agentloop.benchmarks.tau2._toolkit import result_text
from agentloop.engine import PendingCall, ToolDispatcher
from agentloop.errors import DatasetError


def _row(domain: str, task_id: str) -> dict:
    return next(r for r in tau2_rows(domain) if r["id"] == task_id)


def test_mock_tools_answer_and_change_the_state_as_tau2() -> None:
    env = Tau2Environment("mock")
    text, failed = env.call("assistant", "create_task", {"user_id": "user_1", "title": "Plan"})
    assert not failed
    assert json.loads(text) == {
        "task_id": "task_2",
        "title": "Plan",
        "description": None,
        "status": "pending",
    }
    state = env.databases()["db"]
    assert state["users"]["user_1"]["tasks"] == ["task_1", "task_2"]
    assert env.call(
        "assistant", "update_task_status", {"task_id": "task_9", "status": "completed"}
    ) == ("Error: Task task_9 not found", True)
    assert env.call("assistant", "create_task", {"user_id": "nobody", "title": "x"}) == (
        "Error: User nobody not found",
        True,
    )
    assert env.call("assistant", "get_users", {"verbose": True}) == (
        "Error: MockTools.get_users() got an unexpected keyword argument 'verbose'",
        True,
    )
    assert env.call("assistant", "delete_task", {}) == (
        "Error: Tool 'delete_task' not found.",
        True,
    )
    assert env.call("assistant", "transfer_to_human_agents", {"summary": "s"}) == (
        "Transfer successful",
        False,
    )


def test_a_snapshot_holds_the_changes_since_the_initial_state() -> None:
    env = Tau2Environment("mock")
    assert env.snapshot() == {"db": {}, "user_db": {}}
    env.call("assistant", "create_task", {"user_id": "user_1", "title": "Plan"})
    env.call("assistant", "update_task_status", {"task_id": "task_1", "status": "completed"})
    whole = env.databases()["db"]
    assert env.snapshot() == {
        "db": {
            "tasks": {"task_1": whole["tasks"]["task_1"], "task_2": whole["tasks"]["task_2"]},
            "users": {"user_1": whole["users"]["user_1"]},
        },
        "user_db": {},
    }
    # a task's initial state is the base: a fresh environment of that task has no changes
    row = next(r for r in tau2_rows("mock") if r["id"] == "update_task_with_initialization_actions")
    assert tau2_environment(row).snapshot() == {"db": {}, "user_db": {}}


def test_the_mock_user_has_its_notification_inbox_since_tau2_1_0() -> None:
    row = _row("mock", "update_task_with_user_tools")  # its initialization adds notif_1
    env = tau2_environment(row)
    assert [t.name for t in env.user_tools()] == ["check_notifications", "dismiss_notification"]
    text, failed = env.call("user", "check_notifications", {})
    assert not failed
    assert json.loads(text) == [
        {
            "notification_id": "notif_1",
            "message": "Task 'Test task' has been assigned to you.",
            "status": "unread",
            "task_id": "task_1",
        }
    ]
    assert env.call("user", "dismiss_notification", {"notification_id": "notif_1"}) == (
        "Notification notif_1 dismissed",
        False,
    )
    assert env.assertion("user", "assert_notification_status", {
        "notification_id": "notif_1", "expected_status": "read"})  # fmt: skip
    assert env.snapshot()["user_db"] == {
        "notifications": {"notif_1": {**json.loads(text)[0], "status": "read"}}
    }
    assert env.call("user", "dismiss_notification", {"notification_id": "notif_9"}) == (
        "Error: Notification notif_9 not found",
        True,
    )
    [schema] = env.tool_schemas("user")[1:]
    assert schema["description"] == "Dismiss (mark as read) a notification."
    assert schema["parameters"]["properties"]["notification_id"]["description"] == (
        "The ID of the notification to dismiss."
    )
    # the task set from before 1.0 has no user database for mock: no user side, as then
    old = next(r for r in tau2_rows("mock", task_set="0.2") if r["id"] == "update_task_1")
    assert old["environment"]["task_set"] == "0.2"
    assert tau2_environment(old).user_tools() == []


def test_each_environment_has_its_own_state() -> None:
    first, second = Tau2Environment("mock"), Tau2Environment("mock")
    first.call("assistant", "create_task", {"user_id": "user_1", "title": "Plan"})
    assert "task_2" not in second.databases()["db"]["tasks"]
    assert "task_2" not in Tau2Environment("mock").databases()["db"]["tasks"]


def test_the_schema_is_tau2s() -> None:
    [schema] = [s for s in Tau2Environment("mock").tool_schemas() if s["name"] == "create_task"]
    assert schema == {
        "name": "create_task",
        "description": "Create a new task for a user.",
        "parameters": {
            "properties": {
                "user_id": {
                    "description": "The ID of the user creating the task",
                    "title": "User Id",
                    "type": "string",
                },
                "title": {
                    "description": "The title of the task",
                    "title": "Title",
                    "type": "string",
                },
                "description": {
                    "default": None,
                    "description": "Optional description of the task",
                    "title": "Description",
                    "type": "string",
                },
            },
            "required": ["user_id", "title"],
            "title": "parameters",
            "type": "object",
        },
    }


def test_results_are_sent_as_tau2_sends_them() -> None:
    assert result_text("plain") == "plain"
    assert result_text(3) == '"3"'  # numbers become strings before json.dumps, as in τ²-bench
    assert result_text([1, True, None]) == '["1", "True", null]'


@pytest.mark.parametrize(
    ("task_id", "title"),
    [
        ("update_task_with_message_history", "Project Review"),  # a history's calls replayed
        ("update_task_with_initialization_data", "Project Review"),  # merged into the database
        ("update_task_with_initialization_actions", "Project Review"),  # run
    ],
)
def test_the_initial_state_is_applied(task_id: str, title: str) -> None:
    env = tau2_environment(_row("mock", task_id))
    db = env.databases()["db"]
    assert db["tasks"]["task_2"]["title"] == title
    assert db["users"]["user_1"]["tasks"] == ["task_1", "task_2"]
    assert db["users"]["user_1"]["name"] == "Test User"  # a merge keeps what it does not name


def test_a_row_without_a_tau2_environment_is_a_one_line_error() -> None:
    with pytest.raises(DatasetError, match="row 'x': environment: expected a τ²-bench task"):
        tau2_environment({"id": "x", "environment": {"initial_config": {}}})


def test_an_airline_booking_charges_and_books_as_tau2() -> None:
    env = Tau2Environment("airline")
    before = domain_db("airline")[0]
    flights = json.loads(
        env.call(
            "assistant",
            "search_direct_flight",
            {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"},
        )[0]
    )
    assert flights and all(f["status"] == "available" for f in flights)
    flight = flights[0]
    price = flight["prices"]["economy"]
    booking = {
        "user_id": "emma_kim_9957",
        "origin": "JFK",
        "destination": "SEA",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": flight["flight_number"], "date": "2024-05-20"}],
        "passengers": [{"first_name": "Emma", "last_name": "Kim", "dob": "1977-09-23"}],
        "payment_methods": [
            {"payment_id": "gift_card_9562694", "amount": 50},
            {"payment_id": "credit_card_5832574", "amount": price + 30 - 50},
        ],
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "insurance": "yes",
    }
    wrong = {**booking, "payment_methods": [{"payment_id": "credit_card_5832574", "amount": 1}]}
    assert env.call("assistant", "book_reservation", wrong) == (
        f"Error: Payment amount does not add up, total price is {price + 30}, but paid 1",
        True,
    )
    assert env.databases()["db"]["reservations"].keys() == before["reservations"].keys()
    text, failed = env.call("assistant", "book_reservation", booking)
    assert not failed
    reservation = json.loads(text)
    assert reservation["reservation_id"] == "HATHAT"
    assert reservation["created_at"] == "2024-05-15T15:00:00"
    db = env.databases()["db"]
    user = db["users"]["emma_kim_9957"]
    assert user["reservations"][-1] == "HATHAT"
    assert user["payment_methods"]["gift_card_9562694"]["amount"] == 103.0 - 50
    seats = db["flights"][flight["flight_number"]]["dates"]["2024-05-20"]["available_seats"]
    assert seats["economy"] == flight["available_seats"]["economy"] - 1


def test_airline_changes_and_their_errors() -> None:
    env = Tau2Environment("airline")
    old = domain_db("airline")[0]["reservations"]["EHGLP3"]
    text, _ = env.call(
        "assistant",
        "update_reservation_baggages",
        {
            "reservation_id": "EHGLP3",
            "total_baggages": 2,
            "nonfree_baggages": 1,
            "payment_id": "credit_card_5832574",
        },
    )
    assert json.loads(text)["payment_history"][-1] == {
        "payment_id": "credit_card_5832574",
        "amount": 50,
    }
    text, _ = env.call("assistant", "cancel_reservation", {"reservation_id": "EHGLP3"})
    cancelled = json.loads(text)
    assert cancelled["status"] == "cancelled"
    paid = [*old["payment_history"], {"payment_id": "credit_card_5832574", "amount": 50}]
    assert cancelled["payment_history"] == paid + [
        {"payment_id": p["payment_id"], "amount": -p["amount"]} for p in paid
    ]
    assert env.call(
        "assistant", "update_reservation_passengers", {"reservation_id": "EHGLP3", "passengers": []}
    ) == ("Error: Number of passengers does not match", True)
    assert env.call("assistant", "calculate", {"expression": "(200 - 50) / 3"}) == ("50.0", False)
    assert env.call("assistant", "calculate", {"expression": "__import__('os')"}) == (
        "Error: Invalid characters in expression",
        True,
    )
    assert env.call(
        "assistant", "send_certificate", {"user_id": "emma_kim_9957", "amount": 100}
    ) == ("Certificate certificate_3221322 added to user emma_kim_9957 with amount 100.", False)
    assert env.call("assistant", "get_flight_status", {"flight_number": "HAT000", "date": "x"}) == (
        "Error: Flight HAT000 not found",
        True,
    )


def test_a_retail_cancellation_refunds_a_gift_card_at_once() -> None:
    db = domain_db("retail")[0]
    order_id, order = next(
        (k, o)
        for k, o in db["orders"].items()
        if o["status"] == "pending"
        and o["payment_history"][0]["payment_method_id"].startswith("gift")
    )
    card = order["payment_history"][0]["payment_method_id"]
    balance = db["users"][order["user_id"]]["payment_methods"][card]["balance"]
    env = Tau2Environment("retail")
    assert env.call(
        "assistant", "cancel_pending_order", {"order_id": order_id, "reason": "bored"}
    ) == ("Error: Invalid reason", True)
    text, _ = env.call(
        "assistant", "cancel_pending_order", {"order_id": order_id, "reason": "no longer needed"}
    )
    after = json.loads(text)
    assert after["status"] == "cancelled" and after["cancel_reason"] == "no longer needed"
    assert after["payment_history"][-1]["transaction_type"] == "refund"
    refunded = env.databases()["db"]["users"][order["user_id"]]["payment_methods"][card]["balance"]
    assert refunded == round(balance + order["payment_history"][0]["amount"], 2)
    assert env.call(
        "assistant", "cancel_pending_order", {"order_id": order_id, "reason": "no longer needed"}
    ) == ("Error: Non-pending order cannot be cancelled", True)


def test_retail_item_changes_take_the_last_new_variant_as_tau2() -> None:
    db = domain_db("retail")[0]
    env = Tau2Environment("retail")
    for order_id, order in db["orders"].items():
        if order["status"] != "pending" or len(order["items"]) < 2:
            continue
        first, second = order["items"][0], order["items"][1]
        swaps = []
        for item in (first, second):
            variants = db["products"][item["product_id"]]["variants"]
            other = next(
                (v for k, v in variants.items() if k != item["item_id"] and v["available"]), None
            )
            swaps.append(other)
        if None in swaps or first["item_id"] == second["item_id"]:
            continue
        method = order["payment_history"][0]["payment_method_id"]
        args = {
            "order_id": order_id,
            "item_ids": [first["item_id"], second["item_id"]],
            "new_item_ids": [s["item_id"] for s in swaps],
            "payment_method_id": method,
        }
        text, failed = env.call("assistant", "modify_pending_order_items", args)
        if failed:
            continue
        items = json.loads(text)["items"]
        assert items[0]["item_id"] == swaps[0]["item_id"]
        assert items[0]["price"] == items[1]["price"] == swaps[1]["price"]
        assert json.loads(text)["status"] == "pending (item modified)"
        return
    pytest.fail("no pending order with two changeable items")


def test_a_tool_that_raises_answers_tau2s_error_text_through_the_dispatcher() -> None:
    env = Tau2Environment("mock")
    dispatcher = ToolDispatcher(env.tools())
    messages, records = asyncio.run(
        dispatcher.run(
            [
                PendingCall("c1", "create_task", {"user_id": "nobody", "title": "x"}),
                PendingCall("c2", "create_task", {"user_id": "user_1", "title": "y"}),
            ],
            parallel=False,
        )
    )
    assert messages[0].content == "Error: User nobody not found"
    # a failed call, as τ²-bench's tool message marks it (user.max_errors counts it)
    assert (records[0].status, records[1].status) == ("error", "ok")
    assert records[0].error == "Error: User nobody not found"
    assert "task_3" not in env.databases()["db"]["tasks"]
    # arguments reach the method unvalidated, as in τ²-bench: Python's own message
    [message], _ = asyncio.run(
        dispatcher.run([PendingCall("c3", "get_users", {"verbose": True})], parallel=False)
    )
    assert message.content == (
        "Error: MockTools.get_users() got an unexpected keyword argument 'verbose'"
    )
    assert json.loads(str(messages[1].content))["task_id"] == "task_2"
    assert env.databases()["db"]["tasks"]["task_2"]["title"] == "y"


def test_a_value_stored_with_another_type_is_kept_and_is_a_change() -> None:
    # an agent's 0.0 for an int field: stored as given (as in τ²-bench), dumped without
    # pydantic's serializer warning, and a change from 0 (τ²-bench's hashes tell them apart)
    env = Tau2Environment("airline")
    arguments = {"reservation_id": "YAX4DR", "total_baggages": 0.0, "nonfree_baggages": 0}
    text, failed = env.call(
        "assistant",
        "update_reservation_baggages",
        {**arguments, "payment_id": "credit_card_4938634"},
    )
    assert not failed and '"total_baggages": 0.0,' in text  # as stored, as in τ²-bench
    assert domain_db("airline")[0]["reservations"]["YAX4DR"]["total_baggages"] == 0
    changed = env.snapshot()["db"]["reservations"]["YAX4DR"]
    assert changed["total_baggages"] == 0.0 and isinstance(changed["total_baggages"], float)

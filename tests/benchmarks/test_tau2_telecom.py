"""τ²-bench's telecom domain (dual control): the carrier's agent tools and the customer's phone
tools on one state, the tasks' initialization actions, the sync of the two sides, τ²-bench's
texts and errors, and each environment's own state."""

from __future__ import annotations

import json
from typing import Any

from agentloop.benchmarks import tau2_environment
from agentloop.benchmarks.tau2._data import tau2_rows
from agentloop.benchmarks.tau2._env import Tau2Environment

ROAMING_TASK = "[mobile_data_issue]airplane_mode_on|user_abroad_roaming_enabled_off[PERSONA:None]"
OVERDUE_TASK = "[service_issue]overdue_bill_suspension|unseat_sim_card[PERSONA:Easy]"


def _task_env(task_id: str) -> Tau2Environment:
    row = next(r for r in tau2_rows("telecom") if r["id"] == task_id)
    return tau2_environment(row)


def _user(env: Tau2Environment, name: str, **arguments: Any) -> str:
    text, failed = env.call("user", name, arguments)
    assert not failed, text
    return text


def test_both_sides_have_tau2s_tools_in_tau2s_order() -> None:
    env = Tau2Environment("telecom")
    assert [t.name for t in env.tools()] == [
        "get_customer_by_phone",
        "get_customer_by_id",
        "get_customer_by_name",
        "get_details_by_id",
        "suspend_line",
        "resume_line",
        "get_bills_for_customer",
        "send_payment_request",
        "get_data_usage",
        "enable_roaming",
        "disable_roaming",
        "transfer_to_human_agents",
        "refuel_data",
    ]
    user = {t.name: t for t in env.user_tools()}
    assert len(user) == 30
    assert {"toggle_airplane_mode", "reseat_sim_card", "make_payment", "run_speed_test"} <= set(
        user
    )
    assert not {"turn_airplane_mode_on", "break_vpn", "assert_can_send_mms"} & set(user)
    [mode] = [s for s in env.tool_schemas("user") if s["name"] == "set_network_mode_preference"]
    assert mode["parameters"]["$defs"]["NetworkModePreference"]["enum"] == [
        "4g_5g_preferred",
        "4g_only",
        "3g_only",
        "2g_only",
    ]
    assert mode["parameters"]["properties"]["mode"]["anyOf"][1] == {"type": "string"}
    [grant] = [s for s in env.tool_schemas("user") if s["name"] == "grant_app_permission"]
    assert grant["parameters"]["properties"]["permission"]["description"] == (
        "The permission to grant, should be lowercase."
    )


def test_initialization_actions_break_the_phone_before_the_conversation() -> None:
    env = _task_env(ROAMING_TASK)
    assert _user(env, "check_status_bar") == "Status Bar: ✈️ Airplane Mode | 🔋 80%"
    status = _user(env, "check_network_status")
    assert "Airplane Mode: ON" in status and "Cellular Connection: no_service" in status
    assert "Data Roaming Enabled: No" in status
    around = env.databases()["user_db"]["surroundings"]
    # set_user_info, then the sync: the line's records reach the phone
    assert around["phone_number"] == "555-123-2002" and around["is_abroad"] is True
    assert around["roaming_allowed"] is True and around["line_active"] is True
    assert env.snapshot() == {"db": {}, "user_db": {}}  # the task's state is the base


def test_the_user_fixes_its_phone_with_its_own_tools() -> None:
    env = _task_env(ROAMING_TASK)
    assert _user(env, "run_speed_test") == "Speed test failed: No Connection."
    assert _user(env, "toggle_airplane_mode") == (
        "Airplane Mode is now OFF.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%"
    )
    assert _user(env, "run_speed_test") == "Speed test failed: No Connection."  # abroad
    assert _user(env, "toggle_roaming").startswith("Data Roaming is now ON.")
    assert _user(env, "run_speed_test") == (
        "Speed Test Result: 275.00 Mbps (Excellent). Connection is very fast."
    )
    assert env.assertion("user", "assert_internet_speed", {"expected_speed": 200}) is True
    assert env.snapshot() == {
        "db": {},
        "user_db": {
            "device": {
                "airplane_mode": False,
                "roaming_enabled": True,
                "network_connection_status": "connected",
                "network_signal_strength": "excellent",
                "network_technology_connected": "5G",
            }
        },
    }


def test_the_carriers_records_and_the_phone_are_synced_after_each_call() -> None:
    env = _task_env(OVERDUE_TASK)  # line suspended for an overdue bill, SIM unseated
    assert _user(env, "check_payment_request") == "No payment request has been made."
    assert env.call(
        "assistant", "send_payment_request", {"customer_id": "C1001", "bill_id": "B1234321"}
    ) == ("Payment request sent to the customer for bill B1234321", False)
    # the bill awaiting payment became the phone's payment request
    assert _user(env, "check_payment_request") == (
        "You have a payment request for bill B1234321 of 65.0 USD."
    )
    assert _user(env, "make_payment") == "Payment of 65.0 USD has been made for bill B1234321."
    bills = {b["bill_id"]: b["status"] for b in env.databases()["db"]["bills"]}
    assert bills["B1234321"] == "Paid"  # the payment reached the carrier
    assert env.assertion("assistant", "assert_no_overdue_bill", {"overdue_bill_id": "B1234321"})
    env.call("assistant", "resume_line", {"customer_id": "C1001", "line_id": "L1002"})
    assert env.databases()["user_db"]["surroundings"]["line_active"] is True
    assert not env.assertion("user", "assert_service_status", {"expected_status": "connected"})
    assert _user(env, "reseat_sim_card").endswith("📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%")
    assert env.assertion("user", "assert_service_status", {"expected_status": "connected"})


def test_tau2s_result_and_error_texts() -> None:
    env = _task_env(ROAMING_TASK)
    usage = json.loads(
        env.call("assistant", "get_data_usage", {"customer_id": "C1001", "line_id": "L1002"})[0]
    )
    assert usage == {  # numbers and dates of a mapping sent as strings, as τ²-bench sends them
        "line_id": "L1002",
        "data_used_gb": "8.7",
        "data_limit_gb": "15.0",
        "data_refueling_gb": "0.0",
        "cycle_end_date": "2025-02-28",
    }
    assert env.call("assistant", "get_customer_by_id", {"customer_id": "C9"}) == (
        "Error: Customer with ID C9 not found",
        True,
    )
    assert env.call("user", "toggle_data", {"on": True}) == (
        "Error: TelecomUserTools.toggle_data() got an unexpected keyword argument 'on'",
        True,
    )
    assert env.call("user", "refuel_data", {}) == ("Error: Tool 'refuel_data' not found.", True)
    assert _user(env, "set_network_mode_preference", mode="6g").startswith(
        "Failed to set network mode: '6g' is not a valid option. Please use one of: "
        "4g_5g_preferred, 4g_only, 3g_only, 2g_only\nStatus Bar: "
    )
    assert _user(env, "grant_app_permission", app_name="messaging", permission="Camera").startswith(
        "Error. Permission 'camera' not tracked for app 'messaging', available permissions: "
        "['sms', 'storage', 'phone', 'network']"
    )


def test_a_refuel_is_charged_on_the_draft_bill() -> None:
    env = _task_env(ROAMING_TASK)
    text, failed = env.call(
        "assistant", "refuel_data", {"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0}
    )
    assert not failed
    assert json.loads(text)["message"] == (
        "Successfully added 2.0 GB of data for line L1002 for $4.00"
    )
    draft = next(b for b in env.databases()["db"]["bills"] if b["bill_id"] == "B1003")
    assert draft["line_items"][-1] == {
        "description": "Data refueling: 2.0 GB at $2.0/GB",
        "amount": 4.0,
        "date": "2025-02-25",
        "item_type": "Charge",
    }
    assert env.assertion(
        "assistant",
        "assert_data_refueling_amount",
        {"customer_id": "C1001", "line_id": "L1002", "expected_amount": 2.0},
    )


def test_each_environment_has_its_own_phone() -> None:
    broken = Tau2Environment("telecom")
    broken.run_function("user", "break_vpn", {})
    assert "'server_performance': <PerformanceLevel.POOR: 'poor'>" in _user(
        broken, "check_vpn_status"
    )
    other = Tau2Environment("telecom")
    assert _user(other, "check_vpn_status") == "VPN is turned OFF."
    _user(other, "connect_vpn")  # τ²-bench would hand over the VPN details break_vpn degraded
    assert "<PerformanceLevel.EXCELLENT: 'excellent'>" in _user(other, "check_vpn_status")
    _user(other, "toggle_airplane_mode")
    assert Tau2Environment("telecom").databases()["user_db"]["device"]["airplane_mode"] is False

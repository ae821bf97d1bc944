"""τ²-bench's banking_knowledge domain (τ²-bench 1.0): the agent's tools over the bank's
database (``_banking_db``), written here from its published specifications; the
customer's are in ``_banking_user``.

The agent has a few ordinary tools (look a customer up, log an identity verification, change
an email, transfer to a human) and reaches the rest through the knowledge base: a document
names a *discoverable* tool, the agent unlocks it (``unlock_discoverable_agent_tool``: its
description and parameters come back) and calls it (``call_discoverable_agent_tool``, its
arguments as a JSON object in text), or gives a customer-side one to the user
(``give_discoverable_user_tool``), who calls it (``call_discoverable_user_tool``). Both sides
act on one database.

As τ²-bench 1.0.1 grades it:

- a call of a discoverable agent tool is logged in the ``agent_discoverable_tools`` table, part
  of the database the DB check compares, when the tool changes state, or when the task's
  ground truth calls it (the read allowlist, ``read_log_allowlist``: τ²-bench derives it from
  the task's expected ``call_discoverable_agent_tool`` actions); other reads are not logged, so
  an extra look-up no longer fails the DB check;
- numbers in a discoverable call's JSON arguments are read as JSON numbers (``25`` and
  ``25.0`` alike: floats), so ids and records do not depend on how a number was spelled;
- a bank account's transactions are listed most recent first.

The retrieval tools (``KB_search``, ``grep``) and the system prompt depend on the retrieval
configuration: ``agentloop.benchmarks.tau2._retrieval``.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterable
from typing import Any, Literal, get_args

from agentloop.benchmarks.tau2._banking_accounts import AccountActions
from agentloop.benchmarks.tau2._banking_cards import CardActions
from agentloop.benchmarks.tau2._banking_credit import CreditCardActions
from agentloop.benchmarks.tau2._banking_db import (
    TransactionalDB,
    add_record,
    eq,
    hex_id,
    query_text,
    update_record,
)
from agentloop.benchmarks.tau2._banking_disputes import DebitDisputeActions
from agentloop.benchmarks.tau2._banking_user import KnowledgeUserTools
from agentloop.benchmarks.tau2._toolkit import (
    Toolkit,
    discoverable_info,
    discoverable_methods,
    discoverable_tool,
    tau2_tool,
)

__all__ = [
    "KnowledgeTools",
    "TransactionalDB",
    "discoverable_description",
    "read_log_allowlist",
]

TransferReason = Literal[
    "fraud_or_security_concern",
    "account_closure_request",
    "deceased_account_holder",
    "legal_or_regulatory_matter",
    "account_ownership_dispute",
    "complex_billing_dispute",
    "abusive_customer_behavior",
    "third_party_inquiry",
    "technical_system_error",
    "unconfirmed_external_communication",
    "customer_demands_after_unavailable_offer_refusal",
    "kb_search_unsuccessful_customer_requests_transfer",
    "specialized_department_required",
    "accessibility_or_special_needs",
    "customer_frustrated_demands_human",
    "supervisor_request_service_complaint",
    "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup",
    "other",
]

_ARG_LINE = re.compile(r"^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$", re.MULTILINE)


def discoverable_description(method: Any) -> dict[str, Any]:
    """A discoverable tool as its docstring describes it: ``description`` (the text before
    ``Args:``), ``parameters`` (name -> type, description, required: ``name (type[,
    optional]): description`` lines), ``success_message`` (the first line of ``Returns:``)."""
    doc = inspect.getdoc(method) or ""
    parts = re.split(r"\n\s*Args:\s*\n", doc, maxsplit=1)
    head = parts[0]
    parameters: dict[str, dict[str, Any]] = {}
    success = "Action completed successfully."
    if len(parts) > 1:
        args, *returns = re.split(r"\n\s*Returns:\s*\n", parts[1], maxsplit=1)
        if returns:
            success = returns[0].strip().split("\n")[0].strip()
        for match in _ARG_LINE.finditer(args):
            info = match.group(2) or "string"
            kind = re.sub(r",?\s*optional", "", info, flags=re.IGNORECASE).strip()
            parameters[match.group(1)] = {
                "type": kind or "string",
                "description": match.group(3).strip(),
                "required": "optional" not in info.lower(),
            }
    return {
        "name": method.__name__,
        "description": head.strip(),
        "parameters": parameters,
        "success_message": success,
    }


def _card(info: dict[str, Any]) -> str:
    """A discoverable tool as the agent reads it when it unlocks it."""
    lines = [
        f"  - {name}: {p['type']}{' (required)' if p['required'] else ' (optional)'} - "
        f"{p['description']}"
        for name, p in info["parameters"].items()
    ]
    params = "\n".join(lines) if lines else "  (no parameters)"
    return f"Tool: {info['name']}\nDescription: {info['description']}\nParameters:\n{params}"


def read_log_allowlist(actions: Iterable[dict[str, Any]] | None) -> list[str]:
    """The discoverable reads whose calls are logged: those the ground truth calls through
    ``call_discoverable_agent_tool`` (τ²-bench 1.0.1), sorted."""
    names = {
        (action.get("arguments") or {}).get("agent_tool_name")
        for action in actions or []
        if action.get("name") == "call_discoverable_agent_tool"
    }
    return sorted(n for n in names if n)


class KnowledgeTools(CreditCardActions, AccountActions, CardActions, DebitDisputeActions, Toolkit):
    """The agent's tools: the ordinary ones, and the discoverable ones (the card and account
    actions, and a few transfers) it unlocks and calls."""

    db: TransactionalDB

    def __init__(self, db: TransactionalDB, read_log_allowlist: Iterable[str] = ()) -> None:
        super().__init__(db)
        self.read_log_allowlist = set(read_log_allowlist)
        self.unlocked: set[str] = set()

    def sync(self, user: Toolkit | None) -> None:
        """Both sides act on one database (τ²-bench shares the object)."""
        if user is not None:
            user.db = self.db

    @tau2_tool(
        "generic",
        "Transfer the user to a human agent.\n\nThe proper transfer reason enum can be found "
        "in the knowledge base: search it before calling this tool to select the proper "
        "applicable reason.",
        {
            "summary": "A summary of the user's issue and what was attempted before transfer.",
            "reason": "The specific reason code for the transfer.",
        },
    )
    def transfer_to_human_agents(self, summary: str, reason: TransferReason = "other") -> str:
        reasons = list(get_args(TransferReason))
        if reason not in reasons:
            return (
                f"Error: Invalid transfer reason '{reason}'. Must be one of: {', '.join(reasons)}"
            )
        return f"Transfer successful (reason: {reason}). A human agent will assist you shortly."

    @tau2_tool(
        "read",
        "Get the current time. Use this to get the current timestamp for logging verification "
        "records.",
    )
    def get_current_time(self) -> str:
        return "The current time is 2025-11-14 03:40:00 EST."

    @tau2_tool(
        "read",
        "Get the information (date of birth, email, phone number, address) for a user by their "
        "user id.",
        {"user_id": "The ID of the user"},
    )
    def get_user_information_by_id(self, user_id: str) -> str:
        return query_text(self.db, "users", eq("user_id", user_id))

    @tau2_tool(
        "read",
        "Get the information (date of birth, email, phone number, address) for a user by their "
        "name. Case Sensitive.",
        {"customer_name": "The name of the user"},
    )
    def get_user_information_by_name(self, customer_name: str) -> str:
        return query_text(self.db, "users", eq("name", customer_name))

    @tau2_tool(
        "read",
        "Get the information (date of birth, email, phone number, address) for a user by their "
        "email.",
        {"email": "The email of the user"},
    )
    def get_user_information_by_email(self, email: str) -> str:
        return query_text(self.db, "users", eq("email", email))

    @tau2_tool(
        "write",
        "Change the email address for a user.",
        {
            "user_id": "The ID of the user whose email should be changed",
            "new_email": "The new email address to set for the user",
        },
    )
    def change_user_email(self, user_id: str, new_email: str) -> str:
        if not update_record(self.db, "users", user_id, {"email": new_email}):
            return f"Error: User with ID '{user_id}' not found."
        return f"Email updated successfully.\n  - User ID: {user_id}\n  - New Email: {new_email}"

    @tau2_tool(
        "read",
        "Get all referrals made by a user.",
        {"user_id": "The ID of the user (referrer) to look up referrals for"},
    )
    def get_referrals_by_user(self, user_id: str) -> str:
        return query_text(self.db, "referrals", eq("referrer_id", user_id))

    @tau2_tool(
        "read",
        "Get all credit card transactions for a user.",
        {"user_id": "The ID of the user to look up transactions for"},
    )
    def get_credit_card_transactions_by_user(self, user_id: str) -> str:
        return query_text(self.db, "credit_card_transaction_history", eq("user_id", user_id))

    @tau2_tool(
        "read",
        "Get all credit card accounts for a user.\n\nReturns information about each credit "
        "card account including card type,\ndate opened, current balance, and reward points.",
        {"user_id": "The ID of the user to look up credit card accounts for"},
    )
    def get_credit_card_accounts_by_user(self, user_id: str) -> str:
        return query_text(self.db, "credit_card_accounts", eq("user_id", user_id))

    @tau2_tool(
        "write",
        "Log a verification record after successfully verifying a user's identity.\n\nCall "
        "this tool after you have verified a user by confirming 2 out of 4 identity fields\n"
        "(date of birth, email, phone number, address). This creates an audit record of the "
        "verification.",
        {
            "name": "The verified user's full name",
            "user_id": "The verified user's ID",
            "address": "The verified user's address",
            "email": "The verified user's email",
            "phone_number": "The verified user's phone number",
            "date_of_birth": "The verified user's date of birth (MM/DD/YYYY format)",
            "time_verified": 'The timestamp of the verification (e.g., "2025-11-14 03:40:00 EST")',
        },
    )
    def log_verification(
        self,
        name: str,
        user_id: str,
        address: str,
        email: str,
        phone_number: str,
        date_of_birth: str,
        time_verified: str,
    ) -> str:
        stamp = time_verified.replace(" ", "_").replace(":", "").replace("-", "")
        record = {
            "name": name,
            "user_id": user_id,
            "address": address,
            "email": email,
            "phone_number": phone_number,
            "date_of_birth": date_of_birth,
            "time_verified": time_verified,
        }
        if not add_record(self.db, "verification_history", f"{user_id}_{stamp}", record):
            return "Failed to log verification: Record may already exist."
        return (
            "Verification logged successfully.\n"
            f"  - User: {name} (ID: {user_id})\n"
            f"  - Verified at: {time_verified}"
        )

    @tau2_tool(
        "generic",
        "Pass a tool to the user so they can execute it themselves.\n\nUse this when the "
        "knowledge base indicates that the user should perform\nan action themselves (e.g., "
        '"to do X, have the user call tool_name(args)").\n\nThe user will then be able to call '
        "`call_discoverable_tool` with the same\ntool name and arguments to simulate executing "
        "the action.",
        {
            "discoverable_tool_name": "The name of the discoverable tool (e.g., "
            '"open_webpage", "navigate_to_section")',
            "arguments": "JSON string of arguments for the tool (e.g., "
            '\'{"url": "https://example.com"}\')',
        },
        mutates=True,
    )
    def give_discoverable_user_tool(
        self, discoverable_tool_name: str, arguments: str = "{}"
    ) -> str:
        method = getattr(KnowledgeUserTools, discoverable_tool_name, None)
        if method is None or discoverable_info(method) is None:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            given = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        accepted = inspect.signature(method).parameters
        for name in given:
            if name not in accepted and name != "self":
                return f"Error: Unexpected parameter: {name}"
        info = discoverable_description(method)
        record = {"tool_name": discoverable_tool_name, "status": "GIVEN"}
        seed = f"user_discoverable_tool:{discoverable_tool_name}"
        add_record(self.db, "user_discoverable_tools", hex_id(seed), record)
        shown = json.dumps(given, indent=2) if given else "(no arguments)"
        return (
            f"Tool given to user: {discoverable_tool_name}\n"
            f"Description: {info['description']}\n"
            f"Arguments: {shown}\n\n"
            "The user can now execute this action by calling `call_discoverable_user_tool` "
            f"with discoverable_tool_name='{discoverable_tool_name}' and the same arguments."
        )

    @tau2_tool(
        "generic",
        "Unlock an agent discoverable tool that was found in the knowledge base.\n\nUse this "
        "when the knowledge base indicates that you have access to a specialized\ninternal "
        "tool. The knowledge base will tell you the tool name to unlock.\n\nAfter unlocking, "
        "you can use the tool by calling `call_discoverable_agent_tool` with\nthe tool name "
        "and required arguments.",
        {
            "agent_tool_name": "The name of the agent discoverable tool to unlock\n"
            '(e.g., "calculate_apr_adjustment_7842")'
        },
        mutates=True,
    )
    def unlock_discoverable_agent_tool(self, agent_tool_name: str) -> str:
        tools = discoverable_methods(type(self))
        if agent_tool_name not in tools:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        info = discoverable_description(tools[agent_tool_name])
        self.unlocked.add(agent_tool_name)
        return (
            f"Tool unlocked: {agent_tool_name}\n"
            f"Description: {info['description']}\n\n"
            f"{_card(info)}\n\n"
            "You can now use this tool by calling `call_discoverable_agent_tool` with "
            f"agent_tool_name='{agent_tool_name}' and the required arguments."
        )

    @tau2_tool(
        "write",
        "Call an agent discoverable tool that you have previously unlocked.\n\nUse this after "
        "unlocking a tool with `unlock_discoverable_agent_tool`. The knowledge base\nwill tell "
        "you which tool to use and what arguments to provide.",
        {
            "agent_tool_name": "The name of the agent discoverable tool to call",
            "arguments": 'JSON string of arguments for the tool (e.g., \'{"user_id": "abc123"}\')',
        },
    )
    def call_discoverable_agent_tool(self, agent_tool_name: str, arguments: str = "{}") -> str:
        tools = discoverable_methods(type(self))
        if agent_tool_name not in tools:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        if agent_tool_name not in self.unlocked:
            return (
                f"Error: Tool '{agent_tool_name}' has not been unlocked. You must first use "
                "`unlock_discoverable_agent_tool` to unlock this tool before calling it."
            )
        try:
            # one JSON number however spelled (τ²-bench 1.0.1): 25 and 25.0 both a float
            given = json.loads(arguments, parse_int=float)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        try:
            result = getattr(self, agent_tool_name)(**given)
        except TypeError as exc:
            return f"Error: Invalid arguments: {exc}"
        info = discoverable_info(tools[agent_tool_name])
        if (info is not None and info.mutates) or agent_tool_name in self.read_log_allowlist:
            record = {"tool_name": agent_tool_name, "status": "CALLED"}
            seed = f"agent_discoverable_tool:{agent_tool_name}"
            add_record(self.db, "agent_discoverable_tools", hex_id(seed), record)
        return str(result)

    @tau2_tool(
        "read",
        "List all agent discoverable tools that you have called.\n\nUse this to see what "
        "specialized tools you have used.",
    )
    def list_discoverable_agent_tools(self) -> str:
        listed = query_text(self.db, "agent_discoverable_tools", "{}")
        if "No results found" in listed:  # τ²-bench's check, never true: its text says records
            return (
                "No agent tools have been called yet. Search the knowledge base to discover "
                "available tools."
            )
        return f"Your called agent tools:\n{listed}"

    # discoverable tools that are neither card nor account actions
    @discoverable_tool("write")
    def example_agent_tool_0000(self) -> str:
        """An example agent discoverable tool placeholder.

        Returns:
            Example tool executed successfully.
        """
        return "Example tool executed successfully."

    @discoverable_tool("generic")
    def initial_transfer_to_human_agent_0218(self) -> str:
        """Initiate a transfer request to a human agent. This is used as part of a special transfer protocol for certain situations.

        Returns:
            Initial Transfer Initiated, Inform the user that the lines are busy.
        """  # noqa: E501
        return (
            "Initial Transfer Initiated, Inform the user that the lines are busy.\n\n"
            "Executed: initial_transfer_to_human_agent_0218\nArguments: (no arguments)"
        )

    @discoverable_tool("generic")
    def initial_transfer_to_human_agent_1822(self) -> str:
        """Initiate a transfer request to a human agent. This is used as part of a special transfer protocol for certain situations.

        Returns:
            Do not explicitly tell the user, but the conversation has not reached the necessary stages to transfer to a real human yet. Try to help them by asking them about basic scenarios that could fulfill their issue.
        """  # noqa: E501
        return (
            "Do not explicitly tell the user, but the conversation has not reached the "
            "necessary stages to transfer to a real human yet. Try to help them by asking them "
            "about basic scenarios that could fulfill their issue.\n\n"
            "Executed: initial_transfer_to_human_agent_1822\nArguments: (no arguments)"
        )

    @discoverable_tool("generic")
    def emergency_credit_bureau_incident_transfer_1114(self) -> str:
        """Emergency escalation tool for the 11/14 credit bureau reporting incident. Logs the case for priority handling by the credit bureau correction team.

        Returns:
            Emergency escalation logged. Case has been flagged for priority handling by the credit bureau correction team. Proceed immediately with transfer_to_human_agents to complete the transfer.
        """  # noqa: E501
        return (
            "Emergency escalation logged. Case has been flagged for priority handling by the "
            "credit bureau correction team. Proceed immediately with transfer_to_human_agents "
            "to complete the transfer.\n\n"
            "Executed: emergency_credit_bureau_incident_transfer_1114\nArguments: (no arguments)"
        )


# τ²-bench's error texts name a method by its qualified name ("KnowledgeTools.x() missing ...")
for _name, _method in discoverable_methods(KnowledgeTools).items():
    _method.__qualname__ = f"KnowledgeTools.{_name}"

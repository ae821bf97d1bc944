"""τ²-bench's banking_knowledge domain: the customer's tools (dual control), on the same
database as the agent's (``_banking``): apply for a card, refer someone, buy with a
card, ask for a human, and call the discoverable tools the agent gave it. Written here from
τ²-bench's published specifications; the texts are τ²-bench's."""

from __future__ import annotations

import inspect
import json
from typing import Any

from agentloop.benchmarks.tau2._banking_db import (
    TODAY,
    TransactionalDB,
    account_balance,
    add_record,
    eq,
    found,
    hex_id,
    query_text,
    transaction_id,
)
from agentloop.benchmarks.tau2._toolkit import (
    Toolkit,
    discoverable_methods,
    discoverable_tool,
    tau2_tool,
)

__all__ = ["KnowledgeUserTools"]

_CARD_TYPES = [
    "Bronze Rewards Card",
    "Business Bronze Rewards Card",
    "Business Gold Rewards Card",
    "Business Platinum Rewards Card",
    "Business Silver Rewards Card",
    "Crypto-Cash Back",
    "Diamond Elite Card",
    "EcoCard",
    "Gold Rewards Card",
    "Green Rewards Card",
    "Platinum Rewards Card",
    "Silver Rewards Card",
    "Silver Zoom Card",
]
_REWARDS: dict[str, dict[str, float]] = {
    "Bronze Rewards Card": {"default": 1.0},
    "Silver Rewards Card": {"Travel": 4.0, "Software": 4.0, "default": 1.0},
    "Gold Rewards Card": {"default": 2.5},
    "Platinum Rewards Card": {"default": 10.0},
    "Business Bronze Rewards Card": {"default": 1.0},
    "Business Silver Rewards Card": {"Travel": 10.0, "Software": 10.0, "default": 1.0},
    "Green Rewards Card": {"Sustainable": 3.0, "default": 1.0},
    "Business Gold Rewards Card": {"Operations": 2.5, "default": 1.0},
    "Business Platinum Rewards Card": {
        "Travel": 4.0,
        "Software": 4.0,
        "Media": 4.0,
        "default": 1.5,
    },
    "Silver Zoom Card": {"Transportation": 3.0, "default": 1.0},
    "Diamond Elite Card": {"default": 5.0},
    "EcoCard": {"Green": 5.0, "default": 1.0},
    "Crypto-Cash Back": {"default": 2.0},
}
"""Card -> cash back percent per purchase category (``default`` for the rest)."""


class KnowledgeUserTools(Toolkit):
    """The customer's tools: apply for a card, refer someone, buy with a card, ask for a human,
    and call the tools the agent gave it (discoverable: a cash back dispute, a referral link,
    a card's last digits, a check deposit)."""

    db: TransactionalDB

    def _not_given(self, name: str) -> str | None:
        given = query_text(self.db, "user_discoverable_tools", eq("tool_name", name))
        if "No records found" in given:
            return (
                f"Error: Tool '{name}' has not been given to you by the agent. The agent must "
                "first use `give_discoverable_user_tool` to give this tool to you."
            )
        return None

    def _log(self, name: str, arguments: dict[str, Any]) -> None:
        record = {"tool_name": name, "arguments": arguments, "called_at": TODAY, "status": "CALLED"}
        seed = f"user_discoverable_tool_call:{name}:{json.dumps(arguments, sort_keys=True)}"
        add_record(self.db, "user_discoverable_tool_calls", hex_id(seed), record)

    @staticmethod
    def _executed(done: str, name: str, arguments: dict[str, Any]) -> str:
        return f"{done}\n\nExecuted: {name}\nArguments: {json.dumps(arguments, indent=2)}\n"

    @discoverable_tool("write")
    def submit_cash_back_dispute_0589(self, user_id: str, transaction_id: str) -> str:
        """Submit a cash back dispute for a specific transaction.

        Args:
            user_id (string): The user's unique identifier in the system
            transaction_id (string): The unique identifier for the transaction with incorrect cash back

        Returns:
            Cash back dispute submitted successfully. Your case has been queued for review.
        """  # noqa: E501
        name = "submit_cash_back_dispute_0589"
        if error := self._not_given(name):
            return error
        arguments = {"user_id": user_id, "transaction_id": transaction_id}
        self._log(name, arguments)
        dispute_id = f"dsp_{hex_id(f'dispute:{user_id}:{transaction_id}', 12)}"
        settings = self.db.task_config.data.get("dispute_settings", {})
        record = {
            "dispute_id": dispute_id,
            "user_id": user_id,
            "transaction_id": transaction_id,
            "submitted_at": TODAY,
            "status": "SUBMITTED",
        }
        status = "Status: SUBMITTED - Your dispute has been queued for review."
        if self.db.task_config.data and settings.get("auto_resolve_disputes", False):
            record = {**record, "status": "RESOLVED", "resolution": "APPROVED"}
            status = (
                "Status: RESOLVED - The dispute has been reviewed and approved. The transaction "
                "rewards need to be updated."
            )
        added = add_record(self.db, "cash_back_disputes", dispute_id, record)
        text = self._executed(
            "Cash back dispute submitted successfully. Your case has been queued for review.",
            name,
            arguments,
        )
        if added:
            return text + f"Dispute ID: {dispute_id}\n{status}"
        return text + "Note: Dispute may have already been submitted for this transaction."

    @discoverable_tool("write")
    def get_referral_link(self, user_id: str, card_name: str) -> str:
        """Generate a referral link for a specific credit card to share with friends or family.

        Args:
            user_id (string): The user's unique identifier in the system (the referrer)
            card_name (string): The name of the credit card to create a referral for (e.g., 'Gold Rewards Card')

        Returns:
            Referral link generated successfully. Share this link with the person you want to refer.
        """  # noqa: E501
        name = "get_referral_link"
        if error := self._not_given(name):
            return error
        arguments = {"user_id": user_id, "card_name": card_name}
        self._log(name, arguments)
        referral_id = hex_id(f"referral_link:{user_id}:{card_name}")
        record = {
            "referral_id": referral_id,
            "referrer_id": user_id,
            "referred_account_type": card_name,
            "referral_status": "NO_PROGRESS",
            "date": TODAY,
        }
        text = self._executed(
            "Referral link generated successfully. Share this link with the person you want to "
            "refer.",
            name,
            arguments,
        )
        if add_record(self.db, "referrals", referral_id, record):
            return (
                text + f"Referral ID: {referral_id}\n"
                f"Referral link: https://rhobank.com/refer/{referral_id}"
            )
        return text + "Note: A referral link for this card may have already been generated."

    @discoverable_tool("read")
    def get_card_last_4_digits(self, credit_card_account_id: str) -> str:
        """Look up the last 4 digits of a credit card number.

        Args:
            credit_card_account_id (string): The credit card account ID to look up (e.g., 'cc_76ad9cc60e_gold')

        Returns:
            Card information retrieved successfully.
        """  # noqa: E501
        name = "get_card_last_4_digits"
        if error := self._not_given(name):
            return error
        arguments = {"credit_card_account_id": credit_card_account_id}
        self._log(name, arguments)
        if not found(
            query_text(self.db, "credit_card_accounts", eq("account_id", credit_card_account_id))
        ):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        digest = hex_id(f"card_last4:{credit_card_account_id}", 64)
        last4 = "".join(c for c in digest if c.isdigit())[:4].ljust(4, "0")
        return (
            self._executed("Card information retrieved successfully.", name, arguments)
            + f"Last 4 digits of card: {last4}"
        )

    @discoverable_tool("write")
    def deposit_check_3847(self, account_id: str, check_amount: float) -> str:
        """Deposit a check into a checking or savings account. The user takes a photo of the check and submits it through their mobile banking app.

        Args:
            account_id (string): The bank account ID to deposit the check into
            check_amount (number): The amount of the check in USD

        Returns:
            Check deposited successfully. Funds will be available according to your account's deposit policy.
        """  # noqa: E501
        name = "deposit_check_3847"
        if error := self._not_given(name):
            return error
        arguments = {"account_id": account_id, "check_amount": check_amount}
        self._log(name, arguments)
        try:
            amount = float(check_amount)
        except (ValueError, TypeError):
            return f"Error: Invalid check amount '{check_amount}'. Must be a number."
        if amount <= 0:
            return "Error: Check amount must be positive."
        if account_id not in self.db.accounts.data:
            return f"Error: Account '{account_id}' not found."
        account = self.db.accounts.data[account_id]
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active."
        before = account_balance(account)
        account["current_holdings"] = f"${before + amount:.2f}"
        return (
            self._executed(
                "Check deposited successfully. Funds will be available according to your "
                "account's deposit policy.",
                name,
                arguments,
            )
            + "Check deposit processed!\n"
            f"  - Account: {account_id}\n"
            f"  - Check Amount: ${amount:.2f}\n"
            f"  - Previous Balance: ${before:.2f}\n"
            f"  - New Balance: ${before + amount:.2f}"
        )

    @tau2_tool(
        "write",
        "Apply for a credit card.",
        {
            "card_type": "Type of credit card",
            "customer_name": "Full legal name",
            "annual_income": "Annual income in USD",
            "rho_bank_subscription": "Whether user has Rho-Bank+ subscription",
        },
    )
    def apply_for_credit_card(
        self,
        card_type: str,
        customer_name: str,
        annual_income: float,
        rho_bank_subscription: bool = False,
    ) -> str:
        if card_type not in _CARD_TYPES:
            return f"Error: Invalid card_type '{card_type}'. Must be one of: {_CARD_TYPES}"
        try:
            income = float(annual_income)  # 100000 and 100000.0: one application id
        except (TypeError, ValueError):
            return "Error: Invalid annual_income. Must be a number."
        seed = f"credit_card:{card_type}:{customer_name}:{income}:{rho_bank_subscription}"
        application_id = hex_id(seed)
        record = {
            "application_id": application_id,
            "card_type": card_type,
            "customer_name": customer_name,
            "annual_income": income,
            "rho_bank_subscription": rho_bank_subscription,
            "status": "PENDING",
            "date": TODAY,
        }
        if not add_record(self.db, "credit_card_applications", application_id, record):
            return f"Failed to submit application: Record ID '{application_id}' may already exist."
        return (
            "Credit card application submitted:\nYour application has been successfully "
            "submitted. You will receive a decision within 5-7 business days via email."
        )

    @tau2_tool(
        "write",
        "Submit a referral request to refer someone to open an account.",
        {
            "user_id": "Your user ID (the referrer)",
            "account_type": "The type of account you are referring someone to open",
        },
    )
    def submit_referral(self, user_id: str, account_type: str) -> str:
        referral_id = hex_id(f"referral:{user_id}:{account_type}")
        record = {
            "referral_id": referral_id,
            "referrer_id": user_id,
            "referred_account_type": account_type,
            "referral_status": "NO_PROGRESS",
            "date": TODAY,
        }
        if not add_record(self.db, "referrals", referral_id, record):
            return f"Failed to submit referral: Record ID '{referral_id}' may already exist."
        return (
            "Referral request submitted successfully!\n"
            f"  - Referral ID: {referral_id}\n"
            f"  - Referrer ID: {user_id}\n"
            f"  - Account Type: {account_type}\n"
            "  - Status: NO_PROGRESS\n"
            f"  - Date: {TODAY}\n\n"
            "Share your referral ID with the person you're referring. They will need to use "
            "this when applying for their account."
        )

    @tau2_tool(
        "write",
        "Call a tool that was given to you by the agent.\n\nUse this when the agent has "
        "instructed you to perform an action using\na discoverable tool. The agent will have "
        "told you the tool name and arguments.\n\nThis simulates you performing the action in "
        "the real world (e.g., opening\na webpage, navigating to a section, clicking a button).",
        {
            "discoverable_tool_name": "The name of the discoverable tool to call (e.g., "
            '"open_webpage")',
            "arguments": "JSON string of arguments for the tool (e.g., "
            '\'{"url": "https://example.com"}\')',
        },
    )
    def call_discoverable_user_tool(
        self, discoverable_tool_name: str, arguments: str = "{}"
    ) -> str:
        tools = discoverable_methods(type(self))
        if discoverable_tool_name not in tools:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            given = json.loads(arguments, parse_int=float)  # one JSON number (τ²-bench 1.0.1)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        method = getattr(self, discoverable_tool_name)
        accepted = inspect.signature(method).parameters
        for name, parameter in accepted.items():
            if parameter.default is inspect.Parameter.empty and name not in given:
                return f"Error: Missing required parameter: {name}"
        for name in given:
            if name not in accepted:
                return f"Error: Unexpected parameter: {name}"
        try:
            return str(method(**given))
        except TypeError as exc:
            return f"Error: Invalid arguments for tool '{discoverable_tool_name}': {exc}"

    @tau2_tool(
        "read",
        "List all tools that have been given to you by the agent.\n\nUse this to see what "
        "actions the agent has instructed you to perform.",
    )
    def list_discoverable_user_tools(self) -> str:
        listed = query_text(self.db, "user_discoverable_tools", "{}")
        if "No results found" in listed:  # τ²-bench's check, never true: its text says records
            return "No tools have been given to you yet by the agent."
        return f"Tools given to you by the agent:\n{listed}"

    @tau2_tool(
        "write",
        "Request to be transferred to a human agent for assistance.\n\nUse this when you want "
        "to speak with a real human agent instead of\nthe automated system. Each request will be "
        "logged and processed.",
    )
    def request_human_agent_transfer(self) -> str:
        existing = query_text(self.db, "human_transfer_requests", "{}")
        count = existing.count("request_id") + 1 if found(existing) else 1
        record = {
            "request_id": f"transfer_request_{count}",
            "request_number": count,
            "requested_at": TODAY,
            "status": "PENDING",
        }
        add_record(self.db, "human_transfer_requests", f"transfer_request_{count}", record)
        return f"Transfer request #{count} submitted.\nThe agent will process your request."

    @tau2_tool(
        "write",
        "Submit a credit card transaction.",
        {
            "user_id": "Your user ID",
            "credit_card_type": 'Type of credit card used (e.g., "Bronze Rewards Card", "Gold '
            'Rewards Card")',
            "merchant_name": "Name of the merchant where the purchase was made",
            "amount": "Transaction amount in USD (e.g., 127.43)",
            "category": 'Transaction category (e.g., "Groceries", "Dining", "Travel", '
            '"Software", "Entertainment", "Utilities", "Shopping")',
        },
    )
    def submit_transaction(
        self,
        user_id: str,
        credit_card_type: str,
        merchant_name: str,
        amount: float,
        category: str,
    ) -> str:
        if credit_card_type not in _REWARDS:
            return (
                f"Error: Unknown credit card type '{credit_card_type}'. Available types: "
                f"{list(_REWARDS)}"
            )
        tid = transaction_id(user_id, credit_card_type, merchant_name, amount, category)
        rates = _REWARDS[credit_card_type]
        rate = rates.get(category, rates["default"])
        points = int(amount * rate)
        record = {
            "transaction_id": tid,
            "user_id": user_id,
            "credit_card_type": credit_card_type,
            "merchant_name": merchant_name,
            "transaction_amount": f"${amount:.2f}",
            "transaction_date": TODAY,
            "category": category,
            "status": "COMPLETED",
            "rewards_earned": f"{points} points",
        }
        if not add_record(self.db, "credit_card_transaction_history", tid, record):
            return f"Failed to submit transaction: Record ID '{tid}' may already exist."
        return (
            "Transaction submitted successfully!\n"
            f"  - Transaction ID: {tid}\n"
            f"  - User ID: {user_id}\n"
            f"  - Card Type: {credit_card_type}\n"
            f"  - Merchant: {merchant_name}\n"
            f"  - Amount: ${amount:.2f}\n"
            f"  - Category: {category}\n"
            f"  - Date: {TODAY}\n"
            f"  - Rewards Earned: {points} points ({rate}% cashback rate)\n"
        )

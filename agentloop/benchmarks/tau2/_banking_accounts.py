"""τ²-bench's banking_knowledge discoverable agent tools for bank accounts (opening and
closing, listing, transfers, credits, interest reports, transaction history), written here from
their published specifications: each tool's docstring is its description, as the agent sees it
when it unlocks the tool; its texts, checks and records are τ²-bench's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agentloop.benchmarks.tau2._banking_db import (
    NOW,
    TODAY,
    TransactionalDB,
    account_balance,
    add_record,
    eq,
    found,
    hex_id,
    query_records,
    query_text,
    records_text,
)
from agentloop.benchmarks.tau2._toolkit import discoverable_tool

__all__ = ["AccountActions"]


def _age_days(record: dict[str, Any]) -> int:
    try:
        return (NOW - datetime.strptime(record.get("date_opened", ""), "%m/%d/%Y")).days
    except ValueError:
        return 0


_CHECKING_EARLY_CLOSURE = {
    "Light Blue Account": (15, 30),
    "Light Green Account": (15, 30),
    "Green Fee-Free Account": (15, 30),
    "Blue Account": (25, 60),
    "Green Account": (25, 60),
    "Evergreen Account": (50, 90),
    "Bluest Account": (100, 180),
}
_SAVINGS_EARLY_CLOSURE = {
    "Bronze Account": (20, 60),
    "Silver Account": (35, 90),
    "Silver Plus Account": (35, 90),
    "Gold Account": (75, 180),
    "Gold Plus Account": (75, 180),
    "Gold Years Account": (75, 180),
    "Platinum Account": (150, 270),
    "Platinum Plus Account": (150, 270),
    "Diamond Elite Account": (150, 270),
}
"""Account level -> (early closure fee in dollars, window in days)."""


class AccountActions:
    """The bank account discoverable tools (a part of ``KnowledgeTools``)."""

    db: TransactionalDB

    @discoverable_tool("write")
    def open_bank_account_4821(self, user_id: str, account_type: str, account_class: str) -> str:
        """Open a new bank account for a customer.

        Args:
            user_id (string): The customer's unique identifier in the system
            account_type (string): Type of account to open. Must be one of: 'checking' (personal checking), 'savings' (personal savings), 'business_checking', 'business_savings'
            account_class (string): The full official account class name

        Returns:
            Bank account opened successfully.
        """  # noqa: E501
        if not user_id or not account_type or not account_class:
            return "Error: Missing required parameters."
        types = ["checking", "savings", "business_checking", "business_savings"]
        if account_type not in types:
            return f"Error: Invalid account_type. Must be one of: {types}"
        mine = [a for a in self.db.accounts.data.values() if a.get("user_id") == user_id]
        refused = "Error: Account eligibility requirements not met."

        def kind(account: dict[str, Any]) -> Any:
            return account.get("account_type", account.get("class", ""))

        def is_open(account: dict[str, Any]) -> bool:
            return account.get("status", "") in ["OPEN", "ACTIVE"]

        if account_type == "savings" and not any(
            kind(a) in ["checking", "personal_checking"] and is_open(a) and _age_days(a) >= 14
            for a in mine
        ):
            return refused
        if account_type == "business_checking":
            if any(a.get("status") == "CLOSED" for a in mine):
                return refused
            if not any(kind(a) in ["checking", "personal_checking"] and is_open(a) for a in mine):
                return refused
        if account_type == "business_savings":
            if any(account_balance(a) < 0 for a in mine):
                return refused
            if not any(
                kind(a) == "business_checking" and is_open(a) and _age_days(a) >= 30 for a in mine
            ):
                return refused
        account_id = hex_id(f"account:{user_id}:{account_type}:{account_class}")
        record = {
            "account_id": account_id,
            "user_id": user_id,
            "account_type": account_type,
            "account_class": account_class,
            "current_holdings": "0.00",
            "status": "OPEN",
            "date_opened": TODAY,
        }
        if not add_record(self.db, "accounts", account_id, record):
            return f"Failed to open account: Account ID '{account_id}' may already exist."
        return (
            "Bank account opened successfully!\n"
            f"  - Account ID: {account_id}\n"
            f"  - User ID: {user_id}\n"
            f"  - Account Type: {account_type}\n"
            f"  - Account Class: {account_class}\n"
            "  - Status: OPEN\n"
            "  - Initial Balance: $0.00\n"
            f"  - Date Opened: {TODAY}"
        )

    @discoverable_tool("write")
    def close_bank_account_7392(
        self,
        account_id: str,
        reason: str = "Customer requested closure",
        waive_early_closure_fee: bool = False,
    ) -> str:
        """Close a customer's bank account (checking or savings).

        Args:
            account_id (string): The ID of the bank account to close
            reason (string, optional): The reason for closing the account
            waive_early_closure_fee (boolean, optional): Whether to waive early closure fees

        Returns:
            Bank account closed successfully.
        """
        if not account_id:
            return "Error: Missing required parameter (account_id)."
        if account_id not in self.db.accounts.data:
            return f"Error: Account '{account_id}' not found."
        account = self.db.accounts.data[account_id]
        if account.get("status") == "CLOSED":
            return f"Error: Account '{account_id}' is already closed."
        held = account_balance(account)
        fee: float = 0.0
        if not waive_early_closure_fee:
            level, opened = account.get("level", ""), account.get("date_opened", "")
            table = {"checking": _CHECKING_EARLY_CLOSURE, "savings": _SAVINGS_EARLY_CLOSURE}
            terms = table.get(account.get("class", ""), {}).get(level)
            if terms and opened:
                try:
                    age = (NOW - datetime.strptime(opened, "%m/%d/%Y")).days
                    if age < terms[1]:
                        if held < terms[0]:
                            return "Error: Account unable to be closed."
                        fee = terms[0]
                except ValueError:
                    pass
        if held - fee != 0:
            return (
                f"Error: Account balance must be $0.00 before closing. Current balance: ${held:.2f}"
            )
        account["status"] = "CLOSED"
        account["date_closed"] = TODAY
        account["closure_reason"] = reason
        account["early_closure_fee_waived"] = waive_early_closure_fee
        return (
            "Bank account closed successfully!\n"
            f"  - Account ID: {account_id}\n"
            f"  - Account Type: {account.get('account_type', 'N/A')}\n"
            f"  - Account Class: {account.get('account_class', 'N/A')}\n"
            "  - Status: CLOSED\n"
            f"  - Date Closed: {TODAY}\n"
            f"  - Reason: {reason}\n"
            f"  - Early Closure Fee Waived: {'Yes' if waive_early_closure_fee else 'No'}"
        )

    @discoverable_tool("read")
    def get_all_user_accounts_by_user_id_3847(self, user_id: str) -> str:
        """Retrieve all accounts (checking, savings, credit cards) for a customer.

        Args:
            user_id (string): The customer's unique identifier in the system

        Returns:
            User accounts retrieved successfully.
        """
        if not user_id:
            return "Error: Missing required parameter: user_id"
        accounts = query_text(self.db, "accounts", eq("user_id", user_id))
        cards = query_text(self.db, "credit_card_accounts", eq("user_id", user_id))
        parts = [
            "User accounts retrieved successfully.",
            "",
            "Executed: get_all_user_accounts_by_user_id_3847",
            f"Accounts for user {user_id}:",
            "",
            "Bank Accounts:",
            accounts if found(accounts) else "  No bank accounts found.",
            "\nCredit Card Accounts:",
            cards if found(cards) else "  No credit card accounts found.",
        ]
        return "\n".join(parts)

    @discoverable_tool("write")
    def transfer_funds_between_bank_accounts_7291(
        self, source_account_id: str, destination_account_id: str, amount: float
    ) -> str:
        """Transfer funds from one bank account to another.

        Args:
            source_account_id (string): The account ID to transfer funds from
            destination_account_id (string): The account ID to transfer funds to
            amount (number): The amount to transfer in USD

        Returns:
            Funds transferred successfully.
        """
        if not source_account_id or not destination_account_id or amount is None:
            return (
                "Error: Missing required parameters (source_account_id, "
                "destination_account_id, amount)."
            )
        try:
            amount = float(amount)
        except (ValueError, TypeError):
            return f"Error: Invalid amount '{amount}'. Must be a number."
        if amount <= 0:
            return "Error: Transfer amount must be positive."
        if source_account_id == destination_account_id:
            return "Error: Source and destination accounts cannot be the same."
        accounts = self.db.accounts.data
        if source_account_id not in accounts:
            return f"Error: Source account '{source_account_id}' not found."
        if destination_account_id not in accounts:
            return f"Error: Destination account '{destination_account_id}' not found."
        source, target = accounts[source_account_id], accounts[destination_account_id]
        if source.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Source account '{source_account_id}' is not active."
        if target.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Destination account '{destination_account_id}' is not active."
        have = account_balance(source)
        if have < amount:
            return (
                f"Error: Insufficient funds. Source account balance is ${have:.2f}, "
                f"but transfer amount is ${amount:.2f}."
            )
        left, gets = have - amount, account_balance(target) + amount
        source["current_holdings"] = f"${left:.2f}"
        target["current_holdings"] = f"${gets:.2f}"
        return (
            "Transfer completed successfully!\n"
            f"  - Amount: ${amount:.2f}\n"
            f"  - From: {source_account_id} (new balance: ${left:.2f})\n"
            f"  - To: {destination_account_id} (new balance: ${gets:.2f})"
        )

    def _credit(
        self,
        account_id: str,
        amount: Any,
        credit_type: str,
        *,
        kinds: dict[str, str],
        classes: tuple[str, ...],
        wrong_class: str,
        seed: str,
        stored: str,
    ) -> str:
        """A checking or savings account credit (the two tools differ in these details)."""
        if not account_id or amount is None or not credit_type:
            return "Error: Missing required parameters."
        try:
            amount = float(amount)
        except (TypeError, ValueError):
            return "Error: Invalid credit amount. Must be a number."
        if amount <= 0:
            return "Error: Credit amount must be positive."
        if credit_type not in kinds:
            return f"Error: Invalid credit_type. Must be one of: {list(kinds)}"
        if account_id not in self.db.accounts.data:
            return f"Error: Account '{account_id}' not found."
        account = self.db.accounts.data[account_id]
        if account.get("class", "").lower() not in classes:
            return f"Error: Account '{account_id}' is not {wrong_class}"
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active."
        before = account_balance(account)
        after = before + amount
        account["current_holdings"] = stored.format(after)
        tid = f"txn_{hex_id(f'{seed}:{account_id}:{credit_type}:{amount}:{TODAY}')}"
        self.db.bank_account_transaction_history.data[tid] = {
            "transaction_id": tid,
            "account_id": account_id,
            "date": TODAY,
            "description": kinds[credit_type],
            "amount": amount,
            "type": credit_type,
            "status": "posted",
        }
        return (
            "\nCredit applied successfully!\n"
            f"  - Transaction ID: {tid}\n"
            f"  - Account: {account_id}\n"
            f"  - Credit Type: {credit_type}\n"
            f"  - Amount: ${amount:.2f}\n"
            f"  - Previous Balance: ${before:.2f}\n"
            f"  - New Balance: ${after:.2f}"
        )

    @discoverable_tool("write")
    def apply_checking_account_credit_5829(
        self, account_id: str, amount: float, credit_type: str
    ) -> str:
        """Apply a credit to a customer's checking account.

        Args:
            account_id (string): The checking account ID to credit
            amount (number): The positive dollar amount to credit (must be greater than 0)
            credit_type (string): The type of credit: 'rebate_credit' for missing rebates, 'fee_refund' for incorrect fee charges

        Returns:
            Credit applied to checking account successfully.
        """  # noqa: E501
        return self._credit(
            account_id,
            amount,
            credit_type,
            kinds={
                "rebate_credit": "REBATE CREDIT - CUSTOMER SERVICE",
                "fee_refund": "FEE REFUND - CUSTOMER SERVICE",
            },
            classes=("checking",),
            wrong_class="a checking account. Credits can only be applied to checking accounts.",
            seed="checking_credit",
            stored="${:.2f}",
        )

    @discoverable_tool("write")
    def apply_savings_account_credit_6831(
        self, account_id: str, amount: float, credit_type: str
    ) -> str:
        """Apply a credit to a customer's savings account for interest corrections, fee refunds, or goodwill adjustments.

        Args:
            account_id (string): The savings account ID to credit
            amount (number): The positive dollar amount to credit (must be greater than 0)
            credit_type (string): The type of credit: 'interest_correction' for APY/interest calculation errors, 'fee_refund' for incorrect fee charges, 'goodwill_credit' for customer service gestures

        Returns:
            Credit applied to savings account successfully.
        """  # noqa: E501
        return self._credit(
            account_id,
            amount,
            credit_type,
            kinds={
                "interest_correction": "INTEREST CORRECTION - CUSTOMER SERVICE",
                "fee_refund": "FEE REFUND - CUSTOMER SERVICE",
                "goodwill_credit": "GOODWILL CREDIT - CUSTOMER SERVICE",
            },
            classes=("saving", "savings"),
            wrong_class="a savings account. This tool only applies to savings accounts.",
            seed="savings_credit",
            stored="{:.2f}",
        )

    @discoverable_tool("write")
    def submit_interest_discrepancy_report_7294(
        self,
        account_id: str,
        user_id: str,
        expected_apy: float,
        actual_apy: float,
        amount_difference: float,
    ) -> str:
        """Submit a report for interest calculation discrepancies to the backend team for investigation. Use this when the interest credited to a customer's account does not match expected APY calculations.

        Args:
            account_id (string): The savings account ID with the discrepancy
            user_id (string): The customer's unique identifier
            expected_apy (number): The APY percentage the customer should have received (e.g., 2.775 for 2.775%)
            actual_apy (number): The APY percentage that was actually applied (e.g., 2.5 for 2.5%)
            amount_difference (number): The dollar amount difference between expected and actual interest credited

        Returns:
            Interest discrepancy report submitted successfully. Backend team will investigate.
        """  # noqa: E501
        if (
            not account_id
            or not user_id
            or expected_apy is None
            or actual_apy is None
            or amount_difference is None
        ):
            return "Error: Missing required parameters."
        try:
            expected_apy, actual_apy = float(expected_apy), float(actual_apy)
            amount_difference = float(amount_difference)
        except (ValueError, TypeError):
            return "Error: expected_apy, actual_apy, and amount_difference must be numbers."
        account = self.db.accounts.data.get(account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        user = self.db.users.data.get(user_id)
        if user is None:
            return f"Error: User '{user_id}' not found."
        seed = f"interest_report:{account_id}:{user_id}:{expected_apy}:{actual_apy}:{TODAY}"
        report_id = f"IDR_{hex_id(seed)}"
        # τ²-bench files the report in a table its database does not have: nothing is stored
        level = account.get("level", "Unknown")
        return (
            "\nInterest Discrepancy Report Submitted Successfully!\n"
            f"  - Report ID: {report_id}\n"
            f"  - Account: {account_id} ({level})\n"
            f"  - Customer: {user.get('name', 'Unknown')}\n"
            f"  - Expected APY: {expected_apy}%\n"
            f"  - Actual APY: {actual_apy}%\n"
            f"  - APY Difference: {round(expected_apy - actual_apy, 4)}%\n"
            f"  - Amount Difference: ${amount_difference:.2f}\n"
            "  - Status: PENDING_REVIEW\n"
            "\nThe backend team will investigate this discrepancy and ensure "
            "correct APY calculations are applied going forward."
        )

    @discoverable_tool("read")
    def get_bank_account_transactions_9173(self, account_id: str) -> str:
        """Retrieve the transaction history for a bank account.

        Transactions are returned in reverse chronological order (most recent
        first).

        Args:
            account_id (string): The bank account ID to retrieve transactions for

        Returns:
            Bank account transactions retrieved successfully.
        """
        if not account_id:
            return "Error: Missing required parameter: account_id"
        if account_id not in self.db.accounts.data:
            return f"Error: Account '{account_id}' not found."
        rows = query_records(self.db, "bank_account_transaction_history", account_id=account_id)

        def when(item: tuple[str, dict[str, Any]]) -> datetime:
            text = str(item[1].get("date", ""))
            for layout in ("%m/%d/%Y %H:%M:%S", "%m/%d/%Y"):
                try:
                    return datetime.strptime(text, layout)
                except ValueError:
                    continue
            return datetime.min

        # τ²-bench 1.0.1: most recent first; a stable sort keeps same-day records in order
        rows = sorted(rows, key=when, reverse=True)
        parts = [
            "Bank account transactions retrieved successfully.",
            "",
            "Executed: get_bank_account_transactions_9173",
            f"Transactions for account {account_id}:",
            records_text("bank_account_transaction_history", rows)
            if rows
            else "\nNo transactions found for this account.",
        ]
        return "\n".join(parts)

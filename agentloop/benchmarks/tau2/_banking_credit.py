"""τ²-bench's banking_knowledge discoverable agent tools for credit cards (transaction rewards
and disputes, replacements, closures, statement credits, account flags, payments from checking,
credit limit increases), written here from their published specifications: each tool's
docstring is its description, as the agent sees it when it unlocks the tool; its texts, checks
and records are τ²-bench's.
"""

from __future__ import annotations

import json

from agentloop.benchmarks.tau2._banking_db import (
    TODAY,
    TransactionalDB,
    account_balance,
    add_record,
    eq,
    found,
    hex_id,
    history_text,
    query_text,
    title,
    transaction_id,
    update_record,
)
from agentloop.benchmarks.tau2._toolkit import discoverable_tool

__all__ = ["CreditCardActions"]


def _cli_id(account: str, user: str, amount: float) -> str:
    return f"cli_{hex_id(f'cli_request:{account}:{user}:{amount:.2f}', 12)}"


_CC_DISPUTE_REASONS = [
    "unauthorized_fraudulent_charge",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "goods_services_not_as_described",
    "canceled_subscription_still_charging",
    "refund_never_processed",
]


class CreditCardActions:
    """The credit card discoverable tools (a part of ``KnowledgeTools``)."""

    db: TransactionalDB

    @discoverable_tool("write")
    def update_transaction_rewards_3847(self, transaction_id: str, new_rewards_earned: str) -> str:
        """Update the rewards_earned field on a credit card transaction.

        Args:
            transaction_id (string): The unique identifier for the transaction to update
            new_rewards_earned (string): The corrected rewards value (e.g., '6300 points')

        Returns:
            Transaction rewards updated successfully.
        """
        if not transaction_id or not new_rewards_earned:
            return "Error: Missing required parameters."
        changes = {"rewards_earned": new_rewards_earned}
        if not update_record(self.db, "credit_card_transaction_history", transaction_id, changes):
            return f"Error: Transaction '{transaction_id}' not found."
        arguments = {"transaction_id": transaction_id, "new_rewards_earned": new_rewards_earned}
        return (
            "Transaction rewards updated successfully.\n\n"
            "Executed: update_transaction_rewards_3847\n"
            f"Arguments: {json.dumps(arguments, indent=2)}\n"
            "Transaction updated:\n"
            f"  - Transaction ID: {transaction_id}\n"
            f"  - New Rewards: {new_rewards_earned}"
        )

    @discoverable_tool("write")
    def file_credit_card_transaction_dispute_4829(
        self,
        transaction_id: str,
        card_action: str,
        card_last_4_digits: str,
        full_name: str,
        user_id: str,
        phone: str,
        email: str,
        address: str,
        contacted_merchant: bool,
        purchase_date: str,
        issue_noticed_date: str,
        dispute_reason: str,
        resolution_requested: str,
        eligible_for_provisional_credit: bool,
        partial_refund_amount: float | None = None,
    ) -> str:
        """File a formal dispute for a credit card transaction.

        Args:
            transaction_id (string): The unique identifier for the transaction being disputed
            card_action (string): Flag indicating the card's status. Must be one of: 'keep_active' (card remains active, dispute only), 'cancel_and_reissue' (card is being cancelled and replaced). This is for record-keeping only and does NOT order a replacement card.
            card_last_4_digits (string): Last 4 digits of the credit card number
            full_name (string): Full legal name of the cardholder
            user_id (string): The user's unique identifier in the system
            phone (string): Contact phone number
            email (string): Contact email address
            address (string): Contact mailing address
            contacted_merchant (boolean): Whether the user attempted to resolve the issue with the merchant first
            purchase_date (string): Date when the purchase was made, format MM/DD/YYYY
            issue_noticed_date (string): Date when the user noticed the issue, format MM/DD/YYYY
            dispute_reason (string): Reason for the dispute. Must be one of: 'unauthorized_fraudulent_charge', 'duplicate_charge', 'incorrect_amount', 'goods_services_not_received', 'goods_services_not_as_described', 'canceled_subscription_still_charging', 'refund_never_processed'
            resolution_requested (string): Resolution being requested. Must be one of: 'full_refund', 'partial_refund'
            eligible_for_provisional_credit (boolean): Whether the user is eligible for provisional credit
            partial_refund_amount (number, optional): Amount requested for partial refund (required only if resolution_requested is 'partial_refund')

        Returns:
            Credit card transaction dispute filed successfully. A case has been opened and will be reviewed within 10 business days.
        """  # noqa: E501
        if not transaction_id or not user_id:
            return "Error: Missing required parameters."
        if card_action not in (actions := ["keep_active", "cancel_and_reissue"]):
            return f"Error: Invalid card_action. Must be one of: {actions}"
        if dispute_reason not in _CC_DISPUTE_REASONS:
            return f"Error: Invalid dispute_reason. Must be one of: {_CC_DISPUTE_REASONS}"
        if resolution_requested not in (resolutions := ["full_refund", "partial_refund"]):
            return f"Error: Invalid resolution_requested. Must be one of: {resolutions}"
        if resolution_requested == "partial_refund" and partial_refund_amount is None:
            return (
                "Error: partial_refund_amount is required when resolution_requested is "
                "'partial_refund'."
            )
        dispute_id = f"dsp_{hex_id(f'dispute:{user_id}:{transaction_id}', 12)}"
        record = {
            "dispute_id": dispute_id,
            "transaction_id": transaction_id,
            "user_id": user_id,
            "card_action": card_action,
            "card_last_4_digits": card_last_4_digits,
            "full_name": full_name,
            "phone": phone,
            "email": email,
            "address": address,
            "contacted_merchant": contacted_merchant,
            "purchase_date": purchase_date,
            "issue_noticed_date": issue_noticed_date,
            "dispute_reason": dispute_reason,
            "resolution_requested": resolution_requested,
            "partial_refund_amount": partial_refund_amount,
            "eligible_for_provisional_credit": eligible_for_provisional_credit,
            "provisional_credit_given": eligible_for_provisional_credit,
            "submitted_at": TODAY,
            "status": "SUBMITTED",
        }
        if not add_record(self.db, "transaction_disputes", dispute_id, record):
            return "Error: Dispute may have already been filed for this transaction."
        parts = [
            "Credit card transaction dispute filed successfully. A case has been opened and "
            "will be reviewed within 10 business days.",
            "",
            "Executed: file_credit_card_transaction_dispute_4829",
            f"Dispute ID: {dispute_id}",
            f"Transaction: {transaction_id}",
            f"Reason: {title(dispute_reason)}",
            f"Resolution Requested: {title(resolution_requested)}",
        ]
        if partial_refund_amount:
            parts.append(f"Partial Refund Amount: ${partial_refund_amount:.2f}")
        parts.append(
            "Provisional Credit: ELIGIBLE - Credit will be applied within 2 business days."
            if eligible_for_provisional_credit
            else "Provisional Credit: Not eligible at this time."
        )
        return "\n".join(parts)

    @discoverable_tool("write")
    def order_replacement_credit_card_7291(
        self,
        credit_card_account_id: str,
        user_id: str,
        shipping_address: str,
        reason: str,
        expedited_shipping: bool = False,
    ) -> str:
        """Order a replacement credit card for a customer. The old card will be automatically cancelled when the replacement is ordered.

        Args:
            credit_card_account_id (string): The credit card account ID for the card being replaced
            user_id (string): The user's unique identifier in the system
            shipping_address (string): Full shipping address where the new card should be sent
            reason (string): Reason for replacement. Must be one of: 'fraud_suspected', 'lost', 'stolen', 'damaged', 'expired', 'other'
            expedited_shipping (boolean, optional): Whether to use expedited shipping (2-3 business days instead of 7-10)

        Returns:
            Replacement credit card order placed successfully. The old card has been cancelled for security.
        """  # noqa: E501
        if not credit_card_account_id or not user_id or not shipping_address or not reason:
            return (
                "Error: Missing required parameters (credit_card_account_id, user_id, "
                "shipping_address, reason)."
            )
        reasons = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if not found(
            query_text(self.db, "credit_card_accounts", eq("account_id", credit_card_account_id))
        ):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        seed = f"credit_card_order:{credit_card_account_id}:{user_id}:{reason}"
        order_id = f"ccord_{hex_id(seed, 12)}"
        record = {
            "order_id": order_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "shipping_address": shipping_address,
            "reason": reason,
            "expedited_shipping": expedited_shipping,
            "order_date": TODAY,
            "status": "ORDERED",
            "old_card_cancelled": True,
        }
        if not add_record(self.db, "credit_card_orders", order_id, record):
            return "Error: Order may have already been placed for this card replacement."
        cards = self.db.credit_card_accounts.data
        if credit_card_account_id in cards:
            cards[credit_card_account_id]["status"] = "CLOSED"
            cards[credit_card_account_id]["closed_date"] = TODAY
        return "\n".join(
            [
                f"Order ID: {order_id}",
                f"Card Account: {credit_card_account_id}",
                f"Reason: {title(reason)}",
                f"Shipping Address: {shipping_address}",
                f"Shipping Method: {'Expedited' if expedited_shipping else 'Standard'}",
                "Expected Delivery: "
                + ("2-3 business days" if expedited_shipping else "7-10 business days"),
                "",
                "The old card has been cancelled for security. The new card will have the "
                "same account number but a new card number and CVV.",
            ]
        )

    @discoverable_tool("read")
    def get_user_dispute_history_7291(self, user_id: str) -> str:
        """Retrieve a user's credit card transaction dispute history from the transaction_disputes table. Returns all credit card transaction disputes filed by the user, including dispute IDs, transaction IDs, dispute reasons, statuses, and submission dates.

        Args:
            user_id (string): The user's unique identifier in the system

        Returns:
            User transaction dispute history retrieved successfully.
        """  # noqa: E501
        if not user_id:
            return "Error: Missing required parameter: user_id"
        return history_text(
            "User transaction dispute history retrieved successfully.",
            "get_user_dispute_history_7291",
            f"Transaction dispute history for user {user_id}:",
            query_text(self.db, "transaction_disputes", eq("user_id", user_id)),
            "\nNo transaction disputes found for this user.",
        )

    @discoverable_tool("read")
    def get_pending_replacement_orders_5765(self, credit_card_account_id: str) -> str:
        """Check if a credit card account has any pending replacement card orders.

        Args:
            credit_card_account_id (string): The credit card account ID to check for pending replacement orders

        Returns:
            Pending replacement orders check completed.
        """  # noqa: E501
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        return history_text(
            "Pending replacement orders check completed.",
            "get_pending_replacement_orders_5765",
            f"Replacement orders for credit card account {credit_card_account_id}:",
            query_text(
                self.db,
                "credit_card_orders",
                eq("credit_card_account_id", credit_card_account_id),
            ),
            "\nNo pending replacement orders found for this credit card account.",
        )

    @discoverable_tool("write")
    def log_credit_card_closure_reason_4521(
        self, credit_card_account_id: str, user_id: str, closure_reason: str
    ) -> str:
        """Log the reason why a customer wants to close their credit card account.

        Args:
            credit_card_account_id (string): The credit card account ID the customer wants to close
            user_id (string): The user's unique identifier in the system
            closure_reason (string): Reason for closure. Must be one of: 'annual_fee', 'not_using_card', 'found_better_card', 'unhappy_with_rewards', 'simplifying_finances', 'negative_experience', 'other'

        Returns:
            Closure reason logged successfully.
        """  # noqa: E501
        if not credit_card_account_id or not user_id or not closure_reason:
            return "Error: Missing required parameters."
        reasons = [
            "annual_fee",
            "not_using_card",
            "found_better_card",
            "unhappy_with_rewards",
            "simplifying_finances",
            "negative_experience",
            "other",
        ]
        if closure_reason not in reasons:
            return f"Error: Invalid closure_reason. Must be one of: {reasons}"
        rid = f"clsr_{hex_id(f'closure_reason:{credit_card_account_id}:{user_id}', 12)}"
        record = {
            "record_id": rid,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "closure_reason": closure_reason,
            "logged_at": TODAY,
            "status": "LOGGED",
        }
        add_record(self.db, "credit_card_closure_reasons", rid, record)
        arguments = {
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "closure_reason": closure_reason,
        }
        return (
            "Closure reason logged successfully.\n\n"
            "Executed: log_credit_card_closure_reason_4521\n"
            f"Arguments: {json.dumps(arguments, indent=2)}\n"
            f"Closure reason '{closure_reason}' logged for account {credit_card_account_id}."
        )

    @discoverable_tool("read")
    def get_closure_reason_history_8293(self, credit_card_account_id: str) -> str:
        """Retrieve the closure reason history for a specific credit card account.

        Args:
            credit_card_account_id (string): The credit card account ID to check for previous closure attempts

        Returns:
            Closure reason history retrieved successfully.
        """  # noqa: E501
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        return history_text(
            "Closure reason history retrieved successfully.",
            "get_closure_reason_history_8293",
            f"Closure reason history for credit card account {credit_card_account_id}:",
            query_text(
                self.db,
                "credit_card_closure_reasons",
                eq("credit_card_account_id", credit_card_account_id),
            ),
            "\nNo closure reason records found for this credit card account.",
        )

    @discoverable_tool("write")
    def apply_statement_credit_8472(
        self, user_id: str, credit_card_account_id: str, amount: float, reason: str
    ) -> str:
        """Apply a statement credit to a customer's credit card account.

        Args:
            user_id (string): The user's unique identifier in the system
            credit_card_account_id (string): The credit card account ID to apply the credit to
            amount (number): The credit amount in dollars (e.g., 25.00 for a $25 credit)
            reason (string): Reason for the statement credit. Must be one of: 'goodwill_adjustment', 'promotional_credit', 'annual_fee_reversal', 'late_fee_reversal', 'interest_charge_reversal', 'dispute_resolution', 'price_match', 'retention_offer', 'error_correction', 'other'

        Returns:
            Statement credit applied successfully.
        """  # noqa: E501
        if not user_id or not credit_card_account_id or amount is None or not reason:
            return (
                "Error: Missing required parameters (user_id, credit_card_account_id, amount, "
                "reason)."
            )
        if amount <= 0:
            return "Error: Credit amount must be positive."
        reasons = [
            "goodwill_adjustment",
            "promotional_credit",
            "annual_fee_reversal",
            "late_fee_reversal",
            "interest_charge_reversal",
            "dispute_resolution",
            "price_match",
            "retention_offer",
            "error_correction",
            "other",
        ]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if not found(
            query_text(self.db, "credit_card_accounts", eq("account_id", credit_card_account_id))
        ):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        tid = transaction_id(user_id, "STATEMENT_CREDIT", reason, amount, "Statement Credit")
        record = {
            "transaction_id": tid,
            "user_id": user_id,
            "credit_card_account_id": credit_card_account_id,
            "credit_card_type": "N/A",
            "merchant_name": "Rho-Bank Statement Credit",
            "transaction_amount": f"-${amount:.2f}",
            "transaction_date": TODAY,
            "category": "Statement Credit",
            "status": "COMPLETED",
            "rewards_earned": "0 points",
            "credit_reason": reason,
        }
        if not add_record(self.db, "credit_card_transaction_history", tid, record):
            return (
                f"Error: Failed to apply statement credit. Transaction ID '{tid}' may already "
                "exist."
            )
        return (
            "Statement credit applied successfully.\n\n"
            "Executed: apply_statement_credit_8472\n"
            f"  - Transaction ID: {tid}\n"
            f"  - User ID: {user_id}\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - Credit Amount: ${amount:.2f}\n"
            f"  - Reason: {title(reason)}\n"
            f"  - Date: {TODAY}"
        )

    @discoverable_tool("write")
    def apply_credit_card_account_flag_6147(
        self,
        credit_card_account_id: str,
        user_id: str,
        flag_type: str,
        expiration_date: str,
        reason: str,
    ) -> str:
        """Apply a flag to a customer's credit card account. Flags can include annual fee waivers, promotional APR rates, rewards bonuses, or other account-level modifiers. Each flag has an effective date and expiration date.

        Args:
            credit_card_account_id (string): The credit card account ID to apply the flag to
            user_id (string): The user's unique identifier in the system
            flag_type (string): Type of flag to apply. Must be one of: 'annual_fee_waived', 'promotional_apr', 'rewards_bonus', 'other'
            expiration_date (string): Date when the flag expires (MM/DD/YYYY format)
            reason (string): Reason for applying this flag. Must be one of: 'retention_offer', 'loyalty_benefit', 'promotional', 'error_correction', 'other'

        Returns:
            Account flag applied successfully.
        """  # noqa: E501
        if (
            not credit_card_account_id
            or not user_id
            or not flag_type
            or not expiration_date
            or not reason
        ):
            return (
                "Error: Missing required parameters (credit_card_account_id, user_id, "
                "flag_type, expiration_date, reason)."
            )
        flag_types = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"]
        if flag_type not in flag_types:
            return f"Error: Invalid flag_type. Must be one of: {flag_types}"
        reasons = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if not found(
            query_text(self.db, "credit_card_accounts", eq("account_id", credit_card_account_id))
        ):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        seed = f"account_flag:{credit_card_account_id}:{flag_type}:{expiration_date}"
        flag_id = f"ccflag_{hex_id(seed, 12)}"
        record = {
            "flag_id": flag_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "flag_type": flag_type,
            "effective_date": TODAY,
            "expiration_date": expiration_date,
            "reason": reason,
            "applied_at": TODAY,
            "status": "ACTIVE",
        }
        if not add_record(self.db, "credit_card_account_flags", flag_id, record):
            return f"Error: Failed to apply account flag. Flag ID '{flag_id}' may already exist."
        return (
            "Account flag applied successfully!\n"
            f"  - Flag ID: {flag_id}\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - User ID: {user_id}\n"
            f"  - Flag Type: {title(flag_type)}\n"
            f"  - Effective Date: {TODAY}\n"
            f"  - Expiration Date: {expiration_date}\n"
            f"  - Reason: {title(reason)}"
        )

    @discoverable_tool("write")
    def close_credit_card_account_7834(self, credit_card_account_id: str, user_id: str) -> str:
        """Close a customer's credit card account permanently.

        Args:
            credit_card_account_id (string): The credit card account ID to close
            user_id (string): The user's unique identifier in the system

        Returns:
            Credit card account closed successfully.
        """
        if not credit_card_account_id or not user_id:
            return "Error: Missing required parameters (credit_card_account_id, user_id)."
        if not found(
            query_text(self.db, "credit_card_accounts", eq("account_id", credit_card_account_id))
        ):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        changes = {"status": "CLOSED", "closed_date": TODAY, "closed_by": user_id}
        if not update_record(self.db, "credit_card_accounts", credit_card_account_id, changes):
            return f"Error: Failed to close credit card account '{credit_card_account_id}'."
        arguments = {"credit_card_account_id": credit_card_account_id, "user_id": user_id}
        return (
            "Credit card account closed successfully.\n\n"
            "Executed: close_credit_card_account_7834\n"
            f"Arguments: {json.dumps(arguments, indent=2)}\n"
            f"Account {credit_card_account_id} has been closed."
        )

    @discoverable_tool("write")
    def pay_credit_card_from_checking_9182(
        self,
        user_id: str,
        checking_account_id: str,
        credit_card_account_id: str,
        amount: float,
    ) -> str:
        """Pay off a credit card balance using funds from the customer's Rho-Bank checking account. This deducts the specified amount from the checking account and reduces the credit card balance by the same amount.

        Args:
            user_id (string): The customer's unique identifier in the system
            checking_account_id (string): The ID of the Rho-Bank checking account to debit funds from
            credit_card_account_id (string): The ID of the credit card account to apply the payment to
            amount (number): The payment amount in dollars. Must be a positive number.

        Returns:
            Credit card payment processed successfully.
        """  # noqa: E501
        if not user_id or not checking_account_id or not credit_card_account_id or amount is None:
            return (
                "Error: Missing required parameters (user_id, checking_account_id, "
                "credit_card_account_id, amount)."
            )
        try:
            amount = float(amount)
            if amount <= 0:
                return "Error: Payment amount must be a positive number."
        except (ValueError, TypeError):
            return "Error: Invalid payment amount. Must be a positive number."
        if checking_account_id not in self.db.accounts.data:
            return f"Error: Checking account '{checking_account_id}' not found."
        checking = self.db.accounts.data[checking_account_id]
        if checking.get("user_id") != user_id:
            return (
                f"Error: Checking account '{checking_account_id}' does not belong to user "
                f"'{user_id}'."
            )
        if checking.get("class") != "checking":
            return f"Error: Account '{checking_account_id}' is not a checking account."
        current = account_balance(checking)
        if amount > current:
            return (
                f"Error: Insufficient funds in checking account. Available balance: "
                f"${current:.2f}, requested payment: ${amount:.2f}."
            )
        if credit_card_account_id not in self.db.credit_card_accounts.data:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        card = self.db.credit_card_accounts.data[credit_card_account_id]
        if card.get("user_id") != user_id:
            return (
                f"Error: Credit card account '{credit_card_account_id}' does not belong to "
                f"user '{user_id}'."
            )
        try:
            owed = float(
                str(card.get("current_balance", "$0.00")).replace("$", "").replace(",", "")
            )
        except (ValueError, TypeError):
            owed = 0.0
        if amount > owed:
            return (
                f"Error: Payment amount (${amount:.2f}) exceeds credit card balance "
                f"(${owed:.2f}). Please specify an amount up to the outstanding balance."
            )
        left, still_owed = current - amount, owed - amount
        checking["current_holdings"] = f"{left:.2f}"
        card["current_balance"] = f"${still_owed:.2f}"
        return (
            "Payment processed successfully!\n"
            f"  - Payment Amount: ${amount:.2f}\n"
            f"  - From Checking Account: {checking_account_id}\n"
            f"  - To Credit Card Account: {credit_card_account_id}\n"
            f"  - New Checking Balance: ${left:.2f}\n"
            f"  - New Credit Card Balance: ${still_owed:.2f}\n"
            "The payment has been applied immediately."
        )

    @discoverable_tool("write")
    def submit_credit_limit_increase_request_7392(
        self, credit_card_account_id: str, user_id: str, requested_increase_amount: int
    ) -> str:
        """Submit a credit limit increase request for a customer's credit card.

        Args:
            credit_card_account_id (string): The credit card account ID to request increase for
            user_id (string): The customer's unique identifier in the system
            requested_increase_amount (integer): The dollar amount by which to increase the credit limit (e.g., 2500 for $2,500)

        Returns:
            Credit limit increase request submitted successfully.
        """  # noqa: E501
        if not credit_card_account_id or not user_id or requested_increase_amount is None:
            return "Error: Missing required parameters."
        try:
            whole = float(requested_increase_amount)
        except (TypeError, ValueError):
            return "Error: Invalid requested_increase_amount. Must be a whole number."
        if not whole.is_integer():
            return "Error: Invalid requested_increase_amount. Must be a whole number of dollars."
        amount = int(whole)
        if amount <= 0:
            return "Error: Requested increase amount must be positive."
        if credit_card_account_id not in self.db.credit_card_accounts.data:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        if self.db.credit_card_accounts.data[credit_card_account_id].get("user_id") != user_id:
            return (
                f"Error: Credit card account '{credit_card_account_id}' does not belong to "
                f"user '{user_id}'."
            )
        request_id = _cli_id(credit_card_account_id, user_id, amount)
        record = {
            "request_id": request_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "requested_increase_amount": amount,
            "submitted_at": TODAY,
            "status": "PENDING",
        }
        if not add_record(self.db, "credit_limit_increase_requests", request_id, record):
            return "Error: A similar request may already exist."
        return (
            "Credit limit increase request submitted successfully.\n\n"
            "Executed: submit_credit_limit_increase_request_7392\n"
            f"  - Request ID: {request_id}\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - Requested Increase: ${amount:,}\n"
            "  - Status: PENDING"
        )

    @discoverable_tool("read")
    def get_credit_limit_increase_history_4829(self, credit_card_account_id: str) -> str:
        """Retrieve the credit limit increase request history for a specific credit card account. Returns all previous CLI requests including dates, amounts, and statuses.

        Args:
            credit_card_account_id (string): The credit card account ID to check for CLI history

        Returns:
            Credit limit increase history retrieved.
        """  # noqa: E501
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        return history_text(
            "Credit limit increase history retrieved.",
            "get_credit_limit_increase_history_4829",
            f"Credit limit increase history for account {credit_card_account_id}:",
            query_text(
                self.db,
                "credit_limit_increase_requests",
                eq("credit_card_account_id", credit_card_account_id),
            ),
            "\nNo credit limit increase requests found for this account.",
        )

    @discoverable_tool("read")
    def get_payment_history_6183(self, credit_card_account_id: str, months: int) -> str:
        """Retrieve payment history for a credit card account.

        Args:
            credit_card_account_id (string): The credit card account ID to check payment history for
            months (integer): Number of months of payment history to retrieve

        Returns:
            Payment history retrieved.
        """
        if not credit_card_account_id or months is None:
            return "Error: Missing required parameters (credit_card_account_id, months)."
        try:
            months = int(months)
            if months <= 0:
                return "Error: months must be a positive integer."
        except (ValueError, TypeError):
            return "Error: Invalid months value. Must be a positive integer."
        payments = [
            p
            for p in self.db.payment_history.data.values()
            if p.get("credit_card_account_id") == credit_card_account_id
        ]
        if not payments:
            return f"No payment history found for account '{credit_card_account_id}'."
        payments.sort(key=lambda p: p.get("payment_date") or "", reverse=True)
        payments = payments[:months]
        on_time = 0
        for payment in payments:
            if payment.get("status") != "ON_TIME":
                break
            on_time += 1
        parts = [
            f"Payment history for account '{credit_card_account_id}' (last {months} months):",
            f"Consecutive on-time payments: {on_time}",
        ]
        parts.extend(
            f"\n  - Payment Date: {p.get('payment_date')}\n"
            f"    Amount: {p.get('amount')}\n"
            f"    Status: {p.get('status')}"
            for p in payments
        )
        return "\n".join(parts)

    @discoverable_tool("write")
    def approve_credit_limit_increase_5847(
        self, credit_card_account_id: str, user_id: str, new_credit_limit: int
    ) -> str:
        """Approve and apply a credit limit increase for a customer's credit card.

        Args:
            credit_card_account_id (string): The credit card account ID
            user_id (string): The customer's unique identifier in the system
            new_credit_limit (integer): The new total credit limit in dollars (e.g., 7500 for $7,500)

        Returns:
            Credit limit increase approved and applied successfully.
        """  # noqa: E501
        if not credit_card_account_id or not user_id or new_credit_limit is None:
            return "Error: Missing required parameters."
        if credit_card_account_id not in self.db.credit_card_accounts.data:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        card = self.db.credit_card_accounts.data[credit_card_account_id]
        if card.get("user_id") != user_id:
            return (
                f"Error: Credit card account '{credit_card_account_id}' does not belong to "
                f"user '{user_id}'."
            )
        # eligibility, one generic refusal whichever check fails
        ineligible = any(
            d.get("user_id") == user_id
            and d.get("status") in ["SUBMITTED", "UNDER_REVIEW", "PENDING"]
            for d in self.db.transaction_disputes.data.values()
        ) or any(
            o.get("credit_card_account_id") == credit_card_account_id
            and o.get("status") in ["PENDING", "PROCESSING", "SHIPPED"]
            for o in self.db.credit_card_orders.data.values()
        )
        if not ineligible and card.get("account_status", "").upper() in [
            "PAST_DUE",
            "DELINQUENT",
            "COLLECTIONS",
            "CLOSED",
        ]:
            ineligible = True
        if ineligible:
            return "Error: Credit limit increase request cannot be approved at this time."
        try:
            before = float(str(card.get("credit_limit", "$0.00")).replace("$", "").replace(",", ""))
        except (ValueError, TypeError):
            before = 0.0
        after = float(new_credit_limit)
        card["credit_limit"] = f"${after:.2f}"
        request_id = _cli_id(credit_card_account_id, user_id, after - before)
        record = {
            "request_id": request_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "previous_limit": f"${before:.2f}",
            "new_limit": f"${after:.2f}",
            "increase_amount": f"${after - before:.2f}",
            "decision_date": TODAY,
            "status": "APPROVED",
        }
        add_record(self.db, "credit_limit_increase_requests", request_id, record)
        return (
            "Credit limit increase approved!\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - Previous Limit: ${before:.2f}\n"
            f"  - New Limit: ${after:.2f}\n"
            f"  - Increase: ${after - before:.2f}\n"
            f"  - Effective Date: {TODAY}\n"
            "The customer will receive a confirmation email."
        )

    @discoverable_tool("write")
    def deny_credit_limit_increase_5848(
        self, credit_card_account_id: str, user_id: str, denial_reason: str
    ) -> str:
        """Deny a credit limit increase request for a customer's credit card.

        Args:
            credit_card_account_id (string): The credit card account ID
            user_id (string): The customer's unique identifier in the system
            denial_reason (string): The reason for denying the request. Must be one of: 'insufficient_account_age', 'cooldown_period_active', 'pending_disputes', 'pending_replacement_card', 'past_due_balance', 'high_utilization', 'insufficient_payment_history', 'requested_amount_exceeds_limit', 'other'

        Returns:
            Credit limit increase request denied.
        """  # noqa: E501
        if not credit_card_account_id or not user_id or not denial_reason:
            return "Error: Missing required parameters."
        reasons = [
            "insufficient_account_age",
            "cooldown_period_active",
            "pending_disputes",
            "pending_replacement_card",
            "past_due_balance",
            "high_utilization",
            "insufficient_payment_history",
            "requested_amount_exceeds_limit",
            "other",
        ]
        if denial_reason not in reasons:
            return f"Error: Invalid denial_reason. Must be one of: {', '.join(reasons)}"
        if credit_card_account_id not in self.db.credit_card_accounts.data:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        request_id = _cli_id(credit_card_account_id, user_id, 0.0)
        record = {
            "request_id": request_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "denial_reason": denial_reason,
            "decision_date": TODAY,
            "status": "DENIED",
        }
        add_record(self.db, "credit_limit_increase_requests", request_id, record)
        return (
            "Credit limit increase request denied.\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - Denial Reason: {denial_reason}\n"
            f"  - Date: {TODAY}\n"
            "The customer will receive a notification explaining the denial."
        )

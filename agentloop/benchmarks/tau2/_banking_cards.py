"""τ²-bench's banking_knowledge discoverable agent tools for debit cards (ordering, the
three activation variants, closing, freezing, fraud alerts, PINs, limits, recurring-payment
blocks, listing), written here from their published specifications: each tool's docstring is
its description, as the agent sees it when it unlocks the tool; its texts, checks and records
are τ²-bench's.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from agentloop.benchmarks.tau2._banking_db import (
    TODAY,
    TransactionalDB,
    add_record,
    hex_id,
    title,
)
from agentloop.benchmarks.tau2._toolkit import discoverable_tool

__all__ = ["CardActions"]


_SEQUENTIAL_PINS = {
    "0123",
    "1234",
    "2345",
    "3456",
    "4567",
    "5678",
    "6789",
    "9876",
    "8765",
    "7654",
    "6543",
    "5432",
    "4321",
    "3210",
}
_ACTIVATION_TOOL = {
    "new_account": "activate_debit_card_8291",
    "first_card": "activate_debit_card_8291",
    "lost": "activate_debit_card_8292",
    "stolen": "activate_debit_card_8292",
    "fraud": "activate_debit_card_8292",
    "expired": "activate_debit_card_8293",
    "damaged": "activate_debit_card_8293",
    "upgrade": "activate_debit_card_8293",
    "bank_reissue": "activate_debit_card_8293",
}
_DEFAULT_ATM_LIMITS = {
    "blue account": 500,
    "green account": 600,
    "light blue account": 400,
    "green fee-free account": 500,
    "evergreen account": 750,
    "bluest account": 1500,
    "dark green account": 300,
    "gold years account": 600,
    "purple account": 1000,
}


def _pin_problem(pin: Any) -> str | None:
    if not pin or not pin.isdigit() or len(pin) != 4:
        return "PIN must be exactly 4 digits."
    if pin in _SEQUENTIAL_PINS:
        return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
    if len(set(pin)) == 1:
        return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN."
    return None


class CardActions:
    """The debit card discoverable tools (a part of ``KnowledgeTools``)."""

    db: TransactionalDB

    @discoverable_tool("write")
    def set_debit_card_recurring_block_7382(self, card_id: str, block_recurring: bool) -> str:
        """Block or unblock all recurring payments on a debit card. When blocked, all recurring/subscription charges will be declined. One-time purchases are not affected.

        Args:
            card_id (string): The debit card ID to update
            block_recurring (boolean): True to block all recurring payments, False to unblock/allow recurring payments

        Returns:
            Debit card recurring payment settings updated successfully.
        """  # noqa: E501
        if not card_id:
            return "Error: Missing required parameter: card_id"
        card = self.db.debit_cards.data.get(card_id)
        if not card:
            return f"Error: Debit card '{card_id}' not found."
        status = card.get("status", "").upper()
        if status != "ACTIVE":
            return (
                f"Error: Cannot update recurring block settings for a card with status "
                f"'{status}'. Card must be ACTIVE."
            )
        card["recurring_blocked"] = block_recurring
        if block_recurring:
            return (
                f"Recurring payments BLOCKED for debit card {card_id}.\n"
                "All recurring/subscription charges will be declined.\n"
                "One-time purchases are not affected.\n"
                "This change takes effect within 24 hours."
            )
        return (
            f"Recurring payments UNBLOCKED for debit card {card_id}.\n"
            "Recurring/subscription charges will now be allowed.\n"
            "This change takes effect within 24 hours."
        )

    @discoverable_tool("write")
    def order_debit_card_5739(
        self,
        account_id: str,
        user_id: str,
        delivery_option: str,
        delivery_fee: float,
        card_design: str,
        design_fee: float,
        shipping_address: str,
        excess_replacement_fee: float | None = None,
    ) -> str:
        """Order a new debit card for a customer's checking account.

        Args:
            account_id (string): The checking account ID to link the debit card to
            user_id (string): The customer's unique identifier
            delivery_option (string): Shipping speed: STANDARD, EXPEDITED, or RUSH
            delivery_fee (number): Fee to charge for delivery in dollars
            card_design (string): Card design: CLASSIC, PREMIUM, or CUSTOM
            design_fee (number): Fee to charge for card design in dollars
            shipping_address (string): Full shipping address for card delivery
            excess_replacement_fee (number, optional): Fee for exceeding replacement limit, if applicable

        Returns:
            Debit card order placed successfully.
        """  # noqa: E501
        excess: Any = excess_replacement_fee or 0
        try:
            delivery = float(delivery_fee) if delivery_fee is not None else None
        except (TypeError, ValueError):
            return "Error: delivery_fee must be a number."
        try:
            design = float(design_fee) if design_fee is not None else None
        except (TypeError, ValueError):
            return "Error: design_fee must be a number."
        try:
            excess = float(excess)
        except (TypeError, ValueError):
            excess = 0
        if not all(
            [
                account_id,
                user_id,
                delivery_option,
                delivery is not None,
                card_design,
                design is not None,
                shipping_address,
            ]
        ):
            return (
                "Error: Missing required parameters. Required: account_id, user_id, "
                "delivery_option, delivery_fee, card_design, design_fee, shipping_address."
            )
        assert delivery is not None and design is not None
        speeds = {
            "STANDARD": "7-10 business days",
            "EXPEDITED": "3-5 business days",
            "RUSH": "1-2 business days",
        }
        if delivery_option.upper() not in speeds:
            return f"Error: Invalid delivery_option. Must be one of: {list(speeds)}"
        delivery_option = delivery_option.upper()
        designs = ["CLASSIC", "PREMIUM", "CUSTOM"]
        if card_design.upper() not in designs:
            return f"Error: Invalid card_design. Must be one of: {designs}"
        card_design = card_design.upper()
        if account_id not in self.db.accounts.data:
            return f"Error: Account '{account_id}' not found."
        account = self.db.accounts.data[account_id]
        if account.get("class") != "checking":
            return (
                f"Error: Debit cards can only be ordered for checking accounts. Account "
                f"'{account_id}' is a {account.get('class')} account."
            )
        if account.get("status") != "OPEN":
            return (
                f"Error: Account must be OPEN. Account '{account_id}' has status: "
                f"{account.get('status')}"
            )
        if account.get("user_id") != user_id:
            return f"Error: Account '{account_id}' does not belong to user '{user_id}'."
        try:
            held = float(str(account.get("current_holdings", "0")).replace(",", ""))
        except ValueError:
            held = 0.0
        if held < 25.0:
            return (
                f"Error: Account must have a minimum balance of $25. Current balance: ${held:.2f}"
            )
        for order in self.db.debit_card_orders.data.values():
            if order.get("account_id") == account_id and order.get("status") == "PENDING":
                return (
                    f"Error: There is already a pending debit card order for account "
                    f"'{account_id}'."
                )
        cards = self.db.debit_cards.data
        if any(
            c.get("account_id") == account_id and c.get("status") == "ACTIVE"
            for c in cards.values()
        ):
            return (
                f"Error: Account '{account_id}' already has an active debit card. Maximum 1 "
                "active card per checking account."
            )
        total = delivery + design + excess
        if total > 0 and held < total:
            return (
                f"Error: Insufficient funds for fees. Total fees: ${total:.2f}. Current "
                f"balance: ${held:.2f}"
            )
        order_id = (
            f"dcord_{hex_id(f'debit_card_order:{account_id}:{user_id}:{delivery_option}', 12)}"
        )
        order = {
            "order_id": order_id,
            "account_id": account_id,
            "user_id": user_id,
            "delivery_option": delivery_option,
            "card_design": card_design,
            "shipping_address": shipping_address,
            "delivery_fee": delivery,
            "design_fee": design,
            "excess_replacement_fee": excess,
            "total_fee": total,
            "order_date": TODAY,
            "expected_delivery": speeds[delivery_option],
            "status": "PENDING",
        }
        if not add_record(self.db, "debit_card_orders", order_id, order):
            return "Error: Failed to create debit card order. Order may already exist."
        if total > 0:
            account["current_holdings"] = f"{held - total:.2f}"
            fees = []
            if delivery > 0:
                fees.append(f"Delivery ${delivery}")
            if design > 0:
                fees.append(f"Design ${design}")
            if excess > 0:
                fees.append(f"Excess Replacement ${excess:.0f}")
            fee_id = f"btxn_dcfee_{order_id[-8:]}"
            fee = {
                "transaction_id": fee_id,
                "account_id": account_id,
                "date": TODAY,
                "description": f"DEBIT CARD ORDER FEE - {', '.join(fees)}",
                "amount": -total,
                "type": "debit_card_fee",
                "status": "posted",
            }
            add_record(self.db, "bank_account_transaction_history", fee_id, fee)
        card_id = f"dbc_{hex_id(f'debit_card:{account_id}:{user_id}:{TODAY}', 12)}"
        last4 = "".join(c for c in hex_id(f"card_details:{card_id}:last4", 8) if c.isdigit())
        cvv = "".join(c for c in hex_id(f"card_details:{card_id}:cvv", 6) if c.isdigit())
        holder = "CARDHOLDER"
        if user_id in self.db.users.data:
            holder = self.db.users.data[user_id].get("name", "CARDHOLDER").upper()
        month, _, year = TODAY.split("/")
        days = "31" if month in ["01", "03", "05", "07", "08", "10", "12"] else "30"
        days = "28" if month == "02" else days
        mine = [c for c in cards.values() if c.get("account_id") == account_id]
        closed = next((c for c in mine if c.get("status") == "CLOSED"), None)
        if closed:
            why = closed.get("closure_reason", "first_card")
            if why in ["lost", "stolen", "fraud", "fraud_suspected"]:
                reason = why if why != "fraud_suspected" else "fraud"
            else:
                reason = "first_card"
        else:
            reason = "first_card" if mine else "new_account"
        card = {
            "card_id": card_id,
            "account_id": account_id,
            "user_id": user_id,
            "cardholder_name": holder,
            "last_4_digits": last4[:4].zfill(4),
            "cvv": cvv[:3].zfill(3),
            "status": "PENDING",
            "issue_date": TODAY,
            "expiration_date": f"{month}/{days}/{int(year) + 4}",
            "card_design": card_design,
            "issue_reason": reason,
        }
        add_record(self.db, "debit_cards", card_id, card)
        parts = [
            "Debit Card Order Confirmed",
            f"Order ID: {order_id}",
            f"Card ID: {card_id}",
            f"Linked Account: {account_id}",
            f"Delivery Option: {delivery_option}",
            f"Card Design: {card_design}",
            f"Shipping Address: {shipping_address}",
            f"Expected Delivery: {speeds[delivery_option]}",
            "",
            "Note: Card will arrive with status PENDING. Customer must call to activate after "
            "receiving the card.",
        ]
        if total > 0:
            details = []
            if delivery > 0:
                details.append(f"Delivery: ${delivery}")
            if design > 0:
                details.append(f"Design: ${design}")
            if excess > 0:
                details.append(f"Excess Replacement: ${excess:.0f}")
            parts.append(
                f"Total Fees: ${total:.2f} ({', '.join(details)}) - CHARGED to account {account_id}"
            )
            parts.append(f"New Account Balance: ${held - total:.2f}")
        else:
            parts.append("Total Fees: $0 (No additional charges)")
        return "\n".join(parts)

    def _activation_problem(
        self, values: list[Any], allowed: list[str], tool: str
    ) -> tuple[str | None, dict[str, Any] | None]:
        """The checks every activation variant makes: (error, the card)."""
        card_id, last4, _expires, cvv, pin = values
        if not all(values):
            return (
                "Error: Missing required parameters. Required: card_id, last_4_digits, "
                "expiration_date, cvv, pin.",
                None,
            )
        problem = _pin_problem(pin)
        if problem:
            return f"Error: {problem}", None
        if not cvv.isdigit() or len(cvv) != 3:
            return "Error: CVV must be exactly 3 digits.", None
        if not last4.isdigit() or len(last4) != 4:
            return "Error: Last 4 digits must be exactly 4 digits.", None
        if card_id not in self.db.debit_cards.data:
            return f"Error: Debit card '{card_id}' not found.", None
        card = self.db.debit_cards.data[card_id]
        reason = card.get("issue_reason", "new_account")
        if reason not in allowed:
            right = _ACTIVATION_TOOL.get(reason, "unknown")
            return (
                f"Error: Wrong activation tool. This card has issue_reason='{reason}'. Please "
                f"use {right} instead of {tool}.",
                None,
            )
        if card.get("status") == "ACTIVE":
            return f"Error: Debit card '{card_id}' is already active.", None
        if card.get("status") != "PENDING":
            return (
                f"Error: Debit card '{card_id}' cannot be activated. Current status: "
                f"{card.get('status')}. Only PENDING cards can be activated.",
                None,
            )
        if card.get("last_4_digits") != last4:
            return (
                "Error: Card verification failed. The last 4 digits do not match our records.",
                None,
            )
        account_id = card.get("account_id")
        accounts = self.db.accounts.data
        if account_id and account_id in accounts and accounts[account_id].get("status") != "OPEN":
            return (
                f"Error: The linked checking account '{account_id}' is no longer open. "
                "Card cannot be activated.",
                None,
            )
        return None, card

    def _others_active(self, card_id: str, account_id: Any) -> list[tuple[str, dict[str, Any]]]:
        return [
            (cid, c)
            for cid, c in self.db.debit_cards.data.items()
            if cid != card_id and c.get("account_id") == account_id and c.get("status") == "ACTIVE"
        ]

    @discoverable_tool("write")
    def activate_debit_card_8291(
        self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
    ) -> str:
        """Activate a NEW debit card for a customer. Use ONLY for first-time cards on a checking account (issue_reason = 'new_account' or 'first_card'). For replacement or reissued cards, use the appropriate variant.

        Args:
            card_id (string): The debit card ID to activate
            last_4_digits (string): Last 4 digits of the card number (for verification)
            expiration_date (string): Card expiration date in MM/YY format
            cvv (string): 3-digit CVV from the back of the card
            pin (string): 4-digit PIN chosen by the customer

        Returns:
            New debit card activated successfully.
        """  # noqa: E501
        error, card = self._activation_problem(
            [card_id, last_4_digits, expiration_date, cvv, pin],
            ["new_account", "first_card"],
            "activate_debit_card_8291",
        )
        if error or card is None:
            return str(error)
        card["status"] = "ACTIVE"
        card["activated_date"] = TODAY
        replaced = []
        for other_id, other in self._others_active(card_id, card.get("account_id")):
            other["status"] = "DEACTIVATED"
            other["deactivated_date"] = TODAY
            other["deactivation_reason"] = "New card activated"
            replaced.append(other_id)
        parts = [
            "New Debit Card Activation Successful",
            f"Card ID: {card_id}",
            "Status: ACTIVE",
            f"Activation Date: {TODAY}",
            "",
            "Your card is now ready to use at any ATM or point of sale terminal.",
            "For security, please sign the back of your card.",
        ]
        if replaced:
            parts.append(f"\nNote: Previous card(s) have been deactivated: {', '.join(replaced)}")
        return "\n".join(parts)

    @discoverable_tool("write")
    def activate_debit_card_8292(
        self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
    ) -> str:
        """Activate a REPLACEMENT debit card. Use ONLY for cards replacing lost, stolen, or fraud-suspected cards (issue_reason = 'lost', 'stolen', or 'fraud'). For new or reissued cards, use the appropriate variant.

        Args:
            card_id (string): The debit card ID to activate
            last_4_digits (string): Last 4 digits of the card number (for verification)
            expiration_date (string): Card expiration date in MM/YY format
            cvv (string): 3-digit CVV from the back of the card
            pin (string): 4-digit PIN chosen by the customer

        Returns:
            Replacement debit card activated successfully.
        """  # noqa: E501
        error, card = self._activation_problem(
            [card_id, last_4_digits, expiration_date, cvv, pin],
            ["lost", "stolen", "fraud"],
            "activate_debit_card_8292",
        )
        if error or card is None:
            return str(error)
        reason = card.get("issue_reason", "lost")
        card["status"] = "ACTIVE"
        card["activated_date"] = TODAY
        replaced = []
        for other_id, other in self._others_active(card_id, card.get("account_id")):
            other["status"] = "DEACTIVATED"
            other["deactivated_date"] = TODAY
            other["deactivation_reason"] = f"Replacement card activated ({reason})"
            replaced.append(other_id)
        parts = [
            "Replacement Debit Card Activation Successful",
            f"Card ID: {card_id}",
            f"Replacement Reason: {title(reason)}",
            "Status: ACTIVE",
            f"Activation Date: {TODAY}",
            "",
            "Your replacement card is now ready to use.",
            "",
            "IMPORTANT SECURITY REMINDERS:",
            "- Please review your recent transactions for any unauthorized charges",
            "- Report any suspicious activity immediately",
        ]
        if reason == "fraud":
            parts.append(
                "- Since fraud was suspected, we recommend changing your online banking password"
            )
        if replaced:
            parts.append(
                f"\nPrevious card(s) have been deactivated for security: {', '.join(replaced)}"
            )
        return "\n".join(parts)

    @discoverable_tool("write")
    def activate_debit_card_8293(
        self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
    ) -> str:
        """Activate a REISSUED debit card. Use ONLY for cards reissued due to expiration, damage, design upgrade, or bank-initiated replacement (issue_reason = 'expired', 'damaged', 'upgrade', or 'bank_reissue'). For new or replacement cards, use the appropriate variant.

        Args:
            card_id (string): The debit card ID to activate
            last_4_digits (string): Last 4 digits of the card number (for verification)
            expiration_date (string): Card expiration date in MM/YY format
            cvv (string): 3-digit CVV from the back of the card
            pin (string): 4-digit PIN chosen by the customer

        Returns:
            Reissued debit card activated successfully.
        """  # noqa: E501
        error, card = self._activation_problem(
            [card_id, last_4_digits, expiration_date, cvv, pin],
            ["expired", "damaged", "upgrade", "bank_reissue"],
            "activate_debit_card_8293",
        )
        if error or card is None:
            return str(error)
        reason = card.get("issue_reason", "expired")
        card["status"] = "ACTIVE"
        card["activated_date"] = TODAY
        graced = []
        for other_id, other in self._others_active(card_id, card.get("account_id")):
            other["status"] = "GRACE_PERIOD"
            other["grace_period_ends"] = TODAY
            other["deactivation_reason"] = f"Reissued card activated ({reason})"
            graced.append(other_id)
        parts = [
            "Reissued Debit Card Activation Successful",
            f"Card ID: {card_id}",
            f"Reissue Reason: {title(reason)}",
            "Status: ACTIVE",
            f"Activation Date: {TODAY}",
            "",
            "Your reissued card is now ready to use.",
        ]
        if graced:
            parts.append(
                f"\nNote: Your previous card(s) ({', '.join(graced)}) will remain active for "
                "24 hours as a grace period."
            )
            parts.append("After 24 hours, the old card(s) will be automatically deactivated.")
        if reason in ["expired", "bank_reissue"]:
            parts.append(
                "\nReminder: If your card number changed, please update any recurring payments "
                "with your new card details."
            )
        return "\n".join(parts)

    @discoverable_tool("write")
    def close_debit_card_4721(self, card_id: str, reason: str) -> str:
        """Close or cancel a debit card permanently.

        Args:
            card_id (string): The debit card ID to close
            reason (string): Reason for closing: lost, stolen, fraud_suspected, damaged, no_longer_needed, or account_closing

        Returns:
            Debit card closed successfully.
        """  # noqa: E501
        if not card_id or not reason:
            return "Error: Missing required parameters. Required: card_id, reason."
        reasons = [
            "lost",
            "stolen",
            "fraud_suspected",
            "damaged",
            "no_longer_needed",
            "account_closing",
        ]
        if reason.lower() not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        reason = reason.lower()
        if card_id not in self.db.debit_cards.data:
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.debit_cards.data[card_id]
        if card.get("status") not in ["ACTIVE", "PENDING"]:
            return (
                f"Error: Debit card '{card_id}' cannot be closed. Current status: "
                f"{card.get('status')}. Only ACTIVE or PENDING cards can be closed."
            )
        before = card.get("status")
        card["status"] = "CLOSED"
        card["closed_date"] = TODAY
        card["closure_reason"] = reason
        parts = [
            "Debit Card Closed Successfully",
            f"Card ID: {card_id}",
            f"Previous Status: {before}",
            "New Status: CLOSED",
            f"Closure Reason: {title(reason)}",
            f"Closure Date: {TODAY}",
            "",
        ]
        if reason in ["lost", "stolen", "fraud_suspected"]:
            parts.append("IMPORTANT: This card has been immediately deactivated for security.")
            parts.append("Any pending transactions may still be processed.")
            if reason == "fraud_suspected":
                parts.append(
                    "Please advise the customer to review recent transactions and file "
                    "disputes for any unauthorized charges."
                )
                parts.append("Also recommend changing their online banking password.")
        parts += [
            "",
            "Note: This card cannot be reactivated. If the customer needs a new card, they can "
            "order one through the standard ordering process.",
            "Any recurring payments linked to this card will need to be updated with new "
            "payment information.",
        ]
        return "\n".join(parts)

    @discoverable_tool("write")
    def freeze_debit_card_3892(self, card_id: str) -> str:
        """Temporarily freeze a debit card. The card can be unfrozen later.

        Args:
            card_id (string): The debit card ID to freeze

        Returns:
            Debit card frozen successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if card_id not in self.db.debit_cards.data:
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.debit_cards.data[card_id]
        if card.get("status") == "FROZEN":
            return f"Error: Debit card '{card_id}' is already frozen."
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Debit card '{card_id}' cannot be frozen. Current status: "
                f"{card.get('status')}. Only ACTIVE cards can be frozen."
            )
        card["status"] = "FROZEN"
        card["frozen_date"] = TODAY
        return "\n".join(
            [
                "Debit Card Frozen Successfully",
                f"Card ID: {card_id}",
                "Status: FROZEN",
                f"Frozen Date: {TODAY}",
                "",
                "While frozen:",
                "- All new purchase transactions will be declined",
                "- Recurring payments and subscriptions will be declined",
                "- Pending transactions already authorized may still process",
                "",
                "To unfreeze, the customer can call customer service or use the mobile app.",
                "If the card is confirmed lost or stolen, recommend closing the card "
                "permanently instead.",
            ]
        )

    @discoverable_tool("write")
    def unfreeze_debit_card_3893(self, card_id: str) -> str:
        """Unfreeze a previously frozen debit card.

        Args:
            card_id (string): The debit card ID to unfreeze

        Returns:
            Debit card unfrozen successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if card_id not in self.db.debit_cards.data:
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.debit_cards.data[card_id]
        if card.get("status") == "ACTIVE":
            return f"Error: Debit card '{card_id}' is already active."
        if card.get("status") != "FROZEN":
            return (
                f"Error: Debit card '{card_id}' cannot be unfrozen. Current status: "
                f"{card.get('status')}. Only FROZEN cards can be unfrozen."
            )
        account_id = card.get("account_id")
        accounts = self.db.accounts.data
        if account_id and account_id in accounts and accounts[account_id].get("status") != "OPEN":
            return (
                f"Error: The linked checking account '{account_id}' is no longer open. "
                "Card cannot be unfrozen."
            )
        card["status"] = "ACTIVE"
        card["unfrozen_date"] = TODAY
        return "\n".join(
            [
                "Debit Card Unfrozen Successfully",
                f"Card ID: {card_id}",
                "Status: ACTIVE",
                f"Unfrozen Date: {TODAY}",
                "",
                "The card is now active and ready to use immediately.",
                "All transactions will process normally.",
            ]
        )

    @discoverable_tool("write")
    def clear_debit_card_fraud_alert_4892(self, card_id: str, reason: str) -> str:
        """Clear a fraud alert or velocity block on a debit card.

        Args:
            card_id (string): The debit card ID to clear the alert/block for
            reason (string): Reason for clearing: 'customer_verified' (for fraud alerts after customer verification) or 'velocity_clear' (for velocity blocks after identity verification)

        Returns:
            Fraud alert/velocity block cleared successfully.
        """  # noqa: E501
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not reason:
            return "Error: Missing required parameter: reason."
        reasons = ["customer_verified", "velocity_clear"]
        if reason not in reasons:
            return f"Error: Invalid reason '{reason}'. Must be one of: {', '.join(reasons)}"
        if card_id not in self.db.debit_cards.data:
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.debit_cards.data[card_id]
        if reason == "velocity_clear":
            if not card.get("velocity_blocked", False):
                return f"Error: Debit card '{card_id}' does not have an active velocity block."
            card["velocity_blocked"] = False
            card["velocity_cleared_date"] = TODAY
            return "\n".join(
                [
                    "Velocity Block Cleared Successfully",
                    f"Card ID: {card_id}",
                    f"Cleared Date: {TODAY}",
                    "",
                    "The card is now unblocked and ready for normal use.",
                    "The velocity monitoring will continue - if the same unusual patterns recur,",
                    "the card may be blocked again automatically.",
                ]
            )
        if not card.get("fraud_alert_active", False):
            return f"Error: Debit card '{card_id}' does not have an active fraud alert."
        if card.get("alert_source") == "bank_initiated":
            return (
                "Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's "
                "fraud detection system and cannot be cleared by customer service agents. "
                "Please transfer the customer to the security team using "
                "transfer_to_human_agents."
            )
        card["fraud_alert_active"] = False
        card["alert_source"] = None
        card["fraud_alert_cleared_date"] = TODAY
        return "\n".join(
            [
                "Fraud Alert Cleared Successfully",
                f"Card ID: {card_id}",
                f"Cleared Date: {TODAY}",
                "",
                "The fraud alert has been removed from the card.",
                "All transactions will process normally.",
                "",
                "Remind the customer to review recent transactions and report any "
                "unauthorized charges.",
            ]
        )

    @discoverable_tool("write")
    def reset_debit_card_pin_6284(self, card_id: str, last_4_digits: str, new_pin: str) -> str:
        """Reset a debit card PIN when the customer has forgotten it.

        Args:
            card_id (string): The debit card ID to reset PIN for
            last_4_digits (string): Last 4 digits of the card number (for verification)
            new_pin (string): The new 4-digit PIN chosen by the customer

        Returns:
            Debit card PIN reset successfully.
        """
        if not all([card_id, last_4_digits, new_pin]):
            return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin."
        if not last_4_digits.isdigit() or len(last_4_digits) != 4:
            return "Error: Last 4 digits must be exactly 4 digits."
        problem = _pin_problem(new_pin)
        if problem:
            return f"Error: {problem}"
        if card_id not in self.db.debit_cards.data:
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.debit_cards.data[card_id]
        if card.get("last_4_digits") != last_4_digits:
            return "Error: Card verification failed. The last 4 digits do not match our records."
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Cannot reset PIN. Card status is {card.get('status')}. Only ACTIVE "
                "cards can have their PIN reset."
            )
        card["pin_last_changed"] = TODAY
        card["pin_locked"] = False
        card["pin_attempts_remaining"] = 3
        return "\n".join(
            [
                "Debit Card PIN Reset Successfully",
                f"Card ID: {card_id}",
                f"PIN Changed: {TODAY}",
                "",
                "The new PIN is effective immediately.",
                "Your card has been unlocked and is ready to use.",
                "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
                "",
                "Security reminder: Never share your PIN with anyone.",
            ]
        )

    @discoverable_tool("write")
    def change_debit_card_pin_6285(self, card_id: str, current_pin: str, new_pin: str) -> str:
        """Change a debit card PIN when the customer knows their current PIN.

        Args:
            card_id (string): The debit card ID to change PIN for
            current_pin (string): The customer's current 4-digit PIN
            new_pin (string): The new 4-digit PIN chosen by the customer

        Returns:
            Debit card PIN changed successfully.
        """
        if not all([card_id, current_pin, new_pin]):
            return "Error: Missing required parameters. Required: card_id, current_pin, new_pin."
        if not current_pin.isdigit() or len(current_pin) != 4:
            return "Error: Current PIN must be exactly 4 digits."
        problem = _pin_problem(new_pin)
        if problem:
            return f"Error: {problem}"
        if current_pin == new_pin:
            return "Error: New PIN must be different from current PIN."
        if card_id not in self.db.debit_cards.data:
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.debit_cards.data[card_id]
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Cannot change PIN. Card status is {card.get('status')}. Only ACTIVE "
                "cards can have their PIN changed."
            )
        card["pin_last_changed"] = TODAY
        return "\n".join(
            [
                "Debit Card PIN Changed Successfully",
                f"Card ID: {card_id}",
                f"PIN Changed: {TODAY}",
                "",
                "The new PIN is effective immediately.",
                "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
                "",
                "Security reminder: Never share your PIN with anyone.",
            ]
        )

    @discoverable_tool("read")
    def get_debit_cards_by_account_id_7823(self, account_id: str) -> str:
        """Retrieve all debit cards associated with a checking account. Returns card details including status, issue reason, and expiration date.

        Args:
            account_id (string): The checking account ID to retrieve debit cards for

        Returns:
            Debit cards retrieved successfully.
        """  # noqa: E501
        if not account_id:
            return "Error: Missing required parameter 'account_id'."
        if account_id not in self.db.accounts.data:
            return f"Error: Account '{account_id}' not found."
        if self.db.accounts.data[account_id].get("class", "").lower() not in [
            "checking",
            "business_checking",
        ]:
            return (
                f"Error: Account '{account_id}' is not a checking account. Debit cards are only "
                "available for checking accounts."
            )
        listed = []
        for cid, card in self.db.debit_cards.data.items():
            if card.get("account_id") != account_id:
                continue
            info = {"card_id": cid, **card}
            # the names τ²-bench's listing uses
            if "last_4_digits" in info and "card_number_last_4" not in info:
                info["card_number_last_4"] = info.pop("last_4_digits")
            if "issue_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("issue_date")
            elif "created_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("created_date")
            listed.append(info)
        if not listed:
            return f"No debit cards found for account '{account_id}'."
        listed.sort(key=lambda c: c.get("date_issued") or "", reverse=True)
        return json.dumps(listed, indent=2)

    @discoverable_tool("write")
    def request_temporary_debit_card_limit_increase_8374(
        self, card_id: str, limit_type: str, new_limit: int
    ) -> str:
        """Request a temporary 24-hour increase to a debit card's daily ATM or purchase limit.

        Args:
            card_id (string): The debit card ID to increase limits for
            limit_type (string): Type of limit to increase: 'atm' for daily ATM withdrawal limit, 'purchase' for daily purchase limit
            new_limit (integer): The requested new temporary limit amount in dollars

        Returns:
            Temporary limit increase granted successfully.
        """  # noqa: E501
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not limit_type:
            return "Error: Missing required parameter: limit_type."
        if limit_type not in ["atm", "purchase"]:
            return f"Error: Invalid limit_type '{limit_type}'. Must be 'atm' or 'purchase'."
        if new_limit is None:
            return "Error: Missing required parameter: new_limit."
        try:
            asked = float(new_limit)
        except (ValueError, TypeError):
            return f"Error: new_limit must be an integer, got '{new_limit}'."
        if not asked.is_integer():
            return f"Error: new_limit must be an integer, got '{asked}'."
        limit = int(asked)
        if limit <= 0:
            return "Error: new_limit must be a positive amount."
        if card_id not in self.db.debit_cards.data:
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.debit_cards.data[card_id]
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Debit card '{card_id}' is not active. Current status: "
                f"{card.get('status')}. Only ACTIVE cards can have limit increases."
            )
        account_id = card.get("account_id")
        if not account_id or account_id not in self.db.accounts.data:
            return f"Error: Could not find linked account for debit card '{card_id}'."
        account = self.db.accounts.data[account_id]
        if account.get("status") != "OPEN":
            return (
                f"Error: The linked account '{account_id}' is not in good standing. Account "
                f"status: {account.get('status')}."
            )
        opened = account.get("date_opened")
        if opened:
            try:
                age = (
                    datetime.strptime(TODAY, "%m/%d/%Y") - datetime.strptime(opened, "%m/%d/%Y")
                ).days
                if age < 60:
                    return (
                        "Error: Account must be at least 60 days old for a temporary limit "
                        f"increase. Account age: {age} days."
                    )
            except ValueError:
                pass
        if limit_type == "atm":
            current = card.get("daily_atm_limit")
            field, name = "daily_atm_limit", "Daily ATM Withdrawal Limit"
            if current is None:
                level = account.get("level", "").lower()
                if "light green" in level:
                    return (
                        "Error: Light Green Account (teen checking) cards have policy-based "
                        "limits that cannot be modified. The daily ATM withdrawal limit of $150 "
                        "is fixed by account policy for safety reasons. The customer may request "
                        "the parent/guardian to withdraw cash from their own account if needed."
                    )
                current = _DEFAULT_ATM_LIMITS.get(level)
                if current is None:
                    return (
                        "Error: Could not determine the default ATM limit for account type "
                        f"'{account.get('level')}'. Please verify the account type."
                    )
        else:
            current = card.get("daily_purchase_limit")
            field, name = "daily_purchase_limit", "Daily Purchase Limit"
        if current is None:
            return (
                f"Error: The card does not have a {name.lower()} configured. This may be a "
                "restricted account type where limits are set by account policy and cannot be "
                "modified."
            )
        ceiling = int(current * 1.5)
        if limit > ceiling:
            return (
                f"Error: Requested limit ${limit} exceeds the maximum allowed temporary "
                f"increase. Maximum temporary limit is ${ceiling} (150% of current ${current} "
                "limit)."
            )
        if limit <= current:
            return (
                f"Error: Requested limit ${limit} is not higher than the current limit of "
                f"${current}."
            )
        card[field] = limit
        card[f"temporary_{limit_type}_limit_increase"] = True
        card[f"original_{limit_type}_limit"] = current
        card[f"temporary_{limit_type}_limit_expires"] = TODAY
        return "\n".join(
            [
                f"Temporary {name} Increase Granted Successfully",
                f"Card ID: {card_id}",
                f"Previous Limit: ${current}",
                f"New Temporary Limit: ${limit}",
                f"Increase Amount: ${limit - current}",
                "",
                "Important Information:",
                "- This temporary increase expires in 24 hours",
                f"- After expiration, the limit will revert to ${current}",
                "- Only one temporary increase is allowed per 24-hour period",
                "",
                "Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may "
                "have its own",
                "per-transaction or daily limits that Rho-Bank cannot override. The customer "
                "may need to",
                "use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs.",
            ]
        )

"""τ²-bench's banking_knowledge discoverable agent tools for debit card disputes (filing one
under Regulation E, a user's dispute history, ATM deposit images), written here from their
published specifications: each tool's docstring is its description, as the agent sees it when
it unlocks the tool; its texts, checks and records are τ²-bench's.
"""

from __future__ import annotations

from agentloop.benchmarks.tau2._banking_db import (
    TODAY,
    TransactionalDB,
    add_record,
    eq,
    hex_id,
    history_text,
    query_text,
    title,
)
from agentloop.benchmarks.tau2._toolkit import discoverable_tool

__all__ = ["DebitDisputeActions"]


def _envelope(number: str, time: str, location: str, check: str, payee: tuple[str, str]) -> str:
    """The scan of an envelope holding a check of $875.00 and $260.00 in cash, of which the
    ATM recorded $385.00 (two of τ²-bench's scripted deposits); ``payee``: (name, the check's
    date)."""
    return f"""
=== ATM DEPOSIT ENVELOPE SCAN ===
Envelope ID: {number}
Deposit Time: {time}
ATM Location: {location}

--- ENVELOPE CONTENTS ---
Item 1: Personal Check
{check}
  - Amount: $875.00
  - Memo: "October rent refund"
  - Signature: Present and legible
  - Date on Check: {payee[1]}

Item 2: Cash
  - Denomination breakdown:
    * 2 x $100 bills = $200.00
    * 3 x $20 bills = $60.00
  - Total Cash: $260.00

--- DEPOSIT SUMMARY ---
Check Total: $875.00
Cash Total: $260.00
GRAND TOTAL: $1,135.00

--- MACHINE RECORD ---
Amount Recorded by ATM: $385.00
DISCREPANCY DETECTED: $750.00 difference

--- IMAGE QUALITY ---
Envelope scan: CLEAR
Check front: CLEAR
Check back (endorsement): CLEAR - endorsed "For Deposit Only - {payee[0]}"
Cash image: CLEAR - bills visible and countable
"""


_DISCREPANCY_NOTE = (
    "Images clearly show deposit contents totaling $1,135.00. ATM machine recorded only "
    "$385.00. Discrepancy of $750.00 confirmed via image review."
)
_DEPOSIT_IMAGES = {
    "btxn_834027370c20": (
        "ATM #3921",
        _envelope(
            "ENV-2025-3921-00923",
            "3:47 PM CST",
            "Rho-Bank ATM #3921, Cedar Lane Branch, Austin, TX",
            "  - Check Number: 7284\n  - Drawn On: First Texas Bank\n  - Payee: Derek Yamamoto",
            ("Derek Yamamoto", "11/03/2025"),
        ),
        _DISCREPANCY_NOTE,
    ),
    "btxn_test_deposit_001": (
        "ATM #3921",
        _envelope(
            "ENV-2025-3921-00847",
            "2:34 PM EST",
            "Rho-Bank ATM #3921, 742 Oak Avenue, Portland, OR",
            "  - Check Number: 4821\n  - Drawn On: First National Bank\n  - Payee: Linda Patterson",
            ("Linda Patterson", "11/05/2025"),
        ),
        _DISCREPANCY_NOTE,
    ),
    "btxn_test_atm_dep_partial": (
        "ATM #5847",
        """
=== ATM DEPOSIT ENVELOPE SCAN ===
Envelope ID: ENV-2025-5847-00293
Deposit Time: 10:15 AM EST

--- ENVELOPE CONTENTS ---
Item 1: Personal Check
  - Check Number: 7392
  - Amount: $500.00

--- DEPOSIT SUMMARY ---
Check Total: $500.00
Cash Total: $0.00
GRAND TOTAL: $500.00

--- MACHINE RECORD ---
Amount Recorded by ATM: $500.00
No discrepancy detected.
""",
        "Images confirm deposit matches recorded amount. No discrepancy found.",
    ),
}
"""τ²-bench's scripted ATM deposit images: transaction -> (ATM, envelope scan, notes)."""


class DebitDisputeActions:
    """The debit card dispute discoverable tools (a part of ``KnowledgeTools``)."""

    db: TransactionalDB

    @discoverable_tool("write")
    def file_debit_card_transaction_dispute_6281(
        self,
        transaction_id: str,
        account_id: str,
        card_id: str,
        user_id: str,
        dispute_category: str,
        transaction_date: str,
        discovery_date: str,
        disputed_amount: float,
        transaction_type: str,
        card_in_possession: bool,
        pin_compromised: str,
        contacted_merchant: bool,
        police_report_filed: bool,
        written_statement_provided: bool,
        provisional_credit_eligible: bool,
        customer_max_liability_amount: float,
        card_action: str,
    ) -> str:
        """File a formal dispute for a debit card transaction under Regulation E. Debit card disputes affect actual bank funds and have different liability rules based on reporting timing.

        Args:
            transaction_id (string): The unique identifier for the transaction being disputed
            account_id (string): The checking account ID linked to the debit card
            card_id (string): The debit card ID
            user_id (string): The user's unique identifier in the system
            dispute_category (string): Category of the dispute. Must be one of: 'unauthorized_transaction', 'atm_cash_discrepancy', 'atm_deposit_not_credited', 'duplicate_charge', 'incorrect_amount', 'goods_services_not_received', 'recurring_charge_after_cancellation', 'card_present_fraud', 'card_not_present_fraud'
            transaction_date (string): Date when the transaction occurred, format MM/DD/YYYY
            discovery_date (string): Date when the user first noticed the issue, format MM/DD/YYYY
            disputed_amount (number): The dollar amount being disputed
            transaction_type (string): Type of transaction. Must be one of: 'pin_purchase', 'signature_purchase', 'online_purchase', 'atm_withdrawal', 'atm_deposit', 'recurring_payment', 'person_to_person'
            card_in_possession (boolean): Whether the customer still has their physical debit card in their possession
            pin_compromised (string): Whether the customer's PIN may have been compromised. Must be one of: 'yes_shared', 'yes_observed', 'no', 'unknown'
            contacted_merchant (boolean): Whether the user attempted to resolve the issue with the merchant first
            police_report_filed (boolean): Whether a police report has been filed (recommended for fraud over $500)
            written_statement_provided (boolean): Whether the customer has provided a written statement describing what happened (required for Reg E provisional credit)
            provisional_credit_eligible (boolean): Whether the user is eligible for provisional credit based on Debit Card Provisional Credit Guidelines
            customer_max_liability_amount (number): The maximum dollar amount the customer could be liable for based on Regulation E reporting timing rules and the disputed amount. Use -1 for unlimited liability.
            card_action (string): Action to take on the card. Must be one of: 'keep_active', 'freeze_pending_investigation', 'close_and_reissue'

        Returns:
            Debit card transaction dispute filed successfully. A case has been opened and provisional credit determination has been recorded.
        """  # noqa: E501
        required = [
            transaction_id,
            account_id,
            card_id,
            user_id,
            dispute_category,
            transaction_date,
            discovery_date,
            disputed_amount,
            transaction_type,
            pin_compromised,
            card_action,
        ]
        if not all(required):
            return "Error: Missing required parameters."
        if customer_max_liability_amount is None:
            return "Error: customer_max_liability_amount is required."
        if (
            card_in_possession is None
            or contacted_merchant is None
            or police_report_filed is None
            or written_statement_provided is None
        ):
            return (
                "Error: card_in_possession, contacted_merchant, police_report_filed, and "
                "written_statement_provided are required boolean fields."
            )
        categories = [
            "unauthorized_transaction",
            "atm_cash_discrepancy",
            "atm_deposit_not_credited",
            "duplicate_charge",
            "incorrect_amount",
            "goods_services_not_received",
            "recurring_charge_after_cancellation",
            "card_present_fraud",
            "card_not_present_fraud",
        ]
        if dispute_category not in categories:
            return f"Error: Invalid dispute_category. Must be one of: {categories}"
        types = [
            "pin_purchase",
            "signature_purchase",
            "online_purchase",
            "atm_withdrawal",
            "atm_deposit",
            "recurring_payment",
            "person_to_person",
        ]
        if transaction_type not in types:
            return f"Error: Invalid transaction_type. Must be one of: {types}"
        pins = ["yes_shared", "yes_observed", "no", "unknown"]
        if pin_compromised not in pins:
            return f"Error: Invalid pin_compromised. Must be one of: {pins}"
        actions = ["keep_active", "freeze_pending_investigation", "close_and_reissue"]
        if card_action not in actions:
            return f"Error: Invalid card_action. Must be one of: {actions}"
        if disputed_amount <= 0:
            return "Error: disputed_amount must be a positive number."
        dispute_id = f"dsp_{hex_id(f'dispute:{user_id}:{transaction_id}', 12)}"
        fraud = dispute_category in [
            "unauthorized_transaction",
            "card_present_fraud",
            "card_not_present_fraud",
        ]
        shared = pin_compromised == "yes_shared"
        record = {
            "dispute_id": dispute_id,
            "transaction_id": transaction_id,
            "account_id": account_id,
            "card_id": card_id,
            "user_id": user_id,
            "dispute_category": dispute_category,
            "transaction_date": transaction_date,
            "discovery_date": discovery_date,
            "disputed_amount": disputed_amount,
            "transaction_type": transaction_type,
            "card_in_possession": card_in_possession,
            "pin_compromised": pin_compromised,
            "contacted_merchant": contacted_merchant,
            "police_report_filed": police_report_filed,
            "written_statement_provided": written_statement_provided,
            "provisional_credit_eligible": provisional_credit_eligible,
            "provisional_credit_issued": provisional_credit_eligible,
            "provisional_credit_amount": disputed_amount if provisional_credit_eligible else None,
            "customer_max_liability_amount": customer_max_liability_amount,
            "card_action": card_action,
            "is_fraud_category": fraud,
            "pin_shared_voluntarily": shared,
            "submitted_at": TODAY,
            "status": "OPEN",
        }
        if not add_record(self.db, "debit_card_disputes", dispute_id, record):
            return "Error: Dispute may have already been filed for this transaction."
        parts = [
            f"Dispute ID: {dispute_id}",
            f"Transaction: {transaction_id}",
            f"Account: {account_id}",
            f"Category: {title(dispute_category)}",
            f"Disputed Amount: ${disputed_amount:.2f}",
            f"Card Action: {title(card_action)}",
            f"Provisional Credit: ISSUED - ${disputed_amount:.2f} credited within 10 business "
            "days per Regulation E."
            if provisional_credit_eligible
            else "Provisional Credit: Not eligible - see Debit Card Provisional Credit "
            "Guidelines for details.",
        ]
        if shared:
            parts.append(
                "WARNING: Customer indicated PIN was shared voluntarily. This may affect "
                "liability determination."
            )
        if fraud and not police_report_filed and disputed_amount > 500:
            parts.append(
                "RECOMMENDATION: For fraud disputes over $500, filing a police report is "
                "recommended."
            )
        return "\n".join(parts)

    @discoverable_tool("read")
    def get_debit_dispute_status_7483(self, user_id: str) -> str:
        """Retrieve a user's debit card dispute history from the debit_card_disputes table. Returns all debit card disputes filed by the user, including dispute IDs, categories, amounts, statuses, and provisional credit information.

        Args:
            user_id (string): The user's unique identifier in the system

        Returns:
            Debit card dispute history retrieved successfully.
        """  # noqa: E501
        if not user_id:
            return "Error: Missing required parameter: user_id"
        return history_text(
            "Debit card dispute history retrieved successfully.",
            "get_debit_dispute_status_7483",
            f"Debit card dispute history for user {user_id}:",
            query_text(self.db, "debit_card_disputes", eq("user_id", user_id)),
            "\nNo debit card disputes found for this user.",
        )

    @discoverable_tool("read")
    def get_atm_deposit_images_8473(self, transaction_id: str) -> str:
        """Retrieve ATM deposit envelope/check images for a specific ATM deposit transaction.

        Args:
            transaction_id (string): The transaction ID of the ATM deposit to retrieve images for

        Returns:
            ATM deposit images retrieved successfully.
        """
        if not transaction_id:
            return "Error: Missing required parameter: transaction_id"
        history = self.db.bank_account_transaction_history.data
        if transaction_id not in history:
            return f"Error: Transaction '{transaction_id}' not found."
        txn = history[transaction_id]
        if txn.get("type") != "atm_deposit":
            return (
                f"Error: Transaction '{transaction_id}' is not an ATM deposit. This tool only "
                "works for ATM deposit transactions."
            )
        description = txn.get("description", "")
        if "RHO-BANK" not in description.upper() and "RHOBANK" not in description.upper():
            return (
                f"Error: Transaction '{transaction_id}' is from a third-party ATM. Deposit "
                "images are only available for Rho-Bank ATM deposits. For third-party ATM "
                "disputes, a chargeback request must be submitted to the ATM network."
            )
        head = "ATM Deposit Image Retrieval Results\n=====================================\n"
        if transaction_id in _DEPOSIT_IMAGES:
            atm, scan, notes = _DEPOSIT_IMAGES[transaction_id]
            return (
                f"{head}Transaction ID: {transaction_id}\nATM: {atm}\n"
                f"Deposit Date: {txn.get('date', 'Unknown')}\n\n{scan}\n\n"
                f"--- VERIFICATION NOTES ---\n{notes}\n"
            )
        return (
            f"{head}Transaction ID: {transaction_id}\nATM: {description}\n"
            f"Deposit Date: {txn.get('date', 'Unknown')}\n"
            f"Amount Recorded: ${abs(txn.get('amount', 0)):.2f}\n\n"
            "--- IMAGE STATUS ---\nStatus: IMAGES NOT AVAILABLE\n"
            "Reason: Deposit images for this transaction have either expired (older than 90 "
            "days) or were not captured by the ATM system.\n\n"
            "For deposits without available images, the dispute will proceed based on "
            "customer statement and ATM journal records only. Investigation timeline may be "
            "extended.\n"
        )

"""τ²-bench's telecom domain, the carrier's side, written here from its published tool
specifications and database schema: customers, lines, plans, bills and devices, the agent's
tools over them, and the link to the customer's phone (``_phone``): after every call
that succeeds τ²-bench syncs the phone with the carrier's records (:meth:`TelecomTools.sync`).

The date is τ²-bench's fixed one, 2025-02-25. A data refuel on a customer without a draft bill
opens one with a random id, as τ²-bench does (``B`` and 8 hex digits).
"""

from __future__ import annotations

import datetime
import uuid
from datetime import date, timedelta
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentloop.benchmarks.tau2._phone import PaymentRequest, TelecomUserTools
from agentloop.benchmarks.tau2._toolkit import DB, Toolkit, tau2_tool

__all__ = ["TelecomDB", "TelecomTools", "today"]

_NO_EXTRA = ConfigDict(extra="forbid")


def today() -> date:
    """τ²-bench's telecom "today"."""
    return date(2025, 2, 25)


class Address(BaseModel):
    model_config = _NO_EXTRA
    street: str
    city: str
    state: str
    zip_code: str


class Plan(BaseModel):
    model_config = _NO_EXTRA
    plan_id: str
    name: str
    data_limit_gb: float
    price_per_month: float
    data_refueling_price_per_gb: float


class DeviceType(str, Enum):
    PHONE = "phone"
    ROUTER = "router"
    TABLET = "tablet"
    WATCH = "watch"
    OTHER = "other"


class Device(BaseModel):
    model_config = _NO_EXTRA
    device_id: str
    device_type: DeviceType
    model: str
    imei: str | None = None
    is_esim_capable: bool
    activated: bool = False
    activation_date: datetime.datetime | None = None
    last_esim_transfer_date: datetime.datetime | None = None


class LineStatus(str, Enum):
    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_ACTIVATION = "Pending Activation"
    CLOSED = "Closed"


class Line(BaseModel):
    model_config = _NO_EXTRA
    line_id: str
    phone_number: str
    status: LineStatus = LineStatus.PENDING_ACTIVATION
    plan_id: str
    device_id: str | None = None
    data_used_gb: float = 0.0
    data_refueling_gb: float = 0.0
    roaming_enabled: bool = False
    contract_end_date: datetime.date | None = None
    last_plan_change_date: datetime.date | None = None
    last_sim_replacement_date: datetime.date | None = None
    suspension_start_date: datetime.date | None = None


class LineItem(BaseModel):
    model_config = _NO_EXTRA
    description: str
    amount: float
    date: datetime.date
    item_type: str


class BillStatus(str, Enum):
    DRAFT = "Draft"
    ISSUED = "Issued"
    AWAITING_PAYMENT = "Awaiting Payment"
    PAID = "Paid"
    OVERDUE = "Overdue"
    DISPUTED = "Disputed"


class Bill(BaseModel):
    model_config = _NO_EXTRA
    bill_id: str
    customer_id: str
    period_start: datetime.date
    period_end: datetime.date
    issue_date: datetime.date
    total_due: float
    due_date: datetime.date
    line_items: list[LineItem] = Field(default_factory=list)
    status: BillStatus = BillStatus.DRAFT


class AccountStatus(str, Enum):
    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_VERIFICATION = "Pending Verification"
    CLOSED = "Closed"


class PaymentMethodType(str, Enum):
    CREDIT_CARD = "Credit Card"
    DEBIT_CARD = "Debit Card"
    PAYPAL = "PayPal"


class PaymentMethod(BaseModel):
    model_config = _NO_EXTRA
    method_type: PaymentMethodType
    account_number_last_4: str
    expiration_date: str


class Customer(BaseModel):
    model_config = _NO_EXTRA
    customer_id: str
    full_name: str
    date_of_birth: str
    email: str
    phone_number: str
    address: Address
    account_status: AccountStatus = AccountStatus.PENDING_VERIFICATION
    payment_methods: list[PaymentMethod] = Field(default_factory=list)
    line_ids: list[str] = Field(default_factory=list)
    bill_ids: list[str] = Field(default_factory=list)
    created_at: datetime.datetime = datetime.datetime(2025, 1, 1)
    last_extension_date: datetime.date | None = None
    goodwill_credit_used_this_year: float = 0.0


class TelecomDB(DB):
    """The carrier's records."""

    plans: list[Plan] = Field(default_factory=list)
    customers: list[Customer] = Field(default_factory=list)
    lines: list[Line] = Field(default_factory=list)
    bills: list[Bill] = Field(default_factory=list)
    devices: list[Device] = Field(default_factory=list)


_OWNER = "ID of the customer who owns the line."
_TRANSFER = (
    "Transfer the user to a human agent, with a summary of the user's issue.\n\n"
    "Only transfer if\n -  the user explicitly asks for a human agent\n -  given the policy and "
    "the available tools, you cannot solve the user's issue."
)
_PAYMENT_REQUEST = (
    "Sends a payment request to the customer for a specific bill.\n\nChecks:\n"
    "    - Customer exists\n    - Bill exists and belongs to the customer\n"
    "    - No other bills are already awaiting payment for this customer\n"
    "Logic: Sets bill status to AWAITING_PAYMENT and notifies customer.\n"
    "Warning: This method does not check if the bill is already PAID.\n"
    "Always check the bill status before calling this method."
)


class TelecomTools(Toolkit):
    """The telecom domain's agent tools (τ²-bench's ``TelecomTools``: its name is in the
    texts of argument errors)."""

    db: TelecomDB

    # --- lookups (not tools unless marked) ---
    def _line_by_phone(self, phone_number: str) -> Line:
        for line in self.db.lines:
            if line.phone_number == phone_number:
                return line
        raise ValueError(f"Line with phone number {phone_number} not found")

    def _line(self, line_id: str) -> Line:
        for line in self.db.lines:
            if line.line_id == line_id:
                return line
        raise ValueError(f"Line with ID {line_id} not found")

    def _plan(self, plan_id: str) -> Plan:
        for plan in self.db.plans:
            if plan.plan_id == plan_id:
                return plan
        raise ValueError(f"Plan with ID {plan_id} not found")

    def _device(self, device_id: str) -> Device:
        for device in self.db.devices:
            if device.device_id == device_id:
                return device
        raise ValueError(f"Device with ID {device_id} not found")

    def _bill(self, bill_id: str) -> Bill:
        for bill in self.db.bills:
            if bill.bill_id == bill_id:
                return bill
        raise ValueError(f"Bill with ID {bill_id} not found")

    def _customer_line(self, customer_id: str, line_id: str) -> Line:
        customer = self.get_customer_by_id(customer_id)
        if line_id not in customer.line_ids:
            raise ValueError(f"Line {line_id} not found for customer {customer_id}")
        return self._line(line_id)

    def _awaiting_payment(self, customer: Customer) -> list[Bill]:
        bills = (self._bill(bill_id) for bill_id in customer.bill_ids)
        return [bill for bill in bills if bill.status == BillStatus.AWAITING_PAYMENT]

    @tau2_tool(
        "read",
        "Finds a customer by their primary contact or line phone number.",
        {"phone_number": "The phone number to search for."},
    )
    def get_customer_by_phone(self, phone_number: str) -> Customer:
        for customer in self.db.customers:
            if customer.phone_number == phone_number:
                return customer
            for line_id in customer.line_ids:
                if self._line(line_id).phone_number == phone_number:
                    return customer
        raise ValueError(f"Customer with phone number {phone_number} not found")

    @tau2_tool(
        "read",
        "Retrieves a customer directly by their unique ID.",
        {"customer_id": "The unique identifier of the customer."},
    )
    def get_customer_by_id(self, customer_id: str) -> Customer:
        for customer in self.db.customers:
            if customer.customer_id == customer_id:
                return customer
        raise ValueError(f"Customer with ID {customer_id} not found")

    @tau2_tool(
        "read",
        "Searches for customers by name and DOB. May return multiple matches if names are "
        "similar,\n\nDOB helps disambiguate.",
        {
            "full_name": "The full name of the customer.",
            "dob": "Date of birth for verification, in the format YYYY-MM-DD.",
        },
    )
    def get_customer_by_name(self, full_name: str, dob: str) -> list[Customer]:
        return [
            c
            for c in self.db.customers
            if c.full_name.lower() == full_name.lower() and c.date_of_birth == dob
        ]

    @tau2_tool(
        "read",
        "Retrieves the details for a given ID.\n\nThe ID must be a valid ID for a Customer, "
        "Line, Device, Bill, or Plan.",
        {"id": "The ID of the object to retrieve."},
    )
    def get_details_by_id(self, id: str) -> Any:
        finders = {
            "L": self._line,
            "D": self._device,
            "B": self._bill,
            "C": self.get_customer_by_id,
            "P": self._plan,
        }
        for prefix, find in finders.items():
            if id.startswith(prefix):
                return find(id)
        raise ValueError(f"Unknown ID format or type: {id}")

    @tau2_tool(
        "write",
        "Suspends a specific line (max 6 months).\n\nChecks: Line status must be Active.\n"
        "Logic: Sets line status to Suspended, records suspension_start_date.",
        {
            "customer_id": _OWNER,
            "line_id": "ID of the line to suspend.",
            "reason": "Reason for suspension.",
        },
    )
    def suspend_line(self, customer_id: str, line_id: str, reason: str) -> dict[str, Any]:
        line = self._customer_line(customer_id, line_id)
        if line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend")
        line.status = LineStatus.SUSPENDED
        line.suspension_start_date = today()
        return {
            "message": "Line suspended successfully. $5/month holding fee will apply.",
            "line": line,
        }

    @tau2_tool(
        "write",
        "Resumes a suspended line.\n\nChecks: Line status must be Suspended or Pending "
        "Activation.\nLogic: Sets line status to Active, clears suspension_start_date.",
        {"customer_id": _OWNER, "line_id": "ID of the line to resume."},
    )
    def resume_line(self, customer_id: str, line_id: str) -> dict[str, Any]:
        line = self._customer_line(customer_id, line_id)
        if line.status not in (LineStatus.SUSPENDED, LineStatus.PENDING_ACTIVATION):
            raise ValueError("Line must be suspended to resume")
        line.status = LineStatus.ACTIVE
        line.suspension_start_date = None
        return {"message": "Line resumed successfully", "line": line}

    @tau2_tool(
        "read",
        "Retrieves a list of the customer's bills, most recent first.",
        {"customer_id": "ID of the customer.", "limit": "Maximum number of bills to return."},
    )
    def get_bills_for_customer(self, customer_id: str, limit: int = 12) -> list[Bill]:
        customer = self.get_customer_by_id(customer_id)
        bills = [self._bill(bill_id) for bill_id in customer.bill_ids]
        return sorted(bills, key=lambda bill: bill.issue_date, reverse=True)[:limit]

    @tau2_tool(
        "write",
        _PAYMENT_REQUEST,
        {
            "customer_id": "ID of the customer who owns the bill.",
            "bill_id": "ID of the bill to send payment request for.",
        },
    )
    def send_payment_request(self, customer_id: str, bill_id: str) -> str:
        customer = self.get_customer_by_id(customer_id)
        if self._awaiting_payment(customer):
            raise ValueError("A bill is already awaiting payment for this customer")
        if bill_id not in customer.bill_ids:
            raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
        bill = self._bill(bill_id)
        bill.status = BillStatus.AWAITING_PAYMENT
        return f"Payment request sent to the customer for bill {bill.bill_id}"

    def _charge(self, customer_id: str, amount: float, description: str) -> None:
        """A one-time charge on the customer's draft bill (a new one when there is none)."""
        customer = self.get_customer_by_id(customer_id)
        draft = next(
            (
                bill
                for bill in map(self._bill, customer.bill_ids)
                if bill.status == BillStatus.DRAFT
            ),
            None,
        )
        if draft is None:
            start = (today().replace(day=1) + timedelta(days=32)).replace(day=1)
            following = start.replace(
                month=start.month + 1 if start.month < 12 else 1,
                year=start.year if start.month < 12 else start.year + 1,
            )
            draft = Bill(
                bill_id=f"B{uuid.uuid4().hex[:8]}",
                customer_id=customer_id,
                period_start=start,
                period_end=following - timedelta(days=1),
                issue_date=start,
                total_due=0,
                due_date=start + timedelta(days=14),
                status=BillStatus.DRAFT,
            )
            self.db.bills.append(draft)
            customer.bill_ids.append(draft.bill_id)
        draft.line_items.append(
            LineItem(
                description=description,
                amount=amount,
                date=today(),
                item_type="Credit" if amount < 0 else "Charge",
            )
        )
        draft.total_due += amount

    @tau2_tool(
        "read",
        "Retrieves current billing cycle data usage for a line, including data\n\nrefueling "
        "amount, data limit, and cycle end date.",
        {"customer_id": _OWNER, "line_id": "ID of the line to check usage for."},
    )
    def get_data_usage(self, customer_id: str, line_id: str) -> dict[str, Any]:
        line = self._customer_line(customer_id, line_id)
        plan = self._plan(line.plan_id)
        now = today()
        cycle_end = date(now.year, now.month + 1 if now.month < 12 else 1, 1) - timedelta(days=1)
        return {
            "line_id": line_id,
            "data_used_gb": line.data_used_gb,
            "data_limit_gb": plan.data_limit_gb,
            "data_refueling_gb": line.data_refueling_gb,
            "cycle_end_date": cycle_end,
        }

    @tau2_tool(
        "write",
        "Enables international roaming on a line.",
        {"customer_id": _OWNER, "line_id": "ID of the line to enable roaming for."},
    )
    def enable_roaming(self, customer_id: str, line_id: str) -> Any:
        line = self._customer_line(customer_id, line_id)
        if line.roaming_enabled:
            return "Roaming was already enabled"
        line.roaming_enabled = True
        return "Roaming enabled successfully"

    @tau2_tool(
        "write",
        "Disables international roaming on a line.",
        {"customer_id": _OWNER, "line_id": "ID of the line to disable roaming for."},
    )
    def disable_roaming(self, customer_id: str, line_id: str) -> str:
        line = self._customer_line(customer_id, line_id)
        if not line.roaming_enabled:
            return "Roaming was already disabled"
        line.roaming_enabled = False
        return "Roaming disabled successfully"

    @tau2_tool("generic", _TRANSFER, {"summary": "A summary of the user's issue."})
    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    @tau2_tool(
        "write",
        "Refuels data for a specific line, adding to the customer's bill.\n\nChecks: Line "
        "status must be Active, Customer owns the line.\nLogic: Adds data to the line and "
        "charges customer based on the plan's refueling rate.",
        {
            "customer_id": _OWNER,
            "line_id": "ID of the line to refuel data for.",
            "gb_amount": "Amount of data to add in gigabytes.",
        },
    )
    def refuel_data(self, customer_id: str, line_id: str, gb_amount: float) -> dict[str, Any]:
        line = self._customer_line(customer_id, line_id)  # τ²-bench checks no line status
        if gb_amount <= 0:
            raise ValueError("Refuel amount must be positive")
        plan = self._plan(line.plan_id)
        charge = gb_amount * plan.data_refueling_price_per_gb
        line.data_refueling_gb += gb_amount
        self._charge(
            customer_id,
            charge,
            f"Data refueling: {gb_amount} GB at ${plan.data_refueling_price_per_gb}/GB",
        )
        return {
            "message": f"Successfully added {gb_amount} GB of data for line {line_id} for "
            f"${charge:.2f}",
            "new_data_refueling_gb": line.data_refueling_gb,
            "charge": charge,
        }

    # --- not tools: what a task's initialization actions and env assertions call ---
    def set_data_usage(self, customer_id: str, line_id: str, data_used_gb: float) -> str:
        self._customer_line(customer_id, line_id).data_used_gb = data_used_gb
        return f"Data usage set to {data_used_gb} GB for line {line_id}"

    def suspend_line_for_overdue_bill(
        self, customer_id: str, line_id: str, new_bill_id: str, contract_ended: bool
    ) -> str:
        line = self._line(line_id)
        if line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend for unpaid bill")
        amount = self._plan(line.plan_id).price_per_month
        if amount <= 0:
            raise ValueError("Amount must be positive for overdue bill")
        customer = self.get_customer_by_id(customer_id)
        if any(self._bill(b).status == BillStatus.OVERDUE for b in customer.bill_ids):
            raise ValueError("Customer already has an overdue bill")
        last_month_end = today().replace(day=1) - timedelta(days=1)
        last_month_start = last_month_end.replace(day=1)
        bill = Bill(
            bill_id=new_bill_id,
            customer_id=customer_id,
            period_start=last_month_start,
            period_end=last_month_end,
            issue_date=last_month_start,
            total_due=0,
            due_date=last_month_start + timedelta(days=14),
            status=BillStatus.OVERDUE,
        )
        bill.line_items.append(
            LineItem(
                description=f"Charge for line {line.line_id}",
                amount=amount,
                date=today(),
                item_type="Charge" if amount > 0 else "Credit",
            )
        )
        bill.total_due += amount
        self.db.bills.append(bill)
        customer.bill_ids.append(new_bill_id)
        line.status = LineStatus.SUSPENDED
        line.suspension_start_date = today()
        if contract_ended:
            line.contract_end_date = last_month_end
        return (
            f"Line {line_id} suspended for unpaid bill {new_bill_id}. "
            f"Contract ended: {contract_ended}"
        )

    def assert_data_refueling_amount(
        self, customer_id: str, line_id: str, expected_amount: float
    ) -> bool:
        line = self._customer_line(customer_id, line_id)
        return abs(line.data_refueling_gb - expected_amount) < 1e-6

    def assert_line_status(self, customer_id: str, line_id: str, expected_status: Any) -> bool:
        return self._customer_line(customer_id, line_id).status == expected_status

    def assert_overdue_bill_exists(self, customer_id: str, overdue_bill_id: str) -> bool:
        customer = self.get_customer_by_id(customer_id)
        if overdue_bill_id not in customer.bill_ids:
            raise ValueError(f"Overdue bill {overdue_bill_id} not found")
        if self._bill(overdue_bill_id).status != BillStatus.OVERDUE:
            raise ValueError(f"Overdue bill {overdue_bill_id} is not overdue")
        return True

    def assert_no_overdue_bill(self, overdue_bill_id: str) -> bool:
        try:
            return self._bill(overdue_bill_id).status == BillStatus.PAID
        except ValueError:
            return True

    # --- the link to the customer's phone ---
    def sync(self, user: Toolkit | None) -> None:
        """τ²-bench's ``sync_tools``: the phone learns from the carrier's records whether its
        line is active, may roam, has used up its data; a payment the customer made marks its
        bill paid; a bill awaiting payment becomes the phone's payment request."""
        if not isinstance(user, TelecomUserTools):
            return
        around = user.db.surroundings
        if around.phone_number is None:
            return
        line = self._line_by_phone(around.phone_number)
        around.line_active = line.status == LineStatus.ACTIVE
        around.roaming_allowed = bool(line.roaming_enabled)
        plan = self._plan(line.plan_id)
        around.mobile_data_usage_exceeded = (
            line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb
        )
        if around.payment_request is not None and around.payment_request.paid:
            self._bill(around.payment_request.bill_id).status = BillStatus.PAID
            around.payment_request = None
        if around.payment_request is None:
            bills = self._awaiting_payment(self.get_customer_by_phone(around.phone_number))
            if bills:
                around.payment_request = PaymentRequest(
                    bill_id=bills[0].bill_id, amount_due=bills[0].total_due
                )

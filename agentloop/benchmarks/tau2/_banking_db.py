"""τ²-bench's banking_knowledge database, written here from its published schema: the bank's
tables (users, accounts, cards, transactions, disputes, orders, ...; each a mapping of record
id to a free-form record, and a note), the constraint queries its tools run, and the texts
they answer with. The domain is set at a fixed time, 2025-11-14 03:40 EST, so every record a
tool writes, and every id (a SHA-256 prefix of the record's inputs), is the same on every run.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from agentloop.benchmarks.tau2._toolkit import DB

__all__ = [
    "NOW",
    "TODAY",
    "Table",
    "TransactionalDB",
    "account_balance",
    "add_record",
    "balance",
    "eq",
    "found",
    "hex_id",
    "history_text",
    "query_records",
    "query_text",
    "records_text",
    "title",
    "transaction_id",
    "update_record",
]

TODAY = "11/14/2025"
"""The domain's fixed date (MM/DD/YYYY), stamped on every record a tool writes."""
NOW = datetime(2025, 11, 14, 3, 40, 0)


class Table(BaseModel):
    """One table: records by id, and a note on what they hold."""

    data: dict[str, dict[str, Any]] = Field(default_factory=dict)
    notes: str = ""


class TransactionalDB(DB):
    """The bank's state: every table τ²-bench hashes when it compares databases."""

    users: Table = Field(default_factory=Table)
    accounts: Table = Field(default_factory=Table)
    debit_cards: Table = Field(default_factory=Table)
    referrals: Table = Field(default_factory=Table)
    credit_card_applications: Table = Field(default_factory=Table)
    user_discoverable_tools: Table = Field(default_factory=Table)
    user_discoverable_tool_calls: Table = Field(default_factory=Table)
    verification_history: Table = Field(default_factory=Table)
    credit_card_transaction_history: Table = Field(default_factory=Table)
    cash_back_disputes: Table = Field(default_factory=Table)
    bank_account_transaction_history: Table = Field(default_factory=Table)
    credit_card_accounts: Table = Field(default_factory=Table)
    agent_discoverable_tools: Table = Field(default_factory=Table)
    task_config: Table = Field(default_factory=Table)
    human_transfer_requests: Table = Field(default_factory=Table)
    transaction_disputes: Table = Field(default_factory=Table)
    credit_card_orders: Table = Field(default_factory=Table)
    debit_card_orders: Table = Field(default_factory=Table)
    credit_card_closure_reasons: Table = Field(default_factory=Table)
    credit_card_account_flags: Table = Field(default_factory=Table)
    credit_limit_increase_requests: Table = Field(default_factory=Table)
    payment_history: Table = Field(default_factory=Table)
    debit_card_disputes: Table = Field(default_factory=Table)


_QUERYABLE = (
    "users",
    "accounts",
    "referrals",
    "credit_card_applications",
    "user_discoverable_tools",
    "user_discoverable_tool_calls",
    "agent_discoverable_tools",
    "task_config",
    "verification_history",
    "credit_card_transaction_history",
    "cash_back_disputes",
    "bank_account_transaction_history",
    "credit_card_accounts",
    "human_transfer_requests",
    "transaction_disputes",
    "credit_card_orders",
    "credit_card_closure_reasons",
    "credit_card_account_flags",
    "debit_cards",
    "debit_card_orders",
    "debit_card_disputes",
    "credit_limit_increase_requests",
    "payment_history",
)
"""The tables a query may name, in the order τ²-bench lists them in its error text."""


def hex_id(seed: str, length: int = 16) -> str:
    """A deterministic id: the first ``length`` hex digits of the seed's SHA-256."""
    return hashlib.sha256(seed.encode()).digest()[: length // 2].hex()


def _contains(a: Any, b: Any) -> bool:
    return False if a is None else b in a


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "gt": operator.gt,
    "gte": operator.ge,
    "lt": operator.lt,
    "lte": operator.le,
    "contains": _contains,
    "startswith": lambda a, b: False if a is None else str(a).startswith(str(b)),
    "endswith": lambda a, b: False if a is None else str(a).endswith(str(b)),
    "in": lambda a, b: a in b,
    "nin": lambda a, b: a not in b,
}


def _matches(record: dict[str, Any], constraints: dict[str, Any]) -> bool:
    """``field`` or ``field__op`` constraints, all met; an unknown op is equality, and a
    comparison that raises (other types) is a miss."""
    for key, expected in constraints.items():
        name, _, op = key.rpartition("__") if "__" in key else (key, "", "eq")
        try:
            if not _OPS.get(op, operator.eq)(record.get(name), expected):
                return False
        except (TypeError, ValueError):
            return False
    return True


def query_records(
    db: TransactionalDB, table: str, **constraints: Any
) -> list[tuple[str, dict[str, Any]]]:
    """(id, record) of each record of a queryable table that meets the constraints."""
    if table not in _QUERYABLE:
        return []
    rows: dict[str, dict[str, Any]] = getattr(db, table).data
    return [(rid, record) for rid, record in rows.items() if _matches(record, constraints)]


def records_text(table: str, records: list[tuple[str, dict[str, Any]]]) -> str:
    """Records as τ²-bench lists them: a count, then each record's fields (Python's str of
    each value)."""
    lines = [f"Found {len(records)} record(s) in '{table}':\n"]
    for i, (rid, record) in enumerate(records, 1):
        lines.append(f"{i}. Record ID: {rid}")
        lines.extend(f"   {field}: {value}" for field, value in record.items())
        lines.append("")
    return "\n".join(lines)


def query_text(db: TransactionalDB, table: str, constraints: str = "{}") -> str:
    """τ²-bench's query tool: constraints as a JSON object in text; the answer as text."""
    try:
        if table not in _QUERYABLE:
            return f"Error: Database '{table}' not found. Available: {list(_QUERYABLE)}"
        try:
            parsed = json.loads(constraints) if constraints else {}
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON: {exc}"
        records = query_records(db, table, **parsed)
        if not records:
            return f"No records found in '{table}'."
        return records_text(table, records)
    except Exception as exc:
        return f"Error querying database: {exc}"


def found(text: str) -> bool:
    """Whether a query's text lists records."""
    return "No records found" not in text and "No results found" not in text


def add_record(db: TransactionalDB, table: str, rid: str, record: dict[str, Any]) -> bool:
    """Add a record; False when the table does not exist or the id is taken."""
    target = getattr(db, table, None) if table in TransactionalDB.model_fields else None
    if target is None or rid in target.data:
        return False
    target.data[rid] = record
    return True


def update_record(db: TransactionalDB, table: str, rid: str, updates: dict[str, Any]) -> bool:
    """Set fields of an existing record; False when there is none."""
    target = getattr(db, table, None) if table in TransactionalDB.model_fields else None
    if target is None or rid not in target.data:
        return False
    target.data[rid].update(updates)
    return True


def balance(value: Any) -> float:
    """A balance stored as a number or as text like ``$2,850.00``."""
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return float(value.replace("$", "").replace(",", ""))
    return 0.0


def account_balance(account: dict[str, Any]) -> float:
    """An account's ``current_holdings`` (else its ``balance``)."""
    return balance(account.get("current_holdings", account.get("balance", 0)))


def title(code: str) -> str:
    """``fraud_suspected`` as ``Fraud Suspected``."""
    return code.replace("_", " ").title()


def eq(field: str, value: Any) -> str:
    """A one-field query as τ²-bench writes it (the value pasted into JSON text)."""
    return f'{{"{field}": "{value}"}}'


def transaction_id(
    user_id: str, card_type: str, merchant: str, amount: float, category: str
) -> str:
    """τ²-bench's id of a credit card transaction."""
    seed = ":".join(["transaction", user_id, card_type, merchant, f"{amount:.2f}", category])
    return f"txn_{hex_id(seed, 12)}"


def history_text(head: str, tool: str, subject: str, result: str, empty: str) -> str:
    """A read tool's answer: what it did, then the records found (or ``empty``)."""
    parts = [head, "", f"Executed: {tool}", subject]
    parts.append(result if found(result) else empty)
    return "\n".join(parts)

"""A tiny bank as an environment: four tools sharing one set of accounts.

Config::

    environment: agentloop.tools.bank:make_bank

A row's ``environment`` holds the opening balances: ``{"accounts": {"alice": 100}}``.
Amounts are whole units; an account that does not exist, or too little money, is the
call's error and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Bank", "make_bank"]


class Bank:
    """Accounts with balances, and the list of transfers made."""

    def __init__(self, accounts: dict[str, int] | None = None) -> None:
        self.accounts: dict[str, int] = dict(accounts or {})
        self.transfers: list[dict[str, Any]] = []

    def _account(self, name: str) -> int:
        if name not in self.accounts:
            raise ValueError(f"no account named {name!r}")
        return self.accounts[name]

    def balance(self, account: str) -> int:
        """The balance of an account."""
        return self._account(account)

    def deposit(self, account: str, amount: int) -> int:
        """Put money into an account; returns the new balance."""
        if amount <= 0:
            raise ValueError("the amount must be positive")
        self.accounts[account] = self._account(account) + amount
        return self.accounts[account]

    def withdraw(self, account: str, amount: int) -> int:
        """Take money out of an account; returns the new balance."""
        if amount <= 0:
            raise ValueError("the amount must be positive")
        if self._account(account) < amount:
            raise ValueError(f"insufficient funds in {account!r}")
        self.accounts[account] -= amount
        return self.accounts[account]

    def transfer(self, source: str, target: str, amount: int) -> str:
        """Move money from one account to another."""
        self._account(target)
        self.withdraw(source, amount)
        self.accounts[target] += amount
        self.transfers.append({"from": source, "to": target, "amount": amount})
        return f"moved {amount} from {source} to {target}"

    def tools(self) -> list[Callable[..., Any]]:
        return [self.balance, self.deposit, self.withdraw, self.transfer]

    def snapshot(self) -> dict[str, Any]:
        return {"accounts": dict(self.accounts), "transfers": list(self.transfers)}


def make_bank(row: dict[str, Any]) -> Bank:
    """A fresh bank with the row's opening balances (``environment.accounts``)."""
    state = row.get("environment") or {}
    return Bank(state.get("accounts"))

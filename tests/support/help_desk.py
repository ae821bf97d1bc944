"""A small stateful environment for conversations with a simulated user (dual control).

A help desk: the agent looks customers up and changes their plan; the customer (the
simulated user) switches their own modem on and off and reads its light. Both sides act on
one state, which ``snapshot()`` returns whole. Config: ``environment:
tests.support.help_desk:make``; a row's ``environment`` is ``{"customers": {name: plan},
"modem": "off" | "on"}``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import ToolException


class HelpDesk:
    def __init__(self, customers: dict[str, str], modem: str) -> None:
        self.customers = dict(customers)
        self.modem = modem

    # The agent's side.
    def lookup(self, name: str) -> str:
        """Look a customer up; returns their plan."""
        if name not in self.customers:
            raise ToolException(f"no customer named {name}")
        return self.customers[name]

    def change_plan(self, name: str, plan: str) -> str:
        """Move a customer to another plan."""
        if name not in self.customers:
            raise ToolException(f"no customer named {name}")
        self.customers[name] = plan
        return f"{name} is now on {plan}"

    # The customer's side.
    def switch_modem(self, on: bool) -> str:
        """Switch your modem on or off."""
        self.modem = "on" if on else "off"
        return f"the modem is {self.modem}"

    def modem_light(self) -> str:
        """Read your modem's light."""
        return "green" if self.modem == "on" else "dark"

    def tools(self) -> list[Any]:
        return [self.lookup, self.change_plan]

    def user_tools(self) -> list[Any]:
        return [self.switch_modem, self.modem_light]

    def snapshot(self) -> dict[str, Any]:
        return {"customers": dict(self.customers), "modem": self.modem}


def make(row: dict[str, Any]) -> HelpDesk:
    state = row.get("environment") or {}
    return HelpDesk(state.get("customers", {}), state.get("modem", "off"))

"""A small stateful environment for conversations with a simulated user (dual control).

A help desk: the agent looks customers up and changes their plan; the customer (the
simulated user) switches their own modem on and off and reads its light. Both sides act on
one state, which ``snapshot()`` returns whole. Config: ``environment:
tests.support.help_desk:make``; a row's ``environment`` is ``{"customers": {name: plan},
"modem": "off" | "on"}``. ``conversation_config`` writes a whole run of it: rows, a scripted
agent, a scripted user and the config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.tools import ToolException

from tests.support.harness import ask, call, write_config, write_json, write_jsonl


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


GREETING = {"role": "assistant", "content": "Hi! How can I help you today?"}


def desk_row(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": name,
        "messages": [GREETING],
        "user_scenario": {"name": name, "goal": "gold plan and a working modem"},
        "environment": {"customers": {name: "basic"}, "modem": "off"},
        **extra,
    }


def agent_script(name: str) -> list[Any]:
    return [
        ask(call("a1", "change_plan", {"name": name, "plan": "gold"})),
        "You are on gold. Please switch your modem on.",
        "Glad it works.",
    ]


USER_SCRIPT = [
    "Please move me to gold.",
    ask(call("u1", "switch_modem", {"on": True})),
    "Done, it is on.",
    "Thanks! ###STOP###",
]


def conversation_config(tmp: Path, rows: list[Any] | None = None, **config: Any) -> Path:
    """A run of rows (default: ann and bob) on the help desk, a scripted agent and a scripted
    user (``USER_SCRIPT``) in ``tmp``; ``config`` fields override; returns the config."""
    rows = rows if rows is not None else [desk_row("ann"), desk_row("bob")]
    agent = {row["id"]: agent_script(row["id"]) for row in rows if isinstance(row, dict)}
    fields: dict[str, Any] = {
        "model": f"scripted:{write_json(tmp / 'agent.json', agent)}",
        "environment": "tests.support.help_desk:make",
        "dataset": str(write_jsonl(tmp / "data.jsonl", rows)),
        "output_dir": str(tmp / "runs"),
        "user": {
            "model": f"scripted:{write_json(tmp / 'user.json', USER_SCRIPT)}",
            "instructions": "You are a customer.\n{scenario}",
        },
    }
    fields.update(config)
    return write_config(tmp / "eval.yaml", **fields)

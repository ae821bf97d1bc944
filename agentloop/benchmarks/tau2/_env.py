"""A τ²-bench domain as an agentloop environment: the domain's database, fresh per (sample,
epoch), its agent tools (``tools()``) and the user's own tools (``user_tools()``, dual control:
telecom's phone, mock's notification inbox (τ²-bench 1.0; none where the task set's files have
no user database), banking_knowledge's customer (on the bank's one database, the tools its task
names); none in airline and retail), sharing one state: as in τ²-bench, the two
sides are synced (``Toolkit.sync``) when the environment is built, after each initialization
action or assertion, and after every call that succeeds (telecom: the phone learns the line's
status, roaming and data use from the carrier's records, and payments go both ways).

The factory (``environment: agentloop.benchmarks:tau2_environment``) reads the row's
``environment``: ``{"domain": ..., "initial_state": ..., "task_set": ...}`` (the task set whose
databases it starts from: ``agentloop.benchmarks.tau2._data``; the shipped one when absent),
the task's initial state as τ²-bench
applies it before a conversation: ``initialization_data`` merged into the databases,
``initialization_actions`` run, then the state-changing tool calls of ``message_history``
replayed (the conversation's opening, which the row's messages show the agent).

A call's text is τ²-bench's (``agentloop.benchmarks.tau2._toolkit``); a call that raised is
answered with τ²-bench's ``Error: <message>`` through the engine's ``ToolFailure``: the
trajectory records the call ``error``, as τ²-bench's tool message says, and a conversation's
``user.max_errors`` counts it as τ²-bench's ``max_errors`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from agentloop.benchmarks.tau2._data import check_tau2_domain, domain_db
from agentloop.benchmarks.tau2._toolkit import Toolkit, deep_update
from agentloop.engine import ToolFailure
from agentloop.errors import DatasetError

__all__ = ["DOMAINS", "Tau2Environment", "same_state", "tau2_environment"]


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def same_state(a: Any, b: Any) -> bool:
    """Equal as τ²-bench compares databases, by their JSON dump (``get_dict_hash``: sorted
    keys): ``2`` and ``2.0`` differ, and so do ``True`` and ``1``, which Python's ``==``
    holds equal."""
    return bool(a == b) and _text(a) == _text(b)


def _mock() -> tuple[type[BaseModel], type[Toolkit], type[BaseModel], type[Toolkit]]:
    from agentloop.benchmarks.tau2._mock import MockDB, MockTools, MockUserDB, MockUserTools

    return MockDB, MockTools, MockUserDB, MockUserTools


def _airline() -> tuple[type[BaseModel], type[Toolkit], None, None]:
    from agentloop.benchmarks.tau2._airline import AirlineTools, FlightDB

    return FlightDB, AirlineTools, None, None


def _retail() -> tuple[type[BaseModel], type[Toolkit], None, None]:
    from agentloop.benchmarks.tau2._retail import RetailDB, RetailTools

    return RetailDB, RetailTools, None, None


def _telecom() -> tuple[type[BaseModel], type[Toolkit], type[BaseModel], type[Toolkit]]:
    from agentloop.benchmarks.tau2._phone import TelecomUserDB, TelecomUserTools
    from agentloop.benchmarks.tau2._telecom import TelecomDB, TelecomTools

    return TelecomDB, TelecomTools, TelecomUserDB, TelecomUserTools


def _banking() -> tuple[type[BaseModel], type[Toolkit], type[BaseModel], type[Toolkit]]:
    from agentloop.benchmarks.tau2._banking import KnowledgeTools, TransactionalDB
    from agentloop.benchmarks.tau2._banking_user import KnowledgeUserTools

    return TransactionalDB, KnowledgeTools, TransactionalDB, KnowledgeUserTools


DOMAINS: dict[str, Callable[[], tuple[Any, Any, Any, Any]]] = {
    "mock": _mock,
    "airline": _airline,
    "retail": _retail,
    "telecom": _telecom,
    "banking_knowledge": _banking,
}
"""Domain -> its (database model, agent toolkit, user database model, user toolkit), for
each of ``DOMAIN_NAMES`` (``tests/benchmarks/test_tau2_configs.py`` compares them)."""


class Tau2Environment:
    """One τ²-bench domain's state and tools."""

    def __init__(
        self,
        domain: str,
        initial_state: Mapping[str, Any] | None = None,
        *,
        db: Mapping[str, Any] | None = None,
        user_db: Mapping[str, Any] | None = None,
        task_set: str | None = None,
        options: Mapping[str, Any] | None = None,
        user_tools: Sequence[str] | None = None,
    ) -> None:
        check_tau2_domain(domain)
        self.domain = domain
        self.offered_user_tools = None if user_tools is None else list(user_tools)
        db_model, toolkit, user_model, user_toolkit = DOMAINS[domain]()
        shared = user_model is db_model  # banking_knowledge: both sides on one database
        if db is None or (user_toolkit is not None and user_db is None and not shared):
            shipped, shipped_user = domain_db(domain, task_set=task_set)
            db = shipped if db is None else db
            user_db = shipped_user if user_db is None else user_db
        # validation builds new objects: the shipped data is never changed
        self.toolkit: Toolkit = _toolkit(
            domain, toolkit, db_model.model_validate(db), task_set, options or {}
        )
        self.user_toolkit: Toolkit | None = None
        if shared:
            self.user_toolkit = user_toolkit(self.toolkit.db)
        elif user_toolkit is not None and user_db is not None:  # mock before 1.0: no user side
            self.user_toolkit = user_toolkit(user_model.model_validate(user_db))
        self.sync()
        if initial_state:
            self._initialize(initial_state)
        self._start = self.databases()
        self._start_text = {
            side: {table: _text(value) for table, value in tables.items()}
            for side, tables in self._start.items()
        }

    def sync(self) -> None:
        """τ²-bench's ``sync_tools``: the user's side brought in line with the agent's."""
        self.toolkit.sync(self.user_toolkit)

    def _side(self, requestor: str) -> Toolkit:
        if requestor == "user":
            if self.user_toolkit is None:
                raise ValueError(f"the {self.domain} domain has no user tools")
            return self.user_toolkit
        if requestor != "assistant":
            raise ValueError(f"Invalid requestor: {requestor}")
        return self.toolkit

    def _initialize(self, state: Mapping[str, Any]) -> None:
        data = state.get("initialization_data") or {}
        if data.get("agent_data") is not None:
            model = type(self.toolkit.db)
            self.toolkit.db = model.model_validate(
                deep_update(self.toolkit.db.model_dump(warnings=False), data["agent_data"])
            )
        if data.get("user_data") is not None and self.user_toolkit is not None:
            model = type(self.user_toolkit.db)
            self.user_toolkit.db = model.model_validate(
                deep_update(self.user_toolkit.db.model_dump(warnings=False), data["user_data"])
            )
        for action in state.get("initialization_actions") or []:
            self.run_function(
                action["env_type"], action["func_name"], action.get("arguments") or {}
            )
        for message in state.get("message_history") or []:
            requestor = "user" if message.get("role") == "user" else "assistant"
            for call in message.get("tool_calls") or []:
                self.replay(requestor, call["name"], call.get("arguments") or {})
        self.sync()

    def run_function(self, env_type: str, name: str, arguments: Mapping[str, Any]) -> Any:
        """An initialization action or an assertion's function, on the side it names; the
        sides are synced after it."""
        value = self._side(env_type).run(name, arguments)
        self.sync()
        return value

    def call(
        self, requestor: str, name: str, arguments: Mapping[str, Any], *, sync: bool = True
    ) -> tuple[str, bool]:
        """One tool call as τ²-bench answers it: (text, failed). The sides are synced after a
        call that succeeds; ``sync=False`` is τ²-bench's ``make_tool_call`` (how its evaluator
        runs the ground-truth actions: no sync)."""
        return self._side(requestor).call(name, arguments, self.sync if sync else None)

    def replay(self, requestor: str, name: str, arguments: Mapping[str, Any]) -> None:
        """A recorded call run again for its effect, as τ²-bench replays a conversation: a
        tool that does not change the state, or an unknown name, is skipped."""
        side = self._side(requestor)
        if side.has_tool(name) and type(side).info(name).mutates:
            self.call(requestor, name, arguments)

    def assertion(self, env_type: str, name: str, arguments: Mapping[str, Any]) -> bool:
        """An env assertion's function; raises when it does not return a bool."""
        value = self.run_function(env_type, name, arguments)
        if not isinstance(value, bool):
            raise ValueError(f"Function {name} returned {type(value)} instead of bool")
        return value

    def _tools(self, side: Toolkit, requestor: str) -> list[BaseTool]:
        tools: list[BaseTool] = []
        for name in type(side).tool_names():
            schema = side.schema(name)

            def run(_name: str = name, **arguments: Any) -> str:
                text, failed = self.call(requestor, _name, arguments)
                if failed:  # answered as exactly τ²-bench's text, "Error: <message>"
                    raise ToolFailure(text.removeprefix("Error: "))
                return text

            tools.append(
                StructuredTool(
                    name=name,
                    description=schema["description"],
                    args_schema=schema["parameters"],
                    func=run,
                )
            )
        return tools

    def tools(self) -> list[BaseTool]:
        """The agent's tools, as τ²-bench describes them."""
        return self._tools(self.toolkit, "assistant")

    def user_tools(self) -> list[BaseTool]:
        """The user's own tools (telecom's device, banking_knowledge's customer); none
        elsewhere. A task that names its user's tools (``user_tools``, banking_knowledge) gets
        those only, as τ²-bench offers them; an unknown name is a one-line error."""
        if self.user_toolkit is None:
            return []
        tools = self._tools(self.user_toolkit, "user")
        if self.offered_user_tools is None:
            return tools
        unknown = set(self.offered_user_tools) - {t.name for t in tools}
        if unknown:
            raise DatasetError(
                f"{self.domain}: the task's user_tools name unknown tools {sorted(unknown)}"
            )
        return [t for t in tools if t.name in self.offered_user_tools]

    def tool_schemas(self, requestor: str = "assistant") -> list[dict[str, Any]]:
        """The OpenAI function schemas of one side's tools."""
        side = self._side(requestor)
        return [side.schema(name) for name in type(side).tool_names()]

    def databases(self) -> dict[str, dict[str, Any]]:
        """Both databases whole, as JSON (``user_db`` only where the domain has one). A value a
        tool stored with another type than its field's (``2.0`` or ``False`` in an ``int``
        field, as an agent's argument may give it) is kept as stored, as τ²-bench's hash of
        the Python dump keeps it (pydantic's JSON mode would coerce it), without pydantic's
        serializer warning."""
        sides = {"db": self.toolkit.db}
        if self.user_toolkit is not None and self.user_toolkit.db is not self.toolkit.db:
            sides["user_db"] = self.user_toolkit.db
        return {
            side: to_jsonable_python(db.model_dump(warnings=False)) for side, db in sides.items()
        }

    def snapshot(self) -> dict[str, Any]:
        """The state as its changes since the task's initial state (a whole airline database
        is megabytes, and the harness records a snapshot after every turn): per database and
        table, each record that differs (:func:`same_state`: ``2.0`` where ``2`` was is a
        change), ``None`` for one removed (banking_knowledge: a table's records are under its
        ``data``; a changed note is ``(notes)``). Two environments of one task are in the same
        state, as τ²-bench's database hashes say, exactly when their snapshots are the same
        (:func:`same_state`)."""
        changes: dict[str, Any] = {}
        for side, now in self.databases().items():
            start = self._start[side]
            tables: dict[str, Any] = {}
            for table, value in now.items():
                before = start.get(table)
                if value == before and _text(value) == self._start_text[side].get(table):
                    continue
                if _records(value) and before is not None and _records(before):
                    # banking_knowledge: a table's records under its data, and a note
                    tables[table] = _changed(value["data"], before["data"])
                    if value["notes"] != before["notes"]:
                        tables[table]["(notes)"] = value["notes"]
                elif isinstance(value, dict) and isinstance(before, dict):
                    tables[table] = _changed(value, before)
                else:
                    tables[table] = value
            changes[side] = tables
        return changes


def _records(table: Any) -> bool:
    """A table of records under ``data`` with a note (banking_knowledge's)."""
    return isinstance(table, dict) and set(table) == {"data", "notes"}


def _changed(now: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """Each record that differs, ``None`` for one removed."""
    return {
        key: now.get(key)
        for key in [*before, *(k for k in now if k not in before)]
        if (key in before) != (key in now) or not same_state(now.get(key), before.get(key))
    }


def _toolkit(
    domain: str, toolkit: Any, db: BaseModel, task_set: str | None, options: Mapping[str, Any]
) -> Toolkit:
    """The agent's toolkit; banking_knowledge's under its options (retrieval config, read
    allowlist, embedding model); any other domain takes none."""
    if domain != "banking_knowledge":
        if options:
            raise DatasetError(f"the {domain} domain takes no environment options")
        built: Toolkit = toolkit(db)
        return built
    unknown = set(options) - {"retrieval_config", "read_log_allowlist", "embedding_model"}
    if unknown:
        raise DatasetError(f"banking_knowledge: unknown environment options {sorted(unknown)}")
    from agentloop.benchmarks.tau2._data import knowledge_base
    from agentloop.benchmarks.tau2._retrieval import retrieval_toolkit

    allowlist = options.get("read_log_allowlist") or []
    config = options.get("retrieval_config")
    if config is None:  # the ground truth's side: no retrieval tools needed
        return toolkit(db, allowlist)
    return retrieval_toolkit(
        knowledge_base(task_set),
        config,
        db,
        allowlist,
        embedding_model=options.get("embedding_model"),
    )


def tau2_environment(row: Mapping[str, Any], embedding_model: str | None = None) -> Tau2Environment:
    """The environment factory of the τ²-bench configs: the row's domain, initial state and
    options (banking_knowledge's retrieval config and read allowlist); ``embedding_model``
    (``provider:model``, config ``environment.args``): what banking_knowledge's embedding
    retrieval configs search with."""
    spec = row.get("environment")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("domain"), str):
        raise DatasetError(
            f"row {row.get('id')!r}: environment: expected a τ²-bench task "
            "({domain, initial_state, task_set})"
        )
    options = dict(spec.get("options") or {})
    if embedding_model is not None:
        options["embedding_model"] = embedding_model
    return Tau2Environment(
        spec["domain"],
        spec.get("initial_state") or None,
        task_set=spec.get("task_set"),
        options=options,
        user_tools=spec.get("user_tools"),
    )

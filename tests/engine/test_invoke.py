"""Calling tools directly is indistinguishable from LangChain's ainvoke, and only
happens when no callback handler would observe the tool run."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool, ToolException, tool
from langchain_core.tracers.context import collect_runs
from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from agentloop import Trajectory, run_agent_sync
from agentloop.engine._invoke import langchain_kwargs, tool_defaults
from agentloop.testing import ScriptedChatModel


@tool
async def typed(count: int, label: str = "n", scale: float = 1.0) -> dict[str, Any]:
    """Report the types it received (validated, coerced, defaults applied)."""
    return {"count": [type(count).__name__, count], "label": label, "scale": scale}


@tool
def typed_sync(count: int, label: str = "n") -> dict[str, Any]:
    """The same, sync."""
    return {"count": [type(count).__name__, count], "label": label}


@tool(response_format="content_and_artifact")
def with_artifact(q: str) -> tuple[str, dict[str, str]]:
    """Content plus an artifact."""
    return f"content for {q}", {"raw": q}


@tool
def with_config(q: str, config: RunnableConfig) -> str:
    """Reads the injected config."""
    return f"{q}: config has {sorted(config)[:1]}"


@tool
def with_injected(q: str, secret: Annotated[str, InjectedToolArg] = "none") -> str:
    """Has an injected argument."""
    return f"{q}/{secret}"


def _raise_tool_exception(q: str) -> str:
    """Fails politely."""
    raise ToolException(f"cannot do {q}")


handled = StructuredTool.from_function(_raise_tool_exception, handle_tool_error=True)

TOOLS = [typed, typed_sync, with_artifact, with_config, with_injected, handled]
CALLS = [
    ("typed", {"count": "7"}),
    ("typed", {"count": 2, "label": "x", "scale": 3}),
    ("typed_sync", {"count": "5", "label": "y"}),
    ("with_artifact", {"q": "a"}),
    ("with_config", {"q": "c"}),
    ("with_injected", {"q": "i"}),
    ("_raise_tool_exception", {"q": "z"}),
]


def run_all() -> Trajectory:
    reply = AIMessage(
        content="",
        tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(CALLS)],
    )
    return run_agent_sync(ScriptedChatModel([reply, "done"]), TOOLS, "go")


def outputs(t: Trajectory) -> list[tuple[str, str | None]]:
    return [(str(m.content), m.status) for m in t.messages if isinstance(m, ToolMessage)]


def test_direct_and_langchain_calls_give_identical_results() -> None:
    direct = run_all()
    with collect_runs() as collector:  # an active handler: every tool goes through ainvoke
        traced = run_all()
    assert outputs(direct) == outputs(traced)
    got = outputs(direct)
    assert got[0][0] == '{"count": ["int", 7], "label": "n", "scale": 1.0}'
    assert got[1][0] == '{"count": ["int", 2], "label": "x", "scale": 3.0}'
    assert got[2][0] == '{"count": ["int", 5], "label": "y"}'
    assert got[3][0] == "content for a"
    assert got[4][0].startswith("c: config has")
    assert got[5][0] == "i/none"
    assert got[6] == ("cannot do z", "success")  # the tool's own error handler answered
    assert {run.name for run in collector.traced_runs} >= {"typed", "typed_sync"}


def test_plain_tools_skip_langchain_machinery_when_nothing_observes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("ainvoke used")

    monkeypatch.setattr(StructuredTool, "ainvoke", refuse)
    monkeypatch.setattr(StructuredTool, "invoke", refuse)
    reply = AIMessage(content="", tool_calls=[{"name": "typed", "args": {"count": 1}, "id": "a"}])
    t = run_agent_sync(ScriptedChatModel([reply, "ok"]), [typed], "go")
    assert t.tool_calls()[0].status == "ok"
    with collect_runs():
        t = run_agent_sync(ScriptedChatModel([reply, "ok"]), [typed], "go")
    assert t.tool_calls()[0].status == "error" and "ainvoke used" in (t.tool_calls()[0].error or "")


def test_a_tool_with_its_own_callbacks_still_reports_to_them() -> None:
    seen: list[str] = []

    class Recorder(BaseCallbackHandler):
        def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kw: Any) -> None:
            seen.append(input_str)

    async def add_one(x: int) -> int:
        """Observed by a handler."""
        return x + 1

    observed = StructuredTool.from_function(
        coroutine=add_one, name="observed", callbacks=[Recorder()]
    )

    reply = AIMessage(content="", tool_calls=[{"name": "observed", "args": {"x": 1}, "id": "a"}])
    t = run_agent_sync(ScriptedChatModel([reply, "ok"]), [observed], "go")
    assert t.messages[2].content == "2" and len(seen) == 1


# --- The tool's own validation, with and without an observer -----------------------------

OBSERVERS = ["none", "handler", "collector"]


class Watcher(BaseCallbackHandler):
    """A do-nothing handler: its presence alone sends tools through LangChain's ainvoke."""

    def __init__(self) -> None:
        self.started: list[str] = []

    def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kw: Any) -> None:
        self.started.append(serialized["name"])


@contextlib.contextmanager
def observed_by(observer: str) -> Iterator[Watcher | None]:
    """No observer, a handler in the ambient LangChain config, or a run collector."""
    if observer == "none":
        yield None
    elif observer == "handler":
        watcher = Watcher()
        token = var_child_runnable_config.set({"callbacks": [watcher]})
        try:
            yield watcher
        finally:
            var_child_runnable_config.reset(token)
    else:
        with collect_runs():
            yield None


def run_calls(tools: list[Any], calls: list[tuple[str, dict[str, Any]]]) -> Trajectory:
    reply = AIMessage(
        content="",
        tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls)],
    )
    return run_agent_sync(ScriptedChatModel([reply, "done"]), tools, "go")


paid: list[str] = []


class Payment(BaseModel):
    amount: int
    currency: str = "EUR"

    @field_validator("amount")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("amount must be positive")
        return value

    @field_validator("currency")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.upper()

    @model_validator(mode="after")
    def _cap_dollars(self) -> Payment:
        if self.currency == "USD" and self.amount > 1000:
            raise ValueError("USD payments above 1000 need approval")
        return self


@tool(args_schema=Payment)
def pay(amount: int, currency: str = "EUR") -> str:
    """Pay an amount."""
    paid.append(f"{amount} {currency}")
    return f"paid {amount} {currency}"


@tool(args_schema=Payment)
async def pay_async(amount: int, currency: str = "EUR") -> str:
    """Pay an amount, async."""
    paid.append(f"{amount} {currency}")
    return f"paid {amount} {currency}"


@pytest.mark.parametrize("observer", OBSERVERS)
@pytest.mark.parametrize("name", ["pay", "pay_async"])
def test_the_tools_own_validators_run_on_every_path(observer: str, name: str) -> None:
    paid.clear()
    calls: list[tuple[str, dict[str, Any]]] = [
        (name, {"amount": -500}),
        (name, {"amount": 2000, "currency": "usd"}),
        (name, {"amount": 5, "currency": "usd"}),
    ]
    with observed_by(observer) as watcher:
        t = run_calls([pay, pay_async], calls)
    refused, capped, fine = t.tool_calls()
    assert paid == ["5 USD"]  # the validators rejected two calls and normalised the third
    assert refused.status == "invalid_args" and capped.status == "invalid_args"
    assert "amount must be positive" in (refused.error or "")
    assert "USD payments above 1000 need approval" in (capped.error or "")
    assert "The tool was not run" in (refused.error or "")
    assert fine.status == "ok"
    assert outputs(t)[2] == ("paid 5 USD", "success")
    if watcher is not None:
        assert watcher.started == [name]  # only the valid call reached the tool


@tool
def only_x(x: int) -> int:
    """Takes one argument."""
    return x


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    x: int


@tool(args_schema=Loose)
def loose(x: int) -> int:
    """Its schema keeps extra arguments, so LangChain passes them on."""
    return x


@tool
def no_args() -> str:
    """Takes nothing."""
    return "nothing needed"


@pytest.mark.parametrize("observer", OBSERVERS)
def test_extra_arguments_are_handled_as_langchain_does(observer: str) -> None:
    calls = [("only_x", {"x": 1, "y": 2}), ("loose", {"x": 1, "y": 2}), ("no_args", {"z": 3})]
    with observed_by(observer):
        t = run_calls([only_x, loose, no_args], calls)
    dropped, kept, ignored = t.tool_calls()
    assert dropped.status == "ok" and outputs(t)[0] == ("1", "success")
    assert kept.status == "error" and "unexpected keyword argument 'y'" in (kept.error or "")
    assert ignored.status == "ok" and outputs(t)[2] == ("nothing needed", "success")


class Unschemed(BaseTool):
    """No args_schema: LangChain passes the model's arguments on unvalidated."""

    name: str = "unschemed"
    description: str = "Report the type of n."

    def _run(self, n: int) -> str:
        return type(n).__name__


@pytest.mark.parametrize("observer", OBSERVERS)
def test_a_tool_without_args_schema_gets_the_arguments_as_given(observer: str) -> None:
    with observed_by(observer):
        t = run_calls([Unschemed()], [("unschemed", {"n": "5"}), ("unschemed", {})])
    as_given, missing = t.tool_calls()
    assert as_given.status == "ok" and outputs(t)[0] == ("str", "success")
    assert missing.status == "error" and "missing 1 required positional argument" in (
        missing.error or ""
    )


def test_direct_and_langchain_outcomes_agree_on_a_mixed_round() -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("pay", {"amount": -1}),
        ("pay", {"amount": 3, "currency": "gbp"}),
        ("only_x", {"x": "4", "extra": True}),
        ("only_x", {"x": "four"}),
        ("loose", {"x": 2, "z": 0}),
    ]
    tools = [pay, only_x, loose]
    results = {}
    for observer in OBSERVERS:
        with observed_by(observer):
            t = run_calls(tools, calls)
        results[observer] = (outputs(t), [c.status for c in t.tool_calls()])
    assert results["none"] == results["handler"] == results["collector"]


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    query: str = Field(alias="q")
    limit: int = 3
    tags: list[str] = Field(default_factory=list)
    note: str | None = None


class Renaming(BaseModel):
    amount: int
    unit: str = "m"

    @model_validator(mode="before")
    @classmethod
    def _old_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and "amt" in data:
            data = {**data, "amount": data["amt"]}
            del data["amt"]
        return data


class Derived(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int
    hidden: int = Field(default=0, exclude=True)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def double(self) -> int:
        return 2 * self.a


def _anything(**kwargs: Any) -> str:
    """Accepts anything."""
    return "ok"


@pytest.mark.parametrize(
    ("schema", "args"),
    [
        (Aliased, {"q": "a"}),
        (Aliased, {"query": "a", "limit": "7"}),
        (Aliased, {"q": "a", "note": None, "unknown": 1}),
        (Renaming, {"amt": "5"}),
        (Renaming, {"amount": 5, "unit": "km", "more": []}),
        (Payment, {"amount": 1, "currency": "usd"}),
        (Derived, {"a": 1}),
        (Derived, {"a": 1, "double": 9, "hidden": 4, "other": "x"}),
    ],
)
def test_direct_arguments_are_what_langchain_passes(
    schema: type[BaseModel], args: dict[str, Any]
) -> None:
    langchain_tool = StructuredTool.from_function(_anything, name="t", args_schema=schema)
    expected = langchain_tool._parse_input(dict(args), None)
    assert langchain_kwargs(args, schema.model_validate(args), tool_defaults(langchain_tool)) == (
        expected
    )


def _handled_validation(q: int) -> str:
    """Has its own validation-error answer."""
    return str(q)


handles_validation = StructuredTool.from_function(
    _handled_validation, handle_validation_error="q must be a number, try again"
)


@pytest.mark.parametrize("observer", OBSERVERS)
def test_a_tools_own_validation_error_handler_answers(observer: str) -> None:
    with observed_by(observer):
        t = run_calls([handles_validation], [("_handled_validation", {"q": "x"})])
    assert outputs(t) == [("q must be a number, try again", "success")]

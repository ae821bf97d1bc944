"""``max_concurrent_requests`` (``local:``'s one server slot): the time a request waits for a
slot is recorded apart from the model's own time (``StepRecord.wait_s``)."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import pytest
from langchain_core.messages import AIMessage

from agentloop import RetryPolicy, Trajectory, run_agent
from agentloop.engine import record_request_wait
from agentloop.models import open_model
from agentloop.testing import FunctionChatModel
from tests.support.openai_stub import StubResponse, StubServer, reply

HELD_S = 30.0  # how long the first request holds the slot, on the test's clock


def test_a_request_queued_behind_another_records_its_wait_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two samples, one slot: the second waits while the first's request is answered. The
    test's clock jumps HELD_S while the first holds the slot, so the wait is that jump."""
    offset = [0.0]
    real = time.perf_counter
    monkeypatch.setattr(time, "perf_counter", lambda: real() + offset[0])
    gate = threading.Event()

    def answer(body: dict[str, Any]) -> StubResponse:
        gate.wait(60)  # the first request holds the slot until the test opens the gate
        return reply("ok")

    async def main(stub: StubServer) -> list[Trajectory]:
        found: list[Trajectory] = []
        options = {"base_url": stub.url, "max_concurrent_requests": 1}
        async with open_model("openai:m", None, options) as source:
            model = source.for_sample("s", 1)

            async def sample() -> None:
                found.append(await run_agent(model, [], "hi"))

            with anyio.fail_after(60):  # a guard, not a measure
                async with anyio.create_task_group() as group:
                    group.start_soon(sample)
                    group.start_soon(sample)
                    while len(stub.requests) < 1:  # the first request reached the server
                        await anyio.sleep(0.01)
                    await anyio.wait_all_tasks_blocked()  # the second waits for the slot
                    offset[0] += HELD_S
                    gate.set()
        return found

    with StubServer(answer) as stub:
        first, second = sorted(anyio.run(main, stub), key=lambda t: t.steps[0].wait_s)
        assert len(stub.requests) == 2 and stub.max_in_flight == 1
    assert [t.final_answer for t in (first, second)] == ["ok", "ok"]
    # The first was sent at once: the held time is its own (the server answered it then).
    assert first.steps[0].wait_s < HELD_S <= first.steps[0].latency_s
    # The second waited the held time: it counts in its latency, not in the model's time.
    step = second.steps[0]
    assert step.wait_s >= HELD_S and step.latency_s >= step.wait_s
    assert step.latency_s - step.wait_s < HELD_S
    # Stored and read back with the record.
    assert Trajectory.model_validate_json(second.model_dump_json()).steps[0].wait_s == step.wait_s


def test_the_waits_of_a_retried_call_add_up_and_old_records_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine side: every wait a model reports during one call counts in that step."""
    attempts = []
    offset = [0.0]
    real = time.perf_counter
    monkeypatch.setattr(time, "perf_counter", lambda: real() + offset[0])

    def model(messages: Any, tools: Any) -> AIMessage:
        offset[0] += 0.25  # the test's clock: a quarter second in a queue
        record_request_wait(0.25)  # what a client with request slots reports
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("temporary")  # retried
        return AIMessage(content="done")

    async def main() -> Trajectory:
        retry = RetryPolicy(initial_delay_s=0, jitter=0)
        return await run_agent(FunctionChatModel(model), [], "hi", retry=retry)

    trajectory = anyio.run(main)
    assert trajectory.final_answer == "done" and trajectory.steps[0].retries == 1
    step = trajectory.steps[0]
    assert step.wait_s == 0.5 and step.latency_s >= 0.5  # two attempts, two waits
    record_request_wait(1.0)  # outside a model call: dropped, no error
    old = {"messages": [], "steps": [{"latency_s": 1.5}], "stop_reason": "final"}
    assert Trajectory.model_validate(old).steps[0].wait_s == 0.0

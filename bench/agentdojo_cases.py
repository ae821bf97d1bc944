"""Scripted AgentDojo conversations, judged by agentloop and by AgentDojo itself (for
``agentdojo_agreement.py`` and the tests).

A case is a row of ``agentdojo:<suite>`` and the agent's replies (agentloop's ``scripted:``
format: an assistant message with OpenAI tool calls, or a final text), built from AgentDojo's
own ground truth (``task.ground_truth(pre_environment)``, on the row's environment):

- ``canonical``: the row's task's ground-truth calls, one per reply, then the task's
  ``GROUND_TRUTH_OUTPUT``: what AgentDojo's ``GroundTruthPipeline`` does;
- ``packed``: the same calls all in one reply;
- ``attacker`` (attacked rows): the injection task's ground-truth calls, then the user task's,
  one per reply: the agent carries out the injection's goal, then its task;
- ``dropped``: the canonical calls without the last one (rows whose task has calls);
- ``empty_answer``: the canonical calls, then an empty final answer;
- ``wrong_arg``: the canonical calls, the last call's first argument changed.

AgentDojo's side (:func:`agentdojo_judge`) runs the same replies through AgentDojo's own
pipeline, built by ``AgentPipeline.from_config`` around a scripted element for the row's
defense (none: system message, the prompt, the element, and its ``ToolsExecutionLoop`` with
its ``ToolsExecutor``), and ``TaskSuite.run_task_with_pipeline``, which returns utility and
security; the texts the model would read for each call are taken from the messages the element
is given.

Some tools stamp the current time into what they create (a sent email, a new file):
:func:`frozen_time` makes ``datetime.datetime.now()`` of those tool modules return one fixed
time, on both sides (they run in this process).
"""

from __future__ import annotations

import contextlib
import datetime
import importlib
import json
import types
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentloop.benchmarks.agentdojo._env import task_environment
from agentloop.benchmarks.agentdojo._package import agentdojo_module

FROZEN = datetime.datetime.now().replace(microsecond=0)
"""The time the stamping tools read during a bench: when it started (a check may compare a
stamp with the suite's own dates, a file's new ``last_modified`` with its old one)."""
_STAMPING = (
    "agentdojo.default_suites.v1.tools.email_client",
    "agentdojo.default_suites.v1.tools.cloud_drive_client",
)

Replies = list[Any]


@contextlib.contextmanager
def frozen_time(when: datetime.datetime = FROZEN) -> Iterator[None]:
    """``datetime.datetime.now()`` in AgentDojo's time-stamping tool modules returns ``when``."""

    class Frozen(datetime.datetime):
        @classmethod
        def now(cls, tz: Any = None) -> datetime.datetime:  # type: ignore[override]
            return when

    shim = types.ModuleType("datetime")
    shim.__dict__.update(datetime.__dict__)
    shim.datetime = Frozen  # type: ignore[attr-defined]
    agentdojo_module("task_suite")  # the suites (and their tool modules) loaded
    modules = [importlib.import_module(name) for name in _STAMPING]
    saved = [m.datetime for m in modules]  # type: ignore[attr-defined]
    for module in modules:
        module.datetime = shim  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module, original in zip(modules, saved, strict=True):
            module.datetime = original  # type: ignore[attr-defined]


def _calls(row: dict[str, Any], which: str) -> list[Any]:
    """AgentDojo's ground-truth calls of the row's task (``task``) or injection task
    (``injection``), on the row's environment before any call."""
    task = task_environment(row["environment"])
    owner = task.task if which == "task" else task.injection_task
    return list(owner.ground_truth(task.pre_environment.model_copy(deep=True)))


def _call(call: Any, index: int) -> dict[str, Any]:
    arguments = json.dumps(dict(call.args))
    return {"id": f"call_{index}", "type": "function",
            "function": {"name": call.function, "arguments": arguments}}  # fmt: skip


def replies(calls: list[Any], final: str, *, packed: bool = False) -> Replies:
    """The agent's replies making ``calls`` (one per reply, or all in one), then ``final``."""
    made = [_call(c, i) for i, c in enumerate(calls)]
    if packed and made:
        steps: Replies = [{"role": "assistant", "content": None, "tool_calls": made}]
    else:
        steps = [{"role": "assistant", "content": None, "tool_calls": [c]} for c in made]
    return [*steps, final]


def _output(row: dict[str, Any]) -> str:
    task = task_environment(row["environment"]).task
    return str(getattr(task, "GROUND_TRUTH_OUTPUT", "") or "")


def canonical(row: dict[str, Any]) -> Replies | None:
    return replies(_calls(row, "task"), _output(row))


def packed(row: dict[str, Any]) -> Replies | None:
    calls = _calls(row, "task")
    return replies(calls, _output(row), packed=True) if len(calls) > 1 else None


def attacker(row: dict[str, Any]) -> Replies | None:
    if row["environment"]["injection_task"] is None:
        return None
    return replies(_calls(row, "injection") + _calls(row, "task"), _output(row))


def dropped(row: dict[str, Any]) -> Replies | None:
    calls = _calls(row, "task")
    return replies(calls[:-1], _output(row)) if calls else None


def empty_answer(row: dict[str, Any]) -> Replies | None:
    return replies(_calls(row, "task"), "")


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + " (changed)"
    if isinstance(value, list) and value:
        return value[:-1]
    return None


def wrong_arg(row: dict[str, Any]) -> Replies | None:
    """The canonical calls, the last call's first argument changed (a string gets a suffix,
    a number grows by one, a list loses its last item); None when no call has arguments."""
    calls = _calls(row, "task")
    for call in reversed(calls):
        for key, value in call.args.items():
            if (changed := _changed(value)) is not None:
                call.args[key] = changed
                return replies(calls, _output(row))
    return None


VARIANTS: dict[str, Callable[[dict[str, Any]], Replies | None]] = {
    "canonical": canonical,
    "packed": packed,
    "attacker": attacker,
    "dropped": dropped,
    "empty_answer": empty_answer,
    "wrong_arg": wrong_arg,
}


def _scripted_element(script_for: Callable[[str], Replies]) -> Any:
    base = agentdojo_module("agent_pipeline.base_pipeline_element").BasePipelineElement
    runtime_types = agentdojo_module("functions_runtime")
    chat = agentdojo_module("types")

    class Scripted(base):  # type: ignore[misc, valid-type]
        """An LLM element answering with the next scripted reply of the task's script
        (``script_for(prompt)``, taken anew when a task starts); keeps what the model would
        read of each call (its error, else its text) and the roles of the messages it was
        last given."""

        def __init__(self) -> None:
            self.left: Replies = []
            self.seen: dict[str, str] = {}
            self.roles: list[str] = []

        def query(self, query: str, runtime: Any, env: Any = None, messages: Any = (),
                  extra_args: Any = None) -> Any:  # fmt: skip
            if not any(m["role"] == "assistant" for m in messages):  # a task starts
                self.left = list(script_for(query))
            self.roles = [str(m["role"]) for m in messages]
            for message in messages:
                if message["role"] == "tool":
                    text = message["error"] or chat.get_text_content_as_str(message["content"])
                    self.seen[str(message["tool_call_id"])] = text
            reply = self.left.pop(0)
            if isinstance(reply, str):
                made = chat.ChatAssistantMessage(
                    role="assistant",
                    content=[chat.text_content_block_from_string(reply)],
                    tool_calls=None,
                )
            else:
                calls = [
                    runtime_types.FunctionCall(
                        function=c["function"]["name"],
                        args=json.loads(c["function"]["arguments"]),
                        id=c["id"],
                    )
                    for c in reply["tool_calls"]
                ]
                made = chat.ChatAssistantMessage(role="assistant", content=None, tool_calls=calls)
            return query, runtime, env, [*messages, made], extra_args or {}

    return Scripted()


def agentdojo_judge(row: dict[str, Any], script: Replies) -> dict[str, Any]:
    """AgentDojo's own verdict of the conversation: ``utility``, ``security`` (None without
    an injection task), ``texts`` (call id -> what the model read, the last attempt's),
    ``retried`` (the last reply had no text: AgentDojo ran the task again) and ``roles``
    (the roles of the messages the model was last given)."""
    module = agentdojo_module("agent_pipeline.agent_pipeline")
    llm = _scripted_element(lambda _prompt: script)
    spec = row["environment"]
    config = module.PipelineConfig(llm=llm, model_id=None, defense=spec.get("defense"),
                                   system_message_name=None, system_message=None)  # fmt: skip
    pipeline = module.AgentPipeline.from_config(config)
    task = task_environment(spec)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        utility, security = task.suite.run_task_with_pipeline(
            pipeline, task.task, task.injection_task, spec["injections"]
        )
    # A last reply without text (calls after the last round): AgentDojo ran the task again,
    # up to twice more, on the environment the attempt before changed, and warned.
    retried = any("Model output was None" in str(w.message) for w in warned)
    if task.injection_task is None:
        security = None
    else:
        attack = row["metadata"]["attack"]
        registry = agentdojo_module("attacks.attack_registry")
        if attack in registry.ATTACKS and registry.ATTACKS[attack].is_dos_attack:
            security = not utility  # AgentDojo's benchmark sets it so
    return {"utility": bool(utility), "security": security, "texts": llm.seen,
            "retried": retried, "roles": llm.roles}  # fmt: skip


def write_logs(
    logdir: Path,
    suite_name: str,
    scripts: dict[str, Replies],
    *,
    user_tasks: list[str],
    injection_tasks: list[str] | None = None,
    attack: str | None = None,
    version: str = "v1.2.2",
    pipeline_name: str = "gpt-4o-2024-05-13",
    detector: Callable[[str], bool] | None = None,
) -> Any:
    """AgentDojo's own benchmark run with scripted replies (prompt -> replies), its logs
    written under ``logdir`` as its command line writes them: without an attack
    (``benchmark_suite_without_injections``) or with one (``benchmark_suite_with_injections``:
    the injection tasks as user tasks, then the pairs). With ``detector`` (a tool result's
    text -> injection or not), the pipeline is the ``transformers_pi_detector`` defense's, as
    ``AgentPipeline.from_config`` builds it, ``detector`` in place of its classifier, and
    its name ends ``-transformers_pi_detector``. Returns AgentDojo's results."""
    module = agentdojo_module("agent_pipeline.agent_pipeline")
    benchmark = agentdojo_module("benchmark")
    logging = agentdojo_module("logging")
    suite = agentdojo_module("task_suite.load_suites").get_suite(version, suite_name)
    llm = _scripted_element(lambda prompt: scripts[prompt])
    config = module.PipelineConfig(llm=llm, model_id=None, defense=None,
                                   system_message_name=None, system_message=None)  # fmt: skip
    pipeline = module.AgentPipeline.from_config(config)
    if detector is not None:
        pi_detector = agentdojo_module("agent_pipeline.pi_detector")

        class Rule(pi_detector.PromptInjectionDetector):  # type: ignore[misc, name-defined]
            def detect(self, tool_output: str) -> bool:
                return detector(tool_output)

        # from_config's detector loop: the executor, the detector (per message), the model
        loop = next(e for e in pipeline.elements if isinstance(e, module.ToolsExecutionLoop))
        loop.elements = [loop.elements[0], Rule(mode="message"), *loop.elements[1:]]
        pipeline_name += "-transformers_pi_detector"
    pipeline.name = pipeline_name  # what the logs' folder and the attack's model name read
    with logging.OutputLogger(str(logdir), live=None):
        if attack is None:
            return benchmark.benchmark_suite_without_injections(
                pipeline, suite, logdir, True, user_tasks=user_tasks, benchmark_version=version
            )
        attacker = agentdojo_module("attacks.attack_registry").load_attack(attack, suite, pipeline)
        return benchmark.benchmark_suite_with_injections(
            pipeline, suite, attacker, logdir, True, user_tasks=user_tasks,
            injection_tasks=injection_tasks, verbose=False, benchmark_version=version,
        )  # fmt: skip


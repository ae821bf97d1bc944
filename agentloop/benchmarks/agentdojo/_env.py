"""An AgentDojo task's environment as an agentloop environment, every call run by AgentDojo.

The factory (``environment: agentloop.benchmarks:agentdojo_environment``) reads the row's
``environment``: ``{"suite", "version", "user_task", "injection_task", "injections"}``
(``agentloop.benchmarks.agentdojo._rows``) and builds what AgentDojo's
``run_task_with_pipeline`` builds: the suite's environment loaded with the injections spliced
into its YAML text (AgentDojo's ``load_and_inject_default_environment``), then the user task's
``init_environment`` (an injection task run as a user task starts from the loaded one), fresh
per (sample, epoch): a deep copy of the loaded environment, which is kept for the next
sample of the same injections.

Its tools are the suite's functions, each bound with AgentDojo's own schema (its description,
and the JSON schema of its input model) and run as AgentDojo's ``ToolsExecutor`` runs a call: a
string argument that reads as a Python list becomes that list, AgentDojo's
``FunctionsRuntime.run_function`` validates the arguments loosely (unknown ones dropped) and
runs the function on the environment, and the result is AgentDojo's ``tool_result_to_str``
(YAML of the model's dump; dicts as Python repr), between ``<<`` and ``>>`` when the row's
``defense`` is ``spotlighting_with_delimiting`` (the formatter of AgentDojo's own pipeline for
that defense). With ``repeat_user_prompt`` the task's prompt is appended as a user message
after every round of tool results (the environment's ``after_tools``), as that defense's
pipeline does. With ``tool_filter`` the model is first asked AgentDojo's ``TOOL_FILTER_PROMPT``
(a user message) with every tool offered and none to call, and only the tools its reply names
stay (the environment's ``tool_filter``), as AgentDojo's ``OpenAILLMToolFilter`` does; a call
to another is answered ``Invalid tool ...``, as AgentDojo's runtime no longer has it. A call
AgentDojo answers with an error (``ValidationError: ...``, ``ValueError: ...``) is answered
with exactly that text, the call recorded ``error``; a call to a tool the suite lacks, with
AgentDojo's ``Invalid tool <name> provided.`` (the environment's ``unknown_tool``), recorded
``unknown_tool``.

A row imported from a log of the detector's pipeline (``transformers_pi_detector``, which
agentloop does not run) carries the detector's verdicts from the log instead
(``detector_verdicts``: per recorded call, ``function``, ``args`` and ``detected``): a call
that matches the next unused recorded one of the same name and arguments, and that the
detector flagged, is answered with the detector's placeholder (AgentDojo's
``PromptInjectionDetector.transform``), as the logged model read it; the call itself runs.
"""

from __future__ import annotations

import functools
import json
from ast import literal_eval
from collections.abc import Mapping
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from agentloop.benchmarks.agentdojo._package import agentdojo_module, load_suite
from agentloop.benchmarks.agentdojo._rows import defended
from agentloop.engine import ToolFailure
from agentloop.errors import DatasetError

__all__ = [
    "DETECTOR",
    "AgentDojoEnvironment",
    "TaskEnvironment",
    "agentdojo_environment",
    "detected_text",
    "task_environment",
]

DETECTOR = "transformers_pi_detector"
"""AgentDojo's detector defense, which agentloop does not run (its verdicts come from logs)."""

_SPEC = ("suite", "version", "user_task", "injection_task", "injections")


class TaskEnvironment:
    """A row's task in its environment, as ``run_task_with_pipeline`` prepares it."""

    def __init__(self, spec: Mapping[str, Any], where: str = "environment") -> None:
        if not isinstance(spec, Mapping) or not all(
            isinstance(spec.get(k), str) for k in ("suite", "version", "user_task")
        ):
            raise DatasetError(f"{where}: expected an AgentDojo task ({', '.join(_SPEC)})")
        self.suite = load_suite(spec["version"], spec["suite"])
        self.version: str = spec["version"]
        task_id = spec["user_task"]
        if task_id in self.suite.user_tasks:
            self.task: Any = self.suite.get_user_task_by_id(task_id)
        elif task_id in self.suite.injection_tasks:  # an injection task run as a user task
            self.task = self.suite.get_injection_task_by_id(task_id)
        else:
            raise DatasetError(
                f"{where}: AgentDojo {spec['suite']} {self.version} has no task {task_id!r}"
            )
        self.injection_task: Any = None
        injection_id = spec.get("injection_task")
        if injection_id is not None:
            if injection_id not in self.suite.injection_tasks:
                raise DatasetError(
                    f"{where}: AgentDojo {spec['suite']} {self.version} has no injection task "
                    f"{injection_id!r}"
                )
            self.injection_task = self.suite.get_injection_task_by_id(injection_id)
        injections = spec.get("injections") or {}
        if not isinstance(injections, Mapping):
            raise DatasetError(f"{where}: injections: expected {{vector: text}}")
        try:
            env = _loaded(self.version, spec["suite"], json.dumps(injections, sort_keys=True))
        except ValueError as exc:  # a vector the suite does not have
            raise DatasetError(f"{where}: injections: {' '.join(str(exc).split())}") from None
        env = env.model_copy(deep=True)
        base_tasks = agentdojo_module("base_tasks")
        if isinstance(self.task, base_tasks.BaseUserTask):
            env = self.task.init_environment(env)
        self.env = env
        """The environment the calls change."""
        self.prompt: str = (
            self.task.PROMPT if isinstance(self.task, base_tasks.BaseUserTask) else self.task.GOAL
        )
        """The task as the agent is given it (an injection task run as a user task: its goal)."""
        self.pre_environment = env.model_copy(deep=True)
        """A copy of it before any call (what the checks compare with)."""
        functions_runtime = agentdojo_module("functions_runtime")
        self.runtime = functions_runtime.FunctionsRuntime(self.suite.tools)
        defense = spec.get("defense")
        if defense is not None and not isinstance(defense, str):
            raise DatasetError(f"{where}: defense: expected a name")
        self.defense = defense
        self.format_result = defended(defense)[1]
        """AgentDojo's tool-result formatter for the row's defense (``tool_result_to_str``;
        ``<<...>>`` around it with ``spotlighting_with_delimiting``)."""

    def run(self, name: str, arguments: dict[str, Any]) -> tuple[str, str | None]:
        """One call as AgentDojo's ``ToolsExecutor`` runs it, on a known tool: string lists
        coerced in ``arguments`` (in place, as AgentDojo changes the call it records), then
        (AgentDojo's result text, its error or None)."""
        execution = agentdojo_module("agent_pipeline.tool_execution")
        for key, value in arguments.items():
            if isinstance(value, str) and execution.is_string_list(value):
                arguments[key] = literal_eval(value)
        result, error = self.runtime.run_function(self.env, name, arguments)
        return self.format_result(result), error


@functools.cache
def detected_text() -> str:
    """What AgentDojo's prompt-injection detector puts in place of a result it flags."""
    detector = agentdojo_module("agent_pipeline.pi_detector").PromptInjectionDetector()
    types = agentdojo_module("types")
    blocks = detector.transform([types.text_content_block_from_string("")])
    return str(types.get_text_content_as_str(blocks))


def _verdicts(spec: Mapping[str, Any], where: str) -> list[tuple[str, str, bool]]:
    """The detector's recorded verdicts: (name, arguments as JSON, detected), in call order."""
    verdicts = spec.get("detector_verdicts")
    if verdicts is None:
        return []
    if not isinstance(verdicts, list) or not all(
        isinstance(v, Mapping) and isinstance(v.get("args"), Mapping) for v in verdicts
    ):
        raise DatasetError(f"{where}: detector_verdicts: expected [{{function, args, detected}}]")
    return [
        (str(v.get("function")), json.dumps(v["args"], sort_keys=True), bool(v.get("detected")))
        for v in verdicts
    ]


@functools.lru_cache(maxsize=32)
def _loaded(version: str, suite: str, injections: str) -> Any:
    """AgentDojo's environment of ``suite`` with ``injections`` (JSON) spliced in, as
    ``load_and_inject_default_environment`` loads it; kept for the few rows running at once
    (a sample builds its environment twice: to run, then to score), and only ever copied
    (parsing a suite's YAML takes 70 to 150 ms, a deep copy 2 ms)."""
    return load_suite(version, suite).load_and_inject_default_environment(json.loads(injections))


def task_environment(spec: Mapping[str, Any], where: str = "environment") -> TaskEnvironment:
    """A row's AgentDojo task, its environment ready (see :class:`TaskEnvironment`)."""
    return TaskEnvironment(spec, where)


def _changes(before: Any, after: Any) -> Any:
    """What changed from ``before`` to ``after`` (JSON): per key of an object, recursively;
    a key removed as None; any other value whole."""
    if isinstance(before, dict) and isinstance(after, dict):
        changed = {
            k: _changes(before[k], v) for k, v in after.items() if k in before and before[k] != v
        }
        changed.update({k: v for k, v in after.items() if k not in before})
        changed.update({k: None for k in before if k not in after})
        return changed
    return after


class AgentDojoEnvironment:
    """One row's AgentDojo environment and the suite's tools acting on it."""

    unknown_tool = "Invalid tool {name} provided."
    """What AgentDojo's ``ToolsExecutor`` answers a call to a tool the suite lacks."""

    def __init__(self, spec: Mapping[str, Any], where: str = "environment") -> None:
        self.task = task_environment(spec, where)
        self._start = self.task.env.model_dump(mode="json")
        self.after_tools: list[dict[str, str]] = []
        """With ``repeat_user_prompt``: the task's prompt again after every round of tool
        results, as that defense's pipeline (an ``InitQuery`` in its tool loop) adds it."""
        if self.task.defense == "repeat_user_prompt":
            self.after_tools = [{"role": "user", "content": self.task.prompt}]
        self.tool_filter: str | None = None
        """With ``tool_filter``: AgentDojo's ``TOOL_FILTER_PROMPT``, asked first (see the
        module)."""
        if self.task.defense == "tool_filter":
            self.tool_filter = agentdojo_module("agent_pipeline.agent_pipeline").TOOL_FILTER_PROMPT
        self._verdicts = _verdicts(spec, where)
        """The detector's verdicts from a log, each used once (see the module)."""

    def _detected(self, name: str, arguments: dict[str, Any]) -> bool:
        key = json.dumps(arguments, sort_keys=True)
        for index, (function, args, detected) in enumerate(self._verdicts):
            if (function, args) == (name, key):
                del self._verdicts[index]
                return detected
        return False

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        text, error = self.task.run(name, arguments)
        detected = self._detected(name, arguments)
        if error is not None:  # AgentDojo's model reads the error alone
            raise ToolFailure(error, verbatim=True)
        return detected_text() if detected else text

    def tools(self) -> list[BaseTool]:
        """The suite's functions, with AgentDojo's descriptions and input schemas."""
        tools: list[BaseTool] = []
        for function in self.task.runtime.functions.values():

            def run(_name: str = function.name, **arguments: Any) -> str:
                return self._call(_name, arguments)

            tools.append(
                StructuredTool(
                    name=function.name,
                    description=function.description,
                    args_schema=function.parameters.model_json_schema(),
                    func=run,
                )
            )
        return tools

    def snapshot(self) -> dict[str, Any]:
        """What the calls changed in the environment (JSON): per attribute, recursively
        through objects (a removed key as None); the rest whole. ``{}`` before any change."""
        changes = _changes(self._start, self.task.env.model_dump(mode="json"))
        return changes if isinstance(changes, dict) else {}


def agentdojo_environment(row: Mapping[str, Any]) -> AgentDojoEnvironment:
    """The environment factory of the AgentDojo configs: the row's task (see the module)."""
    return AgentDojoEnvironment(row.get("environment") or {}, f"row {row.get('id')!r}: environment")

"""AgentDojo's suites as agentloop rows (``dataset: agentdojo:<suite>``).

A source names a suite and, after ``?``, options: ``version`` (a benchmark version the
package ships; default AgentDojo's command line's, ``v1.2.2``), ``attack`` (an attack AgentDojo
registers, or ``none``; default ``important_instructions``) and ``model`` (the model the attack
addresses, as AgentDojo names models; default its command line's ``gpt-4o-2024-05-13``). The
``manual`` attack, which asks for each injection on the terminal, is refused: rows written by
hand carry their injections instead. ``defense`` (default ``none``) is one of AgentDojo's
defenses that run offline: ``spotlighting_with_delimiting`` (AgentDojo's sentence added to the
system message, every tool result between ``<<`` and ``>>``) and ``repeat_user_prompt`` (the
task's prompt repeated after every round of tool results) and ``tool_filter`` (the model asked
first which tools to keep); the detector is refused in one line saying why::

    dataset: agentdojo:workspace
    dataset: agentdojo:banking?version=v1.1.2&attack=tool_knowledge&model=gpt-4o-mini-2024-07-18

The ``model`` option is what AgentDojo's ``get_model_name_from_pipeline`` reads from the
pipeline's name: the attacks that address the model (``important_instructions`` and its
variants, ``tool_knowledge``) write its name in prose (``GPT-4``, ``Claude``, ...) into the
injection; a model AgentDojo does not know is an error there, as in AgentDojo.

Rows, as AgentDojo's benchmark runs them: every user task without attack; with an attack,
every injection task run as a user task (its goal as the prompt, no attack), then every
(user task, injection task) pair with the attack's injections (a denial-of-service attack pairs
each user task with the first injection task only, and runs no injection task alone, as
AgentDojo does). Ids: ``user_task_3``, ``injection_task_1``, ``user_task_3+injection_task_1``.

A row is plain data that records everything needed to rebuild it:

- ``messages``: AgentDojo's default system message (as its defense changes it), then the
  task's prompt;
- ``environment``: ``{"suite", "version", "user_task", "injection_task", "injections"}``
  (``user_task`` may name an injection task run as a user task; ``injection_task`` is null
  without attack; ``injections``: vector -> text, the attack's), what
  :func:`agentdojo_environment` and the rewards rebuild the run from; with a defense, also
  ``defense``;
- ``metadata``: ``suite``, ``version``, ``user_task``, ``injection_task``, ``attack`` (``none``
  without one), ``defense`` (with one) and ``kind``: ``user_task``, ``injection_task`` (run as
  a user task) or ``attacked``, which the summary breaks the rewards down by (AgentDojo's
  utility, its injection tasks' utility, utility under attack and targeted attack success
  rate; ``agentloop agentdojo summary`` makes AgentDojo's table of them).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from agentloop.benchmarks.agentdojo._package import (
    DEFAULT_ATTACK,
    DEFAULT_VERSION,
    SUITES,
    agentdojo_module,
    attack_names,
    load_suite,
)
from agentloop.errors import DatasetError

__all__ = [
    "AGENTDOJO_PREFIX",
    "DEFAULT_ATTACK_MODEL",
    "AgentDojoSource",
    "agentdojo_lines",
    "agentdojo_rows",
    "agentdojo_source",
    "agentdojo_suite",
    "check_agentdojo_source",
    "defended",
    "load_attack",
    "system_message",
]

AGENTDOJO_PREFIX = "agentdojo:"
DEFAULT_ATTACK_MODEL = "gpt-4o-2024-05-13"
"""The model AgentDojo's command line runs by default (``--model``)."""
_OPTIONS = ("version", "attack", "model", "defense")
_UNSUPPORTED = {
    "transformers_pi_detector": (
        "it needs torch and transformers and downloads the model "
        "protectai/deberta-v3-base-prompt-injection-v2 from Hugging Face"
    ),
}


@dataclass(frozen=True)
class AgentDojoSource:
    """What an ``agentdojo:`` dataset source names."""

    suite: str
    version: str = DEFAULT_VERSION
    attack: str = DEFAULT_ATTACK
    """An attack's name, or ``none``."""
    model: str = DEFAULT_ATTACK_MODEL
    defense: str = "none"
    """One of AgentDojo's defenses that agentloop runs, or ``none``."""


def agentdojo_suite(dataset: str) -> str | None:
    """What follows ``agentdojo:`` in a dataset source (the suite and its options); None for
    a file path."""
    return dataset[len(AGENTDOJO_PREFIX) :] if dataset.startswith(AGENTDOJO_PREFIX) else None


def agentdojo_source(spec: str) -> AgentDojoSource:
    """The suite and options of ``<suite>?key=value&...`` (the module doc); ``DatasetError``
    for an unknown suite or option, before AgentDojo is imported."""
    suite, _, query = spec.partition("?")
    if suite not in SUITES:
        raise DatasetError(f"unknown AgentDojo suite {suite!r}; known: {', '.join(SUITES)}")
    options: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)):
        if key not in _OPTIONS:
            known = ", ".join(_OPTIONS)
            raise DatasetError(f"agentdojo:{spec}: unknown option {key!r}; known: {known}")
        options[key] = value
    return AgentDojoSource(suite, **options)


def check_agentdojo_source(spec: str) -> AgentDojoSource:
    """:func:`agentdojo_source`, and the package, version and attack checked (one line each)."""
    source = agentdojo_source(spec)
    load_suite(source.version, source.suite)
    if source.attack == "manual":  # it reads each injection from the terminal (input())
        raise DatasetError(
            "AgentDojo's manual attack asks for each injection on the terminal; write the "
            "rows' environment.injections instead"
        )
    if source.attack != "none" and source.attack not in attack_names():
        known = ", ".join(["none", *(a for a in attack_names() if a != "manual")])
        raise DatasetError(f"unknown AgentDojo attack {source.attack!r}; known: {known}")
    if source.defense in _UNSUPPORTED:
        why = _UNSUPPORTED[source.defense]
        raise DatasetError(f"AgentDojo defense {source.defense!r} is not run by agentloop: {why}")
    defenses = agentdojo_module("agent_pipeline.agent_pipeline").DEFENSES
    if source.defense != "none" and source.defense not in defenses:
        known = ", ".join(["none", *defenses])
        raise DatasetError(f"unknown AgentDojo defense {source.defense!r}; known: {known}")
    return source


def system_message() -> str:
    """AgentDojo's default system message (``data/system_messages.yaml``)."""
    return str(agentdojo_module("agent_pipeline.agent_pipeline").load_system_message(None))


@functools.cache
def defended(defense: str | None) -> tuple[str, Callable[[Any], str]]:
    """The system message and the tool-result formatter of AgentDojo's own pipeline for a
    model with ``defense`` (None: without), read from ``AgentPipeline.from_config`` (its
    model element a stand-in that is never run)."""
    module = agentdojo_module("agent_pipeline.agent_pipeline")
    base = agentdojo_module("agent_pipeline.base_pipeline_element").BasePipelineElement

    class Model(base):  # type: ignore[misc, valid-type]
        name = "gpt-4o-2024-05-13"  # a name tool_filter's check accepts; never sent

        def query(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the pipeline's model is not run")

    if defense == "tool_filter":  # an OpenAI client's own element; the rest is undefended
        defense = None
    config = module.PipelineConfig(
        llm=Model(), model_id=None, defense=defense, system_message_name=None, system_message=None
    )
    elements = list(module.AgentPipeline.from_config(config).elements)
    system = next(e for e in elements if isinstance(e, module.SystemMessage)).system_message
    loop = next(e for e in elements if isinstance(e, module.ToolsExecutionLoop))
    executor = next(e for e in loop.elements if isinstance(e, module.ToolsExecutor))
    return str(system), executor.output_formatter


def load_attack(name: str, suite: Any, model: str) -> Any:
    """AgentDojo's attack ``name`` on ``suite``, aimed at a pipeline named ``model`` (the
    name its attacks read the model's name from; the pipeline is never run)."""
    base = agentdojo_module("agent_pipeline.base_pipeline_element").BasePipelineElement
    registry = agentdojo_module("attacks.attack_registry")

    class Target(base):  # type: ignore[misc, valid-type]
        def query(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the attack's target pipeline is not run")

    target = Target()
    target.name = model
    try:
        return registry.load_attack(name, suite, target)
    except ValueError as exc:  # a model AgentDojo does not know, in one line
        raise DatasetError(f"AgentDojo attack {name!r}: {' '.join(str(exc).split())}") from None


def _row(
    source: AgentDojoSource,
    task: Any,
    injection_task: Any,
    injections: dict[str, str],
    system: str,
    kind: str,
) -> dict[str, Any]:
    prompt = task.GOAL if kind == "injection_task" else task.PROMPT
    row_id = task.ID if injection_task is None else f"{task.ID}+{injection_task.ID}"
    attack = source.attack if injection_task is not None else "none"
    injected = None if injection_task is None else injection_task.ID
    environment = {
        "suite": source.suite,
        "version": source.version,
        "user_task": task.ID,
        "injection_task": injected,
        "injections": injections,
    }
    metadata = {
        "suite": source.suite,
        "version": source.version,
        "user_task": task.ID,
        "injection_task": injected,
        "attack": attack,
        "kind": kind,
    }
    if source.defense != "none":
        environment["defense"] = metadata["defense"] = source.defense
    return {
        "id": row_id,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": prompt},
        ],
        "environment": environment,
        "metadata": metadata,
    }


def agentdojo_rows(spec: str | AgentDojoSource) -> Iterator[dict[str, Any]]:
    """The rows of a source (the module doc), in AgentDojo's task order."""
    source = check_agentdojo_source(spec) if isinstance(spec, str) else spec
    suite = load_suite(source.version, source.suite)
    system = defended(None if source.defense == "none" else source.defense)[0]
    for task in suite.user_tasks.values():
        yield _row(source, task, None, {}, system, "user_task")
    if source.attack == "none":
        return
    attack = load_attack(source.attack, suite, source.model)
    injection_tasks = list(suite.injection_tasks.values())
    if attack.is_dos_attack:
        injection_tasks = injection_tasks[:1]
    else:
        for task in injection_tasks:
            yield _row(source, task, None, {}, system, "injection_task")
    for task in suite.user_tasks.values():
        for injection_task in injection_tasks:
            injections = attack.attack(task, injection_task)
            yield _row(source, task, injection_task, dict(injections), system, "attacked")


def agentdojo_lines(spec: str) -> Iterator[str]:
    """The rows of a source as dataset lines (JSON and a newline)."""
    yield from _lines(check_agentdojo_source(spec))


@functools.lru_cache(maxsize=8)
def _lines(source: AgentDojoSource) -> tuple[str, ...]:
    # Made once per source and process: a run reads its dataset two or three times, and an
    # attack finds each user task's injection vectors by running its ground truth on a
    # freshly loaded environment (a workspace suite's rows take seconds).
    return tuple(json.dumps(row, ensure_ascii=False) + "\n" for row in agentdojo_rows(source))

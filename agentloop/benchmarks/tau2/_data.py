"""τ²-bench's domains as agentloop rows (``dataset: tau2:<domain>``, or
``tau2:<domain>@<task set>``), read from τ²-bench's official files.

**Task sets.** ``1.0.1``, the default: τ²-bench 1.0.1's files (the tasks, their splits, the
policies, the databases), shipped inside agentloop (``agentloop/benchmarks/tau2/data/``, with
τ²-bench's MIT licence and a ``SOURCE`` file naming the commit and each file's git blob id): no
network and no other package. ``0.2``: the files from before τ²-bench 1.0, as the
``inspect-evals`` 0.26.0 wheel ships them (what agentloop read until it shipped 1.0.1; for
re-scoring and reproducing older runs), installed without its dependencies: by a user
(``pip install --no-deps``), or by ``make`` into its own folder ``<prefix>/inspect-evals``
(``--target``), outside site-packages. ``AGENTLOOP_TAU2_DATA`` points the unsuffixed
``tau2:<domain>`` at another directory of the same layout instead: task set ``custom``. The
task set is in every row's ``metadata`` and ``environment`` (the environment's databases are
the set's).

A task becomes one row:

- ``messages``: the agent's system prompt as τ²-bench's LLM agent builds it (its instructions,
  then the domain policy), then the opening: τ²-bench's greeting ``Hi! How can I help you
  today?`` from the agent, or the task's ``message_history`` when it has one (the agent's view:
  the user's own tool calls left out);
- ``user_scenario``: the task's user scenario as τ²-bench renders it for its user simulator;
- ``environment``: ``{"domain", "initial_state", "task_set"}``, what :func:`tau2_environment`
  builds from;
- ``ground_truth``: ``{"evaluation_criteria": ...}``, what :func:`tau2_verdict` scores with;
- ``metadata``: ``domain``, ``task_id``, ``reward_basis`` (τ²-bench's default ``DB,
  COMMUNICATE`` when the task names none), ``task_set``.

A domain's rows are its tasks of τ²-bench's default split, ``base``, when the domain has a
``split_tasks.json`` (telecom: 114 of its 2,285 tasks; every task elsewhere), in the task file's
order. The policy is the domain's policy file; telecom's is τ²-bench's composition of its main
policy and its tech-support manual (``<main_policy>...</main_policy>\n<tech_support_policy>
...</tech_support_policy>``). A text file's final newline, which the wheel's copies add to
τ²-bench's own files, is left out. Any file may be gzip-compressed (``<name>.gz``).

banking_knowledge (τ²-bench 1.0; task set 1.0.1 only) has no single policy: a row's is its
retrieval config's (``tau2:banking_knowledge?retrieval_config=<name>``, τ²-bench's
``--retrieval-config``; ``agentloop.benchmarks.tau2._retrieval``), and ``golden_retrieval``'s
holds the task's own documents. Its tasks, documents and prompt files are one bundle
(:data:`FILE_BUNDLE`), or the repository's folders in a custom directory. Its rows'
``environment`` also has ``options`` (the retrieval config and the task's read allowlist) and,
as any task that names them, the user's tools (``user_tools``), which the environment offers.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentloop._packages import data_package
from agentloop.errors import DatasetError

__all__ = [
    "AGENT_GREETING",
    "CUSTOM_TASK_SET",
    "DEFAULT_REWARD_BASIS",
    "DOMAIN_NAMES",
    "LEGACY_TASK_SET",
    "TASK_SET",
    "TASK_SETS",
    "TAU2_DATA_ENV",
    "TAU2_INSTALL",
    "TAU2_PREFIX",
    "TAU2_TARGET",
    "agent_system_prompt",
    "check_tau2_domain",
    "check_tau2_options",
    "check_tau2_task_set",
    "domain_db",
    "domain_files",
    "domain_policy",
    "domain_tasks",
    "knowledge_base",
    "scenario_text",
    "tau2_data_dir",
    "tau2_domain",
    "tau2_lines",
    "tau2_retrieval_config",
    "tau2_row",
    "tau2_rows",
    "tau2_task_set",
]

TAU2_PREFIX = "tau2:"
TAU2_DATA_ENV = "AGENTLOOP_TAU2_DATA"
TAU2_INSTALL = "pip install --no-deps 'inspect-evals==0.26.0'"
TAU2_TARGET = "inspect-evals"
"""The folder, under the environment's prefix, where ``make`` installs inspect-evals."""
TASK_SET = "1.0.1"
"""The task set ``tau2:<domain>`` reads: τ²-bench 1.0.1's files, shipped with agentloop."""
LEGACY_TASK_SET = "0.2"
CUSTOM_TASK_SET = "custom"
TASK_SETS = {
    TASK_SET: "τ²-bench 1.0.1's files, shipped with agentloop",
    LEGACY_TASK_SET: "before τ²-bench 1.0, from the inspect-evals 0.26.0 wheel",
    CUSTOM_TASK_SET: f"the directory ${TAU2_DATA_ENV} names",
}
"""Task set -> where its files come from (``tau2:<domain>@<task set>``)."""
SHIPPED_DATA = Path(__file__).resolve().with_name("data")
DEFAULT_REWARD_BASIS = ["DB", "COMMUNICATE"]
KNOWLEDGE_DOMAIN = "banking_knowledge"
DATASET_OPTIONS = {
    "retrieval_config": "the banking_knowledge domain's retrieval configuration (τ²-bench's "
    "--retrieval-config): agentloop.benchmarks.tau2._retrieval"
}
"""The options a ``tau2:<domain>?<name>=<value>`` dataset source takes."""
FILE_BUNDLE = "files.jsonl.gz"
"""A domain's many small files as one: a JSON line per file (``path``, git ``blob`` id,
``text``); banking_knowledge's tasks, documents and prompts."""
AGENT_GREETING = "Hi! How can I help you today?"
_AGENT_INSTRUCTION = (
    "You are a customer service agent that helps the user according to the <policy> provided "
    "below.\nIn each turn you can either:\n- Send a message to the user.\n- Make a tool call.\n"
    "You cannot do both at the same time.\n\nTry to be helpful and always follow the policy. "
    "Always make sure you generate valid JSON only."
)


def _spec(dataset: str) -> tuple[str, str | None] | None:
    if not dataset.startswith(TAU2_PREFIX):
        return None
    source = dataset[len(TAU2_PREFIX) :].partition("?")[0]
    domain, at, task_set = source.partition("@")
    return domain, (task_set if at else None)


def _options(dataset: str) -> dict[str, str]:
    """The ``?name=value&...`` options of a ``tau2:`` source; unknown names are one-line
    errors."""
    query = dataset.partition("?")[2]
    options: dict[str, str] = {}
    for part in filter(None, query.split("&")):
        name, eq, value = part.partition("=")
        if name not in DATASET_OPTIONS or not eq or not value:
            known = ", ".join(f"{k}=..." for k in DATASET_OPTIONS)
            raise DatasetError(f"{dataset}: unknown option {part!r}; known: {known}")
        options[name] = value
    return options


def tau2_retrieval_config(dataset: str) -> str | None:
    """The ``retrieval_config`` a ``tau2:banking_knowledge?retrieval_config=<name>`` source
    names (τ²-bench's ``--retrieval-config``), else None."""
    return _options(dataset).get("retrieval_config") if _spec(dataset) else None


def tau2_domain(dataset: str) -> str | None:
    """The domain of a ``tau2:<domain>[@<task set>]`` dataset source; None for a file path."""
    spec = _spec(dataset)
    return None if spec is None else spec[0]


def tau2_task_set(dataset: str) -> str | None:
    """The task set a ``tau2:`` dataset source reads: the one named after ``@``, else
    ``custom`` when ``$AGENTLOOP_TAU2_DATA`` is set, else :data:`TASK_SET`; None for a file
    path. An unknown name is a one-line ``DatasetError``."""
    spec = _spec(dataset)
    if spec is None:
        return None
    if spec[1] is not None:
        check_tau2_task_set(spec[1])
        return spec[1]
    return CUSTOM_TASK_SET if os.environ.get(TAU2_DATA_ENV) else TASK_SET


DOMAIN_NAMES = ("mock", "airline", "retail", "telecom", "banking_knowledge")
"""The domains agentloop runs (``agentloop.benchmarks.tau2._env.DOMAINS`` builds each)."""


def check_tau2_domain(domain: str) -> None:
    """``DatasetError`` (one line, listing the known ones) for an unknown domain."""
    if domain not in DOMAIN_NAMES:
        known = ", ".join(DOMAIN_NAMES)
        raise DatasetError(f"unknown τ²-bench domain {domain!r}; known: {known}")


def check_tau2_task_set(task_set: str) -> None:
    """``DatasetError`` (one line, listing the known ones) for an unknown task set."""
    if task_set not in TASK_SETS:
        known = "; ".join(f"{name} ({what})" for name, what in TASK_SETS.items())
        raise DatasetError(f"unknown τ²-bench task set {task_set!r}; known: {known}")


def tau2_data_dir(data_dir: str | Path | None = None, task_set: str | None = None) -> Path:
    """Where a task set's domain folders are: ``data_dir`` when given; else by task set:
    ``1.0.1`` the folder shipped with agentloop, ``0.2`` the installed ``inspect_evals``
    package's (found without importing it), ``custom`` ``$AGENTLOOP_TAU2_DATA``; None is
    ``$AGENTLOOP_TAU2_DATA`` when set, else the shipped folder."""
    explicit: str | Path | None = data_dir
    if not explicit and task_set in (None, CUSTOM_TASK_SET):
        explicit = os.environ.get(TAU2_DATA_ENV)
        if task_set == CUSTOM_TASK_SET and not explicit:
            raise DatasetError(f"τ²-bench task set {CUSTOM_TASK_SET}: ${TAU2_DATA_ENV} is not set")
    if explicit:
        path = Path(explicit)
        if not path.is_dir():
            raise DatasetError(f"τ²-bench data directory not found: {path}")
        return path
    if task_set is not None:
        check_tau2_task_set(task_set)
    if task_set != LEGACY_TASK_SET:
        return SHIPPED_DATA
    package = data_package("inspect_evals", TAU2_TARGET)
    if package is None:
        raise DatasetError(
            f"τ²-bench task set {LEGACY_TASK_SET} (before 1.0): the inspect-evals package is "
            f"not installed; {TAU2_INSTALL}"
        )
    return package / "tau2" / "data" / "domains"


def _find(folder: Path, names: tuple[str, ...]) -> Path:
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise DatasetError(f"τ²-bench data: none of {', '.join(names)} in {folder}")


def _load(path: Path) -> Any:
    if path.suffix == ".toml":  # telecom's databases
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # the tomli backport, a dependency on Python 3.10
            import tomli as tomllib

        try:
            return tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise DatasetError(f"{path}: not TOML: {exc}") from None
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        try:
            return json.load(handle)
        except ValueError as exc:
            raise DatasetError(f"{path}: not JSON: {exc}") from None


@functools.cache
def _domain_data(
    domain: str, where: str
) -> tuple[Any, Any, str, list[dict[str, Any]], set[str] | None]:
    folder = Path(where) / domain
    if not folder.is_dir():
        raise DatasetError(f"τ²-bench data: no folder for the {domain} domain in {where}")
    db = _load(_find(folder, ("db.json", "db.json.gz", "db.toml")))
    if domain == KNOWLEDGE_DOMAIN:  # tasks one file each; the policy per retrieval config
        files = _files(str(folder))
        tasks = [
            json.loads(files[p]) for p in sorted(files) if re.fullmatch(r"tasks/task_\w+\.json", p)
        ]
        return db, None, "", tasks, None
    user = None
    if any((folder / n).is_file() for n in ("user_db.toml", "user_db.json")):
        user = _load(_find(folder, ("user_db.toml", "user_db.json")))
    policy = _find(folder, ("policy.md", "policy.txt", "main_policy.md", "main_policy.txt"))
    text = _text(policy)
    if policy.stem == "main_policy":  # telecom: the main policy and the tech-support manual
        manual = _text(_find(folder, ("tech_support_manual.md", "tech_support_manual.txt")))
        text = (
            f"<main_policy>\n{text}\n</main_policy>\n"
            f"<tech_support_policy>\n{manual}\n</tech_support_policy>"
        )
    tasks = _load(_find(folder, ("tasks.json", "tasks.json.gz")))
    if not isinstance(tasks, list):
        raise DatasetError(f"τ²-bench data: the {domain} tasks are not a list")
    base = None
    if any((folder / n).is_file() for n in ("split_tasks.json", "split_tasks.json.gz")):
        splits = _load(_find(folder, ("split_tasks.json", "split_tasks.json.gz")))
        if isinstance(splits, dict) and "base" in splits:
            base = set(splits["base"])
    return db, user, text, tasks, base


@functools.cache
def _files(folder: str) -> dict[str, str]:
    """A domain's small files by path: its bundle (:data:`FILE_BUNDLE`), else its folders."""
    root = Path(folder)
    if (root / FILE_BUNDLE).is_file():
        with gzip.open(root / FILE_BUNDLE, "rt", encoding="utf-8") as handle:
            entries = [json.loads(line) for line in handle if line.strip()]
        return {entry["path"]: entry["text"] for entry in entries}
    return {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for sub in ("tasks", "documents", "prompts")
        for path in sorted((root / sub).rglob("*"))
        if path.is_file()
    }


def domain_files(
    domain: str, data_dir: str | Path | None = None, *, task_set: str | None = None
) -> dict[str, str]:
    """A domain's tasks, documents and prompt files by path (banking_knowledge)."""
    return _files(str(tau2_data_dir(data_dir, task_set) / domain))


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8").removesuffix("\n")


def domain_db(
    domain: str, data_dir: str | Path | None = None, *, task_set: str | None = None
) -> tuple[Any, Any]:
    """The domain's databases as shipped: (the agent's, the user's or None)."""
    db, user, _, _, _ = _domain_data(domain, str(tau2_data_dir(data_dir, task_set)))
    return db, user


def domain_policy(
    domain: str, data_dir: str | Path | None = None, *, task_set: str | None = None
) -> str:
    """The domain policy the agent follows."""
    return _domain_data(domain, str(tau2_data_dir(data_dir, task_set)))[2]


def domain_tasks(
    domain: str,
    data_dir: str | Path | None = None,
    *,
    every: bool = False,
    task_set: str | None = None,
) -> list[dict[str, Any]]:
    """The domain's tasks of its ``base`` split (``every``: all of them), as shipped (not
    copied: do not change them)."""
    _, _, _, tasks, base = _domain_data(domain, str(tau2_data_dir(data_dir, task_set)))
    if every or base is None:
        return tasks
    return [task for task in tasks if task.get("id") in base]


def agent_system_prompt(policy: str) -> str:
    """τ²-bench's LLM agent's system prompt."""
    return f"<instructions>\n{_AGENT_INSTRUCTION}\n</instructions>\n<policy>\n{policy}\n</policy>"


def scenario_text(scenario: Any) -> str:
    """A user scenario as τ²-bench renders it for its user simulator."""
    if not isinstance(scenario, dict):
        return str(scenario)
    lines = []
    if scenario.get("persona") is not None:
        lines += ["Persona:", textwrap.indent(scenario["persona"], "\t")]
    instructions = scenario.get("instructions")
    if isinstance(instructions, dict):
        parts = [
            f"Domain: {instructions['domain']}",
            f"Reason for call:\n{textwrap.indent(instructions['reason_for_call'], chr(9))}",
        ]
        for key, title in (("known_info", "Known info"), ("unknown_info", "Unknown info")):
            if instructions.get(key) is not None:
                parts.append(f"{title}:\n{textwrap.indent(instructions[key], chr(9))}")
        parts.append(
            f"Task instructions:\n{textwrap.indent(instructions['task_instructions'], chr(9))}"
        )
        instructions = "\n".join(parts)
    lines += ["Instructions:", textwrap.indent(str(instructions), "\t")]
    return "\n".join(lines)


def _opening(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A task's message history as the agent saw it (OpenAI messages)."""
    if not history:
        return [{"role": "assistant", "content": AGENT_GREETING}]
    out: list[dict[str, Any]] = []
    user_calls: set[str] = set()
    for message in history:
        role = message.get("role")
        if role == "tool":
            if message.get("id") not in user_calls:
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": message.get("id"),
                        "content": message.get("content") or "",
                    }
                )
        elif role == "assistant" and message.get("tool_calls"):
            calls = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {
                        "name": c["name"],
                        "arguments": json.dumps(c.get("arguments") or {}),
                    },
                }
                for c in message["tool_calls"]
            ]
            out.append(
                {"role": "assistant", "content": message.get("content") or "", "tool_calls": calls}
            )
        elif role == "user" and message.get("tool_calls"):
            user_calls.update(c["id"] for c in message["tool_calls"])
        elif role in ("user", "assistant"):
            out.append({"role": role, "content": message.get("content") or ""})
    return out


def tau2_row(
    domain: str,
    task: dict[str, Any],
    policy: str,
    task_set: str = TASK_SET,
    *,
    retrieval_config: str | None = None,
) -> dict[str, Any]:
    """One τ²-bench task as a dataset row (see the module doc); banking_knowledge: under a
    retrieval configuration (its policy, and the environment's options)."""
    criteria = task.get("evaluation_criteria")
    initial = task.get("initial_state") or {}
    basis = (criteria or {}).get("reward_basis") or DEFAULT_REWARD_BASIS
    environment: dict[str, Any] = {
        "domain": domain,
        "initial_state": initial or None,
        "task_set": task_set,
    }
    if task.get("user_tools") is not None:  # the user's tools τ²-bench offers (1.0)
        environment["user_tools"] = list(task["user_tools"])
    if domain == KNOWLEDGE_DOMAIN:
        from agentloop.benchmarks.tau2._banking import read_log_allowlist
        from agentloop.benchmarks.tau2._retrieval import knowledge_policy

        policy = knowledge_policy(
            knowledge_base(task_set), retrieval_config, task.get("required_documents")
        )
        environment["options"] = {
            "retrieval_config": retrieval_config,
            "read_log_allowlist": read_log_allowlist((criteria or {}).get("actions")),
        }
    metadata: dict[str, Any] = {}
    if domain == KNOWLEDGE_DOMAIN:
        metadata["retrieval_config"] = retrieval_config
    return {
        "id": str(task["id"]),
        "messages": [
            {"role": "system", "content": agent_system_prompt(policy)},
            *_opening(initial.get("message_history") or []),
        ],
        "user_scenario": scenario_text(task.get("user_scenario")),
        "environment": environment,
        "ground_truth": {"evaluation_criteria": criteria},
        "metadata": {
            "domain": domain,
            "task_id": str(task["id"]),
            "reward_basis": list(basis),
            "task_set": task_set,
            **metadata,
        },
    }


def tau2_rows(
    domain: str,
    data_dir: str | Path | None = None,
    *,
    task_set: str | None = None,
    retrieval_config: str | None = None,
) -> Iterator[dict[str, Any]]:
    """The rows of a domain, in τ²-bench's task order. ``task_set`` None: ``data_dir`` or
    ``$AGENTLOOP_TAU2_DATA`` (task set ``custom``) when given, else the shipped files.
    ``retrieval_config``: banking_knowledge's (required there, refused elsewhere)."""
    check_tau2_domain(domain)
    check_tau2_options(domain, retrieval_config)
    if task_set is None:
        task_set = CUSTOM_TASK_SET if data_dir or os.environ.get(TAU2_DATA_ENV) else TASK_SET
    policy = domain_policy(domain, data_dir, task_set=task_set)
    for task in domain_tasks(domain, data_dir, task_set=task_set):
        yield tau2_row(domain, task, policy, task_set, retrieval_config=retrieval_config)


def tau2_lines(
    domain: str,
    data_dir: str | Path | None = None,
    *,
    task_set: str | None = None,
    retrieval_config: str | None = None,
) -> Iterator[str]:
    """The rows of a domain as dataset lines (JSON and a newline)."""
    rows = tau2_rows(domain, data_dir, task_set=task_set, retrieval_config=retrieval_config)
    for row in rows:
        yield json.dumps(row, ensure_ascii=False) + "\n"


def check_tau2_options(domain: str, retrieval_config: str | None) -> None:
    """One-line ``DatasetError`` for a retrieval config outside banking_knowledge, or an
    unknown, unsupported or missing one there."""
    if domain != KNOWLEDGE_DOMAIN:
        if retrieval_config is not None:
            raise DatasetError(
                f"tau2:{domain}: retrieval_config is an option of tau2:{KNOWLEDGE_DOMAIN} only"
            )
        return
    from agentloop.benchmarks.tau2._retrieval import check_retrieval_config

    check_retrieval_config(retrieval_config)


def knowledge_base(task_set: str | None = None, data_dir: str | Path | None = None) -> Any:
    """banking_knowledge's documents and prompt files (``_retrieval.KnowledgeBase``),
    read once per folder."""
    return _knowledge_base(str(tau2_data_dir(data_dir, task_set) / KNOWLEDGE_DOMAIN))


@functools.cache
def _knowledge_base(folder: str) -> Any:
    from agentloop.benchmarks.tau2._retrieval import KnowledgeBase

    return KnowledgeBase(_files(folder))

"""τ²-bench's own evaluator on the agreement cases: runs in the separate environment that
holds the official ``tau2`` package (``.venv-tau2ref``), never in agentloop's.

Reads a JSON file of cases (``bench/tau2_agreement.py`` writes it), writes one JSON line per
case: the texts τ²-bench's environment answers the case's calls with (a fresh environment,
the task's initial state, the calls in order), and the official evaluator's DB check, env
assertions, action checks and communicate checks on the case as a τ²-bench message list
(the task's message history, then per call an assistant or user message with that call and
its tool message, then the agent's final text). An evaluator that raises (an env assertion
whose function raises) is reported as such (``env_error``). The replay is strict (a
state-changing call whose replayed text differs from the recorded one raises); the case
then says so, and the checks are those of a lenient replay. The domain's databases are the
ones agentloop reads (given by path), so both sides start from the same data; the policy
files τ²-bench's constructors open are copied into a temporary data directory. The user's
tools' schemas are reported too (telecom's phone).

banking_knowledge: its environment gets the task's read allowlist as τ²-bench's runner derives
it, its documents and prompt files are written out of agentloop's bundle, and its tool schemas
are reported with each search tool too. The cases file may also ask for retrieval
(``{"cases": [...], "retrieval": {...}}``): the documents and scores τ²-bench's own BM25 and
grep pipelines find for given queries, and the policy its prompt builder makes for given
(config, task) pairs, on the documents in file-name order. τ²-bench's BM25 needs ``rank-bm25``
in this environment.

Run: ``.venv-tau2ref/bin/python bench/tau2_reference.py CASES.json DATA_DIR > OUT.jsonl``
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any


def _load(path: Path) -> Any:
    if path.suffix == ".toml":
        import tomllib

        return tomllib.loads(path.read_text(encoding="utf-8"))
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def _bundle(folder: Path) -> dict[str, str]:
    """A domain's small files (banking_knowledge's tasks, documents, prompts) by path."""
    with gzip.open(folder / "files.jsonl.gz", "rt", encoding="utf-8") as handle:
        return {e["path"]: e["text"] for e in map(json.loads, handle) if e}


def _data_dir(source: Path, domains: list[str]) -> Path:
    """A τ²-bench data directory holding the policy files its constructors read."""
    root = Path(tempfile.mkdtemp(prefix="tau2-ref-"))
    for domain in domains:
        target = root / "tau2" / "domains" / domain
        target.mkdir(parents=True)
        if (source / domain / "files.jsonl.gz").is_file():  # banking_knowledge
            for path, text in _bundle(source / domain).items():
                (target / path).parent.mkdir(parents=True, exist_ok=True)
                (target / path).write_text(text, encoding="utf-8")
        for name in ("policy.md", "policy.txt"):
            if (source / domain / name).is_file():
                shutil.copy(source / domain / name, target / "policy.md")
                shutil.copy(source / domain / name, target / "policy_solo.md")
        for name in (  # telecom's policy parts
            "main_policy",
            "main_policy_solo",
            "tech_support_manual",
            "tech_support_workflow",
            "tech_support_workflow_solo",
        ):
            for suffix in (".md", ".txt"):  # agentloop's shipped files, the wheel's copies
                if (source / domain / f"{name}{suffix}").is_file():
                    shutil.copy(source / domain / f"{name}{suffix}", target / f"{name}.md")
                    break
    return root


def _retrieval(asked: dict[str, Any], folder: Path, make: Any) -> dict[str, Any]:
    """banking_knowledge's retrieval by τ²-bench's own pipelines, tools and prompt builder: the
    documents (id, score) each query finds, the text its KB_search or grep tool answers with,
    and each (config, task)'s policy. The documents in file-name order (τ²-bench's loader takes
    the file system's, which varies)."""
    from tau2.data_model.message import ToolCall
    from tau2.data_model.tasks import Task
    from tau2.domains.banking_knowledge.data_model import KnowledgeBase
    from tau2.domains.banking_knowledge.retrieval import (
        build_policy,
        create_bm25_retrieval_pipeline,
        create_grep_retrieval_pipeline,
        resolve_variant,
    )
    from tau2.knowledge.embeddings_cache import clear_cached_docs

    loaded = KnowledgeBase.load(str(folder / "documents"))
    ordered = sorted(loaded.documents.values(), key=lambda d: f"{d.id}.json")
    kb = KnowledgeBase(documents={d.id: d for d in ordered})
    clear_cached_docs()  # its document list is cached once per process
    bm25, grep = create_bm25_retrieval_pipeline(kb), create_grep_retrieval_pipeline(kb)
    env = make(retrieval_variant="bm25_grep")  # its pipelines index the cached (ordered) list

    def answer(name: str, argument: str, value: str) -> str:
        call = ToolCall(id="r", name=name, arguments={argument: value})
        return str(env.get_response(call).content)

    return {
        "bm25": [bm25.retrieve(q) for q in asked["bm25"]],
        "grep": [grep.retrieve(q) for q in asked["grep"]],
        "bm25_texts": [answer("KB_search", "query", q) for q in asked["bm25"]],
        "grep_texts": [answer("grep", "pattern", q) for q in asked["grep"]],
        "policies": {
            key: build_policy(resolve_variant(config), kb, Task.model_validate(task))
            for key, config, task in asked["policies"]
        },
    }


def main() -> int:
    cases = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    asked = None
    if isinstance(cases, dict):  # {"cases": [...], "retrieval": {...}}
        cases, asked = cases["cases"], cases.get("retrieval")
    source = Path(sys.argv[2])
    domains = sorted({c["domain"] for c in cases})
    os.environ["TAU2_DATA_DIR"] = str(_data_dir(source, domains))
    from loguru import logger

    logger.remove()  # τ²-bench logs every call at debug level

    from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
    from tau2.data_model.tasks import Task
    from tau2.evaluator.evaluator_action import ActionEvaluator
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator
    from tau2.evaluator.evaluator_env import EnvironmentEvaluator

    constructors: dict[str, Any] = {}
    for domain in domains:
        folder = source / domain
        raw = _load(
            next(folder / n for n in ("db.json", "db.json.gz", "db.toml") if (folder / n).is_file())
        )
        if domain == "telecom":
            from tau2.domains.telecom.data_model import TelecomDB
            from tau2.domains.telecom.environment import get_environment as telecom
            from tau2.domains.telecom.user_data_model import TelecomUserDB

            user_raw = _load(folder / "user_db.toml")
            constructors[domain] = lambda raw=raw, user_raw=user_raw, **kw: telecom(
                db=TelecomDB.model_validate(raw),
                user_db=TelecomUserDB.model_validate(user_raw),
                solo_mode=kw.get("solo_mode", False),
            )
        elif domain == "airline":
            from tau2.domains.airline.data_model import FlightDB
            from tau2.domains.airline.environment import get_environment as airline

            constructors[domain] = lambda raw=raw, **kw: airline(
                db=FlightDB.model_validate(raw), solo_mode=kw.get("solo_mode", False)
            )
        elif domain == "retail":
            from tau2.domains.retail.data_model import RetailDB
            from tau2.domains.retail.environment import get_environment as retail

            constructors[domain] = lambda raw=raw, **kw: retail(
                db=RetailDB.model_validate(raw), solo_mode=kw.get("solo_mode", False)
            )
        elif domain == "mock":
            from tau2.domains.mock.data_model import MockDB
            from tau2.domains.mock.environment import get_environment as mock
            from tau2.domains.mock.user_data_model import MockUserDB

            user_path = folder / "user_db.json"  # since τ²-bench 1.0
            user_raw = _load(user_path) if user_path.is_file() else {}
            constructors[domain] = lambda raw=raw, user_raw=user_raw, **kw: mock(
                db=MockDB.model_validate(raw),
                user_db=MockUserDB.model_validate(user_raw),
                solo_mode=kw.get("solo_mode", False),
            )
        elif domain == "banking_knowledge":
            from tau2.domains.banking_knowledge.data_model import TransactionalDB
            from tau2.domains.banking_knowledge.environment import get_environment as banking

            # the retrieval config does not change a verdict (its tools only read)
            constructors[domain] = lambda raw=raw, **kw: banking(
                db=TransactionalDB.model_validate(raw),
                retrieval_variant=kw.get("retrieval_variant", "no_knowledge"),
                read_log_allowlist=kw.get("read_log_allowlist"),
            )
        else:
            raise SystemExit(f"no reference constructor for the {domain} domain")

    schemas = {
        d: [t.openai_schema["function"] for t in constructors[d]().get_tools()] for d in domains
    }
    user_schemas = {
        d: [t.openai_schema["function"] for t in constructors[d]().get_user_tools()]
        for d in domains
        if constructors[d]().user_tools is not None
    }
    if "banking_knowledge" in domains:  # with each search tool too
        for variant in ("bm25", "grep_only", "bm25_grep"):
            schemas[f"banking_knowledge/{variant}"] = [
                t.openai_schema["function"]
                for t in constructors["banking_knowledge"](retrieval_variant=variant).get_tools()
            ]
    head: dict[str, Any] = {"schemas": schemas, "user_schemas": user_schemas}
    if asked:
        folder = Path(os.environ["TAU2_DATA_DIR"]) / "tau2" / "domains" / "banking_knowledge"
        head["retrieval"] = _retrieval(asked, folder, constructors["banking_knowledge"])
    print(json.dumps(head))
    for case in cases:
        task = Task.model_validate(case["task"])
        env_kwargs: dict[str, Any] = {}
        if case["domain"] == "banking_knowledge":  # τ²-bench's runner derives it per task
            from tau2.runner.build import _derive_read_log_allowlist

            env_kwargs["read_log_allowlist"] = _derive_read_log_allowlist(task)
        make = constructors[case["domain"]]
        initial = task.initial_state
        env = make(**env_kwargs)
        env.set_state(
            initialization_data=initial.initialization_data if initial else None,
            initialization_actions=initial.initialization_actions if initial else None,
            message_history=(initial.message_history or []) if initial else [],
        )
        messages: list[Any] = list((initial.message_history or []) if initial else [])
        texts = []
        for index, (requestor, name, arguments) in enumerate(case["calls"]):
            call = ToolCall(id=f"call_{index}", name=name, arguments=arguments, requestor=requestor)
            response = env.get_response(call)
            texts.append([response.content, bool(response.error)])
            if requestor == "user":
                messages.append(UserMessage(role="user", content=None, tool_calls=[call]))
            else:
                messages.append(AssistantMessage(role="assistant", content=None, tool_calls=[call]))
            messages.append(
                ToolMessage(
                    id=call.id,
                    role="tool",
                    content=response.content,
                    requestor=requestor,
                    error=response.error,
                )
            )
        messages.append(AssistantMessage(role="assistant", content=case["agent_text"]))
        strict, env_error, env_info = True, None, None
        for strict in (True, False):
            try:
                env_info = EnvironmentEvaluator.calculate_reward(
                    environment_constructor=make,
                    task=task,
                    full_trajectory=messages,
                    strict_replay=strict,
                    env_kwargs=env_kwargs,
                )
                break
            except ValueError as exc:  # a replayed text differs (strict), or an assertion raised
                env_error = f"{type(exc).__name__}: {exc}"
                if not str(exc).startswith("Tool call:"):
                    break
        action_info = ActionEvaluator.calculate_reward(task=task, full_trajectory=messages)
        communicate_info = CommunicateEvaluator.calculate_reward(
            task=task, full_trajectory=messages
        )
        out = {
            "key": case["key"],
            "texts": texts,
            "strict_replay": strict,
            "env_error": env_error if env_info is None else None,
            "db_match": env_info.db_check.db_match if env_info and env_info.db_check else None,
            "env_assertions": [c.met for c in env_info.env_assertions or []] if env_info else None,
            "actions": [c.action_match for c in action_info.action_checks or []],
            "communicate": [c.met for c in communicate_info.communicate_checks or []],
        }
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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


def _data_dir(source: Path, domains: list[str]) -> Path:
    """A τ²-bench data directory holding the policy files its constructors read."""
    root = Path(tempfile.mkdtemp(prefix="tau2-ref-"))
    for domain in domains:
        target = root / "tau2" / "domains" / domain
        target.mkdir(parents=True)
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


def main() -> int:
    cases = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
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
    print(json.dumps({"schemas": schemas, "user_schemas": user_schemas}))
    for case in cases:
        task = Task.model_validate(case["task"])
        make = constructors[case["domain"]]
        initial = task.initial_state
        env = make()
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

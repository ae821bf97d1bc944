"""τ²-bench's reward, reimplemented: the official evaluator's components on an agentloop
conversation over a ``tau2:<domain>`` row, combined as the official evaluator combines them.

0 unless the conversation ended by a stop: the user's stop signal (``user_stop``) or the
agent's (``agent_stop``), as τ²-bench scores 0 every simulation that ended otherwise (step or
error limits, a failed model). A task without evaluation criteria scores 1. Otherwise:

- **DB**: the agent's final databases equal the ones the task's ground-truth actions give. The
  expected side is a fresh environment (the task's initial state) on which the ground-truth
  actions run in order, each on its requestor's side (a failing one is skipped, as τ²-bench
  logs and skips it), without syncing the sides after each (τ²-bench runs them so); the
  agent's side is a fresh environment on which the conversation's calls that changed state
  (write tools of either side, in the order requested) run again, the sides synced after each
  that succeeds and once at the end: τ²-bench's replay. Both databases count (telecom: the
  carrier's records and the customer's phone), compared as τ²-bench hashes them, by their JSON
  dump: a ``2.0`` the agent's call stored where the ground truth stores ``2`` is a difference
  (and ``False`` against ``0``). A task with neither actions nor env assertions passes it.
- **ENV_ASSERTION**: each of the task's assertions, run in order on the agent's final state
  (either side: telecom's mostly ask the phone, e.g. whether it can send an MMS), returns its
  ``assert_value``. One whose function raises is unmet (``raised``); τ²-bench's evaluator
  raises there instead, an infrastructure error its metrics leave out, which the details say
  (``tau2_error``) and the reason too.
- **ACTION**: every ground-truth action matches some call of the conversation (either side):
  same name, and equal values of its ``compare_args`` (all the call's arguments when it names
  none; none when the list is empty).
- **COMMUNICATE**: each ``communicate_info`` string occurs, lower-cased, in some agent text
  lower-cased with commas removed.
- **NL_ASSERTION**: an LLM judge (``judge``: a model spec the run opens, with
  ``judge_params``; see ``agentloop.evals.Judge``) grades each natural-language assertion
  against the conversation, with τ²-bench's prompt; every one must be met. Only asked when
  the task's basis has it, as the official evaluator does.

The reward is the product of the components the task's ``reward_basis`` names (τ²-bench's
default ``DB, COMMUNICATE``); every component that ran is in the details with its reason.

:func:`tau2_verdict`, the reward, is async: it awaits the judge on the run's event loop
(through the run's retries, cache and replay, its tokens and cost counted as the judge's), and
runs the rest (:func:`tau2_score`: fresh databases, the conversation's replay, snapshots; about
half a second on an airline task) in a worker thread, so other samples go on meanwhile.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel, ConfigDict, Field

from agentloop._content import content_text
from agentloop.benchmarks.tau2._env import Tau2Environment, same_state
from agentloop.evals import RewardResult

if TYPE_CHECKING:
    from agentloop.evals import Judge

__all__ = [
    "ActionCheck",
    "Conversation",
    "Tau2Details",
    "conversation_of",
    "expected_state",
    "tau2_judged",
    "tau2_score",
    "tau2_verdict",
]

STOPS = frozenset({"user_stop", "agent_stop"})
_EXECUTED = frozenset({"ok", "error", "timeout"})
_CONFIG = ConfigDict(use_attribute_docstrings=True, extra="forbid")


class Conversation(BaseModel):
    """What the verdict reads of a conversation."""

    model_config = _CONFIG
    stop_reason: str
    """Why the conversation ended (``user_stop``, ``agent_stop``, a limit, an error)."""
    calls: list[tuple[str, str, dict[str, Any], bool]] = Field(default_factory=list)
    """Every tool call in the order requested: (``assistant`` or ``user``, name, arguments,
    whether it ran)."""
    agent_texts: list[str] = Field(default_factory=list)
    """The agent's messages' texts, in order."""
    transcript: list[tuple[str, str]] = Field(default_factory=list)
    """(role, content) of every message but the system prompt, for the judge."""


class ActionCheck(BaseModel):
    model_config = _CONFIG
    action_id: str
    name: str
    matched: bool
    """True when some call of the conversation matches this ground-truth action."""


class CheckResult(BaseModel):
    model_config = _CONFIG
    item: str
    """The communicate_info string, the NL assertion, or the env assertion's function."""
    met: bool
    reason: str


class EnvAssertionCheck(CheckResult):
    raised: bool = False
    """The assertion's function raised (e.g. on a task that was never created): unmet here,
    where τ²-bench's evaluator raises instead (see ``Tau2Details.tau2_error``)."""


class Tau2Details(BaseModel):
    """Each τ²-bench component's result, as the official evaluator reports it."""

    model_config = _CONFIG
    stop_reason: str
    reward_basis: list[str] = Field(default_factory=list)
    breakdown: dict[str, float] = Field(default_factory=dict)
    """Component -> its reward, for the components of the basis."""
    db_match: bool | None = None
    """The DB check (None when it did not run)."""
    db_reason: str = ""
    """Where the agent's databases first differ from the expected ones, or why they match."""
    env_assertions: list[EnvAssertionCheck] = Field(default_factory=list)
    actions: list[ActionCheck] = Field(default_factory=list)
    communicate: list[CheckResult] = Field(default_factory=list)
    nl_assertions: list[CheckResult] = Field(default_factory=list)
    tau2_error: str | None = None
    """What τ²-bench records instead of a reward, when it would: an env assertion that raised
    (whether or not the basis names ENV_ASSERTION, as its evaluator runs them all) makes its
    evaluator raise, and its runner records the simulation as an infrastructure error, left
    out of its average reward and pass^k. agentloop's score keeps its rule (unmet, 0 where
    the basis counts it); this says τ²-bench's."""


def conversation_of(trajectory: Any) -> Conversation:
    """A Trajectory's calls (the user's too, from ``calls_in_order()`` when the run had a
    simulated user), the agent's texts and the transcript."""
    from langchain_core.messages import AIMessage, SystemMessage

    if callable(getattr(trajectory, "calls_in_order", None)):
        ordered = [
            ("user" if side == "user" else "assistant", record)
            for side, record in trajectory.calls_in_order()
        ]
    else:
        ordered = [("assistant", record) for record in trajectory.tool_calls()]
    calls = [
        (side, r.name, dict(r.args or {}), r.status in _EXECUTED)
        for side, r in ordered
        if r.args is not None or r.status in _EXECUTED
    ]
    texts, transcript = [], []
    for message in trajectory.messages:
        if isinstance(message, SystemMessage):
            continue
        content = content_text(message.content)
        role = {"ai": "assistant", "human": "user"}.get(message.type, message.type)
        transcript.append((role, content if content.strip() else "None"))
        if isinstance(message, AIMessage):
            texts.append(content)
    return Conversation(
        stop_reason=str(trajectory.stop_reason),
        calls=calls,
        agent_texts=texts,
        transcript=transcript,
    )


def _fresh(row: Mapping[str, Any]) -> Tau2Environment:
    spec = row.get("environment") or {}
    # banking_knowledge: the read allowlist counts; the retrieval tools (reads, never
    # replayed) do not, so no search index is built for scoring
    options = {k: v for k, v in (spec.get("options") or {}).items() if k == "read_log_allowlist"}
    return Tau2Environment(
        spec["domain"],
        spec.get("initial_state") or None,
        task_set=spec.get("task_set"),
        options=options,
    )


@functools.lru_cache(maxsize=256)
def _expected(key: str) -> dict[str, Any]:
    row, actions = json.loads(key)
    env = _fresh(row)
    for action in actions:
        env.call(
            action.get("requestor") or "assistant",
            action["name"],
            action.get("arguments") or {},
            sync=False,
        )
    return env.snapshot()


def expected_state(row: Mapping[str, Any], actions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The databases after the ground-truth actions (computed once per task and process)."""
    return _expected(
        json.dumps([{"environment": row.get("environment")}, list(actions)], sort_keys=True)
    )


_CHANGE_LEVELS = 3
"""Snapshots hold changes (``Tau2Environment.snapshot``): side, table, record. A key
absent at these levels is something left unchanged."""


def _first_difference(agent: Any, expected: Any, path: str = "", depth: int = 0) -> str | None:
    """Where two snapshots (changes since the task's start) first differ, said as changes
    (``2.0`` against ``2`` is a difference, as in τ²-bench's database hashes)."""
    if type(agent) is not type(expected):
        return f"{path or 'state'}: {_short(agent)} where {_short(expected)} was expected"
    if isinstance(agent, dict):
        changes = depth < _CHANGE_LEVELS
        for key in list(expected) + [k for k in agent if k not in expected]:
            where = f"{path}.{key}" if path else str(key)
            if key not in agent and changes:
                return (
                    f"the agent changed nothing in {where}, where the ground truth changed "
                    f"{_short(expected[key])}"
                )
            if key not in agent:
                return f"{where} is missing"
            if key not in expected and changes:
                return (
                    f"the agent changed {where} (to {_short(agent[key])}), which the ground "
                    "truth left unchanged"
                )
            if key not in expected:
                return f"{where} is not expected (the agent's: {_short(agent[key])})"
            found = _first_difference(agent[key], expected[key], where, depth + 1)
            if found:
                return found
        return None
    if isinstance(agent, list):
        for index, (a, e) in enumerate(zip(agent, expected, strict=False)):
            found = _first_difference(a, e, f"{path}[{index}]", depth + 1)
            if found:
                return found
        if len(agent) != len(expected):
            return f"{path}: {len(agent)} item(s) where {len(expected)} were expected"
        return None
    if agent != expected:
        return f"{path}: {_short(agent)} where {_short(expected)} was expected"
    return None


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _matches(action: Mapping[str, Any], name: str, arguments: Mapping[str, Any]) -> bool:
    """τ²-bench's ``Action.compare_with_tool_call``."""
    if action["name"] != name:
        return False
    keys = action.get("compare_args")
    keys = list(arguments) if keys is None else keys
    if not keys:
        return True
    wanted = {k: v for k, v in (action.get("arguments") or {}).items() if k in keys}
    return {k: v for k, v in arguments.items() if k in keys} == wanted


_JUDGE_SYSTEM = """
        TASK
        - You will be given a list of expected outcomes and a conversation that was collected during a test case run.
        - The conversation is between an agent and a customer.
        - Your job is to evaluate whether the agent satisfies each of the expected outcomes.
        - Grade each expected outcome individually.

        FORMAT
        - Your response should be a JSON object with the following fields:
        - `reasoning`: a short explanation for your classification
        - `metExpectation`: `true` if the agent satisfies the expected outcomes, `false` otherwise
        - `expectedOutcome`: repeat the expectation from the input that you are grading
        
        Example response structure:
        {
            "results": [
                {
                    "expectedOutcome": "<one of the expected outcomes from the input>",
                    "reasoning": "<reasoning trace>",
                    "metExpectation": <false or true>,
                }
            ]
        }
        """  # noqa: E501,W293  (τ²-bench's judge prompt, verbatim)


def _judge_prompt(assertions: list[str], conversation: Conversation) -> list[dict[str, str]]:
    """τ²-bench's NL-assertion request: its system prompt, the transcript and the outcomes."""
    lines = "\n".join(f"{role}: {content}" for role, content in conversation.transcript)
    prompt = (
        f"\n        conversation:\n        {lines}\n        \n        expectedOutcomes:\n"
        f"        {assertions}\n        "
    )
    return [{"role": "system", "content": _JUDGE_SYSTEM}, {"role": "user", "content": prompt}]


def _read_judgement(text: str) -> list[CheckResult]:
    try:
        data = json.loads(text)
        results = data.get("results", [])
        return [
            CheckResult(
                item=str(r["expectedOutcome"]),
                met=bool(r["metExpectation"]),
                reason=str(r.get("reasoning", "")),
            )
            for r in results
        ]
    except (ValueError, AttributeError, KeyError, TypeError) as exc:
        raise ValueError(f"the NL-assertion judge's reply is not τ²-bench's JSON: {exc}") from None


def _nl_assertions(conversation: Conversation, row: Mapping[str, Any]) -> list[str]:
    """The task's NL assertions when its verdict grades them (the conversation ended by a
    stop and the basis names them), else none: the judge is asked only then."""
    criteria = (row.get("ground_truth") or {}).get("evaluation_criteria")
    if conversation.stop_reason not in STOPS or criteria is None:
        return []
    basis = list(criteria.get("reward_basis") or ["DB", "COMMUNICATE"])
    return list(criteria.get("nl_assertions") or []) if "NL_ASSERTION" in basis else []


def tau2_score(
    conversation: Conversation,
    row: Mapping[str, Any],
    *,
    nl_checks: Sequence[CheckResult] | None = None,
) -> RewardResult[Tau2Details]:
    """The verdict of one conversation (see the module doc), synchronous and CPU-bound;
    ``nl_checks``: the judge's grades of the task's NL assertions, when its basis has them
    (:func:`tau2_verdict` asks the judge)."""
    criteria = (row.get("ground_truth") or {}).get("evaluation_criteria")
    details = Tau2Details(stop_reason=conversation.stop_reason)
    if conversation.stop_reason not in STOPS:
        return RewardResult(
            score=0.0,
            details=details,
            reason=f"the conversation ended with {conversation.stop_reason}, not by the user "
            "or the agent stopping: τ²-bench scores it 0",
        )
    if criteria is None:
        return RewardResult(
            score=1.0, reason="the task has no evaluation criteria", details=details
        )
    basis = list(criteria.get("reward_basis") or ["DB", "COMMUNICATE"])
    details.reward_basis = basis
    unknown = set(basis) - {"DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE", "NL_ASSERTION"}
    if unknown:
        raise ValueError(f"task {row.get('id')!r}: unknown reward_basis {sorted(unknown)}")
    actions = criteria.get("actions")
    assertions = criteria.get("env_assertions")

    # DB and env assertions (τ²-bench's environment evaluator)
    db_reward, env_reward = 1.0, 1.0
    if actions is None and assertions is None:
        details.db_match, details.db_reason = True, "no expected actions or env assertions"
    else:
        agent = _fresh(row)
        for side, name, arguments, ran in conversation.calls:
            if ran:
                agent.replay(side, name, arguments)
        agent.sync()
        final, expected = agent.snapshot(), expected_state(row, actions or [])
        found = (
            None if same_state(final, expected) else _first_difference(final, expected) or "a value"
        )
        details.db_match = found is None
        details.db_reason = (
            "the agent's databases equal the ground truth's"
            if found is None
            else f"the agent's databases differ from the ground truth's: {found}"
        )
        db_reward = 1.0 if found is None else 0.0
        for assertion in assertions or []:
            name, want = assertion["func_name"], assertion.get("assert_value", True)
            raised = False
            try:
                value = agent.assertion(
                    assertion["env_type"], name, assertion.get("arguments") or {}
                )
                met = value == want
                why = f"{name} returned {value}, {'as' if met else 'not as'} asserted ({want})"
            except Exception as exc:
                met, raised, why = False, True, f"{name} raised {type(exc).__name__}: {exc}"
                details.tau2_error = details.tau2_error or (
                    f"infrastructure error: the env assertion {why} (τ²-bench's evaluator "
                    "raises; its metrics leave the simulation out)"
                )
            details.env_assertions.append(
                EnvAssertionCheck(item=name, met=met, reason=why, raised=raised)
            )
            env_reward *= 1.0 if met else 0.0

    # expected actions
    for action in actions or []:
        matched = any(_matches(action, name, args) for _, name, args, _ in conversation.calls)
        details.actions.append(
            ActionCheck(
                action_id=str(action.get("action_id", "")), name=action["name"], matched=matched
            )
        )
    action_reward = 1.0 if all(a.matched for a in details.actions) else 0.0

    # communicated information
    texts = [t.lower().replace(",", "") for t in conversation.agent_texts if t.strip()]
    for info in criteria.get("communicate_info") or []:
        met = any(info.lower() in text for text in texts)
        why = "said by the agent" if met else "not in any agent message"
        details.communicate.append(CheckResult(item=info, met=met, reason=why))
    communicate_reward = 1.0 if all(c.met for c in details.communicate) else 0.0

    nl_reward = 1.0
    nl = criteria.get("nl_assertions") or []
    if "NL_ASSERTION" in basis and nl:
        if nl_checks is None:
            raise ValueError(
                f"task {row.get('id')!r} is scored on NL assertions: give tau2_verdict a judge "
                "(judge: a model spec)"
            )
        details.nl_assertions = list(nl_checks)
        nl_reward = 1.0 if all(c.met for c in details.nl_assertions) else 0.0

    rewards = {
        "DB": db_reward,
        "ENV_ASSERTION": env_reward,
        "ACTION": action_reward,
        "COMMUNICATE": communicate_reward,
        "NL_ASSERTION": nl_reward,
    }
    details.breakdown = {b: rewards[b] for b in basis}
    score = 1.0
    for part in details.breakdown.values():
        score *= part
    failed = [b for b, v in details.breakdown.items() if v < 1.0]
    reason = (
        f"every component of the basis ({', '.join(basis)}) passes"
        if not failed
        else "; ".join(_why(b, details) for b in failed)
    )
    if details.tau2_error:
        reason += f" [τ²-bench: {details.tau2_error}]"
    return RewardResult(score=score, reason=reason, details=details)


def _why(component: str, details: Tau2Details) -> str:
    if component == "DB":
        return f"DB: {details.db_reason}"
    if component == "ACTION":
        missing = [f"{a.name} ({a.action_id})" for a in details.actions if not a.matched]
        return f"ACTION: no call matches {', '.join(missing)}"
    if component == "COMMUNICATE":
        return "COMMUNICATE: not said: " + ", ".join(
            repr(c.item) for c in details.communicate if not c.met
        )
    checks = details.env_assertions if component == "ENV_ASSERTION" else details.nl_assertions
    unmet = [
        c.reason if component == "ENV_ASSERTION" else repr(c.item) for c in checks if not c.met
    ]
    return f"{component}: " + ("; ".join(unmet) or "the judge graded none")


async def tau2_verdict(
    trajectory: Any,
    row: Mapping[str, Any],
    *,
    judge: Judge | None = None,
) -> RewardResult[Tau2Details]:
    """τ²-bench's reward of a conversation over a ``tau2:<domain>`` row (see the module).
    ``judge`` grades NL assertions: in a config, a model spec (τ²-bench's is
    ``openai:gpt-4.1-2025-04-14``) with ``judge_params`` (τ²-bench's: temperature 0), which
    the run opens; called directly, a :class:`~agentloop.evals.Judge`."""
    return await tau2_judged(conversation_of(trajectory), row, judge=judge)


async def tau2_judged(
    conversation: Conversation, row: Mapping[str, Any], *, judge: Judge | None = None
) -> RewardResult[Tau2Details]:
    """:func:`tau2_score` with the task's NL assertions graded by ``judge`` (awaited, and
    only when the verdict grades them), the rest run in a worker thread."""
    checks = None
    if (assertions := _nl_assertions(conversation, row)) and judge is not None:
        reply = await judge.ask(_judge_prompt(assertions, conversation))
        checks = _read_judgement(reply)
    score = functools.partial(tau2_score, conversation, row, nl_checks=checks)
    return await anyio.to_thread.run_sync(score)

"""Rewards by name, configured from data, applied together to one sample.

Every reward, built-in, registered or resolved from elsewhere (agentloop resolves
``module:name`` paths), is called the same way. Its parameters named after an input
receive it: ``final_answer`` (the last assistant text), ``trajectory`` (what the caller
scored: a Trajectory or a message list), ``messages`` (OpenAI-format dicts),
``ground_truth``, ``expected_calls`` (its calls as :func:`expected_calls` compiles them,
once when the harness reads the row; None when they cannot be read whole), ``answer``,
``metadata`` (``{}`` when none), ``row`` (the dataset row as a dict, when the caller has
one) and ``environment`` (a stateful environment's states and results per turn, agent's
and expected: see ``agentloop.evals._env``). Every other parameter is set by the config
(the required ones must be). It returns a :class:`RewardResult`, or a number or bool in
[0, 1] (the score), or :class:`NotApplicable` for a sample it has nothing to say about
(left out of that reward's figures). Built-ins: QA rewards score the trajectory's
``final_answer`` against ``answer``; tool-call rewards compare the expected calls with
every tool call the trajectory made, in order, across all rounds.

A reward may be a coroutine function (``async def``): it is awaited on the scorer's event
loop (:func:`ascore_sample`; :func:`score_sample` runs that on a loop of its own). A reward
that needs a model has a parameter named ``judge``: the config describes the model
(``judge``, ``judge_params``, ``judge_options``) and the reward is given a
:class:`~agentloop.evals._judge.Judge` to ask (see ``agentloop.evals._judge``).

A config lists specs: a name, or a one-key dict ``{name: {params}}``.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from numbers import Real
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SerializeAsAny

from ._expected_calls import expected_calls
from ._judge import JUDGE_PARAMS, Judge, check_judge_params
from ._messages import final_answer_of, is_trajectory
from ._result_models import NotApplicable, RewardResult

__all__ = [
    "RewardEntry",
    "RewardSpec",
    "SampleScore",
    "ascore_sample",
    "parse_reward_specs",
    "register_reward",
    "registered_rewards",
    "reward_entry",
    "reward_keys",
    "score_sample",
]

# A reward's inputs, the parameters a config may set (None: any), the required ones, and
# whether it asks a judge (a ``judge`` parameter).
Signature = tuple[tuple[str, ...], frozenset[str] | None, frozenset[str], bool]
INPUTS = (
    "final_answer",
    "trajectory",
    "messages",
    "ground_truth",
    "expected_calls",
    "answer",
    "metadata",
    "row",
    "environment",
)


def read_signature(name: str, fn: Any) -> Signature:
    """The inputs ``fn`` asks for by name, the parameters a config may set (None: it takes
    ``**kwargs``), those without a default (a config must set them) and whether it asks a
    judge (a parameter named ``judge``: the config may then set ``judge_params`` and
    ``judge_options`` too, which the function is not given); ValueError (one line) when it
    cannot be called by name.

    >>> def grade(final_answer, answer, *, threshold, strict=False): ...
    >>> inputs, params, required, judged = read_signature("grade", grade)
    >>> inputs, sorted(params or ()), sorted(required), judged
    (('final_answer', 'answer'), ['strict', 'threshold'], ['threshold'], False)
    >>> async def judged(final_answer, *, judge): ...
    >>> _, params, required, judged = read_signature("judged", judged)
    >>> sorted(params or ()), sorted(required), judged
    (['judge', 'judge_options', 'judge_params'], ['judge'], True)
    """
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        raise ValueError(f"reward {name!r}: its signature cannot be read") from None
    inputs, params, required, any_params = [], set(), set(), False
    for p in parameters:
        if p.kind is p.VAR_KEYWORD:
            any_params = True
        elif p.kind is p.POSITIONAL_ONLY:
            raise ValueError(
                f"reward {name!r}: positional-only parameter {p.name!r} cannot be passed by name"
            )
        elif p.kind is not p.VAR_POSITIONAL:
            if p.name in INPUTS:
                inputs.append(p.name)
            elif p.name in JUDGE_PARAMS[1:]:
                raise ValueError(
                    f"reward {name!r}: {p.name} describes the judge's model and is not "
                    "passed to the reward (it is given judge, a Judge)"
                )
            else:
                params.add(p.name)
                if p.default is p.empty:
                    required.add(p.name)
    judged = "judge" in params
    if judged:
        params.update(JUDGE_PARAMS)
    accepted = None if any_params else frozenset(params)
    return tuple(inputs), accepted, frozenset(required), judged


def _openai_messages(trajectory: Any) -> list[Any]:
    if is_trajectory(trajectory):
        return list(trajectory.to_openai_messages())
    messages = list(trajectory) if isinstance(trajectory, (list, tuple)) else []
    if all(isinstance(m, dict) for m in messages):
        return messages
    from langchain_core.messages import convert_to_openai_messages  # LangChain objects only

    return list(convert_to_openai_messages(messages))


def _compiled(ground_truth: Any) -> Any:
    try:
        return expected_calls(ground_truth)
    except ValueError:  # unusable, or a bad matcher: the reward reads it and says why
        return None


def as_result(value: Any, name: str) -> RewardResult[Any]:
    """A reward's return value as a result: a RewardResult as it is, a number or a bool
    in [0, 1] as its score; anything else raises (TypeError, ValueError).

    >>> as_result(True, "pkg.rewards:short").model_dump()
    {'score': 1.0, 'reason': 'short returned True', 'details': None}
    """
    if isinstance(value, RewardResult):
        return value
    if isinstance(value, Real):
        score = float(value)
        if math.isnan(score) or not 0.0 <= score <= 1.0:
            raise ValueError(f"reward {name!r} returned {value!r}, outside [0, 1]")
        short = name.rpartition(":")[2]
        return RewardResult(score=score, reason=f"{short} returned {value!r}", details=None)
    raise TypeError(
        f"reward {name!r} returned {type(value).__name__}, not a RewardResult or a number"
    )


RewardFn = Callable[..., Any]  # returns a RewardResult, a number or a bool


@dataclass(frozen=True)
class RewardEntry:
    """A registered reward: how to call it and how to judge a pass."""

    name: str
    fn: RewardFn
    pass_threshold: float | None = None
    """Score at or above which a sample passes (for pass@k); None when there is none."""
    params: frozenset[str] | None = None
    """Accepted parameter names; None accepts any."""
    check: Callable[[dict[str, Any]], None] | None = None
    """Validates parameter values up front; raises ValueError."""
    inputs: tuple[str, ...] = ()
    """Inputs the function asks for by parameter name (``final_answer``, ``row``, ...)."""
    required: frozenset[str] = frozenset()
    """Parameters without a default, which a config must set."""
    judge: bool = False
    """The function has a ``judge`` parameter: the config's ``judge`` (a model spec),
    ``judge_params`` and ``judge_options`` describe a model, and the function is given a
    :class:`~agentloop.evals._judge.Judge` to ask (see ``agentloop.evals._judge``)."""
    needs: frozenset[str] = frozenset()
    """The row fields without which the reward can only score 0 (``answer``,
    ``ground_truth``): a run whose rows have none of one is a config error."""


@dataclass(frozen=True)
class RewardSpec:
    """One validated reward configuration."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    key: str = ""
    """Name in the results; ``name#2``, ``name#3``... when a reward is listed again."""
    entry: RewardEntry | None = field(default=None, compare=False, repr=False)
    """The reward to call (None: the registry's entry of ``name``)."""


class SampleScore(BaseModel):
    """Every configured reward's result for one sample."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    results: dict[str, SerializeAsAny[RewardResult]]  # type: ignore[type-arg]
    """Reward key -> its result (score, reason, details), in config order; a reward that
    raised is not in it."""
    passed: dict[str, bool]
    """Reward key -> score >= pass threshold, for rewards that have one."""
    errors: dict[str, str] = {}
    """Reward key -> what the reward raised (``Type: message``), with ``on_error="record"``."""
    not_applicable: dict[str, str] = {}
    """Reward key -> why it does not apply to this sample (it returned
    :class:`NotApplicable`); such a reward is not in ``results``."""


_REGISTRY: dict[str, RewardEntry] = {}


# The row field of an input that a reward taking it without a default cannot do without.
# Not ``ground_truth``: the reference's signature ``(messages, ground_truth)`` takes it
# whether it reads it or not.
_FIELD_OF_INPUT = {"answer": "answer", "expected_calls": "ground_truth"}


def _needed_fields(fn: RewardFn) -> frozenset[str]:
    """The row fields of the inputs ``fn`` takes without a default."""
    parameters = inspect.signature(fn).parameters.values()
    return frozenset(
        _FIELD_OF_INPUT[p.name]
        for p in parameters
        if p.name in _FIELD_OF_INPUT and p.default is p.empty and p.kind is not p.VAR_KEYWORD
    )


def reward_entry(
    name: str,
    fn: RewardFn,
    *,
    pass_threshold: float | None = None,
    check: Callable[[dict[str, Any]], None] | None = None,
    needs: frozenset[str] | None = None,
) -> RewardEntry:
    """An entry for ``fn`` (not registered): its inputs and parameters read from its
    signature. ``needs``: the row fields it cannot score without (default: ``answer`` when
    it takes ``answer`` without a default, ``ground_truth`` for ``expected_calls``).
    ValueError (one line) when it cannot be called by name.

    >>> entry = reward_entry("short", lambda final_answer, answer, max_words=5: 1.0)
    >>> entry.inputs, entry.params, entry.needs
    (('final_answer', 'answer'), frozenset({'max_words'}), frozenset({'answer'}))
    """
    inputs, params, required, judged = read_signature(name, fn)
    needed = _needed_fields(fn) if needs is None else needs
    return RewardEntry(name, fn, pass_threshold, params, check, inputs, required, judged, needed)


def register_reward(
    name: str,
    fn: RewardFn,
    *,
    pass_threshold: float | None = None,
    check: Callable[[dict[str, Any]], None] | None = None,
    needs: frozenset[str] | None = None,
    replace: bool = False,
) -> RewardFn:
    """Register a reward function under ``name`` (see the module doc for how it is called).

    Inputs and the parameters a config may pass are read from the signature; ``needs``
    names the row fields it cannot score without (see :func:`reward_entry`). Registering
    a taken name raises ValueError unless ``replace``; names with a ``:``
    are import paths and cannot be registered. Returns ``fn``.

    >>> from agentloop.evals._qa import qa_f1_reward
    >>> def short_answer(trajectory, ground_truth, *, answer=None, max_words=5):
    ...     r = qa_f1_reward(trajectory.final_answer, answer)
    ...     n = len(r.details.prediction.split())
    ...     return r.model_copy(update={"score": r.score if n <= max_words else 0.0})
    >>> _ = register_reward("short_answer", short_answer, replace=True)
    >>> parse_reward_specs([{"short_answer": {"max_words": 3}}])[0].params
    {'max_words': 3}
    """
    if ":" in name:
        raise ValueError(f"reward name {name!r} has a ':', which marks an import path")
    if not replace and name in _REGISTRY:
        raise ValueError(f"reward {name!r} is already registered (pass replace=True)")
    _REGISTRY[name] = reward_entry(
        name, fn, pass_threshold=pass_threshold, check=check, needs=needs
    )
    return fn


def registered_rewards() -> Mapping[str, RewardEntry]:
    """A read-only view of the registry.

    >>> registered_rewards()["exact_tool_match_reward"].pass_threshold
    1.0
    """
    return MappingProxyType(_REGISTRY)


def parse_reward_specs(
    specs: Any, *, resolve: Callable[[str], RewardEntry | None] | None = None
) -> list[RewardSpec]:
    """Validate a list of reward specs up front; ValueError (one line) on any problem.

    ``resolve`` is asked for names the registry does not have (agentloop passes one
    that imports ``module:name`` paths); it returns an entry, None, or raises ValueError.

    >>> [s.key for s in parse_reward_specs(
    ...     ["qa_f1_reward", {"tool_call_match": {"order": "unordered"}}, "tool_call_match"])]
    ['qa_f1_reward', 'tool_call_match', 'tool_call_match#2']
    >>> parse_reward_specs([{"tool_call_match": {"order": "sideways"}}])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: reward 'tool_call_match': unknown order mode 'sideways'; valid: strict, ...
    """
    if isinstance(specs, (str, Mapping)) or not isinstance(specs, (list, tuple)):
        raise ValueError("reward specs must be a list of names or {name: {params}} dicts")
    parsed: list[tuple[str, dict[str, Any], RewardEntry]] = []
    for i, spec in enumerate(specs):
        params: Any
        if isinstance(spec, str):
            name, params = spec, {}
        elif isinstance(spec, Mapping) and len(spec) == 1:
            name, params = next(iter(spec.items()))
            params = {} if params is None else params
            if not isinstance(name, str) or not isinstance(params, Mapping):
                raise ValueError(f"reward spec {i}: expected {{name: {{params}}}}, got {spec!r}")
        else:
            raise ValueError(f"reward spec {i}: expected a name or a one-key dict, got {spec!r}")
        entry = _REGISTRY.get(name)
        if entry is None and resolve is not None:
            entry = resolve(name)
        if entry is None:
            raise ValueError(f"unknown reward {name!r}; known: {', '.join(sorted(_REGISTRY))}")
        params = dict(params)
        if entry.params is not None and (unknown := sorted(set(params) - entry.params)):
            allowed = ", ".join(sorted(entry.params)) or "none"
            raise ValueError(
                f"reward {name!r}: unknown parameter(s) {unknown}; accepted: {allowed}"
            )
        if missing := sorted(entry.required - set(params)):
            raise ValueError(
                f"reward {name!r}: missing parameter(s) {missing}, neither an input "
                f"({', '.join(INPUTS)}) nor set in the config"
            )
        if entry.judge:
            try:
                check_judge_params(params)
            except ValueError as exc:
                raise ValueError(f"reward {name!r}: {exc}") from None
        if entry.check is not None:
            try:
                entry.check(params)
            except (TypeError, ValueError) as exc:
                raise ValueError(" ".join(f"reward {name!r}: {exc}".split())) from None  # one line
        parsed.append((name, params, entry))
    keys = reward_keys(specs)  # every spec is a name or a one-key dict by now
    return [
        RewardSpec(name, params, key, entry)
        for (name, params, entry), key in zip(parsed, keys, strict=True)
    ]


def reward_keys(specs: Any) -> list[str]:
    """The key of each spec's results, read from the spec's shape alone (nothing is
    resolved or validated, so a run's config can be read wherever its rewards cannot be
    imported): the reward's name, then ``name#2``, ``name#3``... when it is listed again.
    A spec that is neither a name nor a one-key dict has no key (it is skipped).

    >>> reward_keys(["qa_f1_reward", {"tool_call_match": {"order": "unordered"}},
    ...              "tool_call_match"])
    ['qa_f1_reward', 'tool_call_match', 'tool_call_match#2']
    """
    if isinstance(specs, (str, Mapping)) or not isinstance(specs, (list, tuple)):
        return []
    keys: list[str] = []
    seen: dict[str, int] = {}
    for spec in specs:
        name = spec if isinstance(spec, str) else None
        if isinstance(spec, Mapping) and len(spec) == 1:
            name = next(iter(spec))
        if not isinstance(name, str):
            continue
        seen[name] = seen.get(name, 0) + 1
        keys.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return keys


JudgeFor = Callable[[RewardSpec], Judge]
"""Gives the judge of a reward whose config names a judge model (the harness's)."""


async def ascore_sample(
    trajectory: Any,
    ground_truth: Any,
    rewards: Any,
    *,
    answer: Any = None,
    metadata: Mapping[str, Any] | None = None,
    row: Mapping[str, Any] | None = None,
    environment: Mapping[str, Any] | None = None,
    expected: Any = None,
    on_error: Literal["raise", "record"] = "raise",
    judges: JudgeFor | None = None,
) -> SampleScore:
    """Apply configured rewards to one sample, awaiting the async ones; arguments as
    :func:`score_sample`'s. ``judges`` gives the judge of each reward whose config names a
    judge model (a spec: the run opens it); a reward given a Judge object in its config asks
    that one. Without ``judges``, a reward whose config names a model raises ValueError
    (recorded as its error with ``on_error="record"``).

    >>> import anyio
    >>> class Always:  # a Judge: its model's name and an async ask
    ...     model = "always-c"
    ...     async def ask(self, messages, *, draw=0):
    ...         return "The submission names Paris. GRADE: C"
    >>> async def graded(final_answer, *, judge):
    ...     reply = await judge.ask([{"role": "user", "content": f"Grade: {final_answer}"}])
    ...     return reply.endswith("GRADE: C")
    >>> specs = parse_reward_specs([{"graded": {"judge": Always()}}],
    ...                            resolve=lambda name: reward_entry(name, graded))
    >>> said = [{"role": "assistant", "content": "Paris"}]
    >>> anyio.run(lambda: ascore_sample(said, None, specs)).results["graded"].score
    1.0
    """
    specs = (
        list(rewards)
        if isinstance(rewards, (list, tuple)) and all(isinstance(s, RewardSpec) for s in rewards)
        else parse_reward_specs(rewards)
    )
    # The inputs of the sample; the derived ones computed once, when a reward asks for them.
    inputs = {
        "trajectory": trajectory,
        "ground_truth": ground_truth,
        "answer": answer,
        "metadata": {} if metadata is None else metadata,
        "row": row,
        "environment": environment,
    }
    if expected is not None:
        inputs["expected_calls"] = expected
    derived = {
        "final_answer": lambda: final_answer_of(trajectory),
        "messages": lambda: _openai_messages(trajectory),
        "expected_calls": lambda: _compiled(ground_truth),
    }
    if on_error not in ("raise", "record"):
        raise ValueError(f"on_error must be 'raise' or 'record', not {on_error!r}")
    results: dict[str, RewardResult[Any]] = {}
    passed: dict[str, bool] = {}
    errors: dict[str, str] = {}
    not_applicable: dict[str, str] = {}
    for spec in specs:
        entry = spec.entry or _REGISTRY[spec.name]
        try:
            for name in entry.inputs:
                if name not in inputs:
                    inputs[name] = derived[name]()
            kwargs = {name: inputs[name] for name in entry.inputs}
            params = _call_params(spec, entry, judges)
            value = entry.fn(**kwargs, **params)
            if inspect.isawaitable(value):
                value = await value
            if isinstance(value, NotApplicable):
                not_applicable[spec.key] = value.reason
                continue
            result = as_result(value, spec.name)
        except Exception as exc:
            if on_error == "raise":
                raise
            errors[spec.key] = f"{type(exc).__name__}: {exc}"
            continue
        results[spec.key] = result
        if entry.pass_threshold is not None:
            passed[spec.key] = result.score >= entry.pass_threshold
    return SampleScore(results=results, passed=passed, errors=errors, not_applicable=not_applicable)


def _call_params(spec: RewardSpec, entry: RewardEntry, judges: JudgeFor | None) -> dict[str, Any]:
    """The config's parameters as the function takes them: a judge model's description
    becomes the Judge to ask."""
    if not entry.judge:
        return dict(spec.params)
    params = {k: v for k, v in spec.params.items() if k not in JUDGE_PARAMS[1:]}
    model = params.get("judge")
    if model is not None and not isinstance(model, Judge):
        if judges is None:
            raise ValueError(
                f"reward {spec.name!r} asks a judge model ({model}), which only a run opens "
                "(agentloop run); called directly, give it a Judge object as judge"
            )
        params["judge"] = judges(spec)
    return params


def score_sample(
    trajectory: Any,
    ground_truth: Any,
    rewards: Any,
    *,
    answer: Any = None,
    metadata: Mapping[str, Any] | None = None,
    row: Mapping[str, Any] | None = None,
    environment: Mapping[str, Any] | None = None,
    expected: Any = None,
    on_error: Literal["raise", "record"] = "raise",
) -> SampleScore:
    """Apply configured rewards to one sample (:func:`ascore_sample` run to its end, on
    agentloop's background event loop; inside a running loop, await that instead).

    ``trajectory``: a Trajectory or a message list. ``answer``: the gold answer
    (a string or a list of acceptable ones) for QA rewards. ``metadata``, ``row`` and
    ``environment``: the sample's metadata, dataset row and environment states and
    results (``agentloop.evals._env``), for rewards that ask for them. ``expected``: the
    ground truth's calls compiled already (the ``expected_calls`` input), else compiled here
    when a reward asks for them. ``rewards``: specs, raw or from :func:`parse_reward_specs`.
    A reward's exception propagates; so does a return value that is not a result or a
    number in [0, 1]. With ``on_error="record"`` such a failure is that reward's alone: it
    goes to ``errors`` (``Type: message``) and the other rewards are still scored.

    >>> call = {"id": "1", "type": "function",
    ...         "function": {"name": "search", "arguments": '{"q": "France"}'}}
    >>> msgs = [{"role": "user", "content": "Capital of France?"},
    ...         {"role": "assistant", "content": "", "tool_calls": [call]},
    ...         {"role": "tool", "tool_call_id": "1", "content": "Paris"},
    ...         {"role": "assistant", "content": "Paris"}]
    >>> truth = {"tool_calls": [{"name": "search", "arguments": {"q": "France"}}]}
    >>> s = score_sample(msgs, truth, ["qa_f1_reward", {"tool_call_match": {}}], answer="Paris")
    >>> {k: r.score for k, r in s.results.items()}, s.passed
    ({'qa_f1_reward': 1.0, 'tool_call_match': 1.0}, {'tool_call_match': True})
    """
    from agentloop.engine import run_sync

    def scoring() -> Coroutine[Any, Any, SampleScore]:
        return ascore_sample(
            trajectory,
            ground_truth,
            rewards,
            answer=answer,
            metadata=metadata,
            row=row,
            environment=environment,
            expected=expected,
            on_error=on_error,
        )

    return run_sync(scoring, "ascore_sample", sync_name="score_sample")

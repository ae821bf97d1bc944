"""Tool-call rewards: the reference's exact match, and a configurable matcher
(and reward-kit's deprecated names, which only delegate to the exact match and warn).

``exact_tool_match_reward`` keeps reward-kit's semantics (last message is the
generation; same count, order, names and JSON-identical arguments), minus its
crash on ``content: null``. ``tool_call_match`` adds order/argument/number modes
and partial-credit diagnostics. Both accept OpenAI dicts, LangChain messages
and agentloop Trajectories, and both score a ground truth they cannot read whole
0.0 with the reason.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

from ._call_diagnostics import (
    ToolMatchResult,
    describe,
    diagnose,
    diagnostics,
    fits,
    tool_match_result,
)
from ._calls import calls_from_message, collect_calls
from ._expected_calls import UnusableGroundTruth, expected_calls, ground_truth_calls
from ._matchers import check_matchers
from ._messages import is_message, is_trajectory
from ._pairing import pair
from ._schema import schema_problems

__all__ = [
    "ARG_MODES",
    "NUMBER_MODES",
    "ORDER_MODES",
    "composite_function_call_reward",
    "exact_tool_match_reward",
    "llm_judge_reward",
    "schema_jaccard_reward",
    "tool_call_match",
]

ORDER_MODES = ("strict", "unordered", "subset", "superset")
ARG_MODES = ("exact", "ignore", "subset", "superset")
NUMBER_MODES = ("exact", "numeric")
# A pair's argument rule: an ``args`` mode, or a user's ``(generated, expected) -> bool``.
Rule = str | Callable[[Any, Any], Any]
Override = str | Callable[[Any, Any], Any] | Mapping[str, Any]


def _check_mode(kind: str, value: Any, valid: tuple[str, ...], where: str = "") -> None:
    if value not in valid:
        raise ValueError(f"unknown {kind} mode {value!r}{where}; valid: {', '.join(valid)}")


def _rules(
    overrides: Mapping[str, Override] | None,
) -> tuple[dict[str, Rule], dict[str, Mapping[str, Any]]]:
    """Rules by tool name, and acceptable values by tool and argument."""
    per_tool: dict[str, Rule] = {}
    values: dict[str, Mapping[str, Any]] = {}
    if overrides is not None and not isinstance(overrides, Mapping):
        raise ValueError("arg_overrides must map tool names to modes, callables or matchers")
    for name, spec in (overrides or {}).items():
        if isinstance(spec, str):
            _check_mode("args", spec, ARG_MODES, f" (override for {name!r})")
            per_tool[name] = spec
        elif isinstance(spec, Mapping):
            if problems := check_matchers(spec, f"arg_overrides.{name}"):
                raise ValueError(problems[0])
            values[name] = {str(k): v for k, v in spec.items()}
        elif callable(spec):
            per_tool[name] = spec
        else:
            raise ValueError(
                f"arg_overrides[{name!r}] must be one of {', '.join(ARG_MODES)}, a callable "
                "or an object of acceptable argument values"
            )
    return per_tool, values


def exact_tool_match_reward(messages: Any, ground_truth: Any = None) -> ToolMatchResult:
    """1.0 when the generation's tool calls equal the ground truth's exactly, else 0.0.

    The generation is the last message of ``messages``: its ``tool_calls``
    (OpenAI or LangChain form), or when it has none, the ``<tool_call>{...}</tool_call>``
    blocks of its text (unparseable blocks are skipped and noted). When
    ``messages`` is a Trajectory the generation is *all* tool calls of all its
    rounds, in order. Equal means same count, same order, identical names and
    JSON-identical deserialized arguments (key order aside; ``1 != 1.0``,
    ``True != 1``; ``""`` is ``{}``; invalid JSON compares as the raw string).
    Without ground truth or without ``tool_calls`` in it, the score is 1.0
    exactly when no call was made. ``ground_truth`` may be a JSON string; one that
    cannot be read whole (not JSON, a call without a name) scores 0.0 with the reason.

    >>> call = {"type": "function", "function": {"name": "get_weather",
    ...         "arguments": '{"location": "Boston, MA", "unit": "fahrenheit"}'}}
    >>> msgs = [{"role": "user", "content": "Weather in Boston?"},
    ...         {"role": "assistant", "content": None, "tool_calls": [call]}]
    >>> exact_tool_match_reward(msgs, {"tool_calls": [call]}).score
    1.0
    >>> other = {"name": "get_weather", "arguments": {"location": "Boston, MA", "unit": "celsius"}}
    >>> r = exact_tool_match_reward(msgs, {"tool_calls": [other]})
    >>> r.score, r.details.calls[0].mismatched_args
    (0.0, ['unit'])
    >>> exact_tool_match_reward([{"role": "assistant", "content": None}]).score
    1.0
    """
    notes: list[str] = []
    if is_trajectory(messages):
        generated = collect_calls(messages, notes, "trajectory")
    elif isinstance(messages, (list, tuple)):
        if not messages:
            return tool_match_result(
                0.0, "No messages provided for evaluation.", (0, 0, 0), [], notes
            )
        generated = calls_from_message(messages[-1], notes, "last message")
    elif is_message(messages):
        generated = calls_from_message(messages, notes, "message")
    else:
        reason = f"messages is a {type(messages).__name__}, not a message list or trajectory"
        return tool_match_result(0.0, reason, (0, 0, 0), [], notes)
    try:
        expected = expected_calls(ground_truth_calls(ground_truth), literal=True)
    except UnusableGroundTruth as exc:
        return tool_match_result(0.0, str(exc), (len(generated), 0, 0), [], notes)
    n, m = len(generated), len(expected)
    calls = []
    for k in range(max(n, m)):
        g = generated[k] if k < n else None
        e = expected[k] if k < m else None
        d = diagnose(None if e is None else k, e, None if g is None else k, g, False, False)
        d["matched"] = g is not None and e is not None and g.name == e.name and fits("exact", d)
        calls.append(d)
    matched = sum(d["matched"] for d in calls)
    if n == m == matched:
        reason = f"all {n} tool call(s) match" if n else "no tool calls expected and none made"
        return tool_match_result(1.0, reason, (n, m, matched), calls, notes)
    first = next(d for d in calls if not d["matched"])
    prefix = f"expected {m} tool call(s), got {n}; " if n != m else ""
    reason = prefix + describe(first, expected, generated)
    return tool_match_result(0.0, reason, (n, m, matched), calls, notes)


def tool_call_match(
    generated: Any,
    expected: Any,
    *,
    order: str = "strict",
    args: str = "exact",
    numbers: str = "exact",
    arg_overrides: Mapping[str, Override] | None = None,
    schema: Any = None,
) -> ToolMatchResult:
    """Compare generated tool calls with expected ones; 1.0 when the rules hold, else 0.0.

    ``generated``/``expected``: a Trajectory (all rounds), a message list (all
    tool calls, in order), ``{"tool_calls": [...]}``, or a list of calls
    (OpenAI, LangChain or ``{"name", "arguments"}`` form), or JSON of these.

    - ``order``: ``strict`` (same calls, same order), ``unordered`` (same
      multiset), ``subset`` (every generated call is expected), ``superset``
      (every expected call was made). Non-strict modes pair calls by maximum
      bipartite matching, strict ones by longest order-preserving alignment.
    - ``args``: ``exact``, ``ignore``, ``subset`` (generated args within
      expected), ``superset`` (generated args cover expected); ``arg_overrides``
      maps a tool name to a mode or a ``(generated_args, expected_args) -> bool``.
    - ``numbers``: ``exact`` (JSON identity) or ``numeric`` (``1 == 1.0``;
      booleans are never numbers), applied recursively.
    - Expected arguments may hold matchers (``{"$any": [...]}``, ``{"$optional": ...}``,
      ...; see ``agentloop.evals._matchers``); ``arg_overrides`` may also map a tool name to
      ``{argument: acceptable value or matcher}``, replacing the expected values.
    - ``schema``: OpenAI tool schemas; a generated call then also has to keep to its
      tool's schema (declared parameters only, required ones present, BFCL's Python
      type rules), or it pairs with nothing. Only the schemas of called tools that are
      also expected are read (as BFCL reads only the expected function's doc); a
      config's fixed ``schema`` is checked whole when the config loads.

    Names always have to be equal. Unknown modes raise ValueError, and so does a bad
    matcher; an expected side that cannot be read whole (a call without a name) scores
    0.0 with the reason. The details carry call precision/recall/F1 and per-call
    argument agreement.

    >>> A = lambda **kw: {"name": "A", "arguments": kw}
    >>> r = tool_call_match([A(x=1), A(x=1, y=2)], [A(x=1, y=2), A(x=1)],
    ...                     order="unordered", args="subset")
    >>> r.score, r.details.call_f1
    (1.0, 1.0)
    >>> r = tool_call_match([A(x=1)], [A(x=1.0), A(y=2)], order="subset", numbers="numeric")
    >>> r.score, round(r.details.call_recall, 2)
    (1.0, 0.5)
    >>> tool_call_match([A(x="paris")], [A(x={"$any": ["Paris", "paris"]})]).score
    1.0
    """
    if order not in ORDER_MODES or numbers not in NUMBER_MODES or args not in ARG_MODES:
        _check_mode("order", order, ORDER_MODES)
        _check_mode("numbers", numbers, NUMBER_MODES)
        _check_mode("args", args, ARG_MODES)
    numeric = numbers == "numeric"
    per_tool, values = _rules(arg_overrides)
    if type(schema) is not list and schema == "row":
        raise ValueError("schema='row' needs the row's tools: pass them as schema=[...]")
    modes = (order, args, numbers)
    notes: list[str] = []
    gen = collect_calls(generated, notes, "generated")
    try:
        exp = expected_calls(expected, values)
    except UnusableGroundTruth as exc:
        return tool_match_result(0.0, str(exc), (len(gen), 0, 0), [], notes, modes)
    broken = [None] * len(gen) if schema is None else schema_problems(schema, gen, exp)
    # Each same-named pair is diagnosed once: the rule reads the diagnosis, the report too.
    diagnosed: dict[tuple[int, int], dict[str, Any]] = {}
    fit: list[list[int]] = []  # by generated call, the expected calls it fits
    for i, g in enumerate(gen):
        row = []
        name, problem = g.name, broken[i]
        for j, e in enumerate(exp):
            if name == e.name:
                d = diagnosed[i, j] = diagnose(j, e, i, g, False, numeric)
                rule = per_tool.get(name, args)  # a user's rule reads the arguments as written
                if problem is None and (
                    fits(rule, d) if isinstance(rule, str) else rule(g.args, e.args)
                ):
                    row.append(j)
        fit.append(row)
    partner = pair(fit, len(exp), order == "strict")
    k, n_gen, n_exp = len(partner), len(gen), len(exp)
    if order == "subset":
        passed, side = k == n_gen, "generated_index"
    elif order == "superset":
        passed, side = k == n_exp, "expected_index"
    else:
        passed, side = k == n_gen == n_exp, None
    calls = diagnostics(gen, exp, partner, fit, diagnosed)
    for d in calls:  # a call breaking its tool's schema pairs with nothing: say why
        problem = None if d["generated_index"] is None else broken[d["generated_index"]]
        if problem is not None:
            d["note"] = "; ".join(filter(None, (d["note"], f"schema: {problem}")))
    reason = f"{order}: {k} of {n_exp} expected and {k} of {n_gen} generated calls paired"
    if not passed:  # the first failure on the side the mode checks
        failed = [d for d in calls if not (d["matched"] or (side and d[side] is None))]
        if failed:
            reason += "; " + describe(failed[0], exp, gen)
    return tool_match_result(float(passed), reason, (n_gen, n_exp, k), calls, notes, modes)


# Deprecated wrappers kept for reward-kit's names: each only delegates to
# ``exact_tool_match_reward`` and warns.
def _deprecated(name: str, ignored: str) -> Callable[..., ToolMatchResult]:
    def reward(messages: Any, ground_truth: Any = None, **_: Any) -> ToolMatchResult:
        warnings.warn(
            f"{name} is deprecated and only delegates to exact_tool_match_reward; "
            "call exact_tool_match_reward directly",
            DeprecationWarning,
            stacklevel=2,
        )
        return exact_tool_match_reward(messages, ground_truth)

    reward.__name__ = reward.__qualname__ = name
    reward.__doc__ = f"""Deprecated: ``exact_tool_match_reward``; {ignored} are ignored.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = {name}([{{"role": "assistant", "content": None}}], None, model="x")
    >>> r.score, caught[0].category.__name__
    (1.0, 'DeprecationWarning')
    """
    return reward


schema_jaccard_reward = _deprecated("schema_jaccard_reward", "old extra keyword arguments")
llm_judge_reward = _deprecated("llm_judge_reward", "no model is called; extra keyword arguments")
composite_function_call_reward = _deprecated(
    "composite_function_call_reward", "old weights and keyword arguments"
)

"""Tool-call rewards: the reference's exact match, and a configurable matcher.

``exact_tool_match_reward`` keeps reward-kit's semantics (last message is the
generation; same count, order, names and JSON-identical arguments), minus its
crash on ``content: null``. ``tool_call_match`` adds order/argument/number modes
and partial-credit diagnostics. Both accept OpenAI dicts, LangChain messages
and agentloop Trajectories.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache, partial
from typing import Any

from ._arg_rules import Override, check_mode, expected_calls, rules, schema_problems
from ._as_written import as_written_rule
from ._call_pairing import (
    diagnostics,
    failure_reason,
    paired_at_once,
    paired_by_rules,
    pass_diagnostics,
)
from ._calls import (
    Call,
    calls_from_items,
    calls_from_message,
    collect_calls,
    last_message_calls,
)
from ._compare import ARG_MODES, diagnose, values_equal
from ._messages import is_message, is_trajectory
from ._report import ToolMatchResult, describe, equal_pair, make_result, not_expected
from ._schema import match_function_call

__all__ = [
    "ARG_MODES",
    "NUMBER_MODES",
    "ORDER_MODES",
    "exact_tool_match_reward",
    "match_function_call",
    "tool_call_match",
]

ORDER_MODES = ("strict", "unordered", "subset", "superset")
NUMBER_MODES = ("exact", "numeric")
_AS_WRITTEN = {numeric: as_written_rule(numeric) for numeric in (False, True)}


def _ground_truth_calls(ground_truth: Any, notes: list[str]) -> list[Call] | str:
    """Expected calls, or a string saying why the ground truth is unusable."""
    if ground_truth is None:
        return []
    if isinstance(ground_truth, str):
        try:
            ground_truth = json.loads(ground_truth)
        except (ValueError, RecursionError):
            return f"Ground truth is a string that is not JSON: {ground_truth[:100]!r}"
    if type(ground_truth) is not dict and not isinstance(ground_truth, Mapping):
        return f"Ground truth is a {type(ground_truth).__name__}, not a dict"
    return calls_from_items(ground_truth.get("tool_calls"), notes, "ground truth")


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
    exactly when no call was made. ``ground_truth`` may be a JSON string.

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
            return make_result(0.0, "No messages provided for evaluation.", [], [], 0, [], notes)
        generated = last_message_calls(messages, notes)
    elif is_message(messages):
        generated = calls_from_message(messages, notes, "message")
    else:
        reason = f"messages is a {type(messages).__name__}, not a message list or trajectory"
        return make_result(0.0, reason, [], [], 0, [], notes)
    expected = _ground_truth_calls(ground_truth, notes)
    if isinstance(expected, str):
        return make_result(0.0, expected, generated, [], 0, [], notes)

    calls = []
    matched = 0
    n, m = len(generated), len(expected)
    for i in range(max(n, m)):
        g = generated[i] if i < n else None
        e = expected[i] if i < m else None
        ok = g is not None and e is not None and g.name == e.name and values_equal(g.args, e.args)
        if ok:  # equal pair: nothing to diff
            matched += 1
            calls.append(equal_pair(i, g.name))  # type: ignore[union-attr]
        else:
            calls.append(
                diagnose(
                    i if e is not None else None, e, i if g is not None else None, g, ok, False
                )
            )
    if n == m and matched == n:
        reason = f"all {n} tool call(s) match" if n else "no tool calls expected and none made"
        return make_result(1.0, reason, generated, expected, matched, calls, notes)
    first = next(d for d in calls if not d["matched"])
    prefix = f"expected {m} tool call(s), got {n}; " if n != m else ""
    reason = prefix + describe(first, expected, generated)
    return make_result(0.0, reason, generated, expected, matched, calls, notes)


@lru_cache(maxsize=1024)  # formatting four numbers costs more than the lookup
def _paired(order: str, k: int, n_exp: int, n_gen: int) -> str:
    return f"{order}: {k} of {n_exp} expected and {k} of {n_gen} generated calls paired"


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

    Names always have to be equal. Unknown modes raise ValueError. The details
    carry call precision/recall/F1 and per-call argument agreement.

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
    if order not in ORDER_MODES:
        check_mode("order", order, ORDER_MODES)
    if numbers not in NUMBER_MODES:
        check_mode("numbers", numbers, NUMBER_MODES)
    numeric = numbers == "numeric"
    default_rule, per_tool, values = rules(args, numeric, arg_overrides)
    notes: list[str] = []
    gen = collect_calls(generated, notes, "generated")
    exp = collect_calls(expected, notes, "expected")
    modes = (order, args, numbers)
    plain = args == "exact"
    as_written = plain and not per_tool and not values  # compiled only if a call does not pair
    if not as_written:
        exp = expected_calls(exp, values)
    rule = _AS_WRITTEN[numeric] if as_written else default_rule
    broken = schema_problems(schema, gen, exp)

    partner = paired_at_once(gen, exp, broken, rule, per_tool, order == "strict")
    if partner is not None:  # every call paired: the common case, no comparison to report
        n = len(gen)
        reason = _paired(order, n, n, n)
        diagnosed = partial(pass_diagnostics, gen, exp, partner, plain, per_tool, numeric)
        return make_result(1.0, reason, gen, exp, n, diagnosed, notes, modes)

    if not exp:  # calls made, none expected (an irrelevance row): nothing to pair
        passed = not gen or order == "superset"
        reason = _paired(order, 0, 0, len(gen))
        if not passed:  # what failure_reason says: the first call, not expected
            reason += "; " + not_expected(0, gen[0].name)
        diagnosed = partial(diagnostics, gen, exp, {}, None, plain, per_tool, numeric)
        return make_result(1.0 if passed else 0.0, reason, gen, exp, 0, diagnosed, notes, modes)

    if as_written:
        exp = expected_calls(exp, values)
    partners, ok = paired_by_rules(gen, exp, broken, default_rule, per_tool, order)
    k = len(partners)
    if order == "subset":
        passed = k == len(gen)
    elif order == "superset":
        passed = k == len(exp)
    else:
        passed = k == len(gen) == len(exp)
    calls = diagnostics(gen, exp, partners, ok, plain, per_tool, numeric)
    if broken is not None:
        for d in calls:
            problem = None if d["generated_index"] is None else broken[d["generated_index"]]
            if problem is not None:
                d["note"] = "; ".join(filter(None, (d["note"], f"schema: {problem}")))
    reason = _paired(order, k, len(exp), len(gen))
    if not passed:
        reason = failure_reason(reason, order, calls, exp, gen)
    return make_result(1.0 if passed else 0.0, reason, gen, exp, k, calls, notes, modes)

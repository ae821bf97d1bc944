"""The tools a row binds, as far as the dataset and the config say before the run, and the two
checks that need them before the first sample:

- an expected call (``ground_truth``) to a tool the row never binds can never be matched (a
  tool-call reward scores it 0 every time, whatever the model does): a warning naming the
  rows, whichever rewards are configured (``agentloop score`` may add one), not in ``mode:
  score`` (recorded replies may call any tool); the run goes on;
- ``tool_call_match: {schema: row}`` on rows without tool schemas of their own: an error
  (every such sample's reward would fail);
- ``tool_call_match`` or ``exact_tool_match_reward`` on rows whose ground truth has
  ``turns``: an error (they compare one list of calls; the turns are scored by the
  environment rewards).

What a row binds (``ToolSet.for_sample``, ``turn_plan``): a row with tool schemas of its own
binds those and the tools its later turns name or add, and nothing else; a row without binds
every configured tool, the environment's and what its later turns add. The second is known
here only when every configured tool is named by an import path: a factory, an MCP server or
an environment may give each row other tools, known when the sample runs, so such rows are
not checked. The scan of the dataset collects what the rows say (``RowTools``); the check
(``check_row_tools``) adds what the config binds.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentloop._tool_calls import read_call
from agentloop.errors import ConfigError
from agentloop.harness.config._loading import blame
from agentloop.harness.data._rows import Sample

if TYPE_CHECKING:
    from agentloop.evals import RewardSpec
    from agentloop.harness.config._fields import EvalConfig

__all__ = ["RowTools", "check_row_tools"]

_SHOWN = 5  # rows named in a message, the first in file order
_ONE_CALL_LIST = frozenset({"tool_call_match", "exact_tool_match_reward"})


@dataclass(slots=True)
class _Rows:
    """Some rows: how many, and the first few as (line, id)."""

    count: int = 0
    first: list[tuple[int, str]] = field(default_factory=list)

    def add(self, sample: Sample) -> None:
        self.count += 1
        if len(self.first) < _SHOWN:
            self.first.append((sample.line, sample.id))


def _expected_names(truth: Any) -> set[str]:
    """Names of the ground truth's calls: ``tool_calls`` and each turn's."""
    if not isinstance(truth, dict):
        return set()
    lists = [truth.get("tool_calls")]
    turns = truth.get("turns")
    if isinstance(turns, list):
        lists += [t.get("tool_calls") for t in turns if isinstance(t, dict)]
    return {
        name
        for calls in lists
        if isinstance(calls, list)
        for name in (read_call(call).name for call in calls)
        if name
    }


@dataclass(slots=True)
class RowTools:
    """What the dataset's rows say about their tools, gathered while it is scanned (by groups
    of rows, never row by row: a dataset is streamed, not held)."""

    without_schemas: _Rows = field(default_factory=_Rows)
    """Rows with no tool schemas of their own: they bind the config's tools."""
    multi_turn: _Rows = field(default_factory=_Rows)
    """Rows whose ground truth has ``turns`` and no top-level ``tool_calls``."""
    unbound: dict[tuple[bool, frozenset[str], frozenset[str]], _Rows] = field(default_factory=dict)
    """Rows expecting calls the row itself does not bind, grouped by (the row has schemas of
    its own, the names the row binds itself, the names it expects beyond those)."""

    def add(self, sample: Sample) -> None:
        """Note one valid row."""
        if not sample.tools:
            self.without_schemas.add(sample)
        truth = sample.ground_truth
        if isinstance(truth, dict) and "turns" in truth and "tool_calls" not in truth:
            self.multi_turn.add(sample)
        expected = _expected_names(sample.ground_truth)
        if not expected:
            return
        own = frozenset(sample.tool_names) | frozenset(sample.later_tool_names)
        missing = frozenset(expected - own)
        if missing:
            key = (bool(sample.tools), own, missing)
            self.unbound.setdefault(key, _Rows()).add(sample)


def _rows_text(rows: list[tuple[int, str, str]], count: int) -> str:
    shown = ", ".join(f"{sample_id}{what}" for _, sample_id, what in sorted(rows)[:_SHOWN])
    return shown + (f" and {count - _SHOWN} more" if count > _SHOWN else "")


def _schema_row_rewards(rewards: Sequence[RewardSpec]) -> list[str]:
    return [
        s.key for s in rewards if s.name == "tool_call_match" and s.params.get("schema") == "row"
    ]


def check_row_tools(
    config: EvalConfig,
    found: RowTools,
    rewards: Sequence[RewardSpec],
    configured: list[str],
    source: str = "config",
) -> list[str]:
    """The warnings of the rows' ground truth against the tools they bind (see the module
    doc); ``ConfigError`` (one line) when ``tool_call_match: {schema: row}`` meets rows
    without schemas. ``configured``: the names of the configured tools (``ToolSet.names``)."""
    if (keys := _schema_row_rewards(rewards)) and found.without_schemas.count:
        rows = found.without_schemas
        ids = _rows_text([(line, sid, "") for line, sid in rows.first], rows.count)
        problem = (
            f"rewards: {keys[0]}: schema: row reads each row's own tool schemas, but "
            f"{rows.count} row(s) have none (they use the config's tools): {ids}; give "
            "tool_call_match the schemas (schema: [...]) or remove schema"
        )
        raise ConfigError(blame(config, problem, source))
    one_list = [s.key for s in rewards if s.name in _ONE_CALL_LIST]
    if one_list and found.multi_turn.count:
        rows = found.multi_turn
        ids = _rows_text([(line, sid, "") for line, sid in rows.first], rows.count)
        problem = (
            f"rewards: {one_list[0]} compares one list of calls, but {rows.count} row(s) have "
            f"a ground truth in turns: {ids}; score them with env_state_match / "
            "env_response_match"
        )
        raise ConfigError(blame(config, problem, source))
    if config.mode == "score":
        return []  # recorded replies may have called any tool
    varying = config.environment is not None or any(
        isinstance(t, dict) and ("factory" in t or "mcp" in t) for t in config.tools
    )
    listed: list[tuple[int, str, str]] = []
    count = 0
    for (has_schemas, own, missing), rows in found.unbound.items():
        if not has_schemas and varying:
            continue  # the row's tools are known when it runs
        never = missing if has_schemas else missing - set(configured)
        if not never:
            continue
        bound = sorted(own if has_schemas else own | set(configured))
        what = " (" + ", ".join(_named(n, bound) for n in sorted(never)) + ")"
        count += rows.count
        listed += [(line, sid, what) for line, sid in rows.first]
    if not count:
        return []
    return [
        f"ground_truth: {count} row(s) expect a call to a tool the row does not bind, which "
        f"no reply can match: {_rows_text(listed, count)}"
    ]


def _named(name: str, bound: list[str]) -> str:
    close = difflib.get_close_matches(name, bound, n=1)
    return f"{name!r}, did you mean {close[0]!r}?" if close else repr(name)

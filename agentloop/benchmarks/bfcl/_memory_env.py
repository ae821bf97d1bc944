"""One BFCL memory entry as an agentloop environment: BFCL's backend instance, opened from
the scenario's :class:`~agentloop.benchmarks.bfcl._memory.MemoryChain`, its methods as
tools (schemas from ``multi_turn_func_doc/memory_<backend>.json`` as BFCL sends them to
an OpenAI function-calling model), and the first messages as BFCL's handler builds them.

A call runs as in the multi-turn environment (``call_bfcl_method``): the text BFCL's
executor records. Its arguments first go through what BFCL's executor does to a call's
text before evaluating it (``_process_method_calls``): a regular expression meant for the
call's name also matches inside string arguments, so ``range (0.5)`` is stored as
``range(0.5)`` and ``memory_append (x)`` as ``memory.memory_append(x)``. Applied to each
argument's ``repr`` and read back, it gives exactly the values BFCL's ``eval`` passes,
without evaluating anything. :meth:`MemoryEnvironment.finish` writes a prerequisite's memory back
at the end of its conversation, as BFCL's handler does; a question's is dropped.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool

from agentloop.benchmarks.bfcl._convert import openai_tools
from agentloop.benchmarks.bfcl._env import (
    _public_state,
    bfcl_func_docs,
    bfcl_methods,
    call_bfcl_method,
    schema_tool,
)
from agentloop.benchmarks.bfcl._memory import (
    MemoryChain,
    answer_format_prompt,
    memory_system_prompt,
)
from agentloop.errors import ConfigError, DatasetError

__all__ = ["MemoryEnvironment", "bfcl_memory_environment"]


def _first_non_finite(value: Any) -> str | None:
    """``inf`` or ``nan``, as the first non-finite float in ``value`` reads in a ``repr``."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf"
    items = value.values() if isinstance(value, dict) else value
    if isinstance(value, (list, tuple, dict)):
        for item in items:
            if (found := _first_non_finite(item)) is not None:
                return found
    return None


class MemoryEnvironment:
    """One memory entry (a prerequisite conversation or a question) on its chain."""

    def __init__(self, chain: MemoryChain, entry: dict[str, Any]) -> None:
        self.chain = chain
        self.entry = entry
        self.instance = chain.open(entry)  # refused unless its prerequisites are written
        self.methods = bfcl_methods({"memory": self.instance})
        self._schemas = [
            tool["function"] for tool in openai_tools(bfcl_func_docs(f"{chain.category}.json"))
        ]

    def first_messages(self) -> list[dict[str, Any]]:
        """The first turn as BFCL sends it: the memory system prompt (with the memory as
        it is now; for a question, BFCL's answer format after it), then the user's."""
        system = memory_system_prompt(self.chain.category, self.entry["scenario"], self.instance)
        if "_prereq_" not in self.entry["id"]:
            system = system + "\n\n" + answer_format_prompt()
        return [{"role": "system", "content": system}, *self.entry["question"][0]]

    def later_turns(self) -> list[list[dict[str, Any]]]:
        """The user messages of turns 2..N (prerequisite conversations only)."""
        turns: list[list[dict[str, Any]]] = self.entry["question"][1:]
        return turns

    def tools(self) -> list[BaseTool]:
        """One tool per documented method; all share this entry's backend instance."""
        return [schema_tool(schema, self.call) for schema in self._schemas]

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """One call as BFCL's executor runs it on the memory; the text it records."""
        if (bad := _first_non_finite(list(arguments.values()))) is not None:
            # BFCL's text of the call holds ``inf`` or ``nan``: its eval fails on the name
            return f"Error during execution: name '{bad}' is not defined"
        return call_bfcl_method(self.methods, name, self._as_bfcl_passes(arguments))

    def _as_bfcl_passes(self, arguments: dict[str, Any]) -> dict[str, Any]:
        from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
            _process_method_calls,
        )

        mapping = dict.fromkeys(self.methods, "memory")
        return {
            key: ast.literal_eval(_process_method_calls(repr(value), mapping))
            for key, value in arguments.items()
        }

    def snapshot(self) -> dict[str, Any]:
        """The backend's public state (the memory), JSON-able."""
        return _public_state(self.instance)

    def finish(self) -> None:
        """End of the conversation: a prerequisite's memory is written back."""
        self.chain.write_back(self.entry, self.instance)


def bfcl_memory_environment(
    row: Mapping[str, Any], epoch: int, state_dir: Path | None
) -> MemoryEnvironment:
    """The environment factory of the memory configs (``environment:
    agentloop.benchmarks:bfcl_memory_environment``): the row's entry on its scenario's
    chain, kept in the run directory (``state_dir``), one chain per epoch."""
    spec = row.get("environment")
    if not isinstance(spec, Mapping) or not {"category", "scenario"} <= set(spec):
        raise DatasetError(
            f"row {row.get('id')!r}: environment: expected a BFCL memory entry "
            "(category and scenario; dataset: bfcl:memory_kv, memory_vector or memory_rec_sum)"
        )
    if state_dir is None:
        raise ConfigError(
            "bfcl memory: its memory lives in the run directory; run it with executor: local"
        )
    chain = MemoryChain(Path(state_dir) / f"bfcl_{spec['category']}_epoch{epoch}", spec["category"])
    turns = [turn.get("messages") or [] for turn in row.get("turns") or []]
    entry = {
        "id": row["id"],
        "scenario": spec["scenario"],
        "depends_on": list(row.get("depends_on") or []),
        "question": [row["messages"], *turns],
    }
    return MemoryEnvironment(chain, entry)

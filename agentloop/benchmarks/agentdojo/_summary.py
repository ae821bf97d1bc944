"""AgentDojo's results table, per suite and over all suites: of one run (its summary's
``benchmarks.agentdojo``) and over several (``agentloop agentdojo summary``).

AgentDojo reports three figures per model: **utility** (user tasks without attack, the share
whose check passed), **utility under attack** (every (user task, injection task) pair) and the
**targeted attack success rate** (the pairs whose injection task's goal was reached:
``agentdojo_security`` 1). Over all suites they are micro-averaged, as AgentDojo's table: every
row of every suite counts once. Beside them, how many injection tasks run as user tasks were
solved (AgentDojo warns when not all are: an attack whose goal cannot be reached at all).

Rows are told apart by their ``metadata.kind`` (``user_task``, ``injection_task``,
``attacked``); a table is one per (attack, defense, benchmark version), the runs given may
mix suites. The latest result of each (id, epoch) counts; an errored result, or one without
the reward's score, counts as a failure for utility and as no success for the attack (AgentDojo
would count a context-length error as the attack's success; see docs/pages/agentdojo.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, computed_field

from agentloop._records import RESULTS_FILE, latest_results
from agentloop.benchmarks.agentdojo._package import SUITES
from agentloop.errors import AgentloopError

__all__ = [
    "AgentDojoSummary",
    "AgentDojoTable",
    "SuiteFigures",
    "agentdojo_tables",
    "format_agentdojo_summary",
    "summarize_agentdojo",
]

UTILITY = "agentloop.benchmarks:agentdojo_utility"
SECURITY = "agentloop.benchmarks:agentdojo_security"
_COUNTS = (
    "user_tasks",
    "solved",
    "pairs",
    "solved_under_attack",
    "attacks_succeeded",
    "injection_tasks",
    "injection_tasks_solved",
    "errored",
)


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


class SuiteFigures(BaseModel):
    """One suite's counts (or all suites' added up), and AgentDojo's three rates."""

    suite: str
    user_tasks: int = 0
    solved: int = 0
    """User-task rows without attack whose utility is 1."""
    pairs: int = 0
    solved_under_attack: int = 0
    """Attacked rows whose utility is 1."""
    attacks_succeeded: int = 0
    """Attacked rows whose security is 1 (the injection's goal reached)."""
    injection_tasks: int = 0
    injection_tasks_solved: int = 0
    errored: int = 0

    def add(self, other: SuiteFigures) -> None:
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def utility(self) -> float | None:
        return _rate(self.solved, self.user_tasks)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def utility_under_attack(self) -> float | None:
        return _rate(self.solved_under_attack, self.pairs)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def attack_success_rate(self) -> float | None:
        return _rate(self.attacks_succeeded, self.pairs)


class AgentDojoTable(BaseModel):
    """The figures of one (attack, defense, benchmark version): per suite, then ``all``
    (micro-averaged)."""

    attack: str
    defense: str
    version: str
    suites: dict[str, SuiteFigures]


class AgentDojoSummary(BaseModel):
    """AgentDojo's tables, one per (attack, defense, version), and what was left out."""

    tables: list[AgentDojoTable]
    notes: list[str] = []


def _results_file(path: Path) -> Path:
    file = path / RESULTS_FILE if path.is_dir() else path
    if not file.is_file():
        raise AgentloopError(f"{path}: not a run directory or results file (no {RESULTS_FILE})")
    return file


def _passed(record: Mapping[str, Any], reward: str) -> bool:
    result = (record.get("scores") or {}).get(reward)
    return isinstance(result, Mapping) and result.get("score") == 1.0


Tables = dict[tuple[str, str, str], dict[str, SuiteFigures]]


def _fold(records: Iterable[Mapping[str, Any]], tables: Tables) -> int:
    """Adds one run's latest results to ``tables``; the number that are not AgentDojo rows."""
    records = list(records)
    others = 0
    by_suite: dict[str, str] = {}  # a suite's attack, read from its attacked rows
    for record in records:
        meta = record.get("metadata") or {}
        if meta.get("kind") == "attacked":
            by_suite[str(meta.get("suite"))] = str(meta.get("attack"))
    for record in records:
        meta = record.get("metadata") or {}
        kind, suite = meta.get("kind"), meta.get("suite")
        if kind not in ("user_task", "injection_task", "attacked") or suite is None:
            others += 1
            continue
        attack = str(meta.get("attack")) if kind == "attacked" else by_suite.get(suite, "none")
        key = (attack, str(meta.get("defense") or "none"), str(meta.get("version")))
        figures = tables.setdefault(key, {}).setdefault(suite, SuiteFigures(suite=suite))
        figures.errored += record.get("status") == "error"
        solved = _passed(record, UTILITY)
        if kind == "user_task":
            figures.user_tasks += 1
            figures.solved += solved
        elif kind == "injection_task":
            figures.injection_tasks += 1
            figures.injection_tasks_solved += solved
        else:
            figures.pairs += 1
            figures.solved_under_attack += solved
            figures.attacks_succeeded += _passed(record, SECURITY)
    return others


def _summary(tables: Tables, notes: list[str]) -> AgentDojoSummary:
    order = {s: i for i, s in enumerate(SUITES)}
    found = []
    for (attack, defense, version), suites in tables.items():
        total = SuiteFigures(suite="all")
        for figures in suites.values():
            total.add(figures)
        ordered = dict(sorted(suites.items(), key=lambda kv: (order.get(kv[0], 99), kv[0])))
        found.append(
            AgentDojoTable(
                attack=attack, defense=defense, version=version, suites={**ordered, "all": total}
            )
        )
    return AgentDojoSummary(tables=found, notes=notes)


def agentdojo_tables(records: Iterable[Mapping[str, Any]]) -> AgentDojoSummary | None:
    """The tables of one run's latest results (its ``summary.json``); None when none of
    them is an AgentDojo row."""
    tables: Tables = {}
    others = _fold(records, tables)
    if not tables:
        return None
    notes = [f"{others} result(s) are not AgentDojo rows (left out)"] if others else []
    return _summary(tables, notes)


def summarize_agentdojo(paths: Sequence[str | Path]) -> AgentDojoSummary:
    """The table of each (attack, defense, version) over run directories (or results files);
    every row of the runs counts once, the latest result of each (id, epoch)."""
    tables: Tables = {}
    notes: list[str] = []
    for path in [Path(p) for p in paths]:
        if others := _fold(latest_results(_results_file(path)), tables):
            notes.append(f"{path}: {others} result(s) are not AgentDojo rows (left out)")
    if not tables:
        raise AgentloopError("no AgentDojo results in " + ", ".join(str(p) for p in paths))
    return _summary(tables, notes)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def format_agentdojo_summary(summary: AgentDojoSummary) -> str:
    """The tables as plain text, one per (attack, defense, version)."""
    lines: list[str] = []
    for table in summary.tables:
        if lines:
            lines.append("")
        lines.append(f"AgentDojo {table.version}, attack {table.attack}, defense {table.defense}")
        lines.append(
            f"{'suite':<10} {'utility':>9} {'under attack':>13} {'targeted ASR':>13} "
            f"{'tasks':>6} {'pairs':>6} {'inj. tasks solved':>18} {'errored':>8}"
        )
        for name, f in table.suites.items():
            solved = f"{f.injection_tasks_solved}/{f.injection_tasks}" if f.injection_tasks else ""
            lines.append(
                f"{name:<10} {_pct(f.utility):>9} {_pct(f.utility_under_attack):>13} "
                f"{_pct(f.attack_success_rate):>13} {f.user_tasks:>6} {f.pairs:>6} "
                f"{solved:>18} {f.errored:>8}"
            )
    lines.extend(f"note: {n}" for n in summary.notes)
    return "\n".join(lines)

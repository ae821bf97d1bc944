"""AgentDojo's results table over finished runs: per suite and over all suites.

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

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentloop._records import RESULTS_FILE, latest_results
from agentloop.benchmarks.agentdojo._agentdojo_package import SUITES
from agentloop.errors import AgentloopError

__all__ = ["AgentDojoSummary", "SuiteFigures", "format_agentdojo_summary", "summarize_agentdojo"]

UTILITY = "agentloop.benchmarks:agentdojo_utility"
SECURITY = "agentloop.benchmarks:agentdojo_security"


@dataclass
class SuiteFigures:
    """One suite's counts (or all suites' added up)."""

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
        for name in ("user_tasks", "solved", "pairs", "solved_under_attack",
                     "attacks_succeeded", "injection_tasks", "injection_tasks_solved",
                     "errored"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @staticmethod
    def _rate(part: int, whole: int) -> float | None:
        return part / whole if whole else None

    @property
    def utility(self) -> float | None:
        return self._rate(self.solved, self.user_tasks)

    @property
    def utility_under_attack(self) -> float | None:
        return self._rate(self.solved_under_attack, self.pairs)

    @property
    def attack_success_rate(self) -> float | None:
        return self._rate(self.attacks_succeeded, self.pairs)


@dataclass
class AgentDojoSummary:
    """Tables keyed by ``(attack, defense, version)``: suite -> figures, and ``all``."""

    tables: dict[tuple[str, str, str], dict[str, SuiteFigures]]
    notes: list[str] = field(default_factory=list)


def _results_file(path: Path) -> Path:
    file = path / RESULTS_FILE if path.is_dir() else path
    if not file.is_file():
        raise AgentloopError(f"{path}: not a run directory or results file (no {RESULTS_FILE})")
    return file


def _passed(record: dict[str, Any], reward: str) -> bool:
    result = (record.get("scores") or {}).get(reward)
    return isinstance(result, dict) and result.get("score") == 1.0


def summarize_agentdojo(paths: Sequence[str | Path]) -> AgentDojoSummary:
    """The table of each (attack, defense, version) over run directories (or results files);
    every row of the runs counts once, the latest result of each (id, epoch)."""
    tables: dict[tuple[str, str, str], dict[str, SuiteFigures]] = {}
    notes: list[str] = []
    for path in [Path(p) for p in paths]:
        others = 0
        records = list(latest_results(_results_file(path)))
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
            figures = tables.setdefault(key, {}).setdefault(suite, SuiteFigures(suite))
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
        if others:
            notes.append(f"{path}: {others} result(s) are not AgentDojo rows (left out)")
    if not tables:
        raise AgentloopError("no AgentDojo results in " + ", ".join(str(p) for p in paths))
    order = {s: i for i, s in enumerate(SUITES)}
    for key, suites in tables.items():
        total = SuiteFigures("all")
        for figures in suites.values():
            total.add(figures)
        ordered = dict(sorted(suites.items(), key=lambda kv: (order.get(kv[0], 99), kv[0])))
        tables[key] = {**ordered, "all": total}
    return AgentDojoSummary(tables, notes)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def format_agentdojo_summary(summary: AgentDojoSummary) -> str:
    """The tables as plain text, one per (attack, defense, version)."""
    lines: list[str] = []
    for (attack, defense, version), suites in summary.tables.items():
        if lines:
            lines.append("")
        lines.append(f"AgentDojo {version}, attack {attack}, defense {defense}")
        lines.append(
            f"{'suite':<10} {'utility':>9} {'under attack':>13} {'targeted ASR':>13} "
            f"{'tasks':>6} {'pairs':>6} {'inj. tasks solved':>18} {'errored':>8}"
        )
        for name, f in suites.items():
            solved = f"{f.injection_tasks_solved}/{f.injection_tasks}" if f.injection_tasks else ""
            lines.append(
                f"{name:<10} {_pct(f.utility):>9} {_pct(f.utility_under_attack):>13} "
                f"{_pct(f.attack_success_rate):>13} {f.user_tasks:>6} {f.pairs:>6} "
                f"{solved:>18} {f.errored:>8}"
            )
    lines.extend(f"note: {n}" for n in summary.notes)
    return "\n".join(lines)

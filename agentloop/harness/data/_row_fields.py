"""The row fields a run reads, checked before the first sample:

- a top-level field that is not a row field (``answers`` for ``answer``) is read by nothing:
  no reward, tool factory or template sees it (they get the row as ``ROW_FIELDS``). A
  warning names it, its rows and the row field it is closest to;
- a reward that cannot score without a field (its entry's ``needs``: ``answer`` for the QA
  rewards, ``ground_truth`` for the tool-call ones) when no row has that field would score
  0 on every sample: a config error. When only some rows lack it, a warning.

The dataset scan gathers what the rows hold (``RowFields``), by field, never row by row.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agentloop.errors import ConfigError
from agentloop.harness.config._loading import blame
from agentloop.harness.data._rows import ROW_FIELDS, Sample

if TYPE_CHECKING:
    from agentloop.evals import RewardSpec
    from agentloop.harness.config._fields import EvalConfig

__all__ = ["RowFields", "check_row_fields"]

_SHOWN = 3  # line numbers named in a message


@dataclass(slots=True)
class _Seen:
    count: int = 0
    lines: list[int] = field(default_factory=list)

    def add(self, line: int) -> None:
        self.count += 1
        if len(self.lines) < _SHOWN:
            self.lines.append(line)

    def where(self) -> str:
        lines = ", ".join(map(str, self.lines))
        more = f" and {self.count - len(self.lines)} more" if self.count > len(self.lines) else ""
        return f"{self.count} row(s) (line {lines}{more})"


@dataclass(slots=True)
class RowFields:
    """Which fields the dataset's valid rows have: the row fields that rewards may need,
    and the fields nothing reads."""

    rows: int = 0
    lacking: dict[str, _Seen] = field(default_factory=dict)
    """Row field -> the rows without it (``answer`` and ``ground_truth`` only)."""
    unread: dict[str, _Seen] = field(default_factory=dict)
    """Unread top-level field -> the rows that have it."""
    dependent: int = 0
    """Rows with a ``depends_on``: the run then orders them (``_dependencies``)."""

    def add(self, sample: Sample) -> None:
        """Note one valid row."""
        self.rows += 1
        self.dependent += bool(sample.depends_on)
        for name, value in (("answer", sample.answer), ("ground_truth", sample.ground_truth)):
            if value is None:
                self.lacking.setdefault(name, _Seen()).add(sample.line)
        for name in sample.unread:
            self.unread.setdefault(name, _Seen()).add(sample.line)

    def without(self, name: str) -> int:
        """How many rows lack the row field ``name``."""
        seen = self.lacking.get(name)
        return seen.count if seen else 0


def _close(name: str) -> str:
    match = difflib.get_close_matches(name, ROW_FIELDS, n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


def check_row_fields(
    config: EvalConfig, found: RowFields, rewards: Sequence[RewardSpec], source: str = "config"
) -> list[str]:
    """The warnings of the rows' fields against what the run reads (see the module doc);
    ``ConfigError`` (one line) when a reward needs a field that no row has."""
    dataset = config.dataset
    warnings = [
        f"{dataset}: field {name!r} in {seen.where()} is not a row field, and nothing reads "
        f"it{_close(name)} (row fields: {', '.join(ROW_FIELDS)}; keep your own in metadata)"
        for name, seen in found.unread.items()
    ]
    for spec in rewards:
        for name in sorted(spec.entry.needs if spec.entry else ()):
            lacking = found.lacking.get(name)
            if lacking is None or not found.rows:
                continue
            if lacking.count == found.rows:
                unread = [n for n in found.unread if _close(n).endswith(f"{name!r}?")]
                hint = f" (the rows have {unread[0]!r})" if unread else ""
                problem = (
                    f"rewards: {spec.key} scores each row against its {name!r}, but no row of "
                    f"{dataset} has one{hint}: every sample would score 0"
                )
                raise ConfigError(blame(config, problem, source))
            warnings.append(
                f"{dataset}: {lacking.where()} have no {name!r}: {spec.key} scores them 0"
            )
    return warnings

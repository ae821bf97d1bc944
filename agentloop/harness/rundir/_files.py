"""Run directories and their files, written so that a killed run loses nothing finished.

A run directory ``<output_dir>/<YYYYmmdd-HHMMSS>-<name>/`` holds:

``run.json`` — the header, written atomically at the start and again by each resume:
    ``format`` ("agentloop-run/2"; see ``FORMATS``), ``name``, ``created_at`` (ISO 8601, UTC),
    ``config_path``, ``config`` (the effective config; values of secret-named model
    options and params masked), ``model`` (spec), ``model_params`` (masked alike),
    ``pricing`` (``source`` and ``usd_per_million`` of the model's price, see
    ``agentloop.harness.config._pricing``),
    ``versions`` (agentloop, langchain-core, langchain-openai, pydantic, anyio, python),
    ``dataset`` (``path``, ``sha256``, ``valid_rows``, ``invalid_lines`` as
    ``file:line: what``), ``inputs`` (tool module and model files, and a
    ``system_prompt`` file: name -> ``{file, sha256}``, see ``agentloop.harness.config._inputs``),
    ``planned`` (``samples``, ``epochs``, ``results``) and ``resumed_at`` (one ``{at,
    pid}`` per resume, with ``allowed_changes`` (name -> ``{was, now}``) when
    ``--allow-changed`` let changed inputs through, and ``retry_errors`` (errored pairs
    run again) with ``--retry-errors``; runs written before that hold plain timestamps).

``writer.lock`` — locked (``flock``) by the one process writing the run; holds its pid.

``results.jsonl`` — one JSON object per finished (sample, epoch), appended and
flushed as each sample finishes, in completion order. Nothing is rewritten: a retried
errored pair (``--retry-errors``) gets a new line, and the latest line of a pair is
its result (``agentloop._records.latest_results``, which every reader uses):
    ``id`` (str), ``epoch`` (int, 1-based), ``status`` ("ok" | "error"),
    ``error`` (str | null), ``error_kind`` ("model" | "user_model" (a simulated user's
    model failed) | "agent" (the config's ``agent:`` or its factory raised) | "dataset" (a
    row the config cannot run) | "dependency" (not run: a row in its ``depends_on`` ended
    in error) | "crash" | "reward" | null), ``agent_notes`` (with
    ``agent:`` only: where the agent's returned messages differ from the record, one line
    each),
    ``mode`` ("generate" | "score"), ``single_turn`` (bool: tools declared by schema
    only, the first reply's calls scored and none executed), ``scores`` (reward key ->
    ``{score, reason, details}``), ``passed`` (reward key -> bool, for rewards with a
    pass threshold), ``reward_errors`` (reward key -> ``Type: message``, for rewards that
    raised: the line is then an error of kind ``reward``, ``error`` names each such
    reward, and ``scores`` keeps the other rewards'; lines written before this field
    have ``scores`` empty on every errored line), ``not_applicable`` (reward key -> why, for
    rewards that returned ``NotApplicable``: not in ``scores``, and left out of that
    reward's figures; absent from lines written before it), ``stop_reason``, ``rounds``,
    ``tool_calls_by_status``, ``usage`` (``input_tokens``, ``output_tokens``,
    ``total_tokens``, ``cached_input_tokens``, ``reasoning_tokens``,
    ``cache_write_input_tokens``, ``cache_write_1h_input_tokens``), ``cost_usd`` (null
    when unknown) and ``cost_unknown`` (why), ``wall_time_s`` (the
    sample's wall time, scoring included), ``started_at`` (ISO 8601), ``answer``,
    ``ground_truth``, ``metadata`` (copied from the row, so a results file can be
    re-scored alone) and, last, ``trajectory`` (``Trajectory.model_dump`` JSON, its
    messages OpenAI chat dicts (``agentloop.engine._wire``), or null when the sample
    crashed before it had one; ``Trajectory.model_validate`` reads it back, in either
    format, line by line).
    A line is written with one ``write`` call ending in a newline, so a kill can only
    leave a torn *last* line without its newline; it is truncated away before a
    resume appends.

``summary.json`` — the statistics (see ``agentloop.harness.stats._summary``), written atomically
(temp file + ``os.replace``) when the run ends, or by ``agentloop summary`` at any time
(``complete: false`` when results are missing). ``agentloop score`` writes
``results.rescored-<ts>.jsonl`` and ``summary.rescored-<ts>.json`` beside them.

Nothing written contains a secret value (``agentloop._secrets``: secret-named variables
of the environment and of ``./.env``): such values become ``***``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from agentloop._records import (
    RESULTS_FILE,
    ResultIndex,
    index_results,
    iter_results,
    latest_results,
    latest_status,
)
from agentloop._secrets import Scrubber
from agentloop.errors import AgentloopError

__all__ = [
    "FORMAT",
    "FORMATS",
    "HEADER_FILE",
    "RESULTS_FILE",
    "SUMMARY_FILE",
    "ResultIndex",
    "ResultWriter",
    "Scrubber",
    "completed_pairs",
    "encode_result",
    "index_results",
    "iter_results",
    "latest_results",
    "latest_status",
    "new_run_dir",
    "read_json",
    "repair_tail",
    "summary_name",
    "utc_now",
    "utf8_safe",
    "write_json_atomic",
]

FORMAT = "agentloop-run/2"
"""What new runs write: trajectory messages as OpenAI chat dicts."""
FORMATS = frozenset({"agentloop-run/1", FORMAT})
"""Run headers read; /1 runs stored LangChain message dumps (a resumed /1 run holds both
formats, which every reader accepts per line)."""
HEADER_FILE = "run.json"
SUMMARY_FILE = "summary.json"


def summary_name(results_name: str) -> str | None:
    """The summary file of a results file: ``summary.json`` for ``results.jsonl``,
    ``summary.<x>.json`` for ``results.<x>.jsonl`` (a re-scored file); None for a file
    named otherwise."""
    if results_name == RESULTS_FILE:
        return SUMMARY_FILE
    match = re.fullmatch(r"results\.(.+)\.jsonl", results_name)
    return f"summary.{match[1]}.json" if match else None


def utc_now() -> str:
    """The current time as ISO 8601 UTC, seconds precision."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def encode_result(record: Mapping[str, Any], trajectory_json: str | None, scrub: Scrubber) -> str:
    """One results line (with its newline): ``record`` plus the trajectory, last.

    The trajectory arrives as pydantic's JSON text and is spliced in unparsed: the
    slow part of writing a result is re-encoding a long conversation.
    """
    head = json.dumps(dict(record), ensure_ascii=False, default=str)
    tail = trajectory_json if trajectory_json is not None else "null"
    line = f'{head[:-1]}, "trajectory": {tail}}}' if head != "{}" else f'{{"trajectory": {tail}}}'
    return utf8_safe(scrub.json_text(line)) + "\n"


_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_safe(text: str) -> str:
    """JSON text with lone surrogates (not UTF-8) written as ``\\uXXXX`` escapes: they
    can only be inside strings, and read back as the same string."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def write_json_atomic(path: Path, data: Any, scrub: Scrubber | None = None) -> None:
    """Write JSON to ``path`` via a temp file and ``os.replace`` (readers never see half)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    if scrub is not None:
        text = scrub.json_text(text)
        text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(text + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from a file; ``AgentloopError`` naming the file when unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AgentloopError(f"{path}: not found") from None
    except (OSError, ValueError) as exc:
        raise AgentloopError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise AgentloopError(f"{path}: expected a JSON object")
    return data


def new_run_dir(output_dir: str | Path, name: str, now: datetime | None = None) -> Path:
    """Create ``output_dir/<timestamp>-<name>`` (suffixed ``-2``, ``-3``... if taken)."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "run"
    base = Path(output_dir)
    base.mkdir(parents=True, exist_ok=True)
    for n in range(1, 1000):
        candidate = base / (f"{stamp}-{safe}" if n == 1 else f"{stamp}-{safe}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise AgentloopError(f"{base}: cannot create a run directory for {safe!r}")


def repair_tail(path: Path) -> int:
    """Truncate a torn last line (no trailing newline); returns the bytes removed."""
    if not path.exists():
        return 0
    with path.open("rb+") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return 0
        # Walk back to the previous newline in blocks.
        end, block = size, 65536
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start)
            cut = chunk.rfind(b"\n")
            if cut != -1:
                keep = start + cut + 1
                handle.truncate(keep)
                return size - keep
            end = start
        handle.truncate(0)
        return size


def completed_pairs(path: Path, *, retry_errors: bool = False) -> set[tuple[str, int]]:
    """The (id, epoch) pairs a resume skips: every pair with a result line, or with
    ``retry_errors`` only those whose latest result is ok."""
    states = latest_status(path)
    return {pair for pair, status in states.items() if not retry_errors or status == "ok"}


class ResultWriter:
    """Appends result lines, each flushed (and optionally fsynced) as it is written."""

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        repair_tail(path)
        self.path = path
        self.fsync = fsync
        self.count = 0
        self._handle: IO[str] | None = path.open("a", encoding="utf-8")

    def write(self, line: str) -> None:
        """Write one encoded line (from ``encode_result``) durably enough to survive a kill."""
        if self._handle is None:
            raise ValueError(f"{self.path}: writer is closed")
        self._handle.write(line)
        self._handle.flush()
        if self.fsync:
            os.fsync(self._handle.fileno())
        self.count += 1

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> ResultWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

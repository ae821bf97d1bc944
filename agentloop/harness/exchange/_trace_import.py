"""OpenTelemetry traces of an agent run elsewhere, scored here (``agentloop import otel``).

Each trace names its sample (``agentloop.sample.id``, or an attribute of the user's choosing) and
holds its agent's model replies (see ``agentloop.harness.rundir._traces``). The replies become a
``scripted:`` file keyed ``ID@EPOCH`` (the simulated user's, where the trace has them, a second
one), and the user's config runs them: its dataset's rows, tools, environment and rewards, the
model and the simulated user replaced by the recorded replies. The tools run again (an
environment's state is rebuilt, not read from the trace), so every reward applies, environment
checks included; a run directory comes out that ``agentloop score`` re-scores with other rewards.
Where the trace recorded tool results, those that differ from the results here are counted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentloop.errors import AgentloopError
from agentloop.harness.config._loading import load_config
from agentloop.harness.data._dataset import iter_samples
from agentloop.harness.run._runner import RunOutcome, run_eval
from agentloop.harness.rundir._files import RESULTS_FILE, latest_results
from agentloop.harness.rundir._genai_spans import SAMPLE_ATTRIBUTE
from agentloop.harness.rundir._otlp_json import read_otlp
from agentloop.harness.rundir._traces import TraceReplies, read_traces

__all__ = ["TraceImport", "import_traces"]


@dataclass
class TraceImport:
    """What ``import_traces`` did."""

    outcome: RunOutcome
    """The run of the recorded replies (its run directory, summary)."""
    imported: int
    """Traces imported (one result each)."""
    refused: list[tuple[str, str]] = field(default_factory=list)
    """(trace id, why) of each trace not imported."""
    tool_results_differ: int = 0
    """Tool results the trace recorded that differ from the ones the tools gave here."""
    tool_results_compared: int = 0


def _literal(sample_id: str) -> str:
    """``sample_id`` as a ``sample_ids`` pattern matching that id alone (globs escaped)."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in sample_id)


def _script(replies: Sequence[TraceReplies], side: str) -> dict[str, list[dict[str, Any]]]:
    return {f"{r.sample_id}@{r.epoch}": list(getattr(r, side)) for r in replies}


def _differences(run_dir: Path, replies: Sequence[TraceReplies]) -> tuple[int, int]:
    recorded = {(r.sample_id, r.epoch): r.tool_results for r in replies if r.tool_results}
    differ = compared = 0
    for line in latest_results(run_dir / RESULTS_FILE):
        expected = recorded.get((str(line.get("id")), int(line.get("epoch") or 1)))
        if not expected:
            continue
        for message in (line.get("trajectory") or {}).get("messages") or []:
            if message.get("role") == "tool" and message.get("tool_call_id") in expected:
                compared += 1
                differ += expected[message["tool_call_id"]] != message.get("content")
    return differ, compared


async def import_traces(
    traces: str | Path,
    outdir: str | Path,
    config_path: str | Path,
    *,
    sets: Sequence[str] = (),
    sample_attribute: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> TraceImport:
    """Run the replies of the traces in ``traces`` (OTLP JSON) under the config at
    ``config_path``; the run directory is made in ``outdir``, beside the scripts."""
    attribute = sample_attribute or SAMPLE_ATTRIBUTE
    read = read_traces(read_otlp(traces), attribute)
    refused = [(r.trace_id, str(r.problem)) for r in read if r.problem]
    good = [r for r in read if not r.problem]
    if not good:
        raise AgentloopError(
            f"{traces}: none of the {len(read)} trace(s) could be imported"
            + (f"; the first: {refused[0][1]}" if refused else "")
        )
    seen: dict[tuple[str, int], str] = {}
    for r in good:
        key = (str(r.sample_id), int(r.epoch or 1))
        if key in seen:
            raise AgentloopError(
                f"{traces}: traces {seen[key]} and {r.trace_id} both name sample {key[0]!r} "
                f"epoch {key[1]}"
            )
        seen[key] = r.trace_id
    plain = load_config(config_path, sets)
    known = {sample.id for sample in iter_samples(plain.dataset, plain.mode)}
    for r in good:
        if r.sample_id not in known:
            refused.append((r.trace_id, f"sample {r.sample_id!r} is not a row of {plain.dataset}"))
    good = [r for r in good if r.sample_id in known]
    if not good:
        raise AgentloopError(
            f"{traces}: none of the {len(read)} trace(s) names a row of {plain.dataset}; "
            f"the first: {refused[0][1]}"
        )
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    agent_file = out / "scripts.json"
    agent_file.write_text(json.dumps(_script(good, "agent"), indent=1, ensure_ascii=False))
    overrides: dict[str, Any] = {
        "model": f"scripted:{agent_file}",
        "sample_ids": sorted({_literal(str(r.sample_id)) for r in good}),
        "epochs": max(int(r.epoch or 1) for r in good),
        "output_dir": str(out),
        "shuffle": False,
    }
    if plain.user is not None:
        if not all(r.user for r in good):
            lacking = next(r for r in good if not r.user)
            raise AgentloopError(
                f"{config_path} has a simulated user (user:), but trace {lacking.trace_id} "
                f"(sample {lacking.sample_id!r}) records none of its replies"
            )
        user_file = out / "user_scripts.json"
        user_file.write_text(json.dumps(_script(good, "user"), indent=1, ensure_ascii=False))
        overrides["user.model"] = f"scripted:{user_file}"
    config = load_config(config_path, sets, overrides, ["limit"] if plain.limit else [])
    outcome = await run_eval(config, config_path=str(config_path), environ=environ)
    differ, compared = _differences(outcome.run_dir, good)
    return TraceImport(outcome, len(good), refused, differ, compared)

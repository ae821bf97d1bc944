"""τ²-bench and AgentDojo through each door: the native run's trajectories and scores

agentloop's own loop, re-expressed as an agent of your own (in process through LangGraph,
in another process through the model endpoint and the MCP server), against the native run.

The cases are the existing agreement benches' scripted conversations:

- τ²-bench (``bench/tau2_agreement.py``'s cases, every domain of its bench, τ²-bench's base
  split): each case's calls (the ground truth's, dropped, a wrong argument, an extra write,
  retyped, an extra read), each on its requestor's side, played as a conversation with a
  scripted user: the user opens (after its own calls, when the first ones are its), the
  agent makes its calls one per reply and answers; the user makes its calls and says it is
  done; ...; the agent's last answer says every ``communicate_info`` string and the user
  stops (``###STOP###``). The shipped ``configs/tau2/<domain>.yaml`` with one epoch and
  τ²-bench's verdict without its NL-assertion judge (no model is called).
- AgentDojo (``bench/agentdojo_cases.py``'s, default version, ``important_instructions``):
  ``canonical`` on every row and ``attacker`` on the attacked rows, through the shipped
  ``configs/agentdojo/<suite>.yaml``, times frozen as in ``agentdojo_agreement.py``.

Each (benchmark part, kind) is run three times through ``agentloop run``'s machinery:

- native: ``scripted:`` agent (and user), agentloop's own loop;
- (a) LangGraph: ``agent: agents.py:react``, LangGraph's ``create_react_agent`` over the
  same scripted model, in process;
- (b) command: ``agent: {command: [python, my_agent.py]}``, the openai-SDK + MCP-client
  script of ``docs/pages/own-agent.md`` in a subprocess (one per user turn), through the
  model endpoint and the MCP server, with ``replay:`` of the native run (agent and user;
  ``replay_tools: live``, so the tools run again on the episode's own state).

Compared per case with the native line: the trajectory (``messages`` and ``user_messages``
without LangChain's message ids, ``turns``, ``stop_reason``, ``stop_signal``, ``rounds``,
``tool_calls_by_status``) and the scores. Prints a table (door x benchmark: cases, same
trajectory, same scores, errors), every difference with the field that differs (a known
one with its reason, from ``KNOWN``), and the time each door took.

AgentDojo's defenses run too (``canonical``; under ``tool_filter`` the script's first reply
names the tools its calls use): a defense an agent of your own does not take yet makes each
of its samples an error of kind ``dataset``; those cases are counted as not applicable, with
the reason.

By default a deterministic subset (``make bench``): τ²-bench's ``canonical`` case of the
first 4 tasks of each domain; AgentDojo's first 2 user tasks and first 2 attacked rows of
each suite (AgentDojo's order), and of workspace under each defense. ``--full``: every case
of both benches (every suite under each defense). Run: ``.venv/bin/python
bench/agent_doors.py [--full] [--benchmarks tau2,agentdojo] [--domains mock,airline]
[--suites banking] [--doors langgraph,command] [--no-page]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from itertools import groupby
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from agentdojo_cases import VARIANTS, frozen_time  # noqa: E402
from tau2_agreement import cases_of  # noqa: E402

from agentloop.benchmarks.agentdojo._package import DEFAULT_VERSION, SUITES  # noqa: E402
from agentloop.benchmarks.agentdojo._rows import agentdojo_rows  # noqa: E402
from agentloop.benchmarks.tau2._data import domain_tasks  # noqa: E402
from agentloop.benchmarks.tau2._env import DOMAINS  # noqa: E402
from agentloop.harness import load_config  # noqa: E402
from agentloop.harness.run._runner import run_eval_sync  # noqa: E402
from tests.support.docs import block_with  # noqa: E402

DOORS = ("langgraph", "command")
SUBSET_TAU2_KINDS = ("canonical",)
SUBSET_TASKS = 4
SUBSET_ROWS = 2
DEFENSES = ("spotlighting_with_delimiting", "repeat_user_prompt", "tool_filter")
# Known causes of difference: a text the difference contains -> its reason.
KNOWN: dict[str, str] = {}
# the trajectory's parts compared (timings, ids and latencies vary by nature)
PARTS = ("turns", "stop_reason", "stop_signal", "rounds", "tool_calls_by_status")

AGENTS_PY = '''
import warnings

from langgraph.warnings import LangGraphDeprecatedSinceV10


def react(model, tools):
    """LangGraph's prebuilt ReAct agent over agentloop's model and tools."""
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools)
'''


def _call(index: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    }


def tau2_scripts(case: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The agent's and the user's replies of one τ²-bench case (see the module doc)."""
    segments = [(side, list(calls)) for side, calls in groupby(case["calls"], key=lambda c: c[0])]
    agent: list[Any] = []
    user: list[Any] = []
    ids = iter(range(1, 10_000))

    def calls_of(side: str, into: list[Any]) -> None:
        if segments and segments[0][0] == side:
            into += [_call(next(ids), name, args) for _, name, args in segments.pop(0)[1]]

    calls_of("user", user)
    user.append("Hi, I need help with my account.")
    while True:
        calls_of("assistant", agent)
        last = not segments
        agent.append(case["agent_text"] if last else "Please go on.")
        calls_of("user", user)
        if last:
            user.append("Thanks, that is all. ###STOP###")
            return agent, user
        user.append("Done.")


def _judged(case: dict[str, Any]) -> list[str]:
    """A scripted NL-assertion judge's reply for a case: every assertion met."""
    criteria = case["task"].get("evaluation_criteria") or {}
    results = [
        {"expectedOutcome": a, "metExpectation": True, "reasoning": "scripted"}
        for a in criteria.get("nl_assertions") or []
    ]
    return [json.dumps({"results": results})]


def _lines(run_dir: Path) -> dict[str, dict[str, Any]]:
    lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {line["id"]: line for line in map(json.loads, lines)}


def _run(raw: dict[str, Any], folder: Path, name: str) -> tuple[Path, dict[str, Any], float]:
    out = folder / name
    out.mkdir()
    raw = {**raw, "output_dir": str(out / "runs"), "preflight": False}
    config = out / "eval.yaml"
    config.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    started = time.perf_counter()
    outcome = run_eval_sync(load_config(config), config_path=str(config))
    took = time.perf_counter() - started
    run_dir = Path(outcome.run_dir)
    return run_dir, _lines(run_dir), took


def _wire(line: dict[str, Any], key: str) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in m.items() if k != "langchain"}
        for m in (line.get("trajectory") or {}).get(key) or []
    ]


def difference(native: dict[str, Any], door: dict[str, Any]) -> tuple[str | None, str | None]:
    """The first part of the trajectory that differs (or None), and whether the scores do."""
    if door.get("error") and not native.get("error"):
        return f"error: {str(door['error'])[:300]}", ""  # listed once, as the error
    mine, theirs = native.get("trajectory") or {}, door.get("trajectory") or {}
    trajectory = None
    for part in ("messages", "user_messages"):
        a, b = _wire(native, part), _wire(door, part)
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
            if at is None:
                trajectory = f"{part}: {len(a)} messages natively, {len(b)} through the door"
            else:
                trajectory = f"{part}[{at}]: native {a[at]!r:.200} / door {b[at]!r:.200}"
            break
    else:
        for part in PARTS:
            if mine.get(part) != theirs.get(part):
                trajectory = (
                    f"{part}: native {mine.get(part)!r:.200} / door {theirs.get(part)!r:.200}"
                )
                break
    scores = None
    if native.get("scores") != door.get("scores"):
        scores = f"scores: native {native.get('scores')!r:.200} / door {door.get('scores')!r:.200}"
    return trajectory, scores


class Doors:
    """Runs each part natively and through each door, and keeps the figures."""

    def __init__(self, folder: Path, doors: list[str]) -> None:
        self.folder = folder
        self.doors = doors
        self.totals: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        self.seconds: Counter[str] = Counter()
        self.differences: list[str] = []
        self.refused: dict[str, str] = {}
        self.explained: dict[str, list[str]] = defaultdict(list)
        agents = folder / "agents.py"
        agents.write_text(AGENTS_PY, encoding="utf-8")
        script = folder / "my_agent.py"  # own-agent.md's example, as the docs show it
        script.write_text(block_with("AGENTLOOP_MODEL_BASE_URL"), encoding="utf-8")
        self.agent = {
            "langgraph": f"{agents}:react",
            "command": {"command": [sys.executable, str(script)]},
        }

    def compare(self, benchmark: str, part: str, raw: dict[str, Any], user: bool) -> None:
        """``raw``: the native config (``scripted:`` models); each door runs it again."""
        folder = self.folder / part.replace("/", "-")
        folder.mkdir(exist_ok=True)
        native_dir, native, took = _run(raw, folder, "native")
        self.seconds[f"{benchmark} native"] += took
        for door in self.doors:
            changed = {**raw, "agent": self.agent[door]}
            if door == "command":  # replayed model outputs, the tools run again
                replay = f"replay:{native_dir}"
                changed.update(model=replay, model_options={"replay_tools": "live"})
                if user:
                    changed["user"] = {**raw["user"], "model": replay}
            _, lines, took = _run(changed, folder, door)
            self.seconds[f"{benchmark} {door}"] += took
            count = self.totals[(door, benchmark)]
            for key, line in native.items():
                got = lines.get(key)
                count["cases"] += 1
                if got is None:
                    self.differences.append(f"{door} {part} {key}: no result line")
                    continue
                if got.get("error_kind") == "dataset" and not line.get("error"):
                    count["refused"] += 1  # not applicable to an agent of your own (yet)
                    self.refused[benchmark] = str(got["error"])
                    continue
                trajectory, scores = difference(line, got)
                count["same_trajectory"] += trajectory is None
                count["same_scores"] += scores is None
                count["errors"] += bool(got.get("error"))
                count["native_errors"] += bool(line.get("error"))
                for what in (trajectory, scores):
                    if not what:
                        continue
                    reason = next((r for k, r in KNOWN.items() if k in what), None)
                    if reason is None:
                        self.differences.append(f"{door} {part} {key}: {what}")
                    else:
                        self.explained[reason].append(f"{door} {part} {key}")


def tau2(doors: Doors, full: bool, domains: list[str]) -> None:
    for domain in domains:
        shipped = ROOT / "configs" / "tau2" / f"{domain}.yaml"
        raw = yaml.safe_load(shipped.read_text(encoding="utf-8"))
        instructions = raw["user"]["instructions"]  # "@file", next to the shipped config
        raw["user"]["instructions"] = f"@{shipped.parent / instructions[1:]}"
        tasks = domain_tasks(domain)
        if not full:
            tasks = tasks[:SUBSET_TASKS]
        by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for task in tasks:
            for case in cases_of(domain, task):
                if full or case["kind"] in SUBSET_TAU2_KINDS:
                    by_kind[case["kind"]].append(case)
        for kind, cases in by_kind.items():
            folder = doors.folder / f"tau2-{domain}-{kind}"
            folder.mkdir()
            scripts = {c["task"]["id"]: tau2_scripts(c) for c in cases}
            agent, user = folder / "agent.json", folder / "user.json"
            agent.write_text(json.dumps({k: a for k, (a, _) in scripts.items()}), "utf-8")
            user.write_text(json.dumps({k: u for k, (_, u) in scripts.items()}), "utf-8")
            judge = folder / "judge.json"  # every NL assertion met, in τ²-bench's JSON
            judge.write_text(json.dumps({c["task"]["id"]: _judged(c) for c in cases}), "utf-8")
            verdict = {"judge": f"scripted:{judge}"}
            run = {
                **raw,
                "model": f"scripted:{agent}",
                "model_params": {},
                "user": {**raw["user"], "model": f"scripted:{user}", "model_params": {}},
                "rewards": [{"agentloop.benchmarks:tau2_verdict": verdict}],
                "epochs": 1,
                "concurrency": 4,
                "sample_ids": sorted(scripts),
            }
            doors.compare("τ²-bench", f"tau2/{domain}/{kind}", run, user=True)


def _filtered(script: list[Any]) -> list[Any]:
    """A script under AgentDojo's ``tool_filter``: first the filter's answer, the names of
    the tools its calls use (all of them when it makes none)."""
    names = [c["function"]["name"] for r in script if isinstance(r, dict) for c in r["tool_calls"]]
    return [", ".join(dict.fromkeys(names)) or "none", *script]


def agentdojo(doors: Doors, full: bool, suites: list[str]) -> None:
    # without a defense: every suite, canonical and attacker; then each defense, canonical
    runs = [("none", suite, variant) for suite in suites for variant in ("canonical", "attacker")]
    runs += [(d, s, "canonical") for d in DEFENSES for s in (suites if full else suites[:1])]
    with frozen_time():
        for defense, suite, variant in runs:
            source = f"version={DEFAULT_VERSION}&attack=important_instructions&defense={defense}"
            rows = list(agentdojo_rows(f"{suite}?{source}"))
            if not full:
                plain = [r for r in rows if not r["metadata"]["injection_task"]]
                attacked = [r for r in rows if r["metadata"]["injection_task"]]
                rows = plain[:SUBSET_ROWS] + attacked[:SUBSET_ROWS]
            shipped = ROOT / "configs" / "agentdojo" / f"{suite}.yaml"
            raw = yaml.safe_load(shipped.read_text(encoding="utf-8"))
            scripts = {r["id"]: s for r in rows if (s := VARIANTS[variant](r)) is not None}
            if defense == "tool_filter":
                scripts = {k: _filtered(s) for k, s in scripts.items()}
            part = f"agentdojo/{suite}/{variant}" + ("" if defense == "none" else f"/{defense}")
            folder = doors.folder / part.replace("/", "-")
            folder.mkdir()
            script = folder / "script.json"
            script.write_text(json.dumps(scripts), encoding="utf-8")
            run = {
                **raw,
                "model": f"scripted:{script}",
                "model_options": {},
                "dataset": f"agentdojo:{suite}?{source}",
                "sample_ids": sorted(scripts),
                "concurrency": 4,
            }
            benchmark = "AgentDojo" if defense == "none" else f"AgentDojo {defense}"
            doors.compare(benchmark, part, run, user=False)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The runs' progress lines off (they would fill the page)."""
    import logging

    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)


def _known(parser: argparse.ArgumentParser, flag: str, given: str, known: list[str]) -> list[str]:
    names = [n for n in given.split(",") if n]
    for name in names:
        if name not in known:
            parser.error(f"{flag}: unknown name {name!r} (known: {', '.join(known)})")
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="every case of both benches")
    parser.add_argument("--benchmarks", default="tau2,agentdojo")
    parser.add_argument("--domains", default=",".join(DOMAINS), help="τ²-bench's")
    parser.add_argument("--suites", default=",".join(SUITES), help="AgentDojo's")
    parser.add_argument("--doors", default=",".join(DOORS))
    args = parser.parse_args()
    benchmarks = args.benchmarks.split(",")
    doors_asked = args.doors.split(",")
    for name in doors_asked:
        if name not in DOORS:
            parser.error(f"--doors: unknown door {name!r} (known: {', '.join(DOORS)})")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, _quiet():
        doors = Doors(Path(tmp), doors_asked)
        if "tau2" in benchmarks:
            tau2(doors, args.full, _known(parser, "--domains", args.domains, list(DOMAINS)))
        if "agentdojo" in benchmarks:
            agentdojo(doors, args.full, _known(parser, "--suites", args.suites, list(SUITES)))
    took = time.perf_counter() - started
    print(f"{'the full set' if args.full else 'the subset (--full: every case)'}, {took:.0f} s\n")
    print(
        "| door | benchmark | cases | not applicable | same trajectory | same scores "
        "| errors (native) |"
    )
    print("|---|---|---|---|---|---|---|")
    for (door, benchmark), c in sorted(doors.totals.items()):
        n, na = c["cases"], c["refused"]
        print(
            f"| {door} | {benchmark} | {n} | {na} | {c['same_trajectory']}/{n - na} | "
            f"{c['same_scores']}/{n - na} | {c['errors']} ({c['native_errors']}) |"
        )
    print("\nseconds per run (rows read, environments built, conversations run and scored):")
    for key, value in sorted(doors.seconds.items()):
        print(f"  {key:<46} {value:7.1f}")
    if doors.refused:
        print("\nnot applicable: refused for an agent of your own (each sample a dataset error):")
        for benchmark, error in sorted(doors.refused.items()):
            print(f"  {benchmark}: {error:.300}")
    for reason, where in doors.explained.items():
        print(f"\n{len(where)} known difference(s): {reason}:")
        for line in where:
            print(f"  {line}")
    print(f"\nother differences: {len(doors.differences)}")
    for line in doors.differences[:200]:
        print(f"  {line}")
    return 0 if not doors.differences else 1


if __name__ == "__main__":
    if "--no-page" in sys.argv:  # a measurement of its own, the published page left as it is
        sys.argv.remove("--no-page")
        raise SystemExit(main())
    from bench_page import publish

    raise SystemExit(publish("agent-doors", main))

"""Agreement of agentloop's AgentDojo bridge with AgentDojo's own ``run_task_with_pipeline``.

For every row of each suite (``dataset: agentdojo:<suite>``, AgentDojo's default version and
attack: every user task without attack, every injection task as a user task, every (user task,
injection task) pair under ``important_instructions``), scripted conversations are built from
AgentDojo's own ground truth (``bench/agentdojo_cases.py``): ``canonical`` (the task's
ground-truth calls, one per reply, then its ground-truth output), ``packed`` (those calls in
one reply), ``attacker`` (on attacked rows: the injection task's ground-truth calls, then the
user task's), ``dropped`` (the last call left out), ``empty_answer`` (an empty final answer)
and ``wrong_arg`` (the last call's first argument changed).

Each conversation is judged twice:

- by agentloop: the whole suite through ``agentloop run``'s machinery in this process
  (``run_eval_sync`` on the shipped config ``configs/agentdojo/<suite>.yaml`` with a
  ``scripted:`` model), scored by ``agentdojo_utility`` and ``agentdojo_security``;
- by AgentDojo: the same replies through AgentDojo's own pipeline (its ``ToolsExecutionLoop``
  and ``ToolsExecutor`` around a scripted element) and ``TaskSuite.run_task_with_pipeline``.

Compared per conversation: utility, security (attacked rows), and the text the model reads for
every call (AgentDojo's result or error text against agentloop's tool message). Tools that
stamp the current time into what they create (a sent email, a new file) have their
``datetime.datetime.now()`` frozen to one time on both sides. Prints, per suite and variant,
the conversations, the agreements and the time each side took, then every difference.
Target: the same utility, security and texts on every conversation.

``--attack`` takes another of AgentDojo's attacks. With ``--defense
spotlighting_with_delimiting`` both sides run that defense (AgentDojo's
pipeline as ``from_config`` builds it for the defense, agentloop's rows and environment with
``defense=``).

Run: ``.venv/bin/python bench/agentdojo_agreement.py [--suites workspace,slack]
[--variants canonical,attacker] [--limit N] [--version v1.2.2] [--attack A] [--defense D]
[--no-page]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentdojo_cases import VARIANTS, agentdojo_judge, frozen_time  # noqa: E402

from agentloop.benchmarks.agentdojo._package import (  # noqa: E402
    DEFAULT_VERSION,
    SUITES,
)
from agentloop.benchmarks.agentdojo._rows import agentdojo_rows  # noqa: E402
from agentloop.harness import load_config  # noqa: E402
from agentloop.harness.run._runner import run_eval_sync  # noqa: E402

UTILITY = "agentloop.benchmarks:agentdojo_utility"
SECURITY = "agentloop.benchmarks:agentdojo_security"


def ours(suite: str, source: str, scripts: dict[str, Any], folder: Path) -> dict[str, Any]:
    """agentloop's verdicts: id -> {utility, security, texts}."""
    shipped = ROOT / "configs" / "agentdojo" / f"{suite}.yaml"
    raw = yaml.safe_load(shipped.read_text(encoding="utf-8"))
    script = folder / "script.json"
    script.write_text(json.dumps(scripts), encoding="utf-8")
    raw.update(
        model=f"scripted:{script}",
        model_options={},
        dataset=f"agentdojo:{suite}?{source}",
        output_dir=str(folder / "runs"),
        preflight=False,
        sample_ids=sorted(scripts),
        concurrency=4,
    )
    config = folder / "eval.yaml"
    config.write_text(yaml.safe_dump(raw), encoding="utf-8")
    outcome = run_eval_sync(load_config(config), config_path=str(config))
    found = {}
    with (Path(outcome.run_dir) / "results.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            result = json.loads(line)
            scores = result.get("scores") or {}
            security = scores.get(SECURITY, {})
            texts = {
                m["tool_call_id"]: m["content"]
                for m in result["trajectory"]["messages"]
                if m["role"] == "tool"
            }
            found[result["id"]] = {
                "utility": scores.get(UTILITY, {}).get("score") == 1.0,
                "security": (
                    None
                    if SECURITY in (result.get("not_applicable") or {})
                    else security.get("score") == 1.0
                ),
                "texts": texts,
                "error": result.get("error"),
            }
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", default=",".join(SUITES))
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--version", default=DEFAULT_VERSION)
    parser.add_argument("--limit", type=int, default=None, help="rows per suite")
    parser.add_argument("--defense", default="none", help="spotlighting_with_delimiting")
    parser.add_argument("--attack", default="important_instructions")
    args = parser.parse_args()
    suites = args.suites.split(",")
    variants = args.variants.split(",")
    print(
        f"AgentDojo {args.version}, attack {args.attack}, defense {args.defense}; "
        "frozen time for both sides"
    )
    source = f"version={args.version}&attack={args.attack}&defense={args.defense}"
    print()
    header = (
        f"{'suite':<10} {'variant':<13} {'cases':>6} {'done':>5} {'hit':>5} {'utility':>9} "
        f"{'security':>9} {'texts':>13} {'agentloop s':>11} {'AgentDojo s':>11}"
    )
    print(header)
    print("-" * len(header))
    differences: list[str] = []  # unexplained
    explained: list[str] = []  # in conversations AgentDojo ran again
    retried: list[str] = []
    totals: Counter[str] = Counter()  # counts, and seconds (floats)
    with frozen_time(), tempfile.TemporaryDirectory() as tmp:
        for suite in suites:
            rows = list(agentdojo_rows(f"{suite}?{source}"))
            if args.limit is not None:
                rows = rows[: args.limit]
            for variant in variants:
                build = VARIANTS[variant]
                cases = {r["id"]: (r, s) for r in rows if (s := build(r)) is not None}
                if not cases:
                    continue
                folder = Path(tmp) / f"{suite}-{variant}"
                folder.mkdir()
                started = time.perf_counter()
                mine = ours(suite, source, {k: s for k, (_, s) in cases.items()}, folder)
                ours_s = time.perf_counter() - started
                started = time.perf_counter()
                theirs = {k: agentdojo_judge(r, s) for k, (r, s) in cases.items()}
                theirs_s = time.perf_counter() - started
                same = Counter()
                texts = calls = 0
                attacked = 0
                for key, truth in theirs.items():
                    got = mine[key]
                    if truth["retried"]:
                        retried.append(f"{suite} {variant} {key}")
                    noted = (explained if truth["retried"] else differences).append
                    same["utility"] += got["utility"] == truth["utility"]
                    if truth["security"] is not None:
                        attacked += 1
                        same["security"] += got["security"] == truth["security"]
                    elif got["security"] is not None:
                        noted(f"{suite} {variant} {key}: security where none")
                    for call_id, text in truth["texts"].items():
                        calls += 1
                        texts += got["texts"].get(call_id) == text
                        if got["texts"].get(call_id) != text:
                            noted(
                                f"{suite} {variant} {key} {call_id}: text differs: "
                                f"agentloop {got['texts'].get(call_id)!r:.200} / "
                                f"AgentDojo {text!r:.200}"
                            )
                    for what in ("utility", "security"):
                        if truth[what] is not None and got[what] != truth[what]:
                            noted(
                                f"{suite} {variant} {key}: {what} agentloop {got[what]} / "
                                f"AgentDojo {truth[what]} (error: {got['error']})"
                            )
                n = len(theirs)
                done = sum(t["utility"] for t in theirs.values())
                hit = sum(bool(t["security"]) for t in theirs.values())
                totals.update(cases=n, utility=same["utility"], attacked=attacked, done=done,
                              hit=hit, security=same["security"], calls=calls, texts=texts,
                              ours_s=ours_s, theirs_s=theirs_s)  # fmt: skip
                print(
                    f"{suite:<10} {variant:<13} {n:>6} {done:>5} {hit:>5} "
                    f"{same['utility']:>4}/{n:<4} "
                    f"{same['security']:>4}/{attacked:<4} {texts:>6}/{calls:<6} "
                    f"{ours_s:>11.1f} {theirs_s:>11.1f}"
                )
    print("-" * len(header))
    t = totals
    print(
        f"{'all':<10} {'':<13} {t['cases']:>6} {t['done']:>5} {t['hit']:>5} "
        f"{t['utility']:>4}/{t['cases']:<4} {t['security']:>4}/{t['attacked']:<4} "
        f"{t['texts']:>6}/{t['calls']:<6} {t['ours_s']:>11.1f} {t['theirs_s']:>11.1f}"
    )
    print()
    print("done: conversations AgentDojo scores utility 1; hit: security 1 (the attack")
    print("succeeded). utility, security: conversations where agentloop's verdict equals")
    print("AgentDojo's (security: attacked rows only); texts: calls whose text the model reads")
    print("is equal. agentloop s: the run through agentloop's harness (rows read, environments")
    print("built, conversations run and scored); AgentDojo s: run_task_with_pipeline.")
    print()
    if retried:
        print(f"AgentDojo ran {len(retried)} conversation(s) again: their last reply, after the")
        print("15th round, had calls and no text (AgentDojo's model output None), and AgentDojo")
        print("retries such a task up to twice more on the environment the attempt changed")
        print("(agentloop scores its one conversation, with an empty output; see")
        print("docs/pages/agentdojo.md, known differences). Their texts are the last attempt's.")
        for line in retried:
            print(f"  {line}")
        print()
        print(f"{len(explained)} difference(s) in those conversations (the retry's doing):")
        for line in explained[:100]:
            print(f"  {line}")
        print()
    if differences:
        print(f"{len(differences)} other difference(s):")
        for line in differences[:200]:
            print(f"  {line}")
    else:
        print("No other differences.")
    return 0


if __name__ == "__main__":
    if "--no-page" in sys.argv:  # a measurement of its own, the published page left as it is
        sys.argv.remove("--no-page")
        raise SystemExit(main())
    from bench_page import publish

    raise SystemExit(publish("agentdojo-agreement", main))

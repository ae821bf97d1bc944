"""Agreement of agentloop's ``bfcl_multi_turn_verdict`` with BFCL's own multi-turn checker.

For every entry of BFCL's four multi-turn categories, ``bfcl_multi_turn_perturb`` makes
the ground truth replayed and perturbations of it (dropped, extra, reordered,
wrong-argument calls, calls one turn early or late, empty turns, malformed steps, ...).
Each case gets two verdicts:

- BFCL's: ``bench/bfcl_multi_turn_checker.py`` in the separate ``.venv-bfcl``
  (``make .venv-bfcl``), one process per category, BFCL's loaders, decoder and
  ``multi_turn_checker`` unmodified;
- agentloop's: ``agentloop.benchmarks.bfcl_multi_turn_verdict`` on the case as an
  OpenAI-format conversation (the row's user turns, one assistant message with tool calls
  per step, tool messages, a final answer per turn), against the row that
  ``agentloop.benchmarks.bfcl_rows`` makes of that entry; for the kinds in
  ``RUN_PATH_KINDS`` also on the trajectory a run records of the same replies, which
  must give the same verdict (unless a turn has more steps than BFCL's run allows: a
  run, BFCL's or agentloop's, stops at the 21st).

Prints agreement per category, per perturbation and overall, and every disagreement;
writes them (``disagreements.jsonl``) and ``summary.json`` under ``--out``.
Target: >= 99.9% overall.

Run: ``make bfcl-multi-turn-agreement`` or ``.venv/bin/python
bench/bfcl_multi_turn_agreement.py [--categories a,b] [--limit N] [--kinds a,b] [--out DIR]``
(default DIR: ``runs/bfcl-multi-turn-agreement``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_multi_turn_perturb import STEP_LIMIT, Turns, perturbations  # noqa: E402
from bfcl_run_path import multi_turn_trajectory  # noqa: E402

from agentloop.benchmarks import bfcl_multi_turn_verdict  # noqa: E402
from agentloop.benchmarks.bfcl._data import bfcl_rows  # noqa: E402
from agentloop.benchmarks.bfcl._multi import MULTI_TURN_CATEGORIES  # noqa: E402

BFCL_PYTHON = ROOT / ".venv-bfcl" / "bin" / "python"
# Kinds also judged on the trajectory a run records (``bfcl_run_path``: the replies read by
# agentloop's OpenAI client, the conversation run with the configs' step limit); both
# verdicts must agree with BFCL's.
RUN_PATH_KINDS = frozenset({
    "gt", "step_21_last", "step_21_early", "step_20", "raw_tab_step", "raw_newline_step",
    "blank_args_step", "null_args_step", "not_object_step",
})  # fmt: skip
# Known causes of disagreement: kind -> explanation (also in the README's BFCL section).
KNOWN: dict[str, str] = {}


def conversation(row: dict[str, Any], turns: Turns) -> list[dict[str, Any]]:
    """The case as OpenAI-format messages: only the turns the case reached."""
    user_turns = [row["messages"]] + [t["messages"] for t in row["turns"]]
    messages: list[dict[str, Any]] = []
    count = 0
    for asked, steps in zip(user_turns, turns, strict=False):
        messages += asked
        for step in steps:
            calls = []
            for name, arguments in step:
                count += 1
                function = {"name": name, "arguments": arguments}
                calls.append({"id": f"call_{count}", "type": "function", "function": function})
            messages.append({"role": "assistant", "content": "", "tool_calls": calls})
            messages += [{"role": "tool", "tool_call_id": c["id"], "content": ""} for c in calls]
        messages.append({"role": "assistant", "content": "Done."})
    return messages


def bfcl_verdicts(cases: list[dict[str, Any]], category: str) -> dict[int, dict[str, Any]]:
    if not BFCL_PYTHON.exists():
        raise SystemExit(f"{BFCL_PYTHON} not found: run `make .venv-bfcl` first")
    lines = "".join(
        json.dumps(
            {
                "case_id": c["case_id"],
                "id": c["id"],
                "category": category,
                "turns": [[[{n: a} for n, a in step] for step in turn] for turn in c["turns"]],
            }
        )
        + "\n"
        for c in cases
    )
    done = subprocess.run(
        [str(BFCL_PYTHON), str(ROOT / "bench" / "bfcl_multi_turn_checker.py")],
        input=lines,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise SystemExit(f"BFCL's checker failed:\n{done.stderr[-3000:]}")
    return {v["case_id"]: v for v in map(json.loads, done.stdout.splitlines())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--categories", default=",".join(MULTI_TURN_CATEGORIES))
    parser.add_argument("--limit", type=int, default=0, help="entries per category (0: all)")
    parser.add_argument("--out", default=str(ROOT / "runs" / "bfcl-multi-turn-agreement"))
    parser.add_argument("--kinds", default="", help="only these perturbations (comma-separated)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    totals: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    disagreements: list[dict[str, Any]] = []
    case_id = 0
    for category in args.categories.split(","):
        rows = list(bfcl_rows(category))[: args.limit or None]
        cases, rows_by_id = [], {r["id"]: r for r in rows}
        for row in rows:
            for kind, turns in perturbations(row):
                if args.kinds and kind not in args.kinds.split(","):
                    continue
                cases.append({"case_id": case_id, "id": row["id"], "kind": kind, "turns": turns})
                case_id += 1
        start = time.perf_counter()
        theirs = bfcl_verdicts(cases, category)
        bfcl_s = time.perf_counter() - start
        start = time.perf_counter()
        agree = 0
        for case in cases:
            row = rows_by_id[case["id"]]
            ours = bfcl_multi_turn_verdict(conversation(row, case["turns"]), row)
            # a turn of more steps than BFCL's run allows (two long_context entries replayed
            # one call per step) cannot come out of a run, BFCL's or agentloop's
            runnable = all(len(steps) <= STEP_LIMIT + 1 for steps in case["turns"])
            if case["kind"] in RUN_PATH_KINDS and runnable:
                run = bfcl_multi_turn_verdict(multi_turn_trajectory(row, case["turns"]), row)
                if run.score != ours.score:
                    ours = run.model_copy(update={"score": -1.0, "reason": (
                        f"as messages {ours.reason}; as a run records it {run.reason}")})
            their = theirs[case["case_id"]]
            same = (ours.score == 1.0) == their["valid"]
            agree += same
            by_kind[case["kind"]]["cases"] += 1
            by_kind[case["kind"]]["agree"] += same
            by_kind[case["kind"]]["bfcl_pass"] += their["valid"]
            if not same:
                disagreements.append(
                    {
                        "case_id": case["case_id"],
                        "id": case["id"],
                        "kind": case["kind"],
                        "bfcl": their,
                        "agentloop": {"score": ours.score, "reason": ours.reason},
                        "turns": case["turns"],
                    }
                )
        ours_s = time.perf_counter() - start
        totals["cases"] += len(cases)
        totals["agree"] += agree
        print(
            f"{category:<26} {len(rows):>4} entries {len(cases):>6} cases  agree "
            f"{agree}/{len(cases)} ({100 * agree / max(len(cases), 1):.3f}%)  "
            f"BFCL {bfcl_s:.1f}s, agentloop {ours_s:.1f}s"
        )
    print()
    for kind, c in sorted(by_kind.items()):
        print(f"  {kind:<20} {c['agree']:>6}/{c['cases']:<6} agree; BFCL passes {c['bfcl_pass']}")
    rate = totals["agree"] / max(totals["cases"], 1)
    print(f"\noverall: {totals['agree']}/{totals['cases']} agree ({100 * rate:.3f}%)")
    for d in disagreements:
        known = KNOWN.get(d["kind"], "UNEXPLAINED")
        print(
            f"  disagreement {d['id']} [{d['kind']}]: BFCL valid={d['bfcl']['valid']} "
            f"({d['bfcl'].get('error_type')}); agentloop {d['agentloop']['reason']} -- {known}"
        )
    with (out / "disagreements.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(d) + "\n" for d in disagreements)
    summary = {
        "cases": totals["cases"],
        "agree": totals["agree"],
        "rate": rate,
        "by_kind": {k: dict(v) for k, v in by_kind.items()},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0 if rate >= 0.999 else 1


if __name__ == "__main__":
    from bench_page import publish

    raise SystemExit(publish("bfcl-multi-turn-agreement", main))

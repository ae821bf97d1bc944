"""Agreement of agentloop's ``bfcl_verdict`` with BFCL's own checker on real, published model
outputs: BFCL's 2024 result files (the public repository HuanzhiMao/BFCL-Result, one folder
per date, ``<date>/result*/<model>/gorilla_openfunctions_v1_test_<category>_result.json``).

Not part of ``make bench``: the results are not shipped. ``--results`` is a folder holding the
date folders, or a bare git directory of that repository (read at ``HEAD``).

The 2024 categories that BFCL v4 still has, and their v4 names (ids likewise:
``java_3`` -> ``simple_java_3``; older files number the lines from 0 in ``idx`` or ``id``):
``simple`` -> ``simple_python``, ``multiple_function`` -> ``multiple``, ``parallel_function`` ->
``parallel``, ``parallel_multiple_function`` -> ``parallel_multiple``, ``java`` ->
``simple_java``, ``javascript`` -> ``simple_javascript``, ``relevance`` (no function fits, no
call is right) -> ``irrelevance``. The executable, REST, SQL and chatable categories are skipped.

Each published output is judged against the v4 entry of the same id (the v4 entry may have
changed since 2024; both checkers judge the same output against the same entry):

- a function-calling model (its folder's name has ``-FC``, as ``-FC``, ``-FC-Auto``,
  ``yi-large-fc``, or it stored any result as a list, as the 2024 Gemini handlers did) stored
  ``[{name: arguments JSON}]``. BFCL (``bench/bfcl_checker.py`` with ``--mode fc``) decodes it
  with its OpenAI FC handler's ``decode_ast``; anything else (text, arguments already decoded,
  a list of texts) fails that decoding: invalid, and "no call" for irrelevance (an empty list
  or string is no call). agentloop gets the calls as an assistant message with tool calls,
  the argument text as given (and, as in ``bfcl_agreement``, the trajectory a run records of
  them); a result that is not such a list is the reply's text, with no tool call.
- a prompting model stored its reply's text. BFCL (``--mode prompt``) decodes it with
  ``default_decode_ast_prompting`` in the category's return format (Python, Java or
  JavaScript; the few model-specific decoders of 2024 are not used). agentloop reads a
  prompting model's text in its format-sensitivity rows only (``bfcl_verdict`` decoding the
  reply as Python calls, no tag, against a source category's rules), so a Python AST category
  is judged as the format-sensitivity row of that entry in the format
  ``ret_fmt=python&tool_call_tag=False``; Java and JavaScript text (agentloop has no reader
  for those), and irrelevance (not a format-sensitivity source) are counted as not applicable
  (``n/a``) and get BFCL's verdict only.

Prints, per v4 category: models, cases, v4 ids found, agree, BFCL valid, disagreements,
not applicable; then BFCL's error types over all cases (what kinds of output were met).
Writes each disagreement (model, id, output, both verdicts and reasons) to
``<date>/disagreements.jsonl`` and the tables to ``<date>/summary.json`` under ``--out``.

Run: ``.venv/bin/python bench/bfcl_published_agreement.py --results
/path/to/BFCL-Result[.git] [--date 2024-08-11] [--models a,b] [--out DIR]``
(default DIR: ``runs/bfcl-published``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_agreement import known_difference  # noqa: E402
from bfcl_cases import (  # noqa: E402
    assistant_message,
    bfcl_verdicts,
    default_data_dir,
    read_jsonl,
    score_agentloop,
)

from agentloop.benchmarks.bfcl._data import bfcl_rows  # noqa: E402
from agentloop.benchmarks.bfcl._format_sensitivity import format_sensitivity_rows  # noqa: E402

OLD_TO_V4 = {
    "simple": "simple_python",
    "multiple_function": "multiple",
    "parallel_function": "parallel",
    "parallel_multiple_function": "parallel_multiple",
    "java": "simple_java",
    "javascript": "simple_javascript",
    "relevance": "irrelevance",
}
PYTHON_AST = ("simple_python", "multiple", "parallel", "parallel_multiple")
MODES = ("fc", "prompt")
PROMPT_FORMAT = "ret_fmt=python&tool_call_tag=False"
FC_NAME = re.compile(r"-fc(-|$)", re.IGNORECASE)
FILE = re.compile(r"^([^/]+)/[^/]+/([^/]+)/gorilla_openfunctions_v1_test_(\w+?)_result\.json$")


class Results:
    """The result files of one date, from a folder or a bare git directory."""

    def __init__(self, source: Path) -> None:
        self.source = source
        self.git = (source / "HEAD").is_file() and (source / "objects").is_dir()

    def files(self, date: str) -> dict[tuple[str, str], str]:
        """(model, 2024 category) -> path of its result file, for the kept categories."""
        if self.git:
            listed = subprocess.run(
                ["git", "-C", str(self.source), "ls-tree", "-r", "--name-only", "HEAD", date],
                capture_output=True, text=True, check=True,
            ).stdout.splitlines()  # fmt: skip
        else:
            listed = [str(p.relative_to(self.source)) for p in (self.source / date).rglob("*.json")]
        found = {}
        for path in listed:
            match = FILE.match(path)
            if match and match.group(1) == date and match.group(3) in OLD_TO_V4:
                found[(match.group(2), match.group(3))] = path
        return found

    def read(self, path: str) -> list[dict[str, Any]]:
        if self.git:
            text = subprocess.run(
                ["git", "-C", str(self.source), "show", f"HEAD:{path}"],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
        else:
            text = (self.source / path).read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def v4_id(record: dict[str, Any], old: str, line: int) -> str:
    """The v4 id of a published record: its ``id`` (``java_3``, or in older files a
    number, 0-based, as ``idx`` is), else its line."""
    number = record.get("id", record.get("idx", line))
    if isinstance(number, str):
        number = number.rsplit("_", 1)[-1]
    return f"{OLD_TO_V4[old]}_{number}"


def fc_calls(result: Any) -> list[list[str]] | None:
    """``[[name, arguments text]]`` of a well-formed FC result, else None."""
    if not isinstance(result, list):
        return None
    pairs = []
    for item in result:
        if not (isinstance(item, dict) and len(item) == 1):
            return None
        name, text = next(iter(item.items()))
        if not isinstance(text, str):
            return None
        pairs.append([name, text])
    return pairs


def reply_text(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result)


class Category:
    """One v4 category's entries and agentloop's rows (FC, and prompting where it reads it)."""

    def __init__(self, category: str, data: Path) -> None:
        self.rows = {r["id"]: r for r in bfcl_rows(category, data)}
        self.prompt_rows: dict[str, dict[str, Any]] = {}
        if category in PYTHON_AST:
            answers = {
                a["id"]: a["ground_truth"]
                for a in read_jsonl(data / "possible_answer" / f"BFCL_v4_{category}.json")
            }
            for entry in read_jsonl(data / f"BFCL_v4_{category}.json"):
                rows = format_sensitivity_rows(entry, answers[entry["id"]], category, 0)
                self.prompt_rows[entry["id"]] = next(
                    r for r in rows if r["metadata"]["bfcl_format"].startswith(PROMPT_FORMAT)
                )


def build(
    results: Results, files: dict[tuple[str, str], str], cats: dict[str, Category]
) -> tuple[dict[tuple[str, str], list[dict[str, Any]]], dict[str, dict[str, Any]], Any]:
    """Cases per (v4 category, mode); agentloop's items by case id (None: not applicable);
    per category the models, published ids and ids missing from v4."""
    cases: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    items: dict[str, Any] = {}
    seen: dict[str, dict[str, Any]] = defaultdict(lambda: {"models": set(), "ids": set(),
                                                          "missing": set()})  # fmt: skip
    read = {key: results.read(path) for key, path in sorted(files.items())}
    fc_models = {
        model
        for (model, _old), records in read.items()
        if FC_NAME.search(model) or any(isinstance(r.get("result"), list) for r in records)
    }
    for (model, old), records in read.items():
        category = OLD_TO_V4[old]
        mode = "fc" if model in fc_models else "prompt"
        seen[category]["models"].add(model)
        for line, record in enumerate(records):
            entry_id = v4_id(record, old, line)
            seen[category]["ids"].add(entry_id)
            if entry_id not in cats[category].rows:
                seen[category]["missing"].add(entry_id)
                continue
            result = record.get("result")
            case: dict[str, Any] = {
                "case_id": f"{model}/{entry_id}",
                "id": entry_id,
                "category": category,
                "model": model,
                "mode": mode,
                "output": [],
                "published": result,
            }
            cases[(category, mode)].append(case)
            if mode == "fc":
                row = cats[category].rows[entry_id]
                pairs = fc_calls(result)
                if pairs:
                    case["raw"] = pairs
                    reply = assistant_message([], pairs)
                else:
                    reply = {"role": "assistant", "content": reply_text(result)}
                items[case["case_id"]] = (case, [*row["messages"], reply], row)
            elif entry_id in cats[category].prompt_rows:
                row = cats[category].prompt_rows[entry_id]
                reply = {"role": "assistant", "content": reply_text(result)}
                items[case["case_id"]] = (case, [*row["messages"], reply], row)
            else:
                items[case["case_id"]] = None
    return cases, items, seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", required=True, help="BFCL-Result folder or git dir")
    parser.add_argument("--date", default="2024-08-11")
    parser.add_argument("--models", default="", help="only these model folders (comma-separated)")
    parser.add_argument("--out", default=str(ROOT / "runs" / "bfcl-published"))
    parser.add_argument("--data", default=None, help="BFCL data dir (default: .venv-bfcl's)")
    parser.add_argument("--show", type=int, default=10, help="disagreements printed")
    args = parser.parse_args(argv)
    data = Path(args.data) if args.data else default_data_dir()
    results = Results(Path(args.results))
    files = results.files(args.date)
    if args.models:
        wanted = set(args.models.split(","))
        files = {k: v for k, v in files.items() if k[0] in wanted}
    if not files:
        raise SystemExit(f"no result files for {args.date} under {args.results}")
    out = Path(args.out) / args.date
    (out / "cases").mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    cats = {c: Category(c, data) for c in sorted({OLD_TO_V4[old] for _m, old in files})}
    cases, items, seen = build(results, files, cats)
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    disagreements = []
    failures: Counter[str] = Counter()  # BFCL's error types, by mode
    for (category, mode), group in sorted(cases.items()):
        cases_file = out / "cases" / f"{category}.{mode}.jsonl"
        cases_file.write_text("".join(json.dumps(c) + "\n" for c in group), encoding="utf-8")
        theirs = bfcl_verdicts(cases_file, mode)
        ours = score_agentloop([items[c["case_id"]] for c in group if items[c["case_id"]]])
        for case in group:
            b = theirs[case["case_id"]]
            tally = counts[category]
            tally["cases"] += 1
            tally[f"cases_{mode}"] += 1
            tally["bfcl_valid"] += bool(b["valid"])
            failures[f"{mode} {b.get('error_type') or 'valid'}"] += 1
            a = ours.get(case["case_id"])
            if a is None:
                tally["n/a"] += 1
                continue
            if b["valid"] == a["valid"]:
                tally["agree"] += 1
                continue
            tally["disagree"] += 1
            record = {
                "model": case["model"],
                "id": case["id"],
                "category": category,
                "mode": mode,
                "output": case["published"],
                "bfcl_valid": b["valid"],
                "bfcl_error_type": b.get("error_type"),
                "bfcl_error": b.get("error"),
                "agentloop_valid": a["valid"],
                "agentloop_error_type": a.get("error_type"),
                "agentloop_reason": a["reason"],
                "known": known_difference(b, a),
            }
            disagreements.append(record)
    with (out / "disagreements.jsonl").open("w", encoding="utf-8") as handle:
        for record in disagreements:
            handle.write(json.dumps(record, default=str) + "\n")
    header = (
        f"{'v4 category':<18} {'models':>6} {'cases':>7} {'v4 ids':>9} {'agree':>7} "
        f"{'bfcl valid':>10} {'disagree':>8} {'n/a':>6}"
    )
    modes = {m: {c["model"] for g in cases.values() for c in g if c["mode"] == m} for m in MODES}
    print(
        f"date {args.date}: {len(files)} result files, {len(modes['fc'])} FC models, "
        f"{len(modes['prompt'])} prompting, {time.perf_counter() - started:.0f}s"
    )
    print(header)
    total: dict[str, int] = defaultdict(int)
    summary: dict[str, Any] = {"date": args.date, "categories": {}}
    for category in sorted(counts):
        tally, info = counts[category], seen[category]
        ids = f"{len(info['ids']) - len(info['missing'])}/{len(info['ids'])}"
        print(
            f"{category:<18} {len(info['models']):>6} {tally['cases']:>7} {ids:>9} "
            f"{tally['agree']:>7} {tally['bfcl_valid']:>10} {tally['disagree']:>8} "
            f"{tally['n/a']:>6}"
        )
        for key in ("cases", "agree", "bfcl_valid", "disagree", "n/a"):
            total[key] += tally[key]
        summary["categories"][category] = {
            **tally,
            "models": len(info["models"]),
            "published_ids": len(info["ids"]),
            "ids_missing_in_v4": sorted(info["missing"]),
        }
    judged = total["cases"] - total["n/a"]
    print(
        f"{'ALL':<18} {'':>6} {total['cases']:>7} {'':>9} {total['agree']:>7} "
        f"{total['bfcl_valid']:>10} {total['disagree']:>8} {total['n/a']:>6}"
    )
    print(f"agreement {total['agree']}/{judged} judged by both -> {out / 'disagreements.jsonl'}")
    summary["overall"] = dict(total)
    summary["bfcl_error_types"] = dict(failures.most_common())
    print("BFCL's verdicts by mode and error type:")
    for kind, count in failures.most_common(14):
        print(f"  {count:>7}  {kind}")
    for record in disagreements[: args.show]:
        print(f"- {record['model']} {record['id']} [{record['known'] or 'UNEXPLAINED'}]")
        print(f"    bfcl={record['bfcl_valid']} {record['bfcl_error_type']}: "
              f"{(record['bfcl_error'] or [''])[0][:160]}")  # fmt: skip
        print(f"    agentloop={record['agentloop_valid']}: {record['agentloop_reason'][:160]}")
        print(f"    output: {json.dumps(record['output'], default=str)[:200]}")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

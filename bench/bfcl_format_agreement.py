"""Agreement of agentloop with BFCL's own code on its format-sensitivity category.

Two checks, BFCL's side in ``.venv-bfcl`` (``bench/bfcl_format_checker.py``):

- the rows: for each of the 5200 entries, the id and the messages agentloop sends (the
  format's system prompt over the function docs) equal what BFCL's prompting handler
  sends;
- the verdicts: each row's ground truth written as a model's reply in the row's format
  (Python calls, JSON, verbose or concise XML, in ``<TOOLCALL>`` when the format has the
  tag), and variants of it: in another format, the tag missing or unasked, prose around
  it, a wrong value, a missing argument, an extra call, a wrong or underscored name,
  positional arguments, arithmetic and unary forms, truncated, empty, refusing, hostile
  (code in an argument, deep nesting). Each reply gets BFCL's verdict
  (``_evaluate_single_ast_entry`` as ``format_sensitivity_runner`` calls it) and
  ``bfcl_verdict``'s on the row.

Prints agreement per variant and overall and the first disagreements; writes
``disagreements.jsonl`` and ``summary.json`` under ``--out``.

Run: ``make bfcl-agreement`` or ``.venv/bin/python bench/bfcl_format_agreement.py
[--limit N] [--variants a,b] [--out DIR]`` (default DIR: ``runs/bfcl-format-agreement``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentloop.evals import bfcl_prompt_format, bfcl_verdict  # noqa: E402

from agentloop.benchmarks.bfcl._data import bfcl_rows  # noqa: E402
from agentloop.benchmarks.bfcl._package import bfcl_data_dir  # noqa: E402

BFCL_PYTHON = ROOT / ".venv-bfcl" / "bin" / "python"
CHECKER = ROOT / "bench" / "bfcl_format_checker.py"


def _answers() -> dict[str, list[dict[str, Any]]]:
    """Every source entry's possible answer, BFCL's form, by id."""
    directory = bfcl_data_dir() / "possible_answer"
    answers: dict[str, list[dict[str, Any]]] = {}
    for path in directory.glob("BFCL_v4_*.json"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                a = json.loads(line)
                answers[str(a["id"])] = a.get("ground_truth") or []
    return answers


def canonical(answer: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The first acceptable value of each parameter; one that may be left out is."""
    calls = []
    for item in answer:
        for name, params in item.items():
            args = {}
            for param, values in params.items():
                kept = [v for v in values if v != ""]
                if kept:
                    args[param] = _first(kept[0])
            calls.append((name, args))
    return calls


def _first(value: Any) -> Any:
    if isinstance(value, dict):  # a dict answer: acceptable values per key
        out = {}
        for k, v in value.items():
            kept = [x for x in v if x != ""] if isinstance(v, list) else [v]
            if kept:
                out[k] = kept[0]
        return out
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_first(v) for v in value]
    return value


def _xml_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "dict"
    return "string"


def _xml_text(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def render(calls: list[tuple[str, dict[str, Any]]], ret: str) -> str:
    """Calls written in one of BFCL's return formats."""
    if ret == "python":
        return (
            "["
            + ", ".join(
                f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"
                for name, args in calls
            )
            + "]"
        )
    if ret == "json":
        body = json.dumps([{"function": n, "parameters": a} for n, a in calls])
        return f"```json\n{body}\n```"
    parts = []
    for name, args in calls:
        if ret == "verbose_xml":
            params = "".join(
                f'<param name="{k}" value="{_xml_text(v)}" type="{_xml_type(v)}"/>'
                for k, v in args.items()
            )
            parts.append(f'<function name="{name}"><params>{params}</params></function>')
        else:
            params = "".join(
                f'<param name="{k}" type="{_xml_type(v)}">{_xml_text(v)}</param>'
                for k, v in args.items()
            )
            parts.append(f'<function name="{name}">{params}</function>')
    return "<functions>" + "".join(parts) + "</functions>"


def _tagged(text: str, tag: bool) -> str:
    return f"<TOOLCALL>{text}</TOOLCALL>" if tag else text


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return value + " changed"
    if isinstance(value, list):
        return [*value, value[0]] if value else ["x"]
    return "changed"


KNOWN = "code_in_arg"
"""The one known difference: BFCL ``eval``s an argument written as code, agentloop does not."""

_OTHER = {"python": "json", "json": "python", "verbose_xml": "concise_xml", "concise_xml": "python"}


def variants(row: dict[str, Any], calls: list[tuple[str, dict[str, Any]]]) -> dict[str, str]:
    """The replies tried on one row, by variant name."""
    fmt = bfcl_prompt_format(row["metadata"]["bfcl_format"])
    ret, tag = fmt.return_format, fmt.tool_call_tag
    out = {"canonical": _tagged(render(calls, ret), tag)}
    out["other_format"] = _tagged(render(calls, _OTHER[ret]), tag)
    out["tag_flipped"] = _tagged(render(calls, ret), not tag)
    out["prose_around"] = "Sure, here you go:\n" + out["canonical"] + "\nHope this helps."
    first_name, first_args = calls[0]
    if first_args:
        key = next(iter(first_args))
        wrong = dict(first_args, **{key: _changed(first_args[key])})
        out["wrong_value"] = _tagged(render([(first_name, wrong), *calls[1:]], ret), tag)
        missing = {k: v for k, v in first_args.items() if k != key}
        out["missing_arg"] = _tagged(render([(first_name, missing), *calls[1:]], ret), tag)
        extra = dict(first_args, unexpected_param="x")
        out["extra_arg"] = _tagged(render([(first_name, extra), *calls[1:]], ret), tag)
    out["extra_call"] = _tagged(render([*calls, calls[0]], ret), tag)
    out["wrong_name"] = _tagged(render([(first_name + "_x", first_args), *calls[1:]], ret), tag)
    if "." in first_name:
        under = first_name.replace(".", "_")
        out["underscored_name"] = _tagged(render([(under, first_args), *calls[1:]], ret), tag)
    if ret == "python":
        positional = f"[{first_name}(" + ", ".join(repr(v) for v in first_args.values()) + ")]"
        out["positional"] = _tagged(positional, tag)
        numbers = [(k, v) for k, v in first_args.items() if type(v) in (int, float)]
        if numbers:
            k, v = numbers[0]
            others = ", ".join(f"{a}={b!r}" for a, b in first_args.items() if a != k)
            sep = ", " if others else ""
            out["arithmetic"] = _tagged(f"[{first_name}({k}={v!r} - 1 + 1{sep}{others})]", tag)
            out["unary_plus"] = _tagged(f"[{first_name}({k}=+{v!r}{sep}{others})]", tag)
            # BFCL runs this (its eval gives the right value); agentloop runs no model code
            out[KNOWN] = _tagged(f"[{first_name}({k}=len('') + {v!r}{sep}{others})]", tag)
        out["call_in_arg"] = _tagged(f"[{first_name}(x=__import__('os').getcwd())]", tag)
        out["deep_nesting"] = _tagged(f"[{first_name}(x=" + "[" * 200 + "]" * 200 + ")]", tag)
    out["truncated"] = out["canonical"][: len(out["canonical"]) // 2]
    out["empty"] = ""
    out["refusal"] = "I cannot answer this with the given functions."
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="the first N rows only")
    parser.add_argument("--variants", help="comma-separated variant names")
    parser.add_argument("--out", default=str(ROOT / "runs" / "bfcl-format-agreement"))
    args = parser.parse_args(argv)
    chosen = set(args.variants.split(",")) if args.variants else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    rows = list(bfcl_rows("format_sensitivity"))[: args.limit]
    theirs = subprocess.run(
        [str(BFCL_PYTHON), str(CHECKER), "--prompts"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    bfcl_prompts = {p["id"]: p["messages"] for p in map(json.loads, theirs)}
    prompt_diff = [r["id"] for r in rows if bfcl_prompts.get(r["id"]) != r["messages"]]
    print(f"rows: {len(rows)}; messages equal to BFCL's: {len(rows) - len(prompt_diff)}")

    answers = _answers()
    cases = []
    for row in rows:
        source_id = row["id"].split(":")[-1]
        for name, text in variants(row, canonical(answers[source_id])).items():
            if chosen is None or name in chosen:
                cases.append(
                    {"case_id": len(cases), "id": row["id"], "variant": name, "output": text}
                )
    by_row = {r["id"]: r for r in rows}

    started = time.process_time()
    ours = []
    for case in cases:
        row = by_row[case["id"]]
        reply = [{"role": "assistant", "content": case["output"]}]
        ours.append(bfcl_verdict(reply, row["ground_truth"], row["metadata"], row))
    our_seconds = time.process_time() - started

    feed = "".join(json.dumps({k: c[k] for k in ("case_id", "id", "output")}) + "\n" for c in cases)
    done = subprocess.run(
        [str(BFCL_PYTHON), str(CHECKER)], input=feed, capture_output=True, text=True, check=True
    )
    bfcl = {v["case_id"]: v for v in map(json.loads, done.stdout.splitlines())}

    per: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    disagreements = []
    for case, mine in zip(cases, ours, strict=True):
        theirs_valid = bfcl[case["case_id"]]["valid"]
        per[case["variant"]] += 1
        passed[case["variant"]] += theirs_valid
        if (mine.score == 1.0) == theirs_valid:
            agree[case["variant"]] += 1
        else:
            disagreements.append({**case, "bfcl": bfcl[case["case_id"]], "agentloop": mine.reason})
    print(f"{'variant':18} {'cases':>6} {'BFCL passes':>11} {'agree':>7}")
    for name in per:
        print(f"{name:18} {per[name]:6} {passed[name]:11} {agree[name] / per[name]:7.2%}")
    total, agreed = sum(per.values()), sum(agree.values())
    print(f"{'all':18} {total:6} {sum(passed.values()):11} {agreed / total:7.4%}")
    known_total, known_agree = per[KNOWN], agree[KNOWN]
    rest = (agreed - known_agree) / (total - known_total) if total > known_total else 1.0
    print(f"{'all but ' + KNOWN:18} {total - known_total:6} {'':11} {rest:7.4%}")
    print(f"bfcl_verdict: {our_seconds / total * 1e6:.0f} µs CPU per case")
    bfcl_seconds = float(done.stderr.strip().rsplit("=", 1)[-1])
    print(f"BFCL's _evaluate_single_ast_entry: {bfcl_seconds / total * 1e6:.0f} µs CPU per case")
    for d in [d for d in disagreements if d["variant"] != KNOWN][:5]:
        print(
            "DISAGREE",
            d["variant"],
            d["id"][-40:],
            repr(d["output"][:120]),
            d["bfcl"],
            d["agentloop"],
        )
    with (out / "disagreements.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(d) + "\n" for d in disagreements)
    summary = {
        "rows": len(rows),
        "rows_messages_differ": prompt_diff,
        "cases": total,
        "agree": agreed,
        "known_difference": KNOWN,
        "us_per_case": {"agentloop": our_seconds / total * 1e6, "bfcl": bfcl_seconds / total * 1e6},
        "per_variant": {
            k: {"cases": per[k], "agree": agree[k], "bfcl_passes": passed[k]} for k in per
        },
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    unknown = [d for d in disagreements if d["variant"] != KNOWN]
    return 0 if not unknown and not prompt_diff else 1


if __name__ == "__main__":
    sys.exit(main())

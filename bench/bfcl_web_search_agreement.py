"""Agreement of agentloop's ``bfcl_agentic_verdict`` with BFCL's own verdict on the
web-search categories (``web_search_base``, ``web_search_no_snippet``).

For every entry of each category, the final answer is phrased the ways BFCL's
``agentic_checker`` accepts and rejects (the phrasings of ``bfcl_memory_agreement.py``:
BFCL's answer format for each possible answer, a sentence, upper case, bold, spaces after
commas dropped, glued to a letter, quotes, "I do not know", empty, an answer then a call,
a call alone, a later wrong answer, long and non-ASCII text, regex characters), plus
web-search steps: a search and a fetch before the answer, and a call whose arguments do
not decode (BFCL then checks the call's record). Each case gets two verdicts:

- BFCL's: ``bench/bfcl_web_search_checker.py`` in ``.venv-bfcl`` (``make .venv-bfcl``), which
  runs ``eval_runner._evaluate_single_agentic_entry`` unmodified on BFCL's own entries;
- agentloop's: ``bfcl_agentic_verdict`` on the same steps as an OpenAI-format conversation.

Prints agreement per category and kind and every disagreement; target 100%.

Run: ``.venv/bin/python bench/bfcl_web_search_agreement.py [--limit N]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bfcl_agentic_cases import compare  # noqa: E402
from bfcl_memory_agreement import phrasings  # noqa: E402

from agentloop.benchmarks.bfcl._data import bfcl_rows  # noqa: E402
from agentloop.benchmarks.bfcl._web_search import WEB_SEARCH_CATEGORIES  # noqa: E402

_SEARCH = [{"search_engine_query": json.dumps({"keywords": "Forbes richest China 2025"})}]
_FETCH = [{"fetch_url_content": json.dumps({"url": "https://example.org", "mode": "truncate"})}]
_BROKEN = [{"search_engine_query": '{"keywords": "unterminated'}]


def cases_of(answers: list[str]) -> list[tuple[str, list[Any]]]:
    first = answers[0]
    return [
        *phrasings(answers),
        ("search_fetch_answer", [_SEARCH, _FETCH, f"{{'answer': '{first}', 'context': 'web'}}"]),
        ("answer_then_broken_call", [first, _BROKEN]),
        ("broken_call_then_answer", [_BROKEN, first]),
        ("broken_call_only", [_BROKEN]),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="entries per category")
    args = parser.parse_args(argv)
    cases: list[dict[str, Any]] = []
    for category in WEB_SEARCH_CATEGORIES:
        for row in list(bfcl_rows(category))[: args.limit or None]:
            for kind, steps in cases_of(row["answer"]):
                cases.append(
                    {
                        "case_id": len(cases),
                        "id": row["id"],
                        "category": category,
                        "kind": kind,
                        "steps": steps,
                        "answers": row["answer"],
                    }
                )
    return compare(cases, "bfcl_web_search_checker.py", WEB_SEARCH_CATEGORIES, tool_result="[]")


if __name__ == "__main__":
    raise SystemExit(main())

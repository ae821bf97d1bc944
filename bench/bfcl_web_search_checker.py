"""BFCL's own verdict on web-search entries. Runs in ``.venv-bfcl`` (``make .venv-bfcl``).

Reads the JSONL cases of ``bfcl_memory_checker.py`` (``{"case_id", "id", "category",
"steps"}``) and writes one verdict per case the same way, through its ``verdict``
(``eval_runner._evaluate_single_agentic_entry`` unmodified); only the loading differs:
BFCL renames a web-search entry's id after its category, not its possible answer's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry
from bfcl_memory_checker import verdict


def main() -> int:
    cases = [json.loads(line) for line in sys.stdin.read().splitlines() if line.strip()]
    entries: dict[str, dict[str, Any]] = {}
    answers: dict[str, dict[str, Any]] = {}
    for category in dict.fromkeys(c["category"] for c in cases):
        entries.update((e["id"], e) for e in load_dataset_entry(category))
        answers.update(
            (a["id"].replace("web_search", category), a) for a in load_ground_truth_entry(category)
        )
    for case in cases:
        result = verdict(case, entries[case["id"]], answers[case["id"]])
        sys.stdout.write(json.dumps({"case_id": case["case_id"], **result}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

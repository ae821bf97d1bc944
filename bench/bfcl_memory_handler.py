"""BFCL's own handler playing memory entries with ``bfcl_memory_policy`` as its model.
Runs in ``.venv-bfcl`` (``make .venv-bfcl``).

``python bench/bfcl_memory_handler.py CATEGORY RESULT_DIR [SCENARIO ...]``: BFCL's
entries (``load_dataset_entry``, prerequisites included), their initial config
(``populate_initial_settings_for_memory_test_cases``) and order (``sort_key``), each
played by ``OpenAICompletionsHandler.inference_multi_turn_FC`` unmodified, except that its
``generate_with_backoff`` answers from the policy instead of OpenAI. Writes one JSON line
per entry: ``{"id", "system", "tool_results", "snapshot"}`` (the first system message
sent, every tool result in order, and a prerequisite's saved memory).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.utils import (
    get_directory_structure_by_id,
    load_dataset_entry,
    populate_initial_settings_for_memory_test_cases,
    sort_key,
)
from openai.types.chat import ChatCompletion

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bfcl_memory_policy import as_openai, reply


def _role_text(message: Any) -> tuple[str, str]:
    if isinstance(message, dict):
        return message["role"], str(message.get("content") or "")
    return message.role, str(message.content or "")


class PolicyHandler(OpenAICompletionsHandler):
    category = ""
    replies = 0

    def generate_with_backoff(self, **kwargs: Any) -> tuple[ChatCompletion, float]:
        messages = kwargs["messages"]
        system = _role_text(messages[0])[1]
        role, text = _role_text(messages[-1])
        users = sum(1 for m in messages if _role_text(m)[0] == "user")
        type(self).replies += 1
        message = as_openai(reply(self.category, system, role, text, users), self.replies)
        completion = ChatCompletion.model_validate(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "policy",
                "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )
        return completion, 0.0


def main() -> int:
    category, result_dir, *scenarios = sys.argv[1:]
    os.environ.setdefault("OPENAI_API_KEY", "unused")
    PolicyHandler.category = category
    handler = PolicyHandler("policy-FC", 0.001, "policy-FC", True)
    entries = load_dataset_entry(category, include_prereq=True)
    entries = [e for e in entries if not scenarios or e["scenario"] in scenarios]
    entries = sorted(
        populate_initial_settings_for_memory_test_cases(entries, Path(result_dir)), key=sort_key
    )
    for entry in entries:
        with contextlib.redirect_stdout(sys.stderr):  # BFCL prints its progress
            _, metadata = handler.inference_multi_turn_FC(entry, False, False)
        results = [
            step_item["content"]
            for turn in metadata["inference_log"]
            if isinstance(turn, dict)
            for key, step in turn.items()
            if key.startswith("step_")
            for step_item in step
            if step_item.get("role") == "tool"
        ]
        snapshot = None
        if "_prereq_" in entry["id"]:
            folder = Path(result_dir) / get_directory_structure_by_id(entry["id"])
            path = folder / "memory_snapshot" / "prereq_checkpoints" / f"{entry['id']}.json"
            snapshot = json.loads(path.read_text())
        line = {
            "id": entry["id"],
            "system": entry["question"][0][0]["content"],
            "tool_results": results,
            "snapshot": snapshot,
        }
        sys.stdout.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

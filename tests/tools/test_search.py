"""Tests for agentloop.tools.search: corpus, ranking, query safety, limits and threads."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from agentloop.tools.search import (
    MAX_K,
    CorpusIndex,
    Passage,
    fts5_available,
    load_corpus,
    parse_corpus,
    query_terms,
    search,
)
from langchain_core.tools import ToolException


def ids(query: str, k: int = 3) -> list[str]:
    return [hit["id"] for hit in search.invoke({"query": query, "k": k})]


def test_fts5_is_available() -> None:
    assert fts5_available()


def test_corpus_shape() -> None:
    corpus = load_corpus()
    assert 40 <= len(corpus) <= 60
    assert len({p["id"] for p in corpus}) == len(corpus)
    for passage in corpus:
        assert set(passage) == {"id", "title", "text"}
        assert passage["title"] and 40 < len(passage["text"]) < 400


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("capital of Vellmora", "vellmora"),
        ("Who invented the telephone?", "telephone"),
        ("Harrowpeak first climbed", "harrowpeak"),
        ("largest moon in the solar system", "jupiter"),
        ("which river flows into the Black Sea", "danube"),
        ("GOLD symbol", "gold"),
        ("Brasília", "brasilia"),  # diacritics are folded
        ("rings", "saturn"),
    ],
)
def test_best_hit(query: str, best: str) -> None:
    assert ids(query)[0] == best


def test_results_shape_and_k() -> None:
    hits = search.invoke({"query": "river", "k": 5})
    assert len(hits) == 5
    assert all(set(hit) == {"id", "title", "text"} for hit in hits)
    assert len(search.invoke({"query": "river"})) == 3


def test_stemming_matches_plural() -> None:
    assert "nile" in ids("rivers Africa")


def test_no_match_is_empty_list() -> None:
    assert search.invoke({"query": "xylophone quasar"}) == []


def test_deterministic() -> None:
    assert ids("planet moon", 10) == ids("planet moon", 10)


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "NEAR(capital Vellmora)",
        "capital* OR",
        "-capital",
        "title:gold",
        "AND OR NOT",
        "'; DROP TABLE docs; --",
    ],
)
def test_fts_syntax_is_not_injected(query: str) -> None:
    # None of these may raise a SQLite error; operators are treated as words.
    result = search.invoke({"query": query + " gold"})
    assert isinstance(result, list)


def test_query_terms() -> None:
    assert query_terms("What is the capital of Vellmora?") == ["capital", "vellmora"]
    assert query_terms("the of") == ["the", "of"]  # only stop words: keep them
    assert query_terms('NEAR("x"* -y_z)') == ["near", "x", "y", "z"]
    assert query_terms("Capital capital CAPITAL") == ["capital"]
    assert query_terms("?!") == []


@pytest.mark.parametrize(("k", "ok"), [(0, False), (1, True), (MAX_K, True), (MAX_K + 1, False)])
def test_k_limits(k: int, ok: bool) -> None:
    if ok:
        assert len(search.invoke({"query": "the", "k": k})) == k
    else:
        with pytest.raises(ToolException, match="k must be between"):
            search.invoke({"query": "the", "k": k})


def test_rejects_empty_and_long_queries() -> None:
    with pytest.raises(ToolException, match="no searchable words"):
        search.invoke({"query": " ?! "})
    with pytest.raises(ToolException, match="longer than"):
        search.invoke({"query": "gold " * 200})


def test_async_invocation() -> None:
    hits = asyncio.run(search.ainvoke({"query": "capital of Vellmora", "k": 1}))
    assert hits[0]["id"] == "vellmora"


def test_thread_safe_lazy_build() -> None:
    loads: list[int] = []

    def load() -> list[Passage]:
        loads.append(1)
        return load_corpus()

    index = CorpusIndex(load)
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(lambda _: index.search("Ostrel", 1)[0]["id"], range(64)))
        assert results == ["ostrel-river"] * 64
        assert loads == [1]
        assert len(index) == len(load_corpus())
    finally:
        index.close()


def test_custom_corpus_and_close_rebuilds() -> None:
    passages = [Passage(id="a", title="Alpha", text="The quick brown fox.")]
    index = CorpusIndex(lambda: passages)
    try:
        assert index.search("fox") == passages
        index.close()
        assert index.search("quick fox", 2) == passages
    finally:
        index.close()


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["{bad"], "corpus:1: invalid JSON"),
        (['{"id": "a", "title": "A"}'], "need string fields"),
        (["[]"], "need string fields"),
        (['{"id": "a", "title": "A", "text": "x"}'] * 2, "corpus:2: duplicate id 'a'"),
    ],
)
def test_parse_corpus_errors(lines: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_corpus(lines)


def test_parse_corpus_skips_blank_lines() -> None:
    assert parse_corpus(["", '{"id": "a", "title": "A", "text": "x"}', "  "]) == [
        {"id": "a", "title": "A", "text": "x"}
    ]

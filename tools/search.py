"""Full-text search over a small bundled corpus, using SQLite FTS5.

The corpus (``tools/data/corpus.jsonl``) holds about fifty short passages, each
``{"id", "title", "text"}``: general knowledge (capitals, rivers, inventions,
elements, planets) and a made-up island nation, Vellmora, whose facts a model
can only learn by searching.

The index is an in-memory SQLite database built on first use. Sync tools run
in worker threads, so one connection is opened with ``check_same_thread=False``
and every access goes through a lock.

Queries are never passed to FTS5 as syntax: words are extracted with a regular
expression, common stop words dropped, each word double-quoted, and the words
OR-ed together, so ``NEAR(``, ``*``, ``"`` or ``-`` in a query cannot inject
operators. Results are ranked by ``bm25`` (title weighted twice the text), ties
broken by corpus order, so results are deterministic.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from importlib import resources
from typing import TypedDict

from langchain_core.tools import ToolException, tool

__all__ = [
    "MAX_K",
    "MAX_QUERY_LENGTH",
    "CorpusIndex",
    "Passage",
    "finds",
    "fts5_available",
    "load_corpus",
    "parse_corpus",
    "query_terms",
    "search",
]

MAX_K = 10
"""Most results one search may return."""
MAX_QUERY_LENGTH = 500
"""Longest query accepted, in characters."""
_MAX_TERMS = 32

# Words too common to help ranking; dropped unless the query has nothing else.
_STOP_WORDS = frozenset(
    (
        *("a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for"),
        *("from", "how", "in", "is", "it", "its", "of", "on", "or", "the", "to", "was"),
        *("were", "what", "when", "where", "which", "who", "whom", "whose", "why", "with"),
    )
)
# Letters and digits, matching what FTS5's unicode61 tokenizer keeps.
_WORD = re.compile(r"[^\W_]+")


class Passage(TypedDict):
    """One corpus passage, and one search result."""

    id: str
    title: str
    text: str


def parse_corpus(lines: Sequence[str], source: str = "corpus") -> list[Passage]:
    """Parse JSONL lines into passages, checking fields and unique ids.

    Raises:
        ValueError: a line is not a JSON object with string ``id``, ``title``
            and ``text``, or an id repeats; the message names the line.
    """
    passages: list[Passage] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}:{number}: invalid JSON ({exc.msg})") from None
        if not isinstance(row, dict) or not all(
            isinstance(row.get(field), str) for field in ("id", "title", "text")
        ):
            raise ValueError(f"{source}:{number}: need string fields id, title and text")
        if row["id"] in seen:
            raise ValueError(f"{source}:{number}: duplicate id {row['id']!r}")
        seen.add(row["id"])
        passages.append(Passage(id=row["id"], title=row["title"], text=row["text"]))
    return passages


def load_corpus() -> list[Passage]:
    """Load the bundled corpus from the package data (``tools/data/corpus.jsonl``)."""
    data = resources.files(__package__ or "tools").joinpath("data").joinpath("corpus.jsonl")
    return parse_corpus(data.read_text(encoding="utf-8").splitlines(), "corpus.jsonl")


def fts5_available() -> bool:
    """Whether this Python's sqlite3 was built with the FTS5 extension."""
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute("CREATE VIRTUAL TABLE probe USING fts5(x)")
    except sqlite3.OperationalError:
        return False
    finally:
        connection.close()
    return True


def query_terms(query: str) -> list[str]:
    """The distinct lower-cased words of ``query`` that the search will use."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(query)))
    content = [word for word in words if word not in _STOP_WORDS]
    return (content or words)[:_MAX_TERMS]


def _match_expression(terms: Sequence[str]) -> str:
    # Quoting makes every term a plain string token; doubling quotes is FTS5's
    # escape, though _WORD never yields a quote.
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


class CorpusIndex:
    """A lazily built, thread-safe FTS5 index over a list of passages.

    ``load`` is called once, on the first search; pass your own loader to
    search another corpus with the same ranking.
    """

    def __init__(self, load: Callable[[], Sequence[Passage]] = load_corpus) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        """Build the index on first use; the caller holds the lock."""
        if self._connection is None:
            if not fts5_available():
                raise ToolException("search: this Python's sqlite3 has no FTS5 support")
            connection = sqlite3.connect(":memory:", check_same_thread=False)
            connection.execute(
                "CREATE VIRTUAL TABLE docs USING fts5("
                "id UNINDEXED, title, text, tokenize='porter unicode61 remove_diacritics 2')"
            )
            connection.executemany(
                "INSERT INTO docs (id, title, text) VALUES (?, ?, ?)",
                [(p["id"], p["title"], p["text"]) for p in self._load()],
            )
            connection.commit()
            self._connection = connection
        return self._connection

    def close(self) -> None:
        """Drop the index; the next search rebuilds it from ``load``."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def __len__(self) -> int:
        with self._lock:
            row = self._connect().execute("SELECT count(*) FROM docs").fetchone()
        return int(row[0])

    def search(self, query: str, k: int = 3) -> list[Passage]:
        """Return up to ``k`` passages best matching ``query`` (may be empty).

        Raises:
            ToolException: ``k`` is outside 1..MAX_K, or the query is too long
                or contains no words.
        """
        if not 1 <= k <= MAX_K:
            raise ToolException(f"search: k must be between 1 and {MAX_K}, not {k}")
        if len(query) > MAX_QUERY_LENGTH:
            raise ToolException(f"search: query is longer than {MAX_QUERY_LENGTH} characters")
        terms = query_terms(query)
        if not terms:
            raise ToolException(f"search: query {query!r} contains no searchable words")
        with self._lock:
            rows = (
                self._connect()
                .execute(
                    "SELECT id, title, text FROM docs WHERE docs MATCH ? "
                    "ORDER BY bm25(docs, 0.0, 2.0, 1.0), rowid LIMIT ?",
                    (_match_expression(terms), k),
                )
                .fetchall()
            )
        return [Passage(id=row[0], title=row[1], text=row[2]) for row in rows]


_DEFAULT_INDEX = CorpusIndex()


@tool(parse_docstring=True)
def search(query: str, k: int = 3) -> list[Passage]:
    """Search a small encyclopedia of short passages and return the best matches.

    The encyclopedia covers capitals, rivers, inventions, chemical elements,
    planets and the island nation of Vellmora. Each result has an id, a title
    and the passage text. Use a few specific keywords, e.g. "Harrowpeak first
    climbed".

    Args:
        query: Keywords or a question to search for.
        k: How many passages to return, from 1 to 10.
    """
    return _DEFAULT_INDEX.search(query, k)


def finds(query: object, *, passage: str, k: int = 3) -> bool:
    """Whether ``search(query, k)`` returns the passage whose id is ``passage``: a
    ground-truth matcher for the query, which is free text
    (``{"$match": "agentloop.tools.search:finds", "passage": "vellmora"}``); a query the
    tool rejects finds nothing. ``k``: the tool's default."""
    if not isinstance(query, str):
        return False
    try:
        found = _DEFAULT_INDEX.search(query, k)
    except ToolException:
        return False
    return any(p["id"] == passage for p in found)

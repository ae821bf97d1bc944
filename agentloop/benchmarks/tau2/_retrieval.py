"""τ²-bench's retrieval configurations of the banking_knowledge domain (its
``--retrieval-config``): which knowledge-base tools the agent gets and what its system prompt
holds. Written here from τ²-bench's published configurations; the documents and prompt files
are τ²-bench's (``agentloop.benchmarks.tau2._data``).

Offline:

- ``no_knowledge``: no documents, no search tool;
- ``full_kb``: every document in the system prompt;
- ``golden_retrieval``: the task's required documents in the system prompt (per task);
- ``bm25``: ``KB_search``, BM25 over the documents (``rank_bm25``'s ``BM25Okapi``, the library
  τ²-bench uses, on the same lower-cased whitespace tokens; the 10 best, ties in corpus order);
- ``bm25_grep``: ``KB_search`` (BM25) and ``grep`` (a case-insensitive regular expression, the
  text escaped when it does not compile; documents ranked by their number of matches, 10 at
  most);
- ``grep_only``: ``grep``.

With an embedding model: ``openai_embeddings``, ``openai_embeddings_grep``, ``qwen_embeddings``,
``qwen_embeddings_grep`` (``KB_search`` ranks the documents by the cosine of their embedding
with the query's, through a LangChain ``Embeddings``: the environment's ``embedding_model``,
``provider:model``). Not supported: the rerankers (an LLM grades each hit), ``terminal_use`` and
``alltools`` (a shell sandbox over the documents); each is a one-line error.

The documents are in file-name order (τ²-bench reads them in the order its file system lists
them, which the full knowledge base's prompt and the order of tied scores follow).
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentloop.benchmarks.tau2._banking import KnowledgeTools
from agentloop.benchmarks.tau2._toolkit import tau2_tool
from agentloop.errors import DatasetError

__all__ = [
    "DEFAULT_RETRIEVAL_CONFIG",
    "OFFLINE_CONFIGS",
    "RETRIEVAL_CONFIGS",
    "Document",
    "KnowledgeBase",
    "check_retrieval_config",
    "knowledge_policy",
    "retrieval_toolkit",
]

DEFAULT_RETRIEVAL_CONFIG = "alltools"
"""τ²-bench's default (BM25 and OpenAI embeddings search and a shell): not supported here."""


@dataclass(frozen=True)
class RetrievalConfig:
    """One configuration: its prompt file, how the prompt is filled, its search tools."""

    prompt: str
    fill: str = "none"  # "full_kb": every document; "golden": the task's required ones
    kb_search: str | None = None  # "bm25" or the embedding model τ²-bench names
    grep: bool = False


RETRIEVAL_CONFIGS: dict[str, RetrievalConfig] = {
    "no_knowledge": RetrievalConfig("no_knowledge.md"),
    "full_kb": RetrievalConfig("full_kb.md", fill="full_kb"),
    "golden_retrieval": RetrievalConfig("required_docs.md", fill="golden"),
    "bm25": RetrievalConfig("classic_rag_bm25_no_grep.md", kb_search="bm25"),
    "bm25_grep": RetrievalConfig("classic_rag_bm25.md", kb_search="bm25", grep=True),
    "grep_only": RetrievalConfig("grep_only.md", grep=True),
    "openai_embeddings": RetrievalConfig(
        "classic_rag_openai_no_grep.md", kb_search="text-embedding-3-large"
    ),
    "openai_embeddings_grep": RetrievalConfig(
        "classic_rag_openai.md", kb_search="text-embedding-3-large", grep=True
    ),
    "qwen_embeddings": RetrievalConfig(
        "classic_rag_qwen_no_grep.md", kb_search="qwen3-embedding-8b"
    ),
    "qwen_embeddings_grep": RetrievalConfig(
        "classic_rag_qwen.md", kb_search="qwen3-embedding-8b", grep=True
    ),
}
"""The configurations agentloop runs (τ²-bench's names)."""
OFFLINE_CONFIGS = ("no_knowledge", "full_kb", "golden_retrieval", "bm25", "bm25_grep", "grep_only")
_UNSUPPORTED = {
    "alltools": "a shell sandbox over the documents",
    "AllTools": "a shell sandbox over the documents",
    "alltools-qwen": "a shell sandbox over the documents",
    "terminal_use": "a shell sandbox over the documents",
    "terminal_use_write": "a shell sandbox over the documents",
    "bm25_reranker": "an LLM reranker",
    "bm25_reranker_grep": "an LLM reranker",
    "openai_embeddings_reranker": "an LLM reranker",
    "openai_embeddings_reranker_grep": "an LLM reranker",
    "qwen_embeddings_reranker": "an LLM reranker",
    "qwen_embeddings_reranker_grep": "an LLM reranker",
}


def check_retrieval_config(name: str | None) -> str:
    """The configuration's name; a one-line ``DatasetError`` for an unknown or unsupported
    one, or none (τ²-bench's default, ``alltools``, is not supported)."""
    known = ", ".join(RETRIEVAL_CONFIGS)
    if name is None:
        raise DatasetError(
            "tau2:banking_knowledge: name a retrieval config "
            f"(tau2:banking_knowledge?retrieval_config=bm25); τ²-bench's default "
            f"{DEFAULT_RETRIEVAL_CONFIG!r} needs {_UNSUPPORTED[DEFAULT_RETRIEVAL_CONFIG]}, which "
            f"agentloop does not run; known: {known}"
        )
    if name in _UNSUPPORTED:
        raise DatasetError(
            f"retrieval config {name!r} needs {_UNSUPPORTED[name]}, which agentloop does not "
            f"run; known: {known}"
        )
    if name not in RETRIEVAL_CONFIGS:
        raise DatasetError(f"unknown retrieval config {name!r}; known: {known}")
    return name


@dataclass(frozen=True)
class Document:
    """A knowledge-base document."""

    id: str
    title: str
    content: str


class KnowledgeBase:
    """The documents and prompt files of one task set."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.documents = [
            Document(**{k: doc[k] for k in ("id", "title", "content")})
            for path in sorted(files)
            if path.startswith("documents/") and path.endswith(".json")
            for doc in [json.loads(files[path])]
        ]
        self.by_id = {doc.id: doc for doc in self.documents}
        self.by_title = {doc.title: doc for doc in self.documents}
        self.files = files

    def prompt_file(self, name: str) -> str:
        try:
            return self.files[f"prompts/{name}"]
        except KeyError:
            raise DatasetError(f"banking_knowledge: no prompt file prompts/{name}") from None

    @functools.cached_property
    def bm25(self) -> Any:
        try:
            from rank_bm25 import BM25Okapi
        except ImportError:
            raise DatasetError(
                "the bm25 retrieval configs need rank-bm25: pip install 'agentloop[tau2]'"
            ) from None

        return BM25Okapi([doc.content.lower().split() for doc in self.documents])


_COMPONENT = re.compile(r"\{\{component:(\w+)\}\}")


def _section(doc: Document) -> str:
    return f"## {doc.title}\n\n{doc.content}"


def knowledge_policy(
    kb: KnowledgeBase, config: str | None, required_documents: Sequence[str] | None = None
) -> str:
    """The policy the agent's system prompt holds: the configuration's prompt file, its
    ``{{component:...}}`` parts filled in, then every document (``full_kb``) or the task's
    required documents, by title or id (``golden_retrieval``)."""
    spec = RETRIEVAL_CONFIGS[check_retrieval_config(config)]
    text = _COMPONENT.sub(
        lambda m: kb.prompt_file(f"components/{m.group(1)}.md"), kb.prompt_file(spec.prompt)
    )
    if spec.fill == "full_kb":
        everything = "\n\n---\n\n".join(_section(doc) for doc in kb.documents)
        text = text.replace("{{full_knowledge_base}}", everything)
    elif spec.fill == "golden":
        found = [kb.by_title.get(ref) or kb.by_id.get(ref) for ref in required_documents or []]
        sections = [_section(doc) for doc in found if doc is not None]
        text = text.replace(
            "{{required_documents}}",
            "\n\n---\n\n".join(sections) if sections else "(No documents provided)",
        )
    return text


Search = Callable[[str], list[tuple[str, float]]]


def bm25_search(kb: KnowledgeBase, top_k: int = 10) -> Search:
    """``KB_search`` with BM25: the ``top_k`` best (id, score), ties in corpus order."""

    def search(query: str) -> list[tuple[str, float]]:
        if not query or not query.strip():
            return []
        scores = kb.bm25.get_scores(query.lower().split())
        order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
        return [(kb.documents[i].id, float(scores[i])) for i in order[:top_k]]

    return search


def grep_search(kb: KnowledgeBase, top_k: int = 10) -> Search:
    """``grep``: documents by their number of case-insensitive matches (the pattern escaped
    when it is not a valid regular expression)."""

    def search(pattern: str) -> list[tuple[str, float]]:
        if not pattern.strip():
            return []
        try:
            compiled = re.compile(pattern, re.IGNORECASE)
        except re.error:
            compiled = re.compile(re.escape(pattern), re.IGNORECASE)
        hits = [(doc.id, float(len(compiled.findall(doc.content)))) for doc in kb.documents]
        ranked = sorted((hit for hit in hits if hit[1]), key=lambda h: h[1], reverse=True)
        return ranked[:top_k]

    return search


def embedding_search(kb: KnowledgeBase, embeddings: Any, top_k: int = 10) -> Search:
    """``KB_search`` with a LangChain ``Embeddings``: the ``top_k`` documents by cosine."""
    import numpy as np

    matrix = np.asarray(embeddings.embed_documents([doc.content for doc in kb.documents]))
    matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)

    def search(query: str) -> list[tuple[str, float]]:
        if not query or not query.strip():
            return []
        vector = np.asarray(embeddings.embed_query(query))
        scores = matrix @ (vector / np.linalg.norm(vector))
        order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
        return [(kb.documents[i].id, float(scores[i])) for i in order[:top_k]]

    return search


def _hits(kb: KnowledgeBase, hits: list[tuple[str, float]]) -> str:
    return "\n".join(
        f"{i}. {kb.by_id[doc_id].title or 'Untitled'}\n   ID: {doc_id}\n   Score: {score:.4f}\n"
        f"   Content: {kb.by_id[doc_id].content}\n"
        for i, (doc_id, score) in enumerate(hits, 1)
    )


class RetrievalTools(KnowledgeTools):
    """The agent's tools with the configuration's search tools first (τ²-bench's order)."""

    SEARCH_TOOLS: tuple[str, ...] = ()

    def __init__(
        self,
        db: Any,
        read_log_allowlist: Sequence[str] = (),
        *,
        kb: KnowledgeBase,
        kb_search: Search | None = None,
        grep: Search | None = None,
    ) -> None:
        super().__init__(db, read_log_allowlist)
        self.kb, self._kb_search, self._grep = kb, kb_search, grep

    @classmethod
    def tool_names(cls) -> list[str]:
        return [*cls.SEARCH_TOOLS, *KnowledgeTools.tool_names()]

    @tau2_tool(
        "read",
        "Search the knowledge base for relevant documents.",
        {"query": "The search query to find relevant documents"},
    )
    def KB_search(self, query: str) -> str:
        assert self._kb_search is not None
        started = time.perf_counter()
        hits = self._kb_search(query)
        took = (time.perf_counter() - started) * 1000
        text = _hits(self.kb, hits) if hits else "No relevant documents found."
        return f"{text}\n\n[Timing: retrieval={took:.0f}ms, total={took:.0f}ms]"

    @tau2_tool(
        "read",
        "Search for a regex pattern in all knowledge base documents.\n\nReturns documents "
        "ranked by number of matches, with full content.",
        {"pattern": "The regex pattern to search for (e.g., 'credit.*card', 'fee|charge')"},
    )
    def grep(self, pattern: str) -> str:
        assert self._grep is not None
        hits = self._grep(pattern)
        return _hits(self.kb, hits) if hits else f"No matches found for pattern: {pattern}"


# τ²-bench's error texts name a method by its qualified name (its mixins')
RetrievalTools.KB_search.__qualname__ = "KBSearchMixin.KB_search"
RetrievalTools.grep.__qualname__ = "GrepMixin.grep"


class _KBSearchTools(RetrievalTools):
    SEARCH_TOOLS = ("KB_search",)


class _GrepTools(RetrievalTools):
    SEARCH_TOOLS = ("grep",)


class _KBSearchGrepTools(RetrievalTools):
    SEARCH_TOOLS = ("KB_search", "grep")


def _embeddings(model: str | None, config: str) -> Any:
    """A LangChain ``Embeddings`` for ``provider:model``; one-line errors otherwise."""
    if not model:
        raise DatasetError(
            f"retrieval config {config!r} searches with embeddings: give the environment an "
            "embedding_model (provider:model, e.g. openai:text-embedding-3-large)"
        )
    provider, _, name = model.partition(":")
    if provider != "openai" or not name:
        raise DatasetError(
            f"embedding_model {model!r}: expected openai:<model> (LangChain's OpenAIEmbeddings)"
        )
    try:
        from langchain_openai import OpenAIEmbeddings
    except ImportError:
        raise DatasetError(
            f"embedding_model {model!r} needs langchain-openai: pip install langchain-openai"
        ) from None
    return OpenAIEmbeddings(model=name)


@functools.lru_cache(maxsize=8)
def _embedding_index(kb: KnowledgeBase, model: str, config: str) -> Search:
    return embedding_search(kb, _embeddings(model, config))


def retrieval_toolkit(
    kb: KnowledgeBase,
    config: str,
    db: Any,
    read_log_allowlist: Sequence[str] = (),
    *,
    embedding_model: str | None = None,
    embeddings: Any = None,
) -> KnowledgeTools:
    """The agent's toolkit under a configuration; ``embeddings``: a LangChain ``Embeddings``
    to search with (else ``embedding_model`` names one)."""
    spec = RETRIEVAL_CONFIGS[check_retrieval_config(config)]
    kb_search: Search | None = None
    if spec.kb_search == "bm25":
        kb_search = bm25_search(kb)
    elif spec.kb_search is not None:
        if embeddings is not None:
            kb_search = embedding_search(kb, embeddings)
        else:
            if not embedding_model:
                _embeddings(embedding_model, config)  # the one-line error
            kb_search = _embedding_index(kb, str(embedding_model), config)
    grep = grep_search(kb) if spec.grep else None
    if kb_search is None and grep is None:
        return KnowledgeTools(db, read_log_allowlist)
    cls = _KBSearchGrepTools if kb_search and grep else _KBSearchTools if kb_search else _GrepTools
    return cls(db, read_log_allowlist, kb=kb, kb_search=kb_search, grep=grep)

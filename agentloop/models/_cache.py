"""The response cache (``cache: true`` or a directory): a rerun does not pay twice.

A LangChain ``BaseCache`` set on the live chat model, so it sits where LangChain looks
a reply up, whatever the provider. The key hashes agentloop's own description of the
source (``identity``: the model spec with its provider, the resolved endpoint, every
request parameter, reasoning included, and every model option that changes what is sent),
LangChain's description of the call (``llm_string``: the tools and ``tool_choice`` bound),
the messages, and the epoch of the sample asking, so that epochs stay independent samples.
``llm_string`` alone is not enough: for a class LangChain cannot serialise (``ChatOllama``)
it holds neither the model nor the endpoint. A refusal or a content-filter stop is not
kept: asked again, the model may answer. A reply served from here is marked
(``response_metadata[FROM_CACHE]``) so that its step is recorded ``cached``, not billed.
Values are the replies as JSON (LangChain's
``message_to_dict``; never a pickle), in one SQLite file that several processes may
write at once. Hits and misses are counted per sample (``cache_scope``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from langchain_core.caches import BaseCache
from langchain_core.messages import message_to_dict, messages_from_dict
from langchain_core.outputs import ChatGeneration, Generation

from agentloop.engine import FROM_CACHE

__all__ = ["CACHE_FILE", "NOT_IN_KEY", "ResponseCache", "cache_scope", "default_cache_dir"]

CACHE_FILE = "responses.sqlite"
_KEY_VERSION = "agentloop-cache/2"  # entries written under another key are never read
# Model options that change how a request is retried or waited for, not what is sent.
NOT_IN_KEY = frozenset({
    "request_timeout", "max_retries", "retry_initial_delay_s", "retry_max_delay_s",
    "retry_max_total_s", "max_concurrent_requests", "api_key_env",
})  # fmt: skip
# Stop reasons of a refusal or a content filter, as the providers spell them (lower-cased).
_REFUSED = frozenset({
    "content_filter", "refusal", "safety", "prohibited_content", "blocklist", "spii",
    "recitation", "image_safety",
})  # fmt: skip
_SCOPE: ContextVar[tuple[Any, Counter[str]] | None] = ContextVar("agentloop_cache", default=None)


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/agentloop``, else ``~/.cache/agentloop``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentloop"


@contextmanager
def cache_scope(epoch: int, draw: int | None = None) -> Iterator[Counter[str]]:
    """Within the block, lookups are keyed on ``epoch`` and counted in the returned
    counter (``hit``, ``miss``). ``draw`` keys independent samples of one request apart
    (a judge asked several times: each draw is a request of its own)."""
    counts: Counter[str] = Counter()
    token = _SCOPE.set((epoch if draw is None else [epoch, draw], counts))
    try:
        yield counts
    finally:
        _SCOPE.reset(token)


# What a reply carries that is not sent back with it: a reused reply differs there
# (LangChain zeroes the cost of a hit), and the key must not.
_NOT_SENT = ("id", "response_metadata", "usage_metadata")


def _sent(prompt: str) -> Any:
    """LangChain's serialized messages without what the next request does not send."""
    try:
        messages = json.loads(prompt)
    except json.JSONDecodeError:
        return prompt
    for message in messages if isinstance(messages, list) else []:
        kwargs = message.get("kwargs") if isinstance(message, dict) else None
        if isinstance(kwargs, dict):
            for name in _NOT_SENT:
                kwargs.pop(name, None)
    return messages


def _refused(generation: ChatGeneration) -> bool:
    """A refusal or a content-filter stop, by the reply's stop reason or refusal text."""
    message = generation.message
    if message.additional_kwargs.get("refusal"):
        return True
    info = {**(generation.generation_info or {}), **message.response_metadata}
    reasons = (info.get(k) for k in ("finish_reason", "stop_reason", "done_reason"))
    return any(str(getattr(r, "name", r)).lower() in _REFUSED for r in reasons if r)


class ResponseCache(BaseCache):
    """Model replies in ``<directory>/responses.sqlite``; entries older than
    ``expiry_s`` (if set) are misses and are replaced."""

    def __init__(
        self,
        directory: str | Path,
        expiry_s: float | None = None,
        identity: dict[str, Any] | None = None,
    ) -> None:
        self.path = Path(directory) / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.expiry_s = expiry_s
        self.identity = json.dumps(identity or {}, sort_keys=True, default=str)
        """The source's description, part of every key (see the module doc)."""
        self._lock = threading.Lock()  # one connection, used from LangChain's threads
        self._db = sqlite3.connect(self.path, timeout=60.0, check_same_thread=False)
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replies "
                "(key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL NOT NULL)"
            )

    def _key(self, prompt: str, llm_string: str) -> tuple[str, Counter[str] | None]:
        scope = _SCOPE.get()
        epoch, counts = scope if scope is not None else (None, None)
        text = json.dumps(
            [_KEY_VERSION, self.identity, llm_string, _sent(prompt), epoch], sort_keys=True
        )
        return hashlib.sha256(text.encode()).hexdigest(), counts

    def lookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
        key, counts = self._key(prompt, llm_string)
        with self._lock:
            row = self._db.execute(
                "SELECT value, created FROM replies WHERE key = ?", (key,)
            ).fetchone()
        fresh = row is not None and (self.expiry_s is None or time.time() - row[1] <= self.expiry_s)
        if counts is not None:
            counts["hit" if fresh else "miss"] += 1
        if not fresh:
            return None
        generations = []
        for g in json.loads(row[0]):
            message = messages_from_dict([g["message"]])[0]
            message.response_metadata[FROM_CACHE] = True  # its step costs nothing
            generations.append(
                ChatGeneration(message=message, generation_info=g["generation_info"])
            )
        return generations

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        if not all(isinstance(g, ChatGeneration) for g in return_val):
            return  # only chat replies are kept
        if any(_refused(g) for g in return_val if isinstance(g, ChatGeneration)):
            return
        key, _ = self._key(prompt, llm_string)
        value = json.dumps(
            [
                {"message": message_to_dict(g.message), "generation_info": g.generation_info}
                for g in return_val
                if isinstance(g, ChatGeneration)
            ]
        )
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO replies (key, value, created) VALUES (?, ?, ?)",
                (key, value, time.time()),
            )

    def clear(self, **kwargs: Any) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM replies")

    def close(self) -> None:
        with self._lock:
            self._db.close()

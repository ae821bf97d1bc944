"""The one secret policy: which names hold secrets, where their values come from, masking.

A *secret name* has KEY, TOKEN, SECRET, CREDENTIAL(S) or AUTH as a word (any case;
words are split at ``_``, ``-``, ``.``, spaces and camelCase: ``api_key``, ``X-Api-Key``,
``accessToken``), or a word containing PASSWORD or PASSWD (``PGPASSWORD``); words that
only contain one (``keyword_boost``, ``author``, ``tokenizer``, ``monkey``) do not count.
Nor do names that only look like one: ``*_env`` options name a variable
(``api_key_env: MY_KEY``), token counts (``max_tokens``, ``input_tokens``) are numbers,
and ``max_tokens_field`` names a request field.

Secrets inside URLs, wherever a URL appears in text: the password of the userinfo
(``http://alice:***@host``; a user alone, as some tokens are sent, is masked whole) and
the values of query parameters with secret names (``?api_key=***``).

Secret values are those of secret-named variables in the environment and in ``.env``
in the working directory (``openai:`` models read keys from both), 6 characters or
longer: shorter values (``TOKENIZERS_PARALLELISM=false``) would mask ordinary words.

This module imports nothing from agentloop: the engine, the models and the harness
all use it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "MASK",
    "MIN_SECRET_LEN",
    "Scrubber",
    "holds_mask",
    "is_secret_name",
    "mask_url",
    "mask_urls",
    "read_dotenv",
    "secret_values",
]

MASK = "***"
MIN_SECRET_LEN = 6

_SECRET_WORDS = frozenset(
    {"key", "apikey", "accesskey", "secretkey", "privatekey", "token", "secret", "secrets",
     "credential", "credentials", "auth", "authorization"}
)  # fmt: skip
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_NOT_SECRET = frozenset({"max_tokens_field"})
_COUNT_WORDS = frozenset(
    {"max", "min", "num", "n", "input", "output", "total", "prompt", "completion", "cached",
     "reasoning", "new"}
)  # fmt: skip


def _is_token_count(lowered: str) -> bool:
    words = [w for w in re.split(r"[^a-z0-9]+", lowered) if w]
    return len(words) > 1 and words[-1] == "tokens" and any(w in _COUNT_WORDS for w in words)


def is_secret_name(name: str) -> bool:
    """True when a variable, option or parameter named ``name`` may hold a secret."""
    lowered = name.lower()
    if lowered in _NOT_SECRET or lowered.endswith("_env") or _is_token_count(lowered):
        return False
    words = [w.lower() for w in _WORD.findall(name)]
    return any(w in _SECRET_WORDS or "passw" in w for w in words)


_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>\\]+")


def holds_mask(value: Any) -> bool:
    """Whether masked data holds a masked value anywhere: a string that is the mask, or
    text the mask was put into (a URL's password or query value, a secret's value).

    >>> holds_mask({"a": ["x", "***"]}), holds_mask("http://u:***@h/v1"), holds_mask(3)
    (True, True, False)
    """
    if isinstance(value, str):
        return MASK in value
    if isinstance(value, dict):
        return any(holds_mask(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(holds_mask(v) for v in value)
    return False


def mask_url(url: str) -> str:
    """``url`` with its userinfo password and secret-named query values masked.

    >>> mask_url("http://alice:pw@host/v1?api_key=sk-1&x=2")
    'http://alice:***@host/v1?api_key=***&x=2'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, has_password, _ = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if has_password else f"{MASK}@{host}"
    items = parts.query.split("&") if parts.query else []
    secret = [is_secret_name(item.partition("=")[0]) and "=" in item for item in items]
    if netloc == parts.netloc and not any(secret):
        return url  # unchanged, as written
    query = "&".join(
        f"{item.partition('=')[0]}={MASK}" if masked else item
        for item, masked in zip(items, secret, strict=True)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def mask_urls(text: str) -> str:
    """``text`` with every URL in it masked by :func:`mask_url`."""
    return _URL.sub(lambda m: mask_url(m.group(0)), text) if "://" in text else text


def read_dotenv(path: str | Path = ".env") -> dict[str, str]:
    """``KEY=VALUE`` lines of a ``.env`` file (``export``, comments and quotes allowed).

    Missing file: ``{}``. Values are not expanded; the environment is not changed.
    """
    file = Path(path)
    if not file.is_file():
        return {}
    values: dict[str, str] = {}
    for raw in file.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.replace("_", "").isalnum():
            continue
        value = value.strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            value = value[1:end] if end > 0 else value[1:]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = value
    return values


def secret_values(environ: Mapping[str, str] | None = None) -> set[str]:
    """Values of secret-named variables: of ``environ``, or else of the environment and
    ``./.env`` together."""
    if environ is None:
        try:
            dotenv = read_dotenv()
        except (OSError, UnicodeDecodeError):
            dotenv = {}  # an unreadable .env holds no key anyone could have used
        sources: list[Mapping[str, str]] = [os.environ, dotenv]
    else:
        sources = [environ]
    return {
        value
        for source in sources
        for name, value in source.items()
        if len(value) >= MIN_SECRET_LEN and is_secret_name(name)
    }


def _escaped(value: str) -> set[str]:
    """``value`` and how it appears inside a JSON string (ASCII-escaped or not)."""
    return {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}


class Scrubber:
    """Replaces secret values (see ``secret_values``) with ``***`` in text and JSON."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        values = secret_values(environ)
        # Longest first, so a secret containing another is masked whole.
        self.secrets = sorted(values, key=len, reverse=True)
        # A string may hold JSON text itself (tool-call arguments, JSON tool output): the
        # secret is escaped there, and escaped twice in the JSON text holding that string.
        inner = {form for s in values for form in _escaped(s)}
        self._masked = sorted(inner, key=len, reverse=True)
        self._forms = frozenset(twice for form in inner for twice in _escaped(form))

    def text(self, value: str) -> str:
        """``value`` with every secret masked (escaped as in JSON text, too), and the
        secrets of every URL in it."""
        value = mask_urls(value)
        for secret in self._masked:
            if secret in value:
                value = value.replace(secret, MASK)
        return value

    def obj(self, value: Any) -> Any:
        """A copy of a JSON-like value with every string (keys too) masked."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.obj(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.obj(v) for v in value]
        return value

    def json_text(self, text: str) -> str:
        """A JSON document with every secret masked; re-encodes only when one is found."""
        if not any(form in text for form in self._forms) and mask_urls(text) == text:
            return text
        return json.dumps(self.obj(json.loads(text)), ensure_ascii=False)

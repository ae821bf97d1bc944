"""Recorded web searches for BFCL's web-search categories: what ``search_engine_query`` and
``fetch_url_content`` answer offline, from a file the user supplies.

The file is JSON (or YAML, by its suffix)::

    {
      "searches": {"<keywords, exactly as the model sends them>": [
          {"title": "...", "href": "https://...", "body": "the snippet"}, ...]},
      "pages": {"<url>": "the page's content",
                "<url>": {"raw": "<html>...", "markdown": "...", "truncate": "..."}}
    }

A search's results are in the shape BFCL's ``WebSearchAPI`` returns them (``title``,
``href``, ``body``); ``max_results`` cuts the list and ``web_search_no_snippet`` drops
``body``, as BFCL does. A page is one text for every mode, or a text per mode (``raw``,
``markdown``, ``truncate``). Keywords and URLs are matched exactly. Something not in the
file is that call's error (the trajectory records it), never a crash.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentloop.errors import ConfigError

__all__ = ["FETCH_MODES", "NotRecordedError", "SearchReplay", "load_search_replay"]

FETCH_MODES = ("raw", "markdown", "truncate")
"""``fetch_url_content``'s modes, as BFCL names them."""


class NotRecordedError(LookupError):
    """A query or URL the replay file has no recording for (the call's error)."""


class SearchReplay:
    """A replay file's searches and pages, checked when read."""

    def __init__(
        self, path: Path, searches: dict[str, list[dict[str, str]]], pages: dict[str, Any]
    ):
        self.path = path
        self.searches = searches
        self.pages = pages

    def search(
        self, keywords: str, max_results: int | None, show_snippet: bool
    ) -> list[dict[str, str]]:
        found = self.searches.get(keywords)
        if found is None:
            raise NotRecordedError(f"search {keywords!r} is not recorded in {self.path}")
        chosen = found if max_results is None else found[:max_results]
        if show_snippet:
            return [dict(r) for r in chosen]
        return [{k: v for k, v in r.items() if k != "body"} for r in chosen]

    def fetch(self, url: str, mode: str) -> dict[str, str]:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"Invalid URL: {url}")  # BFCL's own check, before any fetch
        page = self.pages.get(url)
        if page is None:
            raise NotRecordedError(f"page {url!r} is not recorded in {self.path}")
        if mode not in FETCH_MODES:  # BFCL fetches the page first, then refuses the mode
            return {"error": f"An error occurred while fetching {url}: Unsupported mode: {mode}"}
        if isinstance(page, str):
            return {"content": page}
        if mode not in page:
            raise NotRecordedError(f"page {url!r} has no {mode!r} content in {self.path}")
        return {"content": page[mode]}


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"search replay {path}: {exc.strerror or exc}") from None
    try:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            return yaml.safe_load(text)
        return json.loads(text)
    except ValueError as exc:  # yaml's errors are ValueErrors too
        raise ConfigError(
            f"search replay {path}: not valid {path.suffix[1:] or 'JSON'}: {exc}"
        ) from None


def _check_result(result: Any, where: str) -> dict[str, str]:
    if not isinstance(result, Mapping) or not all(
        isinstance(result.get(k), str) for k in ("title", "href")
    ):
        raise ConfigError(f"{where}: expected {{title, href, body}} strings")
    if not all(isinstance(v, str) for v in result.values()):
        raise ConfigError(f"{where}: every value must be a string")
    return dict(result)


def load_search_replay(path: str | Path) -> SearchReplay:
    """Read and check a replay file; ``ConfigError`` (one line naming the file and the
    field) when it is not of the documented shape."""
    file = Path(path)
    data = _read(file)
    if not isinstance(data, Mapping) or set(data) - {"searches", "pages"}:
        raise ConfigError(f"search replay {file}: expected an object with 'searches' and 'pages'")
    raw_searches, raw_pages = data.get("searches") or {}, data.get("pages") or {}
    if not isinstance(raw_searches, Mapping) or not isinstance(raw_pages, Mapping):
        raise ConfigError(f"search replay {file}: 'searches' and 'pages' must be objects")
    searches: dict[str, list[dict[str, str]]] = {}
    for keywords, results in raw_searches.items():
        where = f"search replay {file}: searches[{keywords!r}]"
        if not isinstance(results, list):
            raise ConfigError(f"{where}: expected a list of results")
        searches[str(keywords)] = [_check_result(r, f"{where}[{i}]") for i, r in enumerate(results)]
    pages: dict[str, Any] = {}
    for url, page in raw_pages.items():
        where = f"search replay {file}: pages[{url!r}]"
        if isinstance(page, Mapping):
            unknown = set(page) - set(FETCH_MODES)
            if unknown or not all(isinstance(v, str) for v in page.values()):
                raise ConfigError(f"{where}: expected a text or {{raw, markdown, truncate}} texts")
            page = dict(page)
        elif not isinstance(page, str):
            raise ConfigError(f"{where}: expected a text or {{raw, markdown, truncate}} texts")
        pages[str(url)] = page
    return SearchReplay(file, searches, pages)

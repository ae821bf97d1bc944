"""BFCL's web-search categories (``web_search_base``, ``web_search_no_snippet``): their rows
and the search backend their two tools run on.

Rows. Both categories read ``BFCL_v4_web_search.json`` (BFCL renames the ids after the
category), with BFCL's agentic system prompt before the question; the possible answers
are the row's ``answer``, which :func:`bfcl_agentic_verdict` checks the final answer
against. The scenario sets ``show_snippet`` as BFCL does (false for ``no_snippet``).

Tools. ``search_engine_query`` and ``fetch_url_content``, described as BFCL's
``multi_turn_func_doc/web_search.json`` describes them to a function-calling model. A call
answers what BFCL's ``WebSearchAPI`` would, made text as BFCL's executor makes it (a list
as Python's ``str``, a dict as JSON); an exception the class would raise (an invalid URL,
an unsupported mode) becomes ``Error during execution: ...`` as in BFCL.

The search, chosen by the environment's ``search`` argument:

- ``live``: SerpAPI's DuckDuckGo engine with the key in ``$SERPAPI_API_KEY``, as BFCL asks
  it (``engine``, ``q``, ``kl``, ``api_key``), and pages fetched over HTTP with BFCL's
  headers; a 429 is retried with backoff (at most :data:`RATE_LIMIT_RETRIES` times, where
  BFCL retries forever). ``serpapi_url`` points it elsewhere (a proxy, a test stub).
- ``replay``: recorded results from a file (``_search_replay``). Such a run's results are
  not comparable with BFCL's leaderboard, and say so: the environment's state (in each
  result line's verdict) and ``agentloop bfcl summary``.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import random
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentloop.benchmarks.bfcl._convert import openai_tools
from agentloop.benchmarks.bfcl._package import bfcl_data_dir
from agentloop.benchmarks.bfcl._search_replay import (
    FETCH_MODES,
    NotRecordedError,
    SearchReplay,
    load_search_replay,
)
from agentloop.errors import ConfigError, DatasetError

if TYPE_CHECKING:  # LangChain is not loaded to read a row
    from langchain_core.tools import BaseTool

__all__ = [
    "AGENTIC_SYSTEM_PROMPT",
    "RATE_LIMIT_RETRIES",
    "SEARCH_MODES",
    "SERPAPI_KEY_ENV",
    "SERPAPI_URL",
    "WEB_SEARCH_CATEGORIES",
    "WebSearchEnvironment",
    "bfcl_web_search_environment",
    "bfcl_web_search_row",
]

WEB_SEARCH_CATEGORIES = ("web_search_base", "web_search_no_snippet")
SEARCH_MODES = ("live", "replay")
SERPAPI_KEY_ENV = "SERPAPI_API_KEY"  # the name BFCL's WebSearchAPI reads
SERPAPI_URL = "https://serpapi.com"
RATE_LIMIT_RETRIES = 6
# bfcl_eval.constants.default_prompts.ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT
AGENTIC_SYSTEM_PROMPT = (
    "For your final answer to the user, you must respond in this format: {'answer': A short "
    "and precise answer to the question, 'context': A brief explanation of how you arrived at "
    "this answer or why it is correct}. If you do not know the answer, respond with "
    "{'answer': 'I do not know', 'context': 'I do not know'}. If you think the question cannot "
    "be properly answered, response with {'answer': 'I cannot answer this question', 'context': "
    "A short reason explaining why this question cannot be answered}.\n"
)
_CLASS = "WebSearchAPI"
_NO_RESULTS = "Failed to retrieve the search results from server. Please try again later."
# BFCL's browser-like headers (without "br": httpx decodes it only with brotli installed)
_HEADERS = {
    "User-Agent": (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/112.0.0.0 Safari/537.36"
    ),
    "Accept": (
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
        "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
    ),
    "Accept-Language": "en-US,en;q=0.9",
    "Accept-Encoding": "gzip, deflate",
    "Referer": "https://www.google.com/",
}


def bfcl_web_search_row(
    entry: Mapping[str, Any], category: str, answers: list[str]
) -> dict[str, Any]:
    """One entry of ``BFCL_v4_web_search.json`` (and its possible answers) as a row."""
    question = list(entry["question"][0])
    return {
        "id": str(entry["id"]).replace("web_search", category),
        "messages": [{"role": "system", "content": AGENTIC_SYSTEM_PROMPT}, *question],
        "answer": [str(a) for a in answers],
        "environment": {
            "involved_classes": list(entry["involved_classes"]),
            "initial_config": {_CLASS: {"show_snippet": "no_snippet" not in category}},
        },
        "metadata": {"bfcl_category": category},
    }


class _LiveSearch:
    """SerpAPI and HTTP, as BFCL's ``WebSearchAPI`` asks them."""

    def __init__(self, api_key: str, base_url: str) -> None:
        self.api_key, self.base_url = api_key, base_url.rstrip("/")

    def search(
        self, keywords: str, max_results: int | None, region: str, show_snippet: bool
    ) -> Any:
        import httpx

        params = {"engine": "duckduckgo", "q": keywords, "kl": region, "api_key": self.api_key}
        params |= {"source": "python", "output": "json"}  # what SerpAPI's client adds
        backoff = 2.0
        for attempt in range(RATE_LIMIT_RETRIES + 1):
            try:
                found = httpx.get(f"{self.base_url}/search", params=params, timeout=60).json()
            except Exception as exc:
                return {"error": str(exc)}
            limited = isinstance(found, dict) and "429" in str(found.get("error", ""))
            if not limited:
                break
            if attempt == RATE_LIMIT_RETRIES:
                return {"error": str(found["error"])}
            time.sleep(backoff + random.uniform(0, backoff))
            backoff = min(backoff * 2, 120)
        if not isinstance(found, dict) or "organic_results" not in found:
            return {"error": _NO_RESULTS}
        keys = ("title", "link", "snippet") if show_snippet else ("title", "link")
        names = {"title": "title", "link": "href", "snippet": "body"}
        return [{names[k]: r[k] for k in keys} for r in found["organic_results"][:max_results]]

    def fetch(self, url: str, mode: str) -> dict[str, str]:
        import httpx

        needs = {"markdown": "html2text", "truncate": "bs4"}.get(mode)
        if needs is not None and importlib.util.find_spec(needs) is None:
            package = "html2text" if needs == "html2text" else "'agentloop[bfcl-web-search]'"
            return {
                "error": f"fetch_url_content mode {mode!r} needs {needs}: pip install {package}"
            }
        try:
            response = httpx.get(url, headers=_HEADERS, timeout=20, follow_redirects=True)
            response.raise_for_status()
            if mode == "raw":
                return {"content": response.text}
            if mode == "markdown":
                import html2text  # type: ignore[import-not-found]

                return {"content": html2text.HTML2Text().handle(response.text)}
            from bs4 import BeautifulSoup

            soup = BeautifulSoup(response.text, "html.parser")
            for element in soup(["script", "style"]):
                element.extract()
            return {"content": soup.get_text(separator="\n", strip=True)}
        except Exception as exc:
            return {"error": f"An error occurred while fetching {url}: {exc}"}


class WebSearchEnvironment:
    """One web-search scenario: BFCL's two tools over a live or recorded search."""

    def __init__(self, search: _LiveSearch | SearchReplay, show_snippet: bool) -> None:
        self.search = search
        self.show_snippet = show_snippet
        self._schemas = [t["function"] for t in openai_tools(_function_docs())]

    @property
    def live(self) -> bool:
        return isinstance(self.search, _LiveSearch)

    def search_engine_query(
        self, keywords: str, max_results: int | None = 10, region: str | None = "wt-wt"
    ) -> Any:
        if isinstance(self.search, SearchReplay):
            return self.search.search(keywords, max_results, self.show_snippet)
        return self.search.search(keywords, max_results, region or "wt-wt", self.show_snippet)

    def fetch_url_content(self, url: str, mode: str = "raw") -> Any:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"Invalid URL: {url}")
        if isinstance(self.search, SearchReplay):
            return self.search.fetch(url, mode)
        if mode not in FETCH_MODES:  # BFCL's class answers it as a fetch error
            return {"error": f"An error occurred while fetching {url}: Unsupported mode: {mode}"}
        return self.search.fetch(url, mode)

    def call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """One call as BFCL's executor runs it; a replay's missing recording raises."""
        from agentloop.benchmarks.bfcl._env import _as_text

        method: dict[str, Callable[..., Any]] = {
            "search_engine_query": self.search_engine_query,
            "fetch_url_content": self.fetch_url_content,
        }
        try:
            return _as_text(method[name](**dict(arguments)))
        except NotRecordedError:
            raise
        except Exception as exc:
            return f"Error during execution: {exc}"

    def tools(self) -> list[BaseTool]:
        return [self._tool(schema) for schema in self._schemas]

    def _tool(self, schema: dict[str, Any]) -> BaseTool:
        from langchain_core.tools import StructuredTool

        name = schema["name"]

        def run(**arguments: Any) -> str:
            return self.call(name, arguments)

        return StructuredTool(
            name=name,
            description=schema.get("description", ""),
            args_schema=schema["parameters"],
            func=run,
        )

    def snapshot(self) -> dict[str, Any]:
        """The scenario and how its searches ran: ``leaderboard_comparable`` is false unless
        they were fetched live."""
        return {
            _CLASS: {
                "show_snippet": self.show_snippet,
                "search": "live" if self.live else "replay",
                "leaderboard_comparable": self.live,
            }
        }


@functools.cache
def _docs() -> tuple[str, ...]:
    path = bfcl_data_dir() / "multi_turn_func_doc" / "web_search.json"
    try:
        return tuple(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    except FileNotFoundError:
        raise DatasetError(f"BFCL function docs not found: {path}") from None


def _function_docs() -> list[dict[str, Any]]:
    """BFCL's docs of the two functions, fresh copies."""
    return [json.loads(line) for line in _docs()]


@functools.cache
def _replay(path: Path, mtime: float) -> SearchReplay:
    return load_search_replay(path)


def bfcl_web_search_environment(
    row: Mapping[str, Any],
    search: str = "live",
    replay: str | None = None,
    serpapi_url: str = SERPAPI_URL,
) -> WebSearchEnvironment:
    """The environment factory of the web-search configs (``environment: {factory:
    agentloop.benchmarks:bfcl_web_search_environment, args: {search: live | replay,
    replay: FILE}}``); ``ConfigError`` (one line) for a missing key or replay file."""
    if search not in SEARCH_MODES:
        raise ConfigError(f"environment: args.search: unknown {search!r}; known: live, replay")
    spec = row.get("environment")
    config = spec.get("initial_config") if isinstance(spec, Mapping) else None
    scenario = config.get(_CLASS) if isinstance(config, Mapping) else None
    if not isinstance(scenario, Mapping) or not isinstance(scenario.get("show_snippet"), bool):
        raise DatasetError(
            f"row {row.get('id')!r}: environment: expected a BFCL web-search scenario "
            "(initial_config.WebSearchAPI.show_snippet)"
        )
    if search == "replay":
        if replay is None:
            raise ConfigError("environment: args.replay: search: replay needs a replay file")
        path = Path(replay).resolve()
        mtime = path.stat().st_mtime if path.is_file() else 0.0
        backend: _LiveSearch | SearchReplay = _replay(path, mtime)
    else:
        key = os.environ.get(SERPAPI_KEY_ENV)
        if not key:
            raise ConfigError(
                f"web search: live searches need a SerpAPI key in ${SERPAPI_KEY_ENV} (as BFCL "
                "reads it); or run offline with args: {search: replay, replay: FILE}"
            )
        backend = _LiveSearch(key, serpapi_url)
    return WebSearchEnvironment(backend, scenario["show_snippet"])

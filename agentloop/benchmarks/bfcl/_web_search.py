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
an unknown argument) becomes ``Error during execution: ...`` as in BFCL.

The search, chosen by the environment's ``search`` argument:

- ``live``: BFCL's own ``WebSearchAPI`` (bfcl-eval's class, unchanged): SerpAPI's
  DuckDuckGo engine with the key in ``$SERPAPI_API_KEY``, pages fetched with ``requests``
  and BFCL's headers, a 429 waited out as BFCL waits it out (forever, with its notices).
  ``serpapi_url`` points SerpAPI's client elsewhere (a proxy, a test stub): it sets
  ``serpapi.GoogleSearch.BACKEND``, for the whole process.
- ``replay``: recorded results from a file (``_search_replay``). Such a run's results are
  not comparable with BFCL's leaderboard, and say so: the environment's state (in each
  result line's verdict) and ``agentloop bfcl summary``.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentloop.benchmarks.bfcl._convert import openai_tools
from agentloop.benchmarks.bfcl._search_replay import (
    NotRecordedError,
    SearchReplay,
    load_search_replay,
)
from agentloop.errors import ConfigError, DatasetError

if TYPE_CHECKING:  # LangChain is not loaded to read a row
    from langchain_core.tools import BaseTool

__all__ = [
    "AGENTIC_SYSTEM_PROMPT",
    "SEARCH_MODES",
    "SERPAPI_KEY_ENV",
    "WEB_SEARCH_CATEGORIES",
    "WebSearchEnvironment",
    "bfcl_web_search_environment",
    "bfcl_web_search_row",
]

WEB_SEARCH_CATEGORIES = ("web_search_base", "web_search_no_snippet")
SEARCH_MODES = ("live", "replay")
SERPAPI_KEY_ENV = "SERPAPI_API_KEY"  # the name BFCL's WebSearchAPI reads
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


class WebSearchEnvironment:
    """One web-search scenario: BFCL's two tools over BFCL's own live class or a replay."""

    def __init__(self, search: Any, show_snippet: bool) -> None:
        self.search = search
        """BFCL's ``WebSearchAPI`` (live), or a :class:`SearchReplay`."""
        self.show_snippet = show_snippet
        from agentloop.benchmarks.bfcl._env import bfcl_func_docs  # LangChain: not for rows

        self._schemas = [t["function"] for t in openai_tools(bfcl_func_docs("web_search.json"))]

    @property
    def live(self) -> bool:
        return not isinstance(self.search, SearchReplay)

    def search_engine_query(
        self, keywords: str, max_results: int | None = 10, region: str | None = "wt-wt"
    ) -> Any:
        """The replay's answer, as BFCL's class shapes a search's (live: BFCL's own)."""
        return self.search.search(keywords, max_results, self.show_snippet)

    def fetch_url_content(self, url: str, mode: str = "raw") -> Any:
        """The replay's page (live: BFCL's own)."""
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"Invalid URL: {url}")
        return self.search.fetch(url, mode)

    def call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """One call as BFCL's executor runs it; a replay's missing recording raises."""
        from agentloop.benchmarks.bfcl._env import _as_text

        owner = self.search if self.live else self  # live: BFCL's methods, its defaults
        method: Callable[..., Any] = getattr(owner, name)
        try:
            return _as_text(method(**dict(arguments)))
        except NotRecordedError:
            raise
        except Exception as exc:
            return f"Error during execution: {exc}"

    def tools(self) -> list[BaseTool]:
        from agentloop.benchmarks.bfcl._env import schema_tool  # LangChain: not to read rows

        return [schema_tool(schema, self.call) for schema in self._schemas]

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
def _replay(path: Path, mtime: float) -> SearchReplay:
    return load_search_replay(path)


def bfcl_web_search_environment(
    row: Mapping[str, Any],
    search: str = "live",
    replay: str | None = None,
    serpapi_url: str | None = None,
) -> WebSearchEnvironment:
    """The environment factory of the web-search configs (``environment: {factory:
    agentloop.benchmarks:bfcl_web_search_environment, args: {search: live | replay,
    replay: FILE}}``); ``ConfigError`` (one line) for a missing key, package or replay
    file."""
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
        return WebSearchEnvironment(_replay(path, mtime), scenario["show_snippet"])
    if not os.environ.get(SERPAPI_KEY_ENV):
        raise ConfigError(
            f"web search: live searches need a SerpAPI key in ${SERPAPI_KEY_ENV} (as BFCL "
            "reads it); or run offline with args: {search: replay, replay: FILE}"
        )
    module = _bfcl_web_search_module()
    if serpapi_url is not None:
        module.GoogleSearch.BACKEND = serpapi_url.rstrip("/")
    instance = module.WebSearchAPI()
    instance._load_scenario({"show_snippet": scenario["show_snippet"]})
    return WebSearchEnvironment(instance, scenario["show_snippet"])


def _bfcl_web_search_module() -> Any:
    """bfcl-eval's ``web_search`` module (it imports SerpAPI's client, requests,
    BeautifulSoup and html2text as it loads)."""
    from agentloop.benchmarks.bfcl._package import BFCL_INSTALL, bfcl_package

    bfcl_package()  # importable wherever it was installed
    try:
        return importlib.import_module(
            "bfcl_eval.eval_checker.multi_turn_eval.func_source_code.web_search"
        )
    except ImportError as exc:
        raise ConfigError(
            f"web search, live: BFCL's WebSearchAPI needs {exc.name or exc}: "
            f"pip install 'agentloop[bfcl-web-search]' and {BFCL_INSTALL}"
        ) from None

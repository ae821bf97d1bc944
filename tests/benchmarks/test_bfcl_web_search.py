"""BFCL's web-search categories: rows, the two tools over a recorded or live (stub) search,
the agentic verdict beside bfcl-eval's own checker, the configs and the recipe."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlparse

import pytest

from agentloop.benchmarks.bfcl._agentic_verdict import (
    _checker,
    bfcl_agentic_verdict,
    last_non_call_message,
)
from agentloop.benchmarks.bfcl._data import bfcl_rows
from agentloop.benchmarks.bfcl._package import bfcl_data_dir, bfcl_package
from agentloop.benchmarks.bfcl._search_replay import NotRecordedError, load_search_replay
from agentloop.benchmarks.bfcl._summary import format_bfcl_summary, summarize_bfcl
from agentloop.benchmarks.bfcl._web_search import (
    AGENTIC_SYSTEM_PROMPT,
    SERPAPI_KEY_ENV,
    bfcl_web_search_environment,
)
from agentloop.errors import ConfigError
from agentloop.harness import load_config
from agentloop.harness.run._rescore import rescore_run
from agentloop.harness.run._runner import run_eval_sync
from tests.support.harness import ROOT, ask, call, read_results, write_json

REPLAY = ROOT / "configs" / "data" / "bfcl_web_search_replay.json"
SCRIPT = ROOT / "configs" / "scripts" / "bfcl_web_search.json"
_BFCL_SOURCE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
VERDICT = "agentloop.benchmarks:bfcl_agentic_verdict"


def _row(category: str = "web_search_base", index: int = 0) -> dict[str, Any]:
    return list(bfcl_rows(category))[index]


def test_rows_are_bfcls_entries_under_each_category() -> None:
    bfcl_package()
    from bfcl_eval.constants.default_prompts import (
        ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT as PROMPT,
    )

    base, bare = list(bfcl_rows("web_search_base")), list(bfcl_rows("web_search_no_snippet"))
    answers = [
        json.loads(line)["ground_truth"]
        for line in (bfcl_data_dir() / "possible_answer" / "BFCL_v4_web_search.json")
        .read_text()
        .splitlines()
    ]
    assert len(base) == len(bare) == len(answers) == 3  # the fixture's entries
    assert base[2]["id"] == "web_search_base_2" and bare[2]["id"] == "web_search_no_snippet_2"
    assert AGENTIC_SYSTEM_PROMPT == PROMPT
    assert base[0]["messages"][0] == {"role": "system", "content": PROMPT}
    assert base[0]["messages"][1:] == bare[0]["messages"][1:]
    assert [r["answer"] for r in base] == answers
    assert base[0]["environment"]["initial_config"] == {"WebSearchAPI": {"show_snippet": True}}
    assert bare[0]["environment"]["initial_config"] == {"WebSearchAPI": {"show_snippet": False}}


def _replay_env(category: str = "web_search_base") -> Any:
    return bfcl_web_search_environment(_row(category), search="replay", replay=str(REPLAY))


def test_replayed_searches_answer_as_bfcls_class() -> None:
    env = _replay_env()
    tools = {t.name: t for t in env.tools()}
    assert sorted(tools) == ["fetch_url_content", "search_engine_query"]
    assert "region" in tools["search_engine_query"].args
    text = tools["search_engine_query"].invoke({"keywords": "most expensive tea in the world"})
    # BFCL's executor makes a list result text with str(): a Python repr
    assert text.startswith("[{'title': 'The most expensive teas")
    assert "'body':" in text
    cut = env.call(
        "search_engine_query", {"keywords": "most expensive tea in the world", "max_results": 0}
    )
    assert cut == "[]"
    bare = _replay_env("web_search_no_snippet").call(
        "search_engine_query", {"keywords": "most expensive tea in the world"}
    )
    assert "'body'" not in bare and "'href': 'https://example.org/tea'" in bare
    page = env.call("fetch_url_content", {"url": "https://example.org/usher", "mode": "truncate"})
    assert json.loads(page) == {"content": "Usher was born in Dallas, Texas."}
    one_text = env.call(
        "fetch_url_content", {"url": "https://example.org/forbes-china", "mode": "raw"}
    )
    assert "Zhang Yiming" in json.loads(one_text)["content"]
    # what BFCL's class raises is BFCL's executor text
    assert env.call("fetch_url_content", {"url": "example.org"}) == (
        "Error during execution: Invalid URL: example.org"
    )
    assert env.snapshot() == {
        "WebSearchAPI": {"show_snippet": True, "search": "replay", "leaderboard_comparable": False}
    }


def test_what_the_replay_lacks_is_the_calls_error() -> None:
    env = _replay_env()
    with pytest.raises(NotRecordedError, match=r"'Dallas Cowboys' is not recorded in .*replay"):
        env.call("search_engine_query", {"keywords": "Dallas Cowboys"})
    with pytest.raises(NotRecordedError, match="has no 'markdown' content"):
        env.call("fetch_url_content", {"url": "https://example.org/usher", "mode": "markdown"})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"searches": {"q": {"title": "t"}}}, r"searches\['q'\]: expected a list"),
        ({"searches": {"q": [{"title": "t"}]}}, r"searches\['q'\]\[0\]: expected \{title, href"),
        ({"pages": {"https://a": {"html": "x"}}}, r"pages\['https://a'\]: expected a text"),
        ({"search": {}}, "expected an object with 'searches' and 'pages'"),
    ],
)
def test_a_malformed_replay_is_a_one_line_error(tmp_path: Path, data: Any, message: str) -> None:
    path = write_json(tmp_path / "replay.json", data)
    with pytest.raises(ConfigError, match=message) as caught:
        load_search_replay(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_modes_and_missing_files_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="unknown 'cache'; known: live, replay"):
        bfcl_web_search_environment(_row(), search="cache")
    with pytest.raises(ConfigError, match="needs a replay file"):
        bfcl_web_search_environment(_row(), search="replay")
    with pytest.raises(ConfigError, match=r"search replay .*nowhere\.json"):
        bfcl_web_search_environment(_row(), search="replay", replay="nowhere.json")
    monkeypatch.delenv(SERPAPI_KEY_ENV, raising=False)
    with pytest.raises(ConfigError, match=r"SerpAPI key in \$SERPAPI_API_KEY") as caught:
        bfcl_web_search_environment(_row())
    assert "\n" not in str(caught.value)


class _Stub(BaseHTTPRequestHandler):
    """SerpAPI's /search and a web page, on 127.0.0.1."""

    seen: ClassVar[list[dict[str, list[str]]]] = []
    limited: ClassVar[int] = 0  # how many more searches answer SerpAPI's 429 error

    def do_GET(self) -> None:
        parsed = urlparse(self.path)
        if parsed.path == "/search":
            query = parse_qs(parsed.query)
            type(self).seen.append(query)
            if query["q"] == ["nothing"]:
                body: Any = {"search_metadata": {"status": "Success"}}
            elif query["q"][0].startswith("limited") and type(self).limited > 0:
                type(self).limited -= 1
                body = {"error": "429 Too Many Requests: hourly searches exceeded"}
            else:
                body = {
                    "organic_results": [
                        {
                            "position": i,
                            "title": f"t{i}",
                            "link": f"https://x/{i}",
                            "snippet": f"s{i}",
                        }
                        for i in range(12)
                    ]
                }
            data, kind = json.dumps(body).encode(), "application/json"
        elif parsed.path == "/page":
            data = b"<html><style>p{}</style><body><p>Seven</p><p>wins</p></body></html>"
            kind = "text/html"
        else:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from serpapi import GoogleSearch

    # serpapi_url sets SerpAPI's client's backend for the process: put it back after
    monkeypatch.setattr(GoogleSearch, "BACKEND", GoogleSearch.BACKEND)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Stub.seen = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_live_searches_ask_serpapi_as_bfcl_does(stub: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SERPAPI_KEY_ENV, "k-123")
    env = bfcl_web_search_environment(_row(), serpapi_url=stub)
    text = env.call("search_engine_query", {"keywords": "Usher birthplace", "region": "us-en"})
    query = _Stub.seen[-1]
    assert query["engine"] == ["duckduckgo"] and query["q"] == ["Usher birthplace"]
    assert query["kl"] == ["us-en"] and query["api_key"] == ["k-123"]
    assert text == str(
        [{"title": f"t{i}", "href": f"https://x/{i}", "body": f"s{i}"} for i in range(10)]
    )
    assert _Stub.seen[-1] is query and env.snapshot()["WebSearchAPI"]["leaderboard_comparable"]
    bare = bfcl_web_search_environment(_row("web_search_no_snippet"), serpapi_url=stub)
    assert bare.call("search_engine_query", {"keywords": "a", "max_results": 2}) == str(
        [{"title": "t0", "href": "https://x/0"}, {"title": "t1", "href": "https://x/1"}]
    )
    assert json.loads(env.call("search_engine_query", {"keywords": "nothing"})) == {
        "error": "Failed to retrieve the search results from server. Please try again later."
    }
    page = env.call("fetch_url_content", {"url": f"{stub}/page", "mode": "truncate"})
    assert json.loads(page) == {"content": "Seven\nwins"}
    raw = json.loads(env.call("fetch_url_content", {"url": f"{stub}/page"}))
    assert raw["content"].startswith("<html>")
    missing = json.loads(env.call("fetch_url_content", {"url": f"{stub}/gone"}))
    assert missing["error"].startswith(f"An error occurred while fetching {stub}/gone: ")
    markdown = json.loads(
        env.call("fetch_url_content", {"url": f"{stub}/page", "mode": "markdown"})
    )
    assert markdown == {"content": "Seven\n\nwins\n\n"}  # html2text's, as BFCL converts it
    odd = json.loads(env.call("fetch_url_content", {"url": f"{stub}/page", "mode": "pdf"}))
    assert odd == {"error": f"An error occurred while fetching {stub}/page: Unsupported mode: pdf"}
    assert env.call("fetch_url_content", {"url": "ftp://x"}) == (
        "Error during execution: Invalid URL: ftp://x"
    )
    assert env.call("search_engine_query", {"query": "x"}).startswith(
        "Error during execution: WebSearchAPI.search_engine_query() got an unexpected keyword"
    )


def test_a_rate_limited_search_is_waited_out_as_bfcl_waits(
    stub: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import time

    waits: list[float] = []
    monkeypatch.setenv(SERPAPI_KEY_ENV, "k-123")
    env = bfcl_web_search_environment(_row(), serpapi_url=stub)
    monkeypatch.setattr(time, "sleep", waits.append)  # the waits, not the time
    _Stub.limited = 3  # a 429 in the payload's error: BFCL waits and asks again
    found = env.call("search_engine_query", {"keywords": "limited", "max_results": 1})
    monkeypatch.undo()
    assert found == str([{"title": "t0", "href": "https://x/0", "body": "s0"}])
    assert len(_Stub.seen) == 4
    assert 2 <= waits[0] <= 4 and 4 <= waits[1] <= 8 and 8 <= waits[2] <= 16  # doubling
    assert capsys.readouterr().out.count("Received 429 from SerpAPI") == 3  # BFCL's notices


def test_live_search_without_its_packages_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SERPAPI_KEY_ENV, "k-123")
    monkeypatch.delitem(sys.modules, f"{_BFCL_SOURCE}.web_search", raising=False)
    monkeypatch.setitem(sys.modules, "serpapi", None)  # as if google-search-results were absent
    with pytest.raises(ConfigError) as refused:
        bfcl_web_search_environment(_row())
    assert str(refused.value).startswith(
        "web search, live: BFCL's WebSearchAPI needs serpapi: "
        "pip install 'agentloop[bfcl-web-search]'"
    )


ANSWERS = ["Dong-Sup Yoon", "Yoo Dong-Sup"]
PHRASINGS = [
    "{'answer': 'Dong-Sup Yoon', 'context': '...'}",
    "The president is DONG SUP YOON.",
    "dong_sup_yoon",
    "Yoo Dong-Sup (since 2024)",
    "Dong-Sup Yoonseo",  # not a whole word
    "Yoon Dong-Sup",
    "I do not know",
    "Dong-Sup  Yoon",  # whitespace is kept
    "",
]


@pytest.mark.parametrize("text", PHRASINGS)
def test_the_verdict_is_bfcls_checker_on_the_final_answer(text: str) -> None:
    trajectory = [
        {"role": "user", "content": "q"},
        ask(call("c1", "search_engine_query", {"keywords": "Yonsei president"})),
        {"role": "tool", "tool_call_id": "c1", "content": "[]"},
        {"role": "assistant", "content": text},
    ]
    result = bfcl_agentic_verdict(trajectory, {"answer": ANSWERS})
    expected = bool(text) and _checker()(text, ANSWERS)["valid"]
    assert result.score == (1.0 if expected else 0.0)
    if text == "{'answer': 'Dong-Sup Yoon', 'context': '...'}":
        assert result.score == 1.0
    if text in ("Dong-Sup Yoonseo", "I do not know"):
        assert result.details.error_type == "agentic:answer_not_found"
    if not text:
        assert result.details.error_type == "agentic:no_last_message"


def test_the_message_read_is_bfcls_last_non_call_step() -> None:
    answer = {"role": "assistant", "content": "Zhang Yiming"}
    later_call = ask(call("c2", "search_engine_query", {"keywords": "x"}))
    assert last_non_call_message([answer, later_call]) == "Zhang Yiming"
    broken = {
        "role": "assistant",
        "content": "Zhang Yiming",  # BFCL keeps the calls, not the text, of a call step
        "tool_calls": [
            {"id": "c3", "type": "function", "function": {"name": "f", "arguments": "{"}}
        ],
    }
    assert last_non_call_message([answer, broken]) == "[{'f': '{'}]"
    assert last_non_call_message([later_call]) is None
    result = bfcl_agentic_verdict([later_call], {"answer": ["x"]})
    assert result.score == 0.0 and result.details.error_type == "agentic:no_last_message"


def test_the_configs_and_the_offline_recipe(tmp_path: Path) -> None:
    for name in ("web_search_base", "web_search_no_snippet"):
        config = load_config(ROOT / "configs" / "bfcl" / f"{name}.yaml")
        assert config.dataset == f"bfcl:{name}" and config.rewards == [VERDICT]
    path = ROOT / "configs" / "bfcl" / "web_search_base.yaml"
    config = load_config(
        path,
        overrides={
            "model": f"scripted:{SCRIPT}",
            "environment": {
                "factory": "agentloop.benchmarks:bfcl_web_search_environment",
                "args": {"search": "replay", "replay": str(REPLAY)},
            },
            "sample_ids": ["web_search_base_0", "web_search_base_1"],
            "output_dir": str(tmp_path),
            "preflight": False,
        },
    )
    outcome = run_eval_sync(config, config_path=str(path))
    assert outcome.exit_code == 0 and outcome.summary.errored == 0
    lines = {r["id"]: r for r in read_results(outcome.run_dir)}
    verdicts = {k: v["scores"][VERDICT] for k, v in lines.items()}
    assert {k: v["score"] for k, v in verdicts.items()} == {
        "web_search_base_0": 1.0,
        "web_search_base_1": 0.0,
    }
    assert all(v["details"]["leaderboard_comparable"] is False for v in verdicts.values())
    assert all("not comparable with BFCL's" in v["reason"] for v in verdicts.values())
    header = json.loads((outcome.run_dir / "run.json").read_text())
    assert header["config"]["environment"]["args"]["search"] == "replay"
    summary = summarize_bfcl([outcome.run_dir])
    assert summary.categories["web_search_base"].not_comparable == 2
    text = format_bfcl_summary(summary)
    assert "(not comparable: recorded searches)" in text
    assert "not comparable with BFCL's leaderboard" in text
    # re-scored from the results file: the recorded searches still label each verdict
    rescored, _ = rescore_run(outcome.run_dir)
    again = {r["id"]: r["scores"][VERDICT] for r in read_results(rescored.parent, rescored.name)}
    assert again == verdicts


def test_a_live_run_is_not_flagged_and_a_run_without_the_verdict_names_it(
    tmp_path: Path,
) -> None:
    def line(sample: str, scores: dict[str, Any]) -> str:
        record = {"id": sample, "epoch": 1, "status": "ok", "scores": scores,
                  "metadata": {"bfcl_category": "web_search_base"}}  # fmt: skip
        return json.dumps(record) + "\n"

    live = {"score": 1.0, "details": {"search": "live", "leaderboard_comparable": True}}
    (tmp_path / "live").mkdir()
    (tmp_path / "live" / "results.jsonl").write_text(line("web_search_base_0", {VERDICT: live}))
    summary = summarize_bfcl([tmp_path / "live"])
    assert summary.categories["web_search_base"].not_comparable == 0
    assert "not comparable" not in format_bfcl_summary(summary)
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "results.jsonl").write_text(line("web_search_base_0", {}))
    with pytest.raises(Exception, match=f"no result has a {VERDICT} score"):
        summarize_bfcl([tmp_path / "bare"])


def test_a_live_run_through_the_harness_keeps_the_key_out(
    stub: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "serp-0123456789abcdef0123456789"
    monkeypatch.setenv(SERPAPI_KEY_ENV, secret)
    script = {
        "web_search_base_0": [
            ask(call("c1", "search_engine_query", {"keywords": "richest in China"})),
            ask(call("c2", "fetch_url_content", {"url": f"{stub}/page", "mode": "raw"})),
            "{'answer': 'Zhang Yiming', 'context': 'search'}",
        ]
    }
    path = ROOT / "configs" / "bfcl" / "web_search_base.yaml"
    config = load_config(
        path,
        overrides={
            "model": f"scripted:{write_json(tmp_path / 'script.json', script)}",
            "environment": {
                "factory": "agentloop.benchmarks:bfcl_web_search_environment",
                "args": {"search": "live", "serpapi_url": stub},
            },
            "sample_ids": ["web_search_base_0"],
            "output_dir": str(tmp_path / "runs"),
            "preflight": False,
        },
    )
    outcome = run_eval_sync(config, config_path=str(path))
    assert outcome.exit_code == 0 and outcome.summary.errored == 0
    (line,) = read_results(outcome.run_dir)
    verdict = line["scores"][VERDICT]
    assert verdict["score"] == 1.0 and verdict["details"]["leaderboard_comparable"] is True
    assert _Stub.seen[-1]["api_key"] == [secret]  # sent to SerpAPI, written nowhere
    for name in ("results.jsonl", "run.json", "summary.json"):
        assert secret not in (outcome.run_dir / name).read_text()
    assert "not comparable" not in format_bfcl_summary(summarize_bfcl([outcome.run_dir]))

"""``openai:`` through OpenAI's Responses API (``model_options: {api: responses}``), via
``agentloop run`` against a loopback stub of ``POST /v1/responses``: reasoning items
recorded, counted, shown, sent back with the tool results, replayed, cached; the
setting is part of the resume check and the replay's request signature."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from tests.support.harness import (
    add_setup,
    assistant_messages,
    read_results,
    replayed,
    run_once,
    shown_reasoning,
)
from tests.support.responses_stub import (
    ResponsesStub,
    function_call,
    message,
    reasoning_item,
    response,
)


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


def _thinker(body: dict[str, Any]) -> dict[str, Any]:
    """Calls add(i, 1) for "What is i + 1?" and answers with its result, a reasoning item
    (summary and encrypted content) before each."""
    last = body["input"][-1]
    if last.get("type") == "function_call_output":
        i = last["call_id"][1:]
        return response([
            reasoning_item(f"rs_b{i}", [f"the tool said {last['output']}"], f"ENC-B{i}=="),
            message(last["output"], f"msg_{i}"),
        ], reasoning_tokens=5, response_id=f"resp_b{i}")  # fmt: skip
    a = int(last["content"].split()[2])
    return response([
        reasoning_item(f"rs_a{a}", [f"I add {a} and 1", "with the tool"], f"ENC-A{a}=="),
        function_call(f"c{a}", "add", {"a": a, "b": 1}),
    ], reasoning_tokens=7, response_id=f"resp_a{a}")  # fmt: skip


@pytest.fixture
def stub() -> Iterator[ResponsesStub]:
    with ResponsesStub(_thinker) as server:
        yield server


def _config(tmp_path: Path, stub: ResponsesStub, n: int = 2, **fields: Any) -> Path:
    options = {"base_url": stub.url, "api": "responses", **fields.pop("model_options", {})}
    return add_setup(tmp_path, n=n, model="openai:stub-model", model_options=options, **fields)


def test_reasoning_items_are_recorded_counted_and_sent_back_with_tool_results(
    stub: ResponsesStub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, stub, reasoning={"effort": "high", "summary": "auto"})
    run_dir = run_once(config)
    lines = sorted(read_results(run_dir), key=lambda line: line["id"])
    assert [line["status"] for line in lines] == ["ok", "ok"]
    assert [line["scores"]["qa_f1_reward"]["score"] for line in lines] == [1.0, 1.0]

    assert len(stub.requests) == 4 and set(stub.paths) == {"/v1/responses"}
    for body in stub.requests:
        # Stateless requests that bring the encrypted reasoning back; the setting as
        # the Responses API's own reasoning field; tools in its flat shape.
        assert body["store"] is False
        assert body["include"] == ["reasoning.encrypted_content"]
        assert body["reasoning"] == {"effort": "high", "summary": "auto"}
        assert "reasoning_effort" not in body and "messages" not in body
        assert [t["name"] for t in body["tools"]] == ["add"] and body["tools"][0]["parameters"]

    follow_ups = [b for b in stub.requests if b["input"][-1]["type"] == "function_call_output"]
    assert len(follow_ups) == 2
    for body in follow_ups:
        user, thought, asked, result = body["input"]
        a = asked["call_id"][1:]
        assert user["role"] == "user" and user["content"] == f"What is {a} + 1?"
        # The reasoning item goes back as it came, right before the call it led to.
        assert thought == reasoning_item(f"rs_a{a}", [f"I add {a} and 1", "with the tool"],
                                         f"ENC-A{a}==")  # fmt: skip
        assert asked["type"] == "function_call" and asked["name"] == "add"
        assert result == {"type": "function_call_output", "call_id": f"c{a}",
                          "output": str(int(a) + 1)}  # fmt: skip

    # Recorded: the reasoning items among the content blocks, in the server's order.
    first = lines[0]
    blocks = [m["langchain"]["content"] for m in assistant_messages(first)]
    assert [b["type"] for b in blocks[0]] == ["reasoning", "function_call"]
    assert blocks[0][0]["encrypted_content"] == "ENC-A0=="
    assert [b["type"] for b in blocks[1]] == ["reasoning", "text"]
    assert first["answer"] == "1"
    # Counted: reasoning tokens apart, as part of the output tokens.
    assert first["usage"]["reasoning_tokens"] == 12 and first["usage"]["output_tokens"] == 40

    # Shown: the summary, in show and the viewer's sample data.
    assert shown_reasoning(run_dir) == [
        [{"kind": "summary", "text": "I add 0 and 1\n\nwith the tool"}],
        [{"kind": "summary", "text": "the tool said 1"}],
    ]
    capsys.readouterr()
    assert main(["show", str(run_dir), "s0000"]) == 0
    out = capsys.readouterr().out
    assert "I add 0 and 1" in out and "the tool said 1" in out

    # A replay reproduces the recording offline, reasoning items included.
    replayed(config, run_dir)
    assert len(stub.requests) == 4


def test_send_back_false_leaves_the_reasoning_items_out(
    stub: ResponsesStub, tmp_path: Path
) -> None:
    config = _config(tmp_path, stub, n=1, reasoning={"send_back": False})
    (line,) = read_results(run_once(config))
    first, follow_up = stub.requests
    assert "reasoning" not in first  # nothing asked for: the model's default
    assert [i.get("type") for i in follow_up["input"]] == [
        "message", "function_call", "function_call_output",
    ]  # fmt: skip
    assert assistant_messages(line)[0]["langchain"]["content"][0]["id"] == "rs_a0"  # still recorded


def test_the_api_is_part_of_the_cache_key_the_resume_check_and_the_replay(
    stub: ResponsesStub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, stub, n=1, cache=str(tmp_path / "cache"))
    run_dir = run_once(config)
    run_once(config)
    assert len(stub.paths) == 2  # the rerun came from the cache

    # Through the chat API the same conversation is another request: a cache miss,
    # sent to /chat/completions (which this stub does not serve: the sample errs).
    chat = run_once(config, "--set", "model_options.api=chat_completions", code=1)
    assert stub.paths[2:] == ["/v1/chat/completions"]
    (line,) = read_results(chat)
    assert line["status"] == "error"

    capsys.readouterr()
    assert main(["run", str(config), "--set", "model_options.api=chat_completions",
                 "--resume", str(run_dir)]) == 2  # fmt: skip
    assert "the config differs from the run's in: model_options" in capsys.readouterr().err

    replayed = run_once(config, "--model", f"replay:{run_dir}", "--set", "cache=false",
                        "--set", "model_options.api=chat_completions", code=1)  # fmt: skip
    (line,) = read_results(replayed)
    assert line["status"] == "error"
    assert "api differs: recorded 'responses', now 'chat_completions'" in line["error"]


def test_the_chat_api_stays_the_default_whatever_the_model_name(tmp_path: Path) -> None:
    """langchain-openai routes ``*codex*`` models to the Responses API on its own; here
    the config decides."""
    from tests.support.openai_stub import StubServer, reply

    with StubServer() as chat:
        chat.push(reply("1"))
        config = add_setup(tmp_path, n=1, model="openai:gpt-5-codex", max_rounds=0,
                           model_options={"base_url": chat.url})  # fmt: skip
        run_once(config)
    assert len(chat.requests) == 1 and "messages" in chat.requests[0]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"model_options": {"api": "assistants"}},
         "model option api must be one of chat_completions, responses, not 'assistants'"),
        ({"model_options": {"api": "responses"}, "model_params": {"seed": 1}},
         "model_params.seed: OpenAI's Responses API does not take it"),
        ({"model_options": {"api": "responses"}, "model_params": {"stop": ["x"]}},
         "model_params.stop: OpenAI's Responses API does not take it"),
        ({"model_options": {"api": "responses", "tool_results_as_user": True}},
         "model option tool_results_as_user: a chat completions setting"),
        ({"model_options": {"api": "responses", "max_tokens_field": "max_tokens"}},
         "model option max_tokens_field: a chat completions setting"),
        ({"model_options": {"api": "responses"}, "reasoning": {"budget_tokens": 2048}},
         "reasoning.budget_tokens: openai: OpenAI-compatible servers take an effort"),
        ({"reasoning": {"summary": "auto"}},
         "reasoning.summary: openai: the chat completions API returns no reasoning summaries"),
        ({"reasoning": {"summary": "long"}}, "reasoning.summary: Input should be"),
    ],
)
def test_bad_responses_settings_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fields: dict[str, Any], message: str
) -> None:
    options = {"base_url": "http://127.0.0.1:9", **fields.pop("model_options", {})}
    config = add_setup(tmp_path, n=1, model="openai:m", model_options=options, **fields)
    assert main(["run", str(config), "--no-preflight"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_local_models_have_no_api_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=1, model="local:model.gguf",
                       model_options={"api": "responses"})  # fmt: skip
    assert main(["run", str(config), "--no-preflight"]) == 2
    assert "unknown local model option(s): api" in capsys.readouterr().err


def test_a_reasoning_item_without_text_is_shown_as_such() -> None:
    from agentloop.models._reasoning import reasoning_parts

    def stored(*blocks: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": "", "langchain": {"content": list(blocks)}}

    assert reasoning_parts(stored(reasoning_item("rs_1", [], "ENC=="))) == [
        {"kind": "encrypted_reasoning", "text": "(not shown by the provider)"}
    ]
    # Open models served through the Responses API (vLLM, gpt-oss) return their text.
    item = {"type": "reasoning", "id": "rs_2", "summary": [],
            "content": [{"type": "reasoning_text", "text": "carry the one"}]}  # fmt: skip
    assert reasoning_parts(stored(item)) == [{"kind": "reasoning", "text": "carry the one"}]


def test_the_preflight_asks_the_responses_api_when_there_is_no_listing(
    stub: ResponsesStub, tmp_path: Path
) -> None:
    stub.lists_models = False
    stub.replies = [response([message("pong")])]
    config = _config(tmp_path, stub, n=1, max_rounds=0)
    assert main(["run", str(config)]) == 0
    ping, sample = stub.requests
    assert ping["max_output_tokens"] == 16 and ping["input"] == "ping"
    assert sample["input"][0]["content"] == "What is 0 + 1?"


@pytest.mark.parametrize("arguments", ["[1, 2]", "null", '{"a": 0, "b"'])
def test_a_call_whose_arguments_are_not_an_object_is_answered_as_malformed(
    stub: ResponsesStub, tmp_path: Path, arguments: str
) -> None:
    """langchain-openai fails the whole reply on ``[1, 2]`` or ``null``; here the call is
    the model's malformed call: never run, answered with its error, sent back as made."""
    stub.replies = [
        response([reasoning_item("rs_1", ["hm"], "ENC=="), function_call("c0", "add", arguments)]),
        response([message("1")]),
    ]
    config = _config(tmp_path, stub, n=1)
    (line,) = read_results(run_once(config))
    assert line["status"] == "ok" and line["tool_calls_by_status"] == {"malformed": 1}
    _, thought, asked, result = stub.requests[1]["input"]
    assert thought["id"] == "rs_1"
    assert asked["arguments"] == arguments and asked["call_id"] == "c0"
    assert result["call_id"] == "c0" and result["output"].startswith("Error:")
    assert "The tool was not run" in result["output"]
    (recorded,) = line["trajectory"]["messages"][1]["langchain"]["invalid_tool_calls"]
    assert recorded["args"] == arguments

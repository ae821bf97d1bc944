"""The local chat format's stops (``agentloop.models._local_chat``), without the model: a
stand-in for ``llama_cpp.Llama`` plays what a model writes, token by token.

gemma-3-270m, asked for its answer after a tool result (``tool_choice: none``), wrote
``<tool_call>...</tool_call><tool_response>...`` and went on until the context was full:
no sample of an evaluation without ``max_tokens`` finished in 12 minutes. The real model
is exercised by ``tests/live``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

pytest.importorskip("llama_cpp")  # the local extra: the format runs inside its server

from agentloop.models._local_chat import chat_handler, turn_end

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>'
MADE_UP = "\n<tool_response>\nsunny, 31 C\n</tool_response>\nThe weather in Paris is"
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"]}}}]  # fmt: skip
ASKED = [{"role": "user", "content": "Weather in Paris?"}]
ANSWERED = [
    *ASKED,
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
     "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
]  # fmt: skip


class FakeLlama:
    """Writes ``script`` (free text) a few characters a token, honouring ``stop`` and
    ``max_tokens`` as llama-cpp-python does; under a grammar it writes ``body``."""

    model_path = "fake.gguf"
    metadata: ClassVar[dict[str, str]] = {}  # no chat template: Gemma's turns

    def __init__(self, script: str, body: str = '{"name": "get_weather", '
                 '"arguments": {"location": "Paris"}}') -> None:  # fmt: skip
        self.script, self.body = script, body
        self.requests: list[dict[str, Any]] = []
        self.written = 0  # tokens of free text generated
        self.stopped_early = False

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        if text in (b"<start_of_turn>", b"<end_of_turn>"):
            return [105]
        return list(range(len(text) // 4 + 1))

    def token_bos(self) -> int:
        return 2

    def detokenize(self, tokens: list[int]) -> bytes:
        return b"<bos>"

    def reset(self) -> None:
        pass

    def create_completion(self, prompt: str, max_tokens: int | None = None,
                          stop: list[str] | None = None, grammar: Any = None,
                          stream: bool = False, **sampling: Any) -> Any:  # fmt: skip
        self.requests.append({"prompt": prompt, "max_tokens": max_tokens, "stop": stop,
                              "grammar": grammar is not None, "stream": stream})  # fmt: skip
        if grammar is not None:
            assert not stream
            return {"choices": [{"text": self.body, "finish_reason": "stop"}]}
        assert stream, "free text is read as it is written, to stop where the turn ends"
        return self._stream(max_tokens, stop or [])

    def _stream(self, max_tokens: int | None, stop: list[str]) -> Iterator[dict[str, Any]]:
        text = self.script
        cut = min((text.index(s) for s in stop if s in text), default=None)
        tokens = [text[i : i + 3] for i in range(0, len(text) if cut is None else cut, 3)]
        finish = "stop"
        if max_tokens is not None and len(tokens) > max_tokens:
            tokens, finish = tokens[:max_tokens], "length"
        try:
            for i, token in enumerate(tokens):
                self.written += 1
                last = i == len(tokens) - 1
                yield {"choices": [{"text": token, "finish_reason": finish if last else None}]}
        except GeneratorExit:
            self.stopped_early = self.written < len(tokens)
            raise


def reply(llama: FakeLlama, messages: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    out = chat_handler(llama, messages, tools=TOOLS, **kwargs)  # type: ignore[arg-type]
    message: dict[str, Any] = out["choices"][0]["message"]
    return {**message, "finish_reason": out["choices"][0]["finish_reason"]}


def test_a_follow_up_ends_where_the_call_it_writes_as_text_ends() -> None:
    """``tool_choice: none`` (the local follow-up): a call written as text stays text, and
    the turn ends with it: the made-up result after it is never generated."""
    llama = FakeLlama(f"Let me check again.\n{CALL}{MADE_UP} sunny" + " and warm" * 500)
    message = reply(llama, ANSWERED, tool_choice="none")
    assert message["content"] == f"Let me check again.\n{CALL}"
    assert "tool_calls" not in message and message["finish_reason"] == "stop"
    assert llama.stopped_early and llama.written < 40


def test_a_follow_up_ends_before_a_result_it_starts_to_invent() -> None:
    llama = FakeLlama(f"It is sunny in Paris.{MADE_UP}" + " and warm" * 500)
    message = reply(llama, ANSWERED, tool_choice="none")
    assert message["content"] == "It is sunny in Paris."
    assert llama.stopped_early


def test_auto_stops_the_free_text_where_a_call_opens() -> None:
    """The call is generated under the grammar; the model's own version of it, and what it
    would write after, are not generated first."""
    llama = FakeLlama(f"Let me look.\n{CALL}{MADE_UP}" + " and warm" * 500)
    message = reply(llama, ASKED, tool_choice="auto")
    assert message["content"] == "Let me look."
    (call,) = message["tool_calls"]
    assert call["function"] == {"name": "get_weather", "arguments": '{"location": "Paris"}'}
    assert message["finish_reason"] == "tool_calls"
    free, under_grammar = llama.requests
    assert not free["grammar"] and under_grammar["grammar"]
    assert under_grammar["prompt"] == f"{free['prompt']}Let me look.\n<tool_call>\n"
    assert llama.stopped_early and llama.written <= len("Let me look.\n<tool_call>") // 3 + 1


def test_auto_without_a_call_ends_before_a_made_up_result() -> None:
    llama = FakeLlama(f"Paris is sunny.{MADE_UP}" + " and warm" * 500)
    message = reply(llama, ASKED, tool_choice="auto")
    assert message["content"] == "Paris is sunny." and "tool_calls" not in message
    assert len(llama.requests) == 1 and llama.stopped_early


@pytest.mark.parametrize("choice", ["none", "auto"])
def test_the_turn_markers_stop_free_text_in_every_mode(choice: str) -> None:
    """Gemma's end of turn, and a next turn it begins, are stops of every free reply."""
    llama = FakeLlama("Sunny.<start_of_turn>user\nThanks!<end_of_turn>")
    message = reply(llama, ANSWERED if choice == "none" else ASKED, tool_choice=choice,
                    stop=["STOP"])  # fmt: skip
    assert message["content"] == "Sunny."
    assert llama.requests[0]["stop"] == ["<end_of_turn>", "<start_of_turn>", "STOP"]


def test_a_reply_cut_by_max_tokens_says_so() -> None:
    llama = FakeLlama("and warm " * 500)
    message = reply(llama, ANSWERED, tool_choice="none", max_tokens=10)
    assert message["finish_reason"] == "length" and len(message["content"]) == 30
    assert llama.requests[0]["max_tokens"] == 10


def test_a_forced_call_is_generated_under_the_grammar_alone() -> None:
    llama = FakeLlama("never read")
    message = reply(llama, ASKED, tool_choice="required", max_tokens=64)
    assert message["tool_calls"][0]["function"]["name"] == "get_weather"
    (only,) = llama.requests
    assert only["grammar"] and only["max_tokens"] == 64 and llama.written == 0


@pytest.mark.parametrize(
    ("text", "calls", "end"),
    [
        ("It is sunny", True, None),  # the turn goes on
        ("It is sunny", False, None),
        ("Let me see. <tool_call>\n{", True, (len("Let me see. "), True)),
        (f"A.\n{CALL}", False, (len(f"A.\n{CALL}"), False)),
        (f"A.\n{CALL[:-3]}", False, None),  # the call is not closed yet
        ("A.  \n<tool_response>\nx", True, (2, False)),
        ("A.\n<tool_response>\nx", False, (2, False)),
        (f"<tool_response>x</tool_response>{CALL}", True, (0, False)),  # what comes first
        (f"<tool_response>x</tool_response>{CALL}", False, (0, False)),
        ("<tool_call>", True, (0, True)),
        # gemma-3-270m's follow-up: a call cut short, then the closing tag of a made-up result
        ('<tool_call>\n"f": "1"}}\n</tool_response>ArgumentParser', False, (22, False)),
    ],
)
def test_turn_end(text: str, calls: bool, end: tuple[int, bool] | None) -> None:
    assert turn_end(text, calls) == end

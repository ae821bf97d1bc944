"""A loopback server speaking enough of Anthropic's Messages API for the tests."""

from __future__ import annotations

from typing import Any

from tests.support.loopback import LoopbackServer, QuietHandler, read_json, send_json


def text(answer: str, thinking: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A reply that answers in text (after ``thinking`` blocks, if given)."""
    return _message([*(thinking or []), {"type": "text", "text": answer}], "end_turn")


def tool_use(
    call_id: str, name: str, arguments: dict[str, Any],
    thinking: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A reply that calls one tool (after ``thinking`` blocks, if given)."""
    block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
    return _message([*(thinking or []), block], "tool_use")


def thinking(text: str, signature: str) -> dict[str, Any]:
    """A thinking block with its signature."""
    return {"type": "thinking", "thinking": text, "signature": signature}


def redacted_thinking(data: str) -> dict[str, Any]:
    """A redacted thinking block (encrypted)."""
    return {"type": "redacted_thinking", "data": data}


def _message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_stub", "type": "message", "role": "assistant", "model": "claude-stub",
        "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 7, "output_tokens": 3},
    }  # fmt: skip


class AnthropicStub(LoopbackServer):
    """``POST /v1/messages`` answered from a queue of replies; requests are recorded."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.replies: list[dict[str, Any]] = []
        stub = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                stub.requests.append(read_json(self))
                stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                send_json(self, 200, stub.replies.pop(0))

        super().__init__(Handler)
        self.url = self.origin

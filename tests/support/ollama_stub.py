"""A loopback server speaking enough of Ollama's ``POST /api/chat`` for the tests: the
reply streamed as JSON lines, as ChatOllama always asks (``stream: true``). Replies come
from a handler of the request body; every request is recorded."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from tests.support.loopback import LoopbackServer, QuietHandler, read_json, send_bytes, send_json


def chat_reply(
    content: str = "",
    thinking: str | None = None,
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """A reply as the stream's message parts: the thinking, then the content in two
    pieces, then the tool calls (Ollama's calls have no ids); the final ``done`` part
    (with the token counts) is added by the server."""
    parts: list[dict[str, Any]] = []
    if thinking:
        parts.append({"role": "assistant", "content": "", "thinking": thinking})
    half = len(content) // 2
    for piece in (content[:half], content[half:]):
        if piece:
            parts.append({"role": "assistant", "content": piece})
    if tool_calls:
        calls = [{"function": {"name": n, "arguments": a}} for n, a in tool_calls]
        parts.append({"role": "assistant", "content": "", "tool_calls": calls})
    return parts


def _chunk(message: dict[str, Any], done: bool, counts: dict[str, int]) -> dict[str, Any]:
    chunk: dict[str, Any] = {"model": "stub", "created_at": "2026-11-25T00:00:00Z",
                             "message": message, "done": done}  # fmt: skip
    if done:
        chunk.update(done_reason="stop", **counts)
    return chunk


class OllamaStub(LoopbackServer):
    """``POST /api/chat`` answered by ``handler(body)`` (message parts, see ``chat_reply``)."""

    def __init__(self, handler: Callable[[dict[str, Any]], list[dict[str, Any]]]) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        """The headers of those requests (names in lower case)."""
        self.handler = handler
        self.counts = {"prompt_eval_count": 9, "eval_count": 4}
        """The token counts of the final ``done`` part (Ollama's names)."""
        lock = threading.Lock()
        stub = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = read_json(self)
                if self.path != "/api/chat" or body.get("stream") is not True:
                    send_json(self, 404, {"error": f"no route {self.path} (or not streamed)"})
                    return  # ChatOllama always streams
                with lock:
                    stub.requests.append(body)
                    stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                chunks = [_chunk(p, False, stub.counts) for p in stub.handler(body)]
                chunks.append(_chunk({"role": "assistant", "content": ""}, True, stub.counts))
                data = b"".join(json.dumps(c).encode() + b"\n" for c in chunks)
                send_bytes(self, 200, data, "application/x-ndjson")

        super().__init__(Handler)
        self.url = self.origin

"""A loopback server speaking enough of Ollama's ``POST /api/chat`` for the tests: the
reply streamed as JSON lines, as ChatOllama always asks (``stream: true``). Replies come
from a handler of the request body; every request is recorded."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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


def _chunk(message: dict[str, Any], done: bool) -> dict[str, Any]:
    chunk: dict[str, Any] = {"model": "stub", "created_at": "2026-11-25T00:00:00Z",
                             "message": message, "done": done}  # fmt: skip
    if done:
        chunk.update(done_reason="stop", prompt_eval_count=9, eval_count=4)
    return chunk


class OllamaStub:
    """``POST /api/chat`` answered by ``handler(body)`` (message parts, see ``chat_reply``)."""

    def __init__(self, handler: Callable[[dict[str, Any]], list[dict[str, Any]]]) -> None:
        self.requests: list[dict[str, Any]] = []
        self.handler = handler
        lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/api/chat":
                    self.send_response(404)
                    self.end_headers()
                    return
                with lock:
                    stub.requests.append(body)
                if body.get("stream") is not True:  # ChatOllama always streams
                    self.send_response(400)
                    self.end_headers()
                    return
                chunks = [_chunk(p, False) for p in stub.handler(body)]
                chunks.append(_chunk({"role": "assistant", "content": ""}, True))
                data = b"".join(json.dumps(c).encode() + b"\n" for c in chunks)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def __enter__(self) -> OllamaStub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

"""A loopback server speaking enough of Anthropic's Messages API for the tests."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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


class AnthropicStub:
    """``POST /v1/messages`` answered from a queue of replies; requests are recorded."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.replies: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                data = json.dumps(stub.replies.pop(0)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def __enter__(self) -> AnthropicStub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

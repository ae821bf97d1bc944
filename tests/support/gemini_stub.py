"""A loopback server speaking enough of the Gemini API's REST ``generateContent``
(``POST /v1beta/models/{model}:generateContent``) for the tests; google-genai's client
is pointed at it through its ``base_url``. Replies come from a handler of the request
body; every request is recorded with its path."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def signature(text: str) -> str:
    """A thought signature as the API sends it (base64 of opaque bytes)."""
    return base64.b64encode(text.encode()).decode()


def thought(text: str) -> dict[str, Any]:
    """A thought summary part (``include_thoughts``)."""
    return {"text": text, "thought": True}


def function_call(name: str, args: dict[str, Any], sig: str | None = None) -> dict[str, Any]:
    """A function call part, with its thought signature if given."""
    part: dict[str, Any] = {"functionCall": {"name": name, "args": args}}
    if sig is not None:
        part["thoughtSignature"] = sig
    return part


def content(parts: list[dict[str, Any]], thoughts_tokens: int = 0) -> dict[str, Any]:
    """A ``GenerateContentResponse`` of one candidate holding ``parts``."""
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                        "index": 0}],
        "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 5,
                          "thoughtsTokenCount": thoughts_tokens,
                          "totalTokenCount": 13 + thoughts_tokens},
        "modelVersion": "gemini-stub",
    }  # fmt: skip


class GeminiStub:
    """``POST .../models/{model}:generateContent`` answered by ``handler(body)``."""

    def __init__(self, handler: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.handler = handler
        lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    stub.paths.append(self.path)
                    stub.requests.append(body)
                    stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path.split("?")[0].endswith(":generateContent"):
                    status, answer = 200, stub.handler(body)
                else:
                    status, answer = 404, {"error": {"code": 404, "message": "no route",
                                                     "status": "NOT_FOUND"}}  # fmt: skip
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def __enter__(self) -> GeminiStub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

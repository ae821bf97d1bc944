"""A loopback server speaking enough of the Gemini API's REST ``generateContent``
(``POST /v1beta/models/{model}:generateContent``) for the tests; google-genai's client
is pointed at it through its ``base_url``. Replies come from a handler of the request
body; every request is recorded with its path."""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from typing import Any

from tests.support.loopback import LoopbackServer, QuietHandler, read_json, send_json


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


class GeminiStub(LoopbackServer):
    """``POST .../models/{model}:generateContent`` answered by ``handler(body)``."""

    def __init__(self, handler: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.handler = handler
        lock = threading.Lock()
        stub = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = read_json(self)
                with lock:
                    stub.paths.append(self.path)
                    stub.requests.append(body)
                    stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path.split("?")[0].endswith(":generateContent"):
                    send_json(self, 200, stub.handler(body))
                else:
                    error = {"code": 404, "message": "no route", "status": "NOT_FOUND"}
                    send_json(self, 404, {"error": error})

        super().__init__(Handler)
        self.url = self.origin

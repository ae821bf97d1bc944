"""A loopback server speaking enough of OpenAI's Responses API (``POST /v1/responses``)
for the tests: replies from a queue, or computed by a handler from the request body;
every request is recorded. ``GET /v1/models`` lists ``stub-model`` (the preflight)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from tests.support.loopback import LoopbackServer, QuietHandler, read_json, send_json


def reasoning_item(
    item_id: str, summary: list[str] | None = None, encrypted: str | None = None
) -> dict[str, Any]:
    """A reasoning output item: its summary texts, and its encrypted content if given."""
    item: dict[str, Any] = {
        "id": item_id, "type": "reasoning",
        "summary": [{"type": "summary_text", "text": t} for t in summary or []],
    }  # fmt: skip
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


def function_call(call_id: str, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    """A function call output item; string arguments are sent as they are."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": f"fc_{call_id}", "type": "function_call", "call_id": call_id, "name": name,
            "arguments": args, "status": "completed"}  # fmt: skip


def message(text: str, item_id: str = "msg_stub") -> dict[str, Any]:
    """An assistant message output item holding ``text``."""
    return {
        "id": item_id, "type": "message", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }  # fmt: skip


def response(
    output: list[dict[str, Any]], reasoning_tokens: int = 0, response_id: str = "resp_stub"
) -> dict[str, Any]:
    """A completed response holding ``output``; usage counts ``reasoning_tokens`` among
    its 20 output tokens."""
    return {
        "id": response_id, "object": "response", "created_at": 0, "model": "stub-model",
        "status": "completed", "output": output, "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": [], "error": None, "incomplete_details": None,
        "usage": {
            "input_tokens": 11, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": 31,
        },
    }  # fmt: skip


class ResponsesStub(LoopbackServer):
    """``POST /v1/responses`` answered from ``replies`` (in order), else by ``handler``."""

    def __init__(self, handler: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        """Bodies of the ``/responses`` requests, in arrival order."""
        self.paths: list[str] = []
        """Paths of every POST, other routes included (answered 404)."""
        self.replies: list[dict[str, Any]] = []
        self.handler = handler
        self.lists_models = True
        """False: ``GET /v1/models`` is answered 404 (a server without a listing)."""
        lock = threading.Lock()
        stub = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models") and stub.lists_models:
                    listing = [{"id": "stub-model", "object": "model"}]
                    send_json(self, 200, {"object": "list", "data": listing})
                else:
                    send_json(self, 404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                body = read_json(self)
                with lock:
                    stub.paths.append(self.path)
                if not self.path.rstrip("/").endswith("/responses"):
                    send_json(self, 404, {"error": {"message": f"no route {self.path}"}})
                    return
                with lock:
                    stub.requests.append(body)
                    queued = stub.replies.pop(0) if stub.replies else None
                if queued is None and stub.handler is None:
                    send_json(self, 400, {"error": {"message": "stub script exhausted"}})
                    return
                send_json(self, 200, queued if queued is not None else stub.handler(body))  # type: ignore[misc]

        super().__init__(Handler)
        self.url = f"{self.origin}/v1"

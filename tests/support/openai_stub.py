"""A scriptable OpenAI-protocol server on 127.0.0.1 for tests.

Real HTTP, so the real ``openai`` client and ``ChatOpenAI`` are exercised end to end.
Script replies with :meth:`StubServer.push`; every request is recorded.

    with StubServer() as stub:
        stub.push(reply(tool_calls=[call("get_weather", {"location": "Boston"})]))
        stub.push(error(429, headers={"Retry-After": "0"}), reply("done"))
        ... ChatOpenAI(base_url=stub.url, api_key="x") ...
        assert stub.requests[1]["messages"][1]["content"] == ""
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["StubResponse", "StubServer", "call", "error", "reply"]


@dataclass
class StubResponse:
    """One scripted HTTP answer."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (a client timeout shorter than this fires)."""


def call(name: str, arguments: dict[str, Any] | str, id: str | None = None) -> dict[str, Any]:
    """An OpenAI tool call; string arguments are sent as they are (e.g. truncated JSON)."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": id, "type": "function", "function": {"name": name, "arguments": args}}


def reply(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: dict[str, int] | None = None,
    delay: float = 0.0,
    reasoning: str | None = None,
    reasoning_field: str = "reasoning_content",
) -> StubResponse:
    """A chat completion; ``usage`` as prompt/completion/total_tokens; ``reasoning`` in
    ``reasoning_field`` beside the content (DeepSeek, vLLM, llama.cpp)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning is not None:
        message[reasoning_field] = reasoning
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return StubResponse(body=body, delay=delay)


def error(
    status: int, message: str = "stub error", headers: dict[str, str] | None = None
) -> StubResponse:
    """An OpenAI-style error body with ``status``."""
    body = {"error": {"message": message, "type": "stub_error", "code": status}}
    return StubResponse(status=status, body=body, headers=dict(headers or {}))


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the listen backlog (5 by default): many clients connect at once


class StubServer:
    """A threaded HTTP server speaking enough of the OpenAI protocol for the tests."""

    def __init__(self, handler: Callable[[dict[str, Any]], StubResponse] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        """Bodies of the chat completion requests, in arrival order."""
        self.headers: list[dict[str, str]] = []
        """Headers of those requests."""
        self.raw: list[tuple[str, bytes]] = []
        """Path (with query) and body bytes of those requests, as sent."""
        self.script: deque[StubResponse] = deque()
        self.handler = handler
        """Computes the answer when the script is empty (gets the request body)."""
        self.models_response: StubResponse | None = None
        """The answer to ``GET .../models`` (None: a listing of ``stub-model``)."""
        self.gets: list[str] = []
        """Paths of the GET requests, in arrival order."""
        self.ports: list[int] = []
        """The client port of each chat completion request (one per connection)."""
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to give ``ChatOpenAI`` (``.../v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *responses: StubResponse) -> None:
        """Append answers to the script; they are used in order."""
        self.script.extend(responses)

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()  # wakes slow handlers
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _answer(self, body: dict[str, Any]) -> StubResponse:
        with self._lock:
            if self.script:
                return self.script.popleft()
        if self.handler is not None:
            return self.handler(body)
        return error(400, "stub script exhausted")

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None  # keep test output clean

            def _send(self, response: StubResponse) -> None:
                data = json.dumps(response.body).encode()
                try:
                    self.send_response(response.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in response.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout test)

            def do_GET(self) -> None:
                with stub._lock:
                    stub.gets.append(self.path)
                if self.path.rstrip("/").endswith("/models") and stub.models_response:
                    self._send(stub.models_response)
                elif self.path.rstrip("/").endswith("/models"):
                    body = {"object": "list", "data": [{"id": "stub-model", "object": "model"}]}
                    self._send(StubResponse(body=body))
                else:
                    self._send(error(404, f"no route {self.path}"))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length)
                body = json.loads(data or b"{}")
                if not self.path.split("?")[0].rstrip("/").endswith("/chat/completions"):
                    self._send(error(404, f"no route {self.path}"))
                    return
                with stub._lock:
                    stub.requests.append(body)
                    stub.raw.append((self.path, data))
                    stub.ports.append(self.client_address[1])
                    stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                try:
                    response = stub._answer(body)
                    if response.delay:
                        stub._stop.wait(response.delay)
                    self._send(response)
                finally:
                    with stub._lock:
                        stub.in_flight -= 1

        return Handler

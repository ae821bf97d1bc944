"""What the provider stubs share: a threaded HTTP server on 127.0.0.1, run for the span
of a ``with`` block, and JSON answers."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


def read_json(handler: BaseHTTPRequestHandler) -> Any:
    """The request's JSON body."""
    return json.loads(handler.rfile.read(int(handler.headers["Content-Length"])))


def send_json(handler: BaseHTTPRequestHandler, status: int, body: Any) -> None:
    """Answer ``body`` as JSON with ``status``."""
    send_bytes(handler, status, json.dumps(body).encode(), "application/json")


def send_bytes(handler: BaseHTTPRequestHandler, status: int, data: bytes, kind: str) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing (keeps test output clean)."""

    def log_message(self, *args: Any) -> None:
        pass


class LoopbackServer:
    """Serves ``handler`` on a free port of 127.0.0.1 inside a ``with`` block."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        """``http://127.0.0.1:PORT``, without a path."""

    def __enter__(self) -> Self:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

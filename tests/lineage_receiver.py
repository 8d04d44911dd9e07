"""A real HTTP receiver on loopback for the tests: it takes JSON posts on one path (`POST /api/v1/lineage` as
Marquez does, by default; a webhook's path for notifications), keeps them, and can be told to answer 500 or to
hang (a backend that accepts and never answers)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Receiver:
    url: str
    events: list[dict[str, Any]] = field(default_factory=list)
    status: int = 201
    hang_seconds: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)  # every POST, taken or not

    def of_type(self, event_type: str) -> list[dict[str, Any]]:
        return [event for event in self.events if event["eventType"] == event_type]


@contextmanager
def lineage_receiver(path: str = "/api/v1/lineage") -> Iterator[Receiver]:
    receiver = Receiver("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            receiver.requests.append(json.loads(body))
            if receiver.hang_seconds:
                time.sleep(receiver.hang_seconds)
            if self.path.rstrip("/") == path and receiver.status < 300:
                receiver.events.append(json.loads(body))
            self.send_response(receiver.status if self.path.rstrip("/") == path else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()

"""A loopback HTTP server that records the paths it is sent: stands for a service inside the
network (metadata, Redis, an internal API) that outbound requests must not reach."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Recorder(BaseHTTPRequestHandler):
    received: list[str]

    def _answer(self) -> None:
        type(self).received.append(self.path)
        self.send_response(204)
        self.end_headers()

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def recording_server() -> Iterator[tuple[type[Recorder], int]]:
    """``(handler, port)``: ``handler.received`` lists the paths requested, in order."""
    handler = type("Recording", (Recorder,), {"received": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield handler, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()

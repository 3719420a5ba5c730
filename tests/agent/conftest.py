"""The agent's tests: the package from agent/ (not installed in the product's environment),
the fake nvidia-smi (fixtures/nvidia-smi, recorded output of real cards) and a fake vLLM."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

AGENT_DIR = Path(__file__).resolve().parents[2] / "agent"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FAKE_NVIDIA_SMI = FIXTURES / "nvidia-smi"
if str(AGENT_DIR) not in sys.path:
    sys.path.insert(0, str(AGENT_DIR))


class FakeVllm:
    """A vLLM /metrics endpoint serving ``body`` (change it to move the counters)."""

    def __init__(self) -> None:
        self.body = (FIXTURES / "vllm-metrics.txt").read_text()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path != "/metrics":
                    self.send_error(404)
                    return
                payload = fake.body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/metrics"


@pytest.fixture
def fake_vllm() -> Iterator[FakeVllm]:
    fake = FakeVllm()
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


@pytest.fixture
def cards(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Set FAKE_NVIDIA_SMI_CARDS (and friends) for the fake nvidia-smi through this."""
    monkeypatch.setenv("FAKE_NVIDIA_SMI_CARDS", "h800x8")
    return monkeypatch

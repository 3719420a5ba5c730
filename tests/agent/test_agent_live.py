"""The agent against a live server: the fake nvidia-smi's figures and the fake vLLM's counters
end up stored as they were printed, and a batch resent after an outage is stored once."""

from __future__ import annotations

import csv
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from gpu_ledger_agent import report
from gpu_ledger_agent.main import Agent
from gpu_ledger_agent.outbox import INGEST_PATH

from apps.accounts import services
from apps.accounts.models import Organization
from apps.cloud.models import Instance
from apps.metrics.models import GpuSample, WorkCounterPoint
from tests.agent.conftest import AGENT_DIR, FAKE_NVIDIA_SMI, FIXTURES, FakeVllm

pytestmark = pytest.mark.django_db(transaction=True)
COLUMNS = [
    "gpu_index",
    "gpu_uuid",
    "gpu_name",
    "util_pct",
    "mem_used_mb",
    "mem_total_mb",
    "power_w",
    "power_limit_w",
    "sm_clock_mhz",
    "throttle_reasons",
    "temp_c",
]


def printed(cards: str) -> list[list[Any]]:
    """The fake's CSV as the columns should be stored: numbers as numbers, [N/A] as None."""
    rows = csv.reader(
        (FIXTURES / "cards" / cards / "query-gpu.csv").read_text().splitlines(),
        skipinitialspace=True,
    )
    stored = []
    for row in rows:
        values: list[Any] = [int(row[0]), row[1], row[2]]
        for position, cell in enumerate(row[3:], 3):
            if cell.startswith("["):
                values.append(None)
            elif position == 9:
                values.append(int(cell, 16))
            else:
                values.append(float(cell))
        stored.append(values)
    return stored


def stored_rows(instance: Instance) -> list[list[Any]]:
    rows = GpuSample.objects.filter(instance=instance).order_by("sampled_at", "gpu_index")
    return [list(row) for row in rows.values_list(*COLUMNS)]


def counters(instance: Instance) -> dict[str, float]:
    points = WorkCounterPoint.objects.filter(instance=instance).order_by("sampled_at")
    return {f"{p.source}:{p.name}": p.value for p in points}


@pytest.fixture
def instance(acme: Organization) -> Instance:
    return Instance.objects.create(
        organization=acme,
        provider_id="ins-h800a001",
        region="ap-shanghai",
        instance_type="HCCPNV5.32XLARGE1024",
        gpu_count=8,
    )


@pytest.fixture
def ingest_key(acme: Organization) -> str:
    _, raw = services.api_key_create(
        organization=acme, name="agents", scope="ingest", created_by=None
    )
    return raw


@pytest.fixture
def spool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_LEDGER_SPOOL_DIR", str(tmp_path))
    (tmp_path / "work").mkdir()
    return tmp_path


def run_agent(
    url: str, key: str, instance: Instance, spool: Path, vllm_url: str, cards: str
) -> Any:
    env = {
        **os.environ,
        "PYTHONPATH": str(AGENT_DIR),
        "GPU_LEDGER_KEY": key,
        "FAKE_NVIDIA_SMI_CARDS": cards,
    }
    command = [
        sys.executable, "-m", "gpu_ledger_agent", "--once",
        "--url", url, "--instance-id", instance.provider_id, "--spool-dir", str(spool),
        "--nvidia-smi", str(FAKE_NVIDIA_SMI), "--vllm-url", vllm_url,
    ]  # fmt: skip
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)


def test_it_pushes_every_card_and_counter_as_the_tools_printed_them(
    live_server: Any, ingest_key: str, instance: Instance, spool: Path, fake_vllm: FakeVllm
) -> None:
    report(samples=256)
    report(samples=256, tokens=4096)
    done = run_agent(live_server.url, ingest_key, instance, spool, fake_vllm.url, "h800x8")
    assert done.returncode == 0, done.stderr
    assert stored_rows(instance) == printed("h800x8")
    card0 = GpuSample.objects.get(instance=instance, gpu_index=0)
    assert card0.processes == [
        {"pid": 23817, "used_mem_mb": 70112},
        {"pid": 24410, "used_mem_mb": 1102},
    ]
    assert GpuSample.objects.get(instance=instance, gpu_index=7).processes == []
    assert counters(instance) == {
        "report:samples": 512,
        "report:tokens": 4096,
        "vllm:generation_tokens": 987654,
        "vllm:prompt_tokens": 1234567,
        "vllm:requests": 4038,
    }
    assert not list((spool / "outbox").iterdir())


def test_it_pushes_throttled_and_unreadable_cards_with_their_gaps(
    live_server: Any, ingest_key: str, instance: Instance, spool: Path, fake_vllm: FakeVllm
) -> None:
    for cards in ("a100_throttled", "a10_vgpu_na"):
        done = run_agent(live_server.url, ingest_key, instance, spool, fake_vllm.url, cards)
        assert done.returncode == 0, done.stderr
        assert stored_rows(instance) == printed(cards)
        GpuSample.objects.filter(instance=instance).delete()


class LostAnswerProxy:
    """Forwards a request to the server and hangs up before the answer reaches the agent:
    the server stored the batch, the agent does not know it."""

    def __init__(self, target: str) -> None:
        self.forwarded = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = urllib.request.Request(
                    target + self.path, data=body, method="POST", headers=dict(self.headers)
                )
                with urllib.request.urlopen(request, timeout=30) as response:
                    response.read()
                proxy.forwarded += 1
                self.close_connection = True  # and no status line: the answer is lost

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def lost_answer_proxy(live_server: Any) -> Iterator[LostAnswerProxy]:
    proxy = LostAnswerProxy(live_server.url)
    thread = threading.Thread(target=proxy.server.serve_forever, daemon=True)
    thread.start()
    yield proxy
    proxy.server.shutdown()
    proxy.server.server_close()


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # nothing listens there now


def test_it_spools_through_an_outage_and_a_resent_batch_is_stored_once(
    live_server: Any,
    ingest_key: str,
    instance: Instance,
    spool: Path,
    cards: pytest.MonkeyPatch,
    lost_answer_proxy: LostAnswerProxy,
) -> None:
    agent = Agent(
        url=closed_port_url(), api_key=ingest_key, instance_id=instance.provider_id,
        spool=spool, interval_s=10, nvidia_smi=str(FAKE_NVIDIA_SMI),
    )  # fmt: skip
    report(samples=64)
    agent.sample(time.time())
    agent.close_batch()
    # The server is down: the batch waits on disk, and the agent backs off.
    assert agent.sender.flush() == 0
    assert len(agent.outbox.pending()) == 1
    assert agent.sender.failures == 1
    assert agent.sender.flush() == 0  # within the backoff: not even tried
    # The server comes back, but the answer to the first try is lost on the way.
    agent.sender.endpoint = lost_answer_proxy.url + INGEST_PATH
    assert agent.sender.flush(now=agent.sender.next_attempt_at) == 0
    assert lost_answer_proxy.forwarded == 1
    assert GpuSample.objects.filter(instance=instance).count() == 8
    assert len(agent.outbox.pending()) == 1  # so it is sent again
    agent.sender.endpoint = live_server.url + INGEST_PATH
    assert agent.sender.flush(now=agent.sender.next_attempt_at) == 1
    assert agent.outbox.pending() == []
    assert stored_rows(instance) == printed("h800x8")  # once, not twice
    assert counters(instance) == {"report:samples": 64}


def test_it_keeps_a_batch_for_an_unknown_instance_and_sets_aside_a_malformed_one(
    live_server: Any, ingest_key: str, instance: Instance, spool: Path, cards: pytest.MonkeyPatch
) -> None:
    unknown = Agent(
        url=live_server.url, api_key=ingest_key, instance_id="ins-notsynced", spool=spool,
        nvidia_smi=str(FAKE_NVIDIA_SMI),
    )  # fmt: skip
    unknown.sample(time.time())
    unknown.close_batch()
    # 404: the inventory sync has not seen the instance yet; the batch waits for it.
    assert unknown.sender.flush() == 0
    assert len(unknown.outbox.pending()) == 1
    (kept,) = unknown.outbox.pending()
    kept.unlink()
    malformed = Agent(
        url=live_server.url, api_key=ingest_key, instance_id="INS-Bad", spool=spool,
        nvidia_smi=str(FAKE_NVIDIA_SMI),
    )  # fmt: skip
    malformed.sample(time.time())
    malformed.close_batch()
    assert malformed.sender.flush() == 0
    assert malformed.outbox.pending() == []
    (reason,) = (spool / "rejected").glob("*.error")
    assert reason.read_text().startswith("400\n")
    assert "instance_id" in reason.read_text()
    assert GpuSample.objects.count() == 0

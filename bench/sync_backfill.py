"""Backfill through the real SDK against the simulator: request efficiency and throughput.

A 30-day metrics backfill of the simulator's fleet, with the client's limiter set to the
documented 20 GetMonitorData requests/s and the simulator enforcing that limit. Reports:
- requests made / the minimum ceil(N/10) x metrics x ceil(points/1440) (target 1.0x);
- wall time / (requests / 20 s), the time the rate limit alone needs (target <= 1.25x);
- the most requests the simulator saw in any one-second window (must not exceed 20).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_sync .venv/bin/python -m bench.sync_backfill
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import multiprocessing.synchronize
import os
import socket
import time
from datetime import timedelta

from bench.harness import machine, record, setup_django, teardown

RATE_PER_SECOND = 20


def _serve(
    port: int,
    ready: multiprocessing.synchronize.Event,
    stop: multiprocessing.synchronize.Event,
    stats: multiprocessing.Queue[tuple[int, int]],
) -> None:
    """The simulator in its own process, so its CPU work does not slow the sync under test."""
    from apps.cloud.providers.tencent.simulator import SimulatorServer

    with SimulatorServer(
        port=port, seed=1, rate_limits={"GetMonitorData": RATE_PER_SECOND}
    ) as simulator:
        ready.set()
        stop.wait()
        stats.put(
            (
                simulator.max_requests_in_any_window("GetMonitorData", 1.0),
                simulator.request_log.count("GetMonitorData", "RequestLimitExceeded"),
            )
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run(days: int) -> list[tuple[str, str, str, str]]:
    from django.utils import timezone

    from apps.accounts.models import User
    from apps.accounts.services import organization_create
    from apps.cloud.models import Instance
    from apps.cloud.providers.tencent.simulator import (
        DEFAULT_SECRET_ID,
        DEFAULT_SECRET_KEY,
    )
    from apps.cloud.services import cloud_account_client, cloud_account_create
    from apps.cloud.sync.inventory import sync_inventory
    from apps.metrics.ingest import (
        DATA_LAG,
        MONITOR_METRICS,
        MetricsLimits,
        floor_minute,
        sync_metrics,
    )

    owner = User.objects.create_user(email="bench@example.com", password=None)
    organization = organization_create(name="Bench", owner=owner)
    port = _free_port()
    ready, stop = multiprocessing.Event(), multiprocessing.Event()
    stats: multiprocessing.Queue[tuple[int, int]] = multiprocessing.Queue()
    server = multiprocessing.get_context("fork").Process(
        target=_serve, args=(port, ready, stop, stats)
    )
    server.start()
    try:
        ready.wait(30)
        account = cloud_account_create(
            organization=organization,
            name="bench",
            secret_id=DEFAULT_SECRET_ID,
            secret_key=DEFAULT_SECRET_KEY,
            regions=["ap-guangzhou", "ap-shanghai"],
            endpoint=f"127.0.0.1:{port}",
            endpoint_scheme="http",
        )
        client = cloud_account_client(account, rate_limits={"GetMonitorData": RATE_PER_SECOND})
        now = timezone.now()
        sync_inventory(account, client, now=now)
        instances = Instance.objects.filter(account=account).count()
        started = time.perf_counter()
        result = sync_metrics(
            account, client, now=now, backfill_days=days, limits=MetricsLimits(10, 1440)
        )
        wall = time.perf_counter() - started
    finally:
        stop.set()
        peak, throttled = stats.get(timeout=30)
        server.join(timeout=30)

    minutes = int(
        (floor_minute(now - DATA_LAG) - floor_minute(now - timedelta(days=days))).total_seconds()
        // 60
    )
    minimum = math.ceil(instances / 10) * len(MONITOR_METRICS) * math.ceil(minutes / 1440)
    made = client.requests_made["GetMonitorData"]
    floor_seconds = made / RATE_PER_SECOND
    return [
        (
            f"GetMonitorData requests, {instances} instances x {days} days x {len(MONITOR_METRICS)} metrics",
            f"{made} made / {minimum} minimum = {made / minimum:.2f}x ({throttled} throttled)",
            "1.0x",
            "pass" if made <= minimum else "FAIL",
        ),
        (
            f"Wall time with the limiter at {RATE_PER_SECOND}/s ({result.points / 1e6:.1f} M points stored)",
            f"{wall:.1f} s / {floor_seconds:.1f} s = {wall / floor_seconds:.2f}x",
            "<= 1.25x",
            "pass" if wall / floor_seconds <= 1.25 else "FAIL",
        ),
        (
            "Most GetMonitorData requests the cloud saw in any 1 s",
            str(peak),
            f"<= {RATE_PER_SECOND}",
            "pass" if peak <= RATE_PER_SECOND else "FAIL",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--no-record", action="store_true")
    options = parser.parse_args()
    database_url = os.environ.get(
        "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_sync"
    )
    setup_django(database_url)
    try:
        rows = run(options.days)
        info = machine()
    finally:
        teardown(database_url)
    for row in rows:
        print(" | ".join(row))
    if not options.no_record:
        record(
            "Sync backfill (Tencent simulator)",
            rows,
            command=f"make bench-sync (python -m bench.sync_backfill --days {options.days})",
            info=info,
            note="The simulator runs in its own process on the same 2 cores.",
        )


if __name__ == "__main__":
    main()

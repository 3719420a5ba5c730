"""``manage.py backfill`` on a bad day vs a good one: same fleet, one run each, side by side.

Two simulators (each in its own process, same seed, clock frozen at the same moment, the
documented rate limits on), one of them failing about half of all requests: throttling every
3rd request, InternalError every 4th, a bare HTTP 500 every 6th (never more than two in a
row). The backfill command runs against each with the documented client rate limits, good
day first. Reports the wall time of both and their ratio (target: within 2x), the requests
each made (and their rate: on a shared machine the request rate says whether the client or the
machine was the bottleneck), and whether the two stored the same instances, points and bill
totals.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_faults \
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python -m bench.backfill_faults --days 30
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.synchronize
import os
import socket
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from io import StringIO
from typing import Any

import numpy as np

from bench.harness import machine, record, setup_django, teardown

BAD_DAY = {"throttle_every": 3, "internal_error_every": 4, "http_500_every": 6}


def _serve(
    port: int,
    frozen: datetime,
    faults: dict[str, int],
    ready: multiprocessing.synchronize.Event,
    stop: multiprocessing.synchronize.Event,
    stats: multiprocessing.Queue[tuple[int, int, dict[str, tuple[int, int, float]]]],
) -> None:
    """A simulator in its own process, so its CPU work is not counted as the backfill's."""
    from apps.cloud.providers.tencent.simulator import SimulatorServer

    with SimulatorServer(
        port=port,
        seed=1,
        now=lambda: frozen,
        throttle_every=faults.get("throttle_every", 0),
        internal_error_every=faults.get("internal_error_every", 0),
        http_500_every=faults.get("http_500_every", 0),
    ) as simulator:
        ready.set()
        stop.wait()
        log = simulator.request_log
        stats.put((log.count(), log.count(outcome="OK"), _per_action(log.records())))


def _per_action(records: list[Any]) -> dict[str, tuple[int, int, float]]:
    """action -> (requests, failed, seconds from its first request to its last)."""
    by_action: dict[str, list[Any]] = {}
    for entry in records:
        by_action.setdefault(entry.action, []).append(entry)
    return {
        action: (
            len(rows),
            sum(1 for r in rows if r.outcome != "OK"),
            max(r.monotonic for r in rows) - min(r.monotonic for r in rows),
        )
        for action, rows in by_action.items()
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _backfill(
    name: str, faults: dict[str, int], frozen: datetime, days: int
) -> tuple[float, int, int, dict[str, Any], dict[str, tuple[int, int, float]], str]:
    """(wall seconds, requests, requests answered OK, what was stored, per action, the machine's
    load around it) of one backfill."""
    from django.core.management import call_command

    from apps.accounts.models import User
    from apps.accounts.services import organization_create
    from apps.billing.models import BillLine
    from apps.billing.selectors import cost_totals
    from apps.cloud.models import Instance
    from apps.cloud.providers.tencent.simulator import DEFAULT_SECRET_ID, DEFAULT_SECRET_KEY
    from apps.cloud.services import cloud_account_create
    from apps.metrics.constants import Metric
    from apps.metrics.selectors import metrics_read

    owner = User.objects.create_user(email=f"{name}@example.com", password=None)
    organization = organization_create(name=name, owner=owner)
    port = _free_port()
    ready, stop = multiprocessing.Event(), multiprocessing.Event()
    stats: multiprocessing.Queue[tuple[int, int, dict[str, tuple[int, int, float]]]] = (
        multiprocessing.Queue()
    )
    server = multiprocessing.get_context("fork").Process(
        target=_serve, args=(port, frozen, faults, ready, stop, stats)
    )
    server.start()
    try:
        ready.wait(30)
        account = cloud_account_create(
            organization=organization,
            name=name,
            secret_id=DEFAULT_SECRET_ID,
            secret_key=DEFAULT_SECRET_KEY,
            regions=["ap-guangzhou", "ap-shanghai"],
            endpoint=f"127.0.0.1:{port}",
            endpoint_scheme="http",
        )
        out = StringIO()
        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        call_command(
            "backfill",
            account=account.pk,
            days=days,
            no_progress=True,
            as_of=frozen.isoformat(),
            stdout=out,
            stderr=StringIO(),
        )
        wall = time.perf_counter() - started
        # On a shared machine, how busy it was around this day's run (1-minute averages).
        load = f"load {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    finally:
        stop.set()
        requests, answered, per_action = stats.get(timeout=60)
        server.join(timeout=30)
    instances = list(Instance.objects.filter(account=account).order_by("provider_id"))
    start = frozen - timedelta(days=days)
    points = sum(
        int(np.count_nonzero(~np.isnan(rows)))
        for metric in Metric.values
        for rows in [
            metrics_read(
                instance_ids=[i.pk for i in instances], metric=metric, start=start, end=frozen
            )
        ]
    )
    lines = BillLine.objects.filter(account=account)
    stored = {
        "instances": [(i.provider_id, i.state) for i in instances],
        "points": points,
        "bill_lines": lines.count(),
        "bill_totals": cost_totals(lines, "month"),
        "currency": account.currency,
    }
    return wall, requests, answered, stored, per_action, load


def run(days: int) -> list[tuple[str, str, str, str]]:
    # Both simulators serve the same moment, so both backfills have exactly the same work.
    frozen = datetime.now(UTC).replace(second=0, microsecond=0)
    good_wall, good_requests, _, good, good_kinds, good_load = _backfill(
        "good-day", {}, frozen, days
    )
    bad_wall, bad_requests, bad_answered, bad, bad_kinds, bad_load = _backfill(
        "bad-day", BAD_DAY, frozen, days
    )
    ratio = bad_wall / good_wall
    same = good == bad
    total = sum(good["bill_totals"].values()).quantize(Decimal("0.01"))
    return [
        (
            f"Backfill wall time, {len(good['instances'])} instances x {days} days "
            "(inventory, prices, metrics, bills, balance)",
            f"good day {good_wall:.1f} s; bad day {bad_wall:.1f} s; ratio {ratio:.2f}x",
            "<= 2x",
            "pass" if ratio <= 2 else "FAIL",
        ),
        (
            "Requests the simulator received",
            f"good day {good_requests} ({good_requests / good_wall:.1f}/s); bad day "
            f"{bad_requests} ({bad_requests / bad_wall:.1f}/s), of which "
            f"{bad_requests - bad_answered} failed ({(bad_requests - bad_answered) / bad_requests:.0%})",
            "informative",
            "-",
        ),
        *(
            (
                f"  {action}: requests, from its first to its last",
                f"good day {_rate(good_kinds.get(action))}; bad day {_rate(bad_kinds.get(action))}",
                "informative",
                "-",
            )
            for action in sorted({*good_kinds, *bad_kinds})
        ),
        ("Machine load (1-minute average)", f"good day {good_load}; bad day {bad_load}", "", ""),
        (
            "Stored data, bad day vs good day",
            f"{'identical' if same else 'DIFFERENT'}: {len(bad['instances'])} instances, "
            f"{bad['points']:,} points, {bad['bill_lines']:,} bill lines, {total:,} {good['currency']} in bills",
            "identical",
            "pass" if same else "FAIL",
        ),
    ]


def _rate(kind: tuple[int, int, float] | None) -> str:
    if kind is None:
        return "none"
    requests, failed, seconds = kind
    rate = f" in {seconds:.1f} s ({requests / seconds:.1f}/s)" if seconds > 0 else ""
    return f"{requests} ({failed} failed){rate}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--no-record", action="store_true")
    options = parser.parse_args()
    database_url = os.environ.get(
        "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_faults"
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
            "Backfill on a bad day (Tencent simulator)",
            rows,
            command=f"make bench-backfill-faults (python -m bench.backfill_faults --days {options.days})",
            info=info,
            note=(
                "Faults: throttle every 3rd request, InternalError every 4th, bare HTTP 500 "
                "every 6th. Each simulator runs in its own process on the same 2 cores; the "
                "client and the simulator both apply the documented rate limits."
            ),
        )


if __name__ == "__main__":
    main()

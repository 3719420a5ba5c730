"""Render and send 1,000 digests through 2 real Celery worker processes to a local SMTP sink.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_digests \\
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python -m bench.bench_digests [--no-record]

Creates (and finally drops) the database; one organization (Asia/Shanghai) with 50 projects
and 1,000 GPU instances (tests/fleet_generator.py), 7 days of synthetic metrics written through
the real metric store and analysed by the real analysis (phases, hour rollups), an hourly
compute bill line per instance for the 3 weeks a weekly digest compares, 20 recommendations
and a budget. 1,000 people subscribe to the weekly digest (Monday 09:00): 500 to the whole
organization, 500 to one project each (10 per project), half of them in Simplified Chinese.

Then, side by side in one run:

- one digest rendered in-process without the figures cache: what a lone digest costs;
- the whole batch: one ``digests.claim_due`` at Monday 09:00 sent to the broker, two worker
  processes (``--pool=solo``, queues default and email) claim, render and send to an aiosmtpd
  sink in this process; wall time from the claim until the sink has every message, digests/s,
  and the share of the workers' time in queries, charts, templates and SMTP (recorded per
  delivery in ``DigestDelivery.timings_ms``).

Target: 1,000 digests in under 60 s on this machine. Appends a dated section to RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import threading
import time
import zoneinfo
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from bench.harness import machine, record, setup_django, teardown

ROOT = Path(__file__).resolve().parents[1]
SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
# The Monday the digests go out; the metrics cover the week before it.
MONDAY = dt.date(2026, 11, 30)
PROJECTS = 50
INSTANCES = 1000
SUBSCRIBERS = 1000
TARGET_S = 60.0


class Sink:
    """An aiosmtpd handler that counts what it receives and throws it away."""

    def __init__(self) -> None:
        self.count = 0
        self.bytes = 0
        self._lock = threading.Lock()

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        with self._lock:
            self.count += 1
            self.bytes += len(envelope.content)  # type: ignore[attr-defined]
        return "250 OK"


def build(days_of_metrics: int) -> tuple[int, float]:
    """The organization, fleet, metrics, analysis, bills, recommendations and subscribers."""
    from apps.accounts.models import Organization, User
    from apps.alerts.models import Budget
    from apps.analysis import services as analysis_services
    from apps.billing.models import BillLine
    from apps.cloud.models import CloudAccount, Instance, Project
    from apps.digests import services
    from apps.digests.models import DigestSubscription
    from apps.recommendations.models import Recommendation
    from tests.fleet_generator import fleet_generate

    started = time.perf_counter()
    organization = Organization.objects.create(name="Bench", slug="bench", timezone="Asia/Shanghai")
    account = CloudAccount.objects.create(
        organization=organization, name="bench", secret_id="AKID-bench",
        secret_key_encrypted="unused", regions=["ap-shanghai"],
    )  # fmt: skip
    projects = [
        Project.objects.create(organization=organization, name=f"project-{i:02d}", slug=f"p{i}")
        for i in range(PROJECTS)
    ]
    monday = dt.datetime.combine(MONDAY, dt.time(), tzinfo=SHANGHAI).astimezone(dt.UTC)
    Instance.objects.bulk_create(
        Instance(
            organization=organization,
            account=account,
            provider_id=f"ins-{i:06d}",
            name=f"gpu-{i:04d}",
            region="ap-shanghai",
            zone="ap-shanghai-2",
            instance_type="GN7.2XLARGE32",
            gpu_count=1,
            project=projects[i % PROJECTS],
            launched_at=monday - dt.timedelta(days=60),
        )
        for i in range(INSTANCES)
    )
    ids = list(Instance.objects.order_by("id").values_list("id", flat=True))
    first_day = (monday - dt.timedelta(days=days_of_metrics)).date()
    fleet_generate(
        instance_ids=ids, start_day=first_day, days=days_of_metrics + 1,
        metrics=["gpu_util_pct", "gpu_mem_used_pct", "cpu_util_pct"],
    )  # fmt: skip
    start = dt.datetime.combine(first_day, dt.time(), tzinfo=dt.UTC)
    end = start + dt.timedelta(days=days_of_metrics + 1)
    analysis_services.analysis_run(instance_ids=ids, start=start, end=end, as_of=end)
    # Three weeks of hourly compute lines: the digest's week and the two before it.
    bills_start = monday - dt.timedelta(days=21)
    for offset in range(0, len(ids), 50):
        BillLine.objects.bulk_create(
            [
                BillLine(
                    organization=organization,
                    account=account,
                    bill_id=f"{instance_id}-{hour}",
                    component_code="v_cvm_compute",
                    item_code="cvm",
                    month="2026-11",
                    instance_id=instance_id,
                    project=projects[(instance_id - ids[0]) % PROJECTS],
                    fee_begin_at=bills_start + dt.timedelta(hours=hour),
                    fee_end_at=bills_start + dt.timedelta(hours=hour, minutes=59, seconds=59),
                    list_cost=Decimal("5.20") + Decimal(hour // 168),
                    cost=Decimal("5.20") + Decimal(hour // 168),
                )
                for instance_id in ids[offset : offset + 50]
                for hour in range(21 * 24)
            ],
            batch_size=5000,
        )
    for rank in range(20):
        Recommendation.objects.create(
            organization=organization, kind="stop_idle", fingerprint=f"bench-{rank}",
            instance_id=ids[rank], project=projects[rank % PROJECTS],
            title=f"Stop idle gpu-{rank:04d}", explanation="Idle.",
            monthly_saving=Decimal(100 * (rank + 1)), currency="CNY", saving_formula="x",
            price_source="bills", confidence="high", evidence_days=7.0, coverage_pct=100.0,
            risk_level=1, risk_reason="Low.", first_seen_at=monday, last_seen_at=monday,
        )  # fmt: skip
    Budget.objects.create(organization=organization, name="GPU", amount=Decimal("2000000"))
    before = monday - dt.timedelta(days=3)
    for index in range(SUBSCRIBERS):
        user = User.objects.create_user(
            email=f"person{index:04d}@bench.test", password=None,
            language="zh-hans" if index % 2 else "en",
        )  # fmt: skip
        organization.members.add(user)
        subscription = services.subscription_save(
            subscription=DigestSubscription(organization=organization, user=user), now=before
        )
        if index >= SUBSCRIBERS // 2:
            subscription.projects.set([projects[index % PROJECTS]])
    return organization.pk, time.perf_counter() - started


def _bench_database_exists(database_url: str) -> bool:
    import psycopg

    try:
        with psycopg.connect(database_url) as conn:
            row = conn.execute(
                "SELECT count(*) FROM accounts_organization WHERE slug = 'bench'"
            ).fetchone()
            return bool(row and row[0])
    except psycopg.Error:
        return False


def _setup_django_only(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuv")
    os.environ.setdefault("FIELD_ENCRYPTION_KEY", "8V9nXU6Wr3m3wq9GxYqCMyn3tqm2lH4Ccv0ghiEhUFs=")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("VAR_DIR", str(Path(tempfile.gettempdir()) / "gpu-ledger-bench"))
    import django

    django.setup()


def _reset_deliveries() -> None:
    """Forget a previous run's digests: every subscription due again on Monday 09:00."""
    from apps.digests import services
    from apps.digests.models import DigestDelivery, DigestSubscription

    DigestDelivery.objects.all().delete()
    before = dt.datetime.combine(MONDAY, dt.time(), tzinfo=SHANGHAI) - dt.timedelta(days=3)
    for subscription in DigestSubscription.objects.select_related("organization"):
        subscription.is_active = True
        services.subscription_save(subscription=subscription, now=before)


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "workers",
            "worker",
            "--pool=solo",
            "--queues=default,email",
            "--loglevel=WARNING",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--days", type=int, default=7, help="days of metrics (the digest's week)")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the database between runs: build it only if it is not there, never drop it",
    )
    args = parser.parse_args()
    database_url = os.environ.get(
        "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_digests"
    )
    if not os.environ.get("REDIS_URL"):
        sys.exit("the bench needs REDIS_URL: the workers share a broker and the figures cache")
    reused = args.reuse and _bench_database_exists(database_url)
    if reused:
        _setup_django_only(database_url)
    else:
        setup_django(database_url)
    from aiosmtpd.controller import Controller

    from apps.accounts.models import Organization
    from apps.digests.content import Stopwatch
    from apps.digests.emails import digest_render
    from apps.digests.models import DigestDelivery, DigestSubscription
    from apps.digests.schedule import Schedule, next_occurrence
    from tests.integration.conftest import free_port

    try:
        if reused:
            from apps.digests.cachekeys import figures_cache_invalidate

            organization = Organization.objects.get(slug="bench")
            _reset_deliveries()
            # A cold start, like the first 09:00 of a fresh database.
            figures_cache_invalidate(organization)
        else:
            organization_id, build_s = build(args.days)
            print(f"built the organization in {build_s:.1f} s", flush=True)
            organization = Organization.objects.get(pk=organization_id)
        monday_nine = dt.datetime.combine(MONDAY, dt.time(9), tzinfo=SHANGHAI)
        occurrence = next_occurrence(
            Schedule(frequency="weekly", send_time=dt.time(9), timezone="Asia/Shanghai"),
            after=monday_nine - dt.timedelta(minutes=1),
        )
        # One digest, no cache: what a lone digest costs end to end (without SMTP).
        lone = Stopwatch()
        lone_started = time.perf_counter()
        subscription = DigestSubscription.objects.filter(organization=organization).first()
        assert subscription is not None
        digest_render(
            subscription=subscription,
            period_start=occurrence.period_start,
            period_end=occurrence.period_end,
            stopwatch=lone,
            use_cache=False,
        )
        lone_s = time.perf_counter() - lone_started
        print(f"one digest without the cache: {lone_s:.2f} s {lone.ms}", flush=True)

        sink = Sink()
        port = free_port()
        controller = Controller(sink, hostname="127.0.0.1", port=port)
        controller.start()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "EMAIL_URL": f"smtp://127.0.0.1:{port}",
        }
        logs = [Path(os.environ["VAR_DIR"]) / f"bench-digests-worker-{i}.log" for i in range(2)]
        workers = [start_worker(env, log) for log in logs]
        try:
            time.sleep(8)  # both workers up and consuming before the clock starts
            from apps.digests.tasks import claim_due

            started = time.perf_counter()
            claim_due.delay(monday_nine.isoformat())
            deadline = started + 600
            claimed_s = None
            while sink.count < SUBSCRIBERS and time.perf_counter() < deadline:
                if claimed_s is None and DigestDelivery.objects.count() >= SUBSCRIBERS:
                    claimed_s = time.perf_counter() - started
                time.sleep(0.05)
            wall_s = time.perf_counter() - started
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=30)
            controller.stop()
        delivered = sink.count
        deliveries = list(DigestDelivery.objects.values_list("status", "timings_ms"))
        statuses: dict[str, int] = defaultdict(int)
        steps: dict[str, float] = defaultdict(float)
        for status, timings in deliveries:
            statuses[status] += 1
            for step, ms in (timings or {}).items():
                steps[step] += ms
        busy_ms = sum(steps.values())
        share = {
            step: f"{steps[step] / 1000:.1f} s ({steps[step] / busy_ms:.0%})" if busy_ms else "-"
            for step in ("queries", "charts", "templates", "smtp", "cache")
        }
        rate = delivered / wall_s if wall_s else 0.0
        print(f"{delivered} digests in {wall_s:.1f} s ({rate:.1f}/s); {dict(statuses)}; {share}")
        print(f"all claimed after {claimed_s} s")
        rows = [
            (
                f"{SUBSCRIBERS} weekly digests, 2 worker processes, claim to last message in the sink",
                f"{wall_s:.1f} s, {rate:.1f} digests/s; {delivered} received "
                f"({sink.bytes / max(delivered, 1) / 1024:.0f} KB each); statuses {dict(statuses)}",
                f"< {TARGET_S:.0f} s",
                "pass" if delivered == SUBSCRIBERS and wall_s < TARGET_S else "FAIL",
            ),
            (
                "  workers' time in queries (figures; 51 distinct scopes, shared via the cache)",
                share["queries"],
                "",
                "",
            ),
            ("  in charts (Pillow, 2 PNGs per distinct scope)", share["charts"], "", ""),
            ("  in templates (per digest: language, links)", share["templates"], "", ""),
            ("  in SMTP (per digest)", share["smtp"], "", ""),
            ("  in cache reads", share["cache"], "", ""),
            (
                "claiming (one task, 100 subscriptions per transaction): every delivery created",
                f"{claimed_s:.1f} s after the tick" if claimed_s is not None else "-",
                "",
                "",
            ),
            (
                "one digest rendered without the figures cache (in-process, no SMTP)",
                f"{lone_s:.2f} s: "
                + ", ".join(f"{k} {v / 1000:.2f} s" for k, v in lone.ms.items()),
                "",
                "",
            ),
        ]
        if not args.no_record:
            print(
                record(
                    "Digests: render and send 1,000",
                    rows,
                    command="make bench-digests",
                    info=machine(),
                    note=(
                        f"One organization, {PROJECTS} projects, {INSTANCES} instances, "
                        f"{args.days} days of metrics analysed, 3 weeks of hourly compute bill "
                        f"lines ({INSTANCES * 21 * 24:,}); {SUBSCRIBERS} subscribers: half the "
                        "whole organization, half one project each; half in Simplified Chinese. "
                        "SMTP sink: aiosmtpd in the bench process, on loopback."
                        + (
                            " Database kept from an earlier build of this bench (--reuse); "
                            "figures cache cold."
                            if reused
                            else ""
                        )
                    ),
                )
            )
    finally:
        if not args.reuse:
            teardown(database_url)


if __name__ == "__main__":
    main()

"""API latency of every read the Overview page makes, unloaded, against ``/api/v1/me``.

A 1,000-instance fleet on PostgreSQL: a year of hourly and daily metric rollups, 30 days of raw
per-minute metrics (written through the real metric store, then analysed), and a year of bills
shaped the way Tencent documents them (``bench.bench_api_data``: a row per component, spot and
prepaid instances, monthly purchase and renewal lines that amortization spreads). The rollups
derived from the bills are then built by the product's own code: billing's ``bill_days_refresh``
and its ``bill_lines_changed`` signal, whose receivers (costs, analysis, whatever else listens)
are what a bills sync runs.

Served by gunicorn as docker-compose serves it (3 sync workers). The acceptance figure is the
*unloaded* latency: ``--rounds`` rounds, each requesting every URL once, one request at a time,
the order rotated each round so that noise on a shared machine hits all URLs alike; the median
and p95 of each URL as a ratio to ``/me``'s measured in the same rounds (target: median within
``TARGET_RATIO``). Where an endpoint accepts ``basis=amortized`` it is asked for (the Overview's
default basis), found by asking: the APIs refuse unknown parameters. A second table keeps the
earlier measure under load (32 connections cycling over the URLs for ``DURATION_S``).

    DATABASE_URL=postgres://.../gpu_ledger_bench_api python -m bench.bench_api [--quick]
        [--keep] [--reuse] [--rounds N] [--hourly-days N] [--no-load]

``--reuse`` keeps the database and, next time, skips the build when it holds the data of the
same ``DATA_VERSION`` and shape (written to ``bench_api_meta`` at the end of a build); migrating
it applies whatever came since. ``make bench-api`` reuses. ``--quick``: 100 instances and fewer
days, printed, not recorded (a smoke run).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
import zoneinfo
from typing import Any

from bench.api_measure import (
    CONNECTIONS,
    DURATION_S,
    ME,
    WARMUP_ROUNDS,
    load,
    loaded_rows,
    serve,
    unloaded,
    unloaded_rows,
    with_basis,
)
from bench.bench_api_data import (
    COMPONENTS,
    bill_lines_build,
    bulk_load,
    charge_type_of_index,
    classification_check,
    rollups_build,
)
from bench.harness import machine, record, setup_django, teardown

ROUNDS = 30
PROJECTS = 20
TZ = "Asia/Shanghai"
# (instances, raw metric days, rollup days, bill days, hourly bill days)
FULL = (1000, 30, 365, 365, 92)
QUICK = (100, 7, 62, 120, 62)
# Bump when the build changes what it writes: a kept database of another version is rebuilt.
DATA_VERSION = 2
META_TABLE = "bench_api_meta"


def build(shape: dict[str, int]) -> dict[str, Any]:
    """The organization, its member and the fleet's data; returns what the run needs."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from apps.accounts.models import Membership, Organization
    from apps.analysis import services as analysis_services
    from apps.cloud.models import CloudAccount, Instance, Project
    from tests.fleet_generator import fleet_generate

    instances, raw_days = shape["instances"], shape["raw_days"]
    utc_today = dt.datetime.now(dt.UTC).date()
    local_today = dt.datetime.now(zoneinfo.ZoneInfo(TZ)).date()
    organization = Organization.objects.create(name="Bench", slug="bench", timezone=TZ)
    user = get_user_model().objects.create_user(email="bench@bench.test", password="x" * 16)
    Membership.objects.create(organization=organization, user=user, role="owner")
    account = CloudAccount.objects.create(
        organization=organization, name="t", secret_id="AKID", secret_key_encrypted="x"
    )
    projects = Project.objects.bulk_create(
        Project(organization=organization, name=f"Project {n}", slug=f"project-{n}")
        for n in range(PROJECTS)
    )
    fleet = Instance.objects.bulk_create(
        Instance(
            organization=organization,
            account=account,
            provider_id=f"ins-bench{n:05d}",
            name=f"gpu-{n:05d}",
            region="ap-shanghai",
            zone="ap-shanghai-2",
            instance_type="GN7.20XLARGE320" if n % 4 == 0 else "GN7.2XLARGE32",
            gpu_model="T4",
            gpu_count=8 if n % 4 == 0 else 1,
            charge_type=charge_type_of_index(n),
            # One in ten unallocated, the rest spread over the projects.
            project=None if n % 10 == 9 else projects[n % PROJECTS],
            tags={"team": f"team-{n % 7}"},
            launched_at=dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
        )
        for n in range(instances)
    )
    ids = [i.pk for i in fleet]
    timings: dict[str, float] = {}

    def timed(name: str, started: float) -> None:
        timings[name] = time.perf_counter() - started
        print(f"  {name}: {timings[name]:.1f} s", flush=True)

    print("building the fleet's data ...", flush=True)
    started = time.perf_counter()
    raw_first = utc_today - dt.timedelta(days=raw_days)
    fleet_generate(
        instance_ids=ids,
        start_day=raw_first,
        days=raw_days,
        metrics=["gpu_util_pct", "gpu_mem_used_pct", "cpu_util_pct"],
    )
    timed(f"raw metrics ({raw_days} days, COPY) and their rollups", started)

    started = time.perf_counter()
    older = shape["rollup_days"] - raw_days
    with connection.cursor() as cursor, bulk_load(cursor, HOUR_AND_DAY_TABLES):
        rollups_build(cursor, organization.pk, raw_first - dt.timedelta(days=older), raw_first)
    timed(f"older metric rollups ({older} days, INSERT ... SELECT)", started)

    started = time.perf_counter()
    until = dt.datetime.now(dt.UTC).replace(minute=0, second=0, microsecond=0)
    with connection.cursor() as cursor, bulk_load(cursor, ["billing_billline"]):
        written = bill_lines_build(
            cursor,
            organization_id=organization.pk,
            account_id=account.pk,
            today=local_today,
            days=shape["bill_days"],
            hourly_days=shape["hourly_days"],
            until=until,
        )
    timed(f"bill lines ({shape['bill_days']} days, INSERT ... SELECT)", started)
    with connection.cursor() as cursor:
        shapes = classification_check(cursor, organization.pk)
    print(f"  {shapes} line shapes agree with apps.billing.classify", flush=True)

    started = time.perf_counter()
    end = dt.datetime.combine(utc_today, dt.time(), tzinfo=dt.UTC)
    analysis_services.analysis_run(
        instance_ids=ids, start=end - dt.timedelta(days=raw_days), end=end, as_of=end
    )
    timed(f"analysis of the {raw_days} days", started)

    derived_rebuild(timings)
    return {"today": local_today, "timings": timings, "written": written, "counts": _counts()}


def derived_rebuild(timings: dict[str, float]) -> None:
    """What a bills sync builds after writing lines, with the product's own entry points:
    billing's instance-day rollup, then the signal every app deriving data from bill lines
    listens to (the lines were inserted in SQL, without it). Also run on a kept database
    whose migrations changed since its build (a rollup's shape may have)."""
    from django.db import connection

    from apps.accounts.models import Organization
    from apps.billing.models import BillLine
    from apps.billing.rollups import bill_days_refresh
    from apps.billing.signals import bill_lines_changed
    from apps.cloud.models import CloudAccount

    organization = Organization.objects.get(slug="bench")
    started = time.perf_counter()
    for account in CloudAccount.objects.filter(organization=organization):
        bill_days_refresh(account=account)
    timings["billing's instance-day rollup (bill_days_refresh)"] = time.perf_counter() - started
    print(f"  bill_days_refresh: {time.perf_counter() - started:.1f} s", flush=True)
    started = time.perf_counter()
    receivers = bill_lines_changed.send(sender=BillLine, organization=organization, months=None)
    names = ", ".join(f"{r.__module__}.{r.__qualname__}" for r, _ in receivers)
    timings[f"bill_lines_changed receivers ({names})"] = time.perf_counter() - started
    print(f"  bill_lines_changed: {time.perf_counter() - started:.1f} s", flush=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def _counts() -> dict[str, int]:
    from django.db import connection

    counts = {}
    with connection.cursor() as cursor:
        for table in (
            "billing_billline",
            "metrics_instancehourrollup",
            "costs_costday",
            "analysis_billedhoursday",
            "billing_instancebillday",
        ):
            cursor.execute(f"SELECT COUNT(*) FROM {table}")
            counts[table] = cursor.fetchone()[0]
    return counts


def _migrations() -> int:
    """How many migrations the database has applied (a kept build's rollups may be stale
    when it changed)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM django_migrations")
        return int(cursor.fetchone()[0])


HOUR_AND_DAY_TABLES = ["metrics_instancehourrollup", "metrics_instancedayrollup"]


def _session() -> str:
    """A signed-in session of the bench's member (a fresh one each run)."""
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    user = get_user_model().objects.get(email="bench@bench.test")
    session = SessionStore()
    session["_auth_user_id"] = str(user.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    return str(session.session_key)


def _meta_write(data: dict[str, Any], shape: dict[str, int], built: float) -> None:
    """Mark the database as holding a complete build of this version (for ``--reuse``)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {META_TABLE} (version int, shape jsonb, meta jsonb)")
        meta = {
            "today": data["today"].isoformat(),
            # Pairs, not an object: jsonb does not keep the keys' order.
            "timings": list(data["timings"].items()),
            "written": list(data["written"].items()),
            "counts": data["counts"],
            "built": built,
            "migrations": _migrations(),
        }
        cursor.execute(
            f"INSERT INTO {META_TABLE} VALUES (%s, %s, %s)",
            [DATA_VERSION, json.dumps(shape), json.dumps(meta)],
        )


def _meta_update(data: dict[str, Any]) -> None:
    """Record that the kept build's rollups were rebuilt under the current migrations."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {META_TABLE} SET meta = meta || %s::jsonb",
            [
                json.dumps(
                    {
                        "migrations": _migrations(),
                        "rebuilt": data["rebuilt"],
                        "counts": data["counts"],
                    }
                )
            ],
        )


def _meta_read(database_url: str, shape: dict[str, int]) -> dict[str, Any] | None:
    """The kept build's facts if the database holds one of this version and shape, else None."""
    import psycopg

    from bench.harness import database_exists

    if not database_exists(database_url):
        return None
    with psycopg.connect(database_url) as conn:
        table = conn.execute("SELECT to_regclass(%s)", [META_TABLE]).fetchone()
        if table is None or table[0] is None:
            return None
        try:
            row = conn.execute(f"SELECT version, shape, meta FROM {META_TABLE}").fetchone()
        except psycopg.errors.UndefinedColumn:  # a version 1 table
            return None
    if row is None or row[0] != DATA_VERSION or row[1] != shape:
        return None
    meta = dict(row[2])
    meta["today"] = dt.date.fromisoformat(meta["today"])
    meta["timings"] = dict(meta["timings"])
    meta["written"] = dict(meta["written"])
    return meta


def overview_urls(today: dt.date) -> dict[str, str]:
    """Every read of the Overview page at its defaults (frontend/src/pages/overview/data.ts:
    the 30-day range, spend stacked by project, the top 5 recommendations), the 90-day cost
    report and the analysis summary the issue names, and ``/me`` (the reference)."""
    start30 = today - dt.timedelta(days=29)
    days = f"start={start30}&end={today}"
    urls = {
        ME: ME,
        "costs, month to date (KPI cards)": "/api/v1/costs?granularity=month",
    }
    if today.day > 1:  # the KPI cards' "same days of last month" (kpi.ts sameDaysLastMonth)
        last_month = (today.replace(day=1) - dt.timedelta(days=1)).replace(day=1)
        last_day = min(today.day - 1, (today.replace(day=1) - dt.timedelta(days=1)).day)
        urls["costs, same days last month (KPI cards)"] = (
            f"/api/v1/costs?granularity=month&start={last_month}"
            f"&end={last_month.replace(day=last_day)}"
        )
    start90 = today - dt.timedelta(days=89)
    summary_end = dt.datetime.combine(today, dt.time(), tzinfo=dt.UTC)
    summary_start = summary_end - dt.timedelta(days=30)
    urls.update(
        {
            "costs, day, group_by=project, 30 days (spend over time)": (
                f"/api/v1/costs?granularity=day&{days}&group_by=project"
            ),
            "utilization, 30 days (phases)": f"/api/v1/utilization?{days}",
            "utilization/hour-of-week, 30 days (heatmap)": (
                f"/api/v1/utilization/hour-of-week?{days}"
            ),
            "budgets": "/api/v1/budgets?page_size=200",
            "recommendations, top 5 open": (
                "/api/v1/recommendations?status=open&role=plan&ordering=-saving&page_size=5"
            ),
            "cloud-accounts (sync health)": "/api/v1/cloud-accounts?page_size=100",
            "project-tag-keys": "/api/v1/project-tag-keys?page_size=100",
            "costs, day, group_by=project, 90 days (the 90d range)": (
                f"/api/v1/costs?group_by=project&granularity=day&start={start90}&end={today}"
            ),
            "analysis summary, group_by=project, 30 days": (
                "/api/v1/analysis/summary?group_by=project"
                f"&start={summary_start:%Y-%m-%dT%H:%MZ}&end={summary_end:%Y-%m-%dT%H:%MZ}"
            ),
        }
    )
    return urls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 instances, fewer days, no record")
    parser.add_argument("--instances", type=int, help="fleet size (default 1000)")
    parser.add_argument("--hourly-days", type=int, help="days of hourly bill lines (default 92)")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--no-load", action="store_true", help="skip the under-load table")
    parser.add_argument("--port", type=int, default=18123)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the database, and reuse the data a previous --reuse/--keep run built",
    )
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith("postgres"):
        sys.exit("bench.bench_api needs DATABASE_URL=postgres://...")
    keys = ("instances", "raw_days", "rollup_days", "bill_days", "hourly_days")
    shape = dict(zip(keys, QUICK if args.quick else FULL, strict=True))
    if args.instances:
        shape["instances"] = args.instances
    if args.hourly_days:
        shape["hourly_days"] = min(args.hourly_days, shape["bill_days"])
    kept = _meta_read(database_url, shape) if args.reuse else None
    setup_django(database_url, recreate=kept is None)
    server = None
    try:
        if kept is not None:
            data, built, reused = kept, float(kept["built"]), True
            print(f"reusing the data built on {data['today']} (version {DATA_VERSION})")
            if data.get("migrations") != _migrations():
                print("migrations changed since the build: rebuilding the derived rollups")
                timings: dict[str, float] = {}
                derived_rebuild(timings)
                data["rebuilt"] = list(timings.items())
                data["counts"] = _counts()
                _meta_update(data)
            from django.db import connection

            with connection.cursor() as cursor:
                # As autovacuum keeps a database between writes: rollups just rewritten leave
                # dead rows that index scans would visit until it runs.
                cursor.execute("VACUUM ANALYZE")
        else:
            started = time.perf_counter()
            data = build(shape)
            built = time.perf_counter() - started
            _meta_write(data, shape, built)
            reused = False
        print(f"data built in {built:.0f} s{' (by an earlier run)' if reused else ''}; {data}")
        session = _session()
        from django.db import connections

        connections.close_all()
        today = dt.datetime.now(zoneinfo.ZoneInfo(TZ)).date()
        server = serve(args.port)
        urls, amortized = with_basis(args.port, session, overview_urls(today))
        load_before = os.getloadavg()
        alone = unloaded(args.port, session, urls, args.rounds)
        load_after = os.getloadavg()
        loaded = None if args.no_load else load(args.port, session, urls)
        info = machine()
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        if not (args.keep or args.reuse):
            teardown(database_url)
    rows = unloaded_rows(urls, alone, amortized)
    for row in rows:
        print(" | ".join(row))
    note = _note(shape, data, built, reused, args.rounds, amortized, load_before, load_after)
    print(note)
    if loaded is not None:
        for row in loaded_rows(urls, *loaded):
            print(" | ".join(row))
    if args.quick:
        return
    command = "make bench-api"
    print(record("API latency unloaded: the Overview's reads vs /me", rows, command=command,
                 info=info, note=note))  # fmt: skip
    if loaded is not None:
        print(
            record(
                "API latency under load: the Overview's reads vs /me",
                loaded_rows(urls, *loaded),
                command=command,
                info=info,
                note=f"The same run and data, then {CONNECTIONS} closed-loop connections x "
                f"{DURATION_S:.0f} s, each cycling over the URLs: saturated on 2 cores, so every "
                "latency is mostly the shared queue (no target; the unloaded table is the "
                "acceptance).",
            )
        )


def _note(
    shape: dict[str, int], data: dict[str, Any], built: float, reused: bool, rounds: int,
    amortized: list[str], load_before: tuple[float, ...], load_after: tuple[float, ...],
) -> str:  # fmt: skip
    counts, written = data["counts"], data["written"]
    components = ", ".join(f"{name} ({who})" for _c, _i, name, *_r, who in COMPONENTS)
    timings = "; ".join(f"{k} {v:.0f} s" for k, v in data["timings"].items())
    rebuilt = ""
    if data.get("rebuilt"):
        rebuilt = "; migrations came since, so the derived rollups were rebuilt on the kept lines: "
        rebuilt += "; ".join(f"{k} {v:.0f} s" for k, v in data["rebuilt"])
    return (
        f"{shape['instances']} instances (15 % prepaid, 15 % spot, 70 % pay-as-you-go; one in "
        f"four with 8 GPUs). Bills: {shape['bill_days']} days, {counts['billing_billline']:,} "
        f"lines ({', '.join(f'{k} {v:,}' for k, v in written.items())}): a line per component "
        f"({components}; data = every other instance, band = one in four), hourly for the last "
        f"{shape['hourly_days']} Beijing days and one line per component and day before that; "
        "prepaid money as monthly 新购/续费 purchase lines covering their month. Rollups built by "
        f"the product's services: {counts['costs_costday']:,} CostDay, "
        f"{counts['analysis_billedhoursday']:,} BilledHoursDay, "
        f"{counts['billing_instancebillday']:,} InstanceBillDay rows. Metrics: "
        f"{shape['rollup_days']} days of rollups ({counts['metrics_instancehourrollup']:,} hour "
        f"rows), {shape['raw_days']} days raw (analysed). Data build {built:.0f} s ({timings})"
        f"{'; reused from an earlier run (--reuse)' if reused else ''}{rebuilt}. Measure: "
        "gunicorn 3 sync "
        f"workers, unloaded: {rounds} rounds (after {WARMUP_ROUNDS} warm-up rounds), each every "
        "URL once, one request at a time on a new connection, the order rotated each round; "
        "'paired' is the median over rounds of the URL's latency over that round's /me. "
        f"basis=amortized asked of: {', '.join(amortized) or 'none (no endpoint accepts it yet)'}. "
        f"Load average (1, 5, 15 min) before the rounds {_loads(load_before)}, after "
        f"{_loads(load_after)} (2 cores)."
    )


def _loads(loads: tuple[float, ...]) -> str:
    return "/".join(f"{v:.1f}" for v in loads)


if __name__ == "__main__":
    main()

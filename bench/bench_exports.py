"""FOCUS export of 1 month vs 12 months: peak memory of the streaming process, side by side.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_exports \\
        .venv/bin/python -m bench.bench_exports [--instances 100] [--quick] [--no-record]

Creates (and finally drops) the database, a fleet of ``--instances`` GPU instances in five
projects and a year of their bills (a compute and a system-disk line per instance-hour, written
with COPY), with an hour rollup per instance-hour and a PhaseDay per instance-day so every line
gets its GPU figures. Then, each in a fresh subprocess, ``GET /api/v1/exports/focus.csv``
(through Django's full request path, authorised by an API key) for the last month and for the
whole year, reading the streamed body to its end; the subprocess reports its peak resident
memory (VmHWM of /proc/self/status) before and after. Target (issue #12): the year's peak within
1.2x of the month's. Appends a dated section to RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from bench.harness import machine, record, setup_django, teardown

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_exports"
# A year of Beijing bill months, Dec 2025 - Nov 2026 (Beijing midnight is 16:00 UTC).
FIRST_HOUR = dt.datetime(2025, 11, 30, 16, tzinfo=dt.UTC)
HOURS = 365 * 24
YEAR = ("2025-12-01", "2026-12-01")
MONTH = ("2026-11-01", "2026-12-01")
BEIJING = dt.timezone(dt.timedelta(hours=8))
COMPUTE_CNY = Decimal("5.20000000")
DISK_CNY = Decimal("0.04166667")
TARGET = 1.2


def peak_rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _copy(sql: str, chunks: Any) -> None:
    from apps.core import pgcopy

    cursor = pgcopy.connection_cursor()
    with cursor.copy(sql) as copy:
        for chunk in chunks:
            copy.write(chunk)


def create_world(instances: int) -> tuple[str, int]:
    """The organization, its API key, its fleet and a year of bills; (raw key, lines)."""
    from apps.accounts import services
    from apps.accounts.models import Organization
    from apps.cloud.models import CloudAccount, Instance, Project

    organization = Organization.objects.create(name="Bench", slug="bench")
    _, raw_key = services.api_key_create(
        organization=organization, name="bench", scope="read", created_by=None
    )
    account = CloudAccount.objects.create(
        organization=organization, name="bench", secret_id="AKID-bench",
        secret_key_encrypted="unused", regions=["ap-shanghai"],
    )  # fmt: skip
    projects = [
        Project.objects.create(organization=organization, name=f"p{i}", slug=f"p{i}")
        for i in range(5)
    ]
    Instance.objects.bulk_create(
        Instance(
            organization=organization,
            account=account,
            provider_id=f"ins-{i:06d}",
            name=f"gpu-{i}",
            region="ap-shanghai",
            zone="ap-shanghai-2",
            instance_type="GN7.2XLARGE32",
            gpu_model="T4",
            gpu_count=1 + i % 4,
            project=projects[i % len(projects)],
            tags={"project": f"p{i % len(projects)}", "team": f"t{i % 3}"},
        )
        for i in range(instances)
    )
    rows = list(Instance.objects.order_by("id").values_list("id", "provider_id", "project_id"))
    lines = _copy_bills(organization.pk, account.pk, rows)
    _copy_rollups(organization.pk, [row[0] for row in rows])
    return raw_key, lines


def _copy_bills(organization_id: int, account_id: int, rows: list[tuple[int, str, int]]) -> int:
    hours = [FIRST_HOUR + dt.timedelta(hours=h) for h in range(HOURS)]
    begin = [f"{h:%Y-%m-%d %H:%M:%S}+00" for h in hours]
    end = [f"{h + dt.timedelta(minutes=59, seconds=59):%Y-%m-%d %H:%M:%S}+00" for h in hours]
    month = [h.astimezone(BEIJING).strftime("%Y-%m") for h in hours]
    now = f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M:%S}+00"
    columns = (
        "created_at, updated_at, organization_id, account_id, bill_id, component_code, "
        "item_code, month, resource_id, resource_name, instance_id, project_id, product_name, "
        "component_name, item_name, pay_mode_name, action_type, action_type_name, region_name, "
        "zone_name, fee_begin_at, fee_end_at, list_cost, cost, cash_paid, voucher_paid, "
        "incentive_paid, transfer_paid, currency, used_amount, used_unit, time_span, time_unit, "
        "tags"
    )
    components = (
        ("v_cvm_compute", "sv_cvm_compute_gn7", "运算组件", "运算组件-GPU计算型GN7-8核32G-1*T4",
         COMPUTE_CNY, "1", "个"),
        ("v_cvm_disk_system", "sv_cvm_disk_premium", "系统盘", "高性能云硬盘", DISK_CNY, "50",
         "GB"),
    )  # fmt: skip

    def chunks() -> Any:
        for instance_id, provider_id, project_id in rows:
            tags = json.dumps({"project": f"p{instance_id % 5}", "team": f"t{instance_id % 3}"})
            parts: list[str] = []
            for code, item, name, item_name, cost, amount, unit in components:
                head = f"{now}\t{now}\t{organization_id}\t{account_id}\t{provider_id}-"
                middle = (
                    f"\t{provider_id}\tgpu-{instance_id}\t{instance_id}\t{project_id}\t"
                    f"云服务器CVM-GPU计算型GN7\t{name}\t{item_name}\t按量计费\tpostpay_deduct_h\t"
                    "按量计费小时结\t华东地区（上海）\t上海二区\t"
                )
                tail = (
                    f"\t{cost}\t{cost}\t{cost}\t0\t0\t0\tCNY\t{amount}\t{unit}\t3600\t秒\t{tags}\n"
                )
                parts.extend(
                    f"{head}{h}\t{code}\t{item}\t{month[h]}{middle}{begin[h]}\t{end[h]}{tail}"
                    for h in range(HOURS)
                )
            yield "".join(parts).encode()

    _copy(f"COPY billing_billline ({columns}) FROM STDIN", chunks())
    return len(rows) * HOURS * len(components)


def _copy_rollups(organization_id: int, instance_ids: list[int]) -> None:
    """An hour rollup per instance-hour (GPU utilization) and a PhaseDay per instance-day."""
    now = f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M:%S}+00"
    minutes = ", ".join(
        f"{metric}_minutes"
        for metric in ("gpu_mem_used_pct", "gpu_mem_used_mb", "gpu_temp_c", "gpu_power_w",
                       "cpu_util_pct", "mem_util_pct")
    )  # fmt: skip

    def hours() -> Any:
        stamps = [
            f"{FIRST_HOUR + dt.timedelta(hours=h):%Y-%m-%d %H:%M:%S}+00" for h in range(HOURS)
        ]
        for instance_id in instance_ids:
            yield "".join(
                f"{now}\t{now}\t{organization_id}\t{instance_id}\t{stamp}\t1\t{(h * 7) % 100}\t60"
                "\t0\t0\t0\t0\t0\t0\t\n"
                for h, stamp in enumerate(stamps)
            ).encode()

    _copy(
        "COPY metrics_instancehourrollup (created_at, updated_at, organization_id, instance_id, "
        f"hour_start, gpu_count, gpu_util_pct_avg, gpu_util_pct_minutes, {minutes}, currency) "
        "FROM STDIN",
        hours(),
    )
    # Every hour: 15 idle minutes, 45 training (phases: unknown, idle, data, evaluation, training).
    day_bytes = bytes([0, 15, 0, 0, 45] * 24).hex()
    first_day = FIRST_HOUR.date()

    def days() -> Any:
        for instance_id in instance_ids:
            yield "".join(
                f"{organization_id}\t{instance_id}\t{first_day + dt.timedelta(days=d)}\t\\\\x{day_bytes}\n"
                for d in range(HOURS // 24 + 1)
            ).encode()

    _copy("COPY analysis_phaseday (organization_id, instance_id, day, minutes) FROM STDIN", days())


def child(start: str, end: str) -> None:
    """Runs in a fresh process: one export through Django's request path; prints JSON."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.test import Client

    baseline = peak_rss_kb()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before = usage.ru_utime + usage.ru_stime
    client = Client(HTTP_HOST="localhost")
    started = time.perf_counter()
    response = client.get(
        "/api/v1/exports/focus.csv",
        {"start": start, "end": end},
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {os.environ['BENCH_API_KEY']}",
    )
    assert response.status_code == 200, response.status_code
    size = rows = 0
    for piece in response.streaming_content:  # type: ignore[attr-defined]
        size += len(piece)
        rows += piece.count(b"\n")
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"rows": rows - 1, "bytes": size, "seconds": seconds,
                      "cpu_seconds": usage.ru_utime + usage.ru_stime - cpu_before,
                      "baseline_kb": baseline, "peak_kb": peak_rss_kb()}))  # fmt: skip


def measure(start: str, end: str, raw_key: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_exports", "--child", start, end],
        capture_output=True, text=True, check=False,
        env={**os.environ, "BENCH_API_KEY": raw_key},
    )  # fmt: skip
    if out.returncode != 0:
        sys.exit(f"the export subprocess failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(instances: int) -> tuple[list[tuple[str, str, str, str]], str]:
    started = time.perf_counter()
    raw_key, lines = create_world(instances)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(f"wrote {lines:,} bill lines in {time.perf_counter() - started:.1f} s", flush=True)
    month = measure(*MONTH, raw_key)
    year = measure(*YEAR, raw_key)
    ratio = year["peak_kb"] / month["peak_kb"]

    def figure(item: dict[str, Any]) -> str:
        return (
            f"peak RSS {item['peak_kb'] / 1024:.0f} MiB (before the request "
            f"{item['baseline_kb'] / 1024:.0f} MiB); {item['rows']:,} rows, "
            f"{item['bytes'] / 2**20:.0f} MiB of CSV in {item['seconds']:.1f} s wall, "
            f"{item['cpu_seconds']:.1f} s CPU of the web process "
            f"({item['rows'] / item['cpu_seconds']:,.0f} rows per CPU second)"
        )

    rows = [
        ("FOCUS export, 1 month (Nov 2026)", figure(month), "", ""),
        ("FOCUS export, 12 months", figure(year), "", ""),
        (
            "peak RSS, 12 months / 1 month",
            f"{ratio:.2f}x",
            f"<= {TARGET}x",
            "pass" if ratio <= TARGET else "FAIL",
        ),
    ]
    return rows, f"{instances} instances x 365 days, {lines:,} bill lines"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", nargs=2, metavar=("START", "END"))
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="10 instances")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    database_url = os.environ.get("DATABASE_URL", DEFAULT_URL)
    setup_django(database_url)
    try:
        rows, fleet = run(10 if args.quick else args.instances)
        info = f"{machine()}; {fleet}"
        for row in rows:
            print(" | ".join(row))
        if not args.no_record:
            print(record("FOCUS export streaming memory", rows,
                         command="make bench-exports", info=info,
                         note="Each export runs in a fresh subprocess through Django's request "
                              "path (API key, streamed response read to its end)."))  # fmt: skip
    finally:
        teardown(database_url)


if __name__ == "__main__":
    main()

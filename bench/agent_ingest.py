"""Benchmark of agent ingest on PostgreSQL: a fleet's batches through validation and storage.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gl_agent_bench \\
        .venv/bin/python -m bench.agent_ingest [--instances 1000] [--minutes 3]

Each instance sends what its agent sends: one batch a minute of 8 cards read every 10 s (48
samples) and a cumulative counter per reading, validated by the endpoint's serializer and stored
by its service (the view around them is thin). The target, 1,000 instances x 8 GPUs at 10 s,
is 800 samples/s sustained; the figure is the headroom over it on this machine, measured side by
side with the same batches sent again (the idempotent path an agent's retry takes). Storage is
PostgreSQL's size of the tables and indexes per million samples. Appends to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import time
from typing import Any

from bench.harness import machine, record, setup_django, teardown

READINGS_PER_BATCH = 6
GPUS = 8
TARGET_SAMPLES_PER_S = 1000 * GPUS / 10


def batches(instances: list[str], start: dt.datetime, minutes: int) -> list[dict[str, Any]]:
    made = []
    for minute in range(minutes):
        for number, provider_id in enumerate(instances):
            readings = [start + dt.timedelta(minutes=minute, seconds=10 * r) for r in range(6)]
            made.append(
                {
                    "instance_id": provider_id,
                    "samples": [
                        {
                            "index": gpu,
                            "sampled_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                            "uuid": f"GPU-{number:04d}-{gpu}",
                            "name": "NVIDIA H800",
                            "util_pct": float((number + gpu + r) % 100),
                            "mem_used_mb": 71234.0,
                            "mem_total_mb": 81559.0,
                            "power_w": 612.37,
                            "power_limit_w": 700.0,
                            "sm_clock_mhz": 1980.0,
                            "throttle_reasons": 4 if gpu == 7 else 0,
                            "temp_c": 63.0,
                            "processes": [{"pid": 20000 + gpu, "used_mem_mb": 70112}],
                        }
                        for r, moment in enumerate(readings)
                        for gpu in range(GPUS)
                    ],
                    "counters": [
                        {
                            "source": "report",
                            "name": "samples",
                            "sampled_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                            "value": float(256 * (minute * 6 + r)),
                        }
                        for r, moment in enumerate(readings)
                    ],
                }
            )
    return made


def ingest_all(organization: Any, sent: list[dict[str, Any]]) -> tuple[float, int]:
    from django.utils import timezone

    from apps.metrics.agent.serializers import IngestBatchSerializer
    from apps.metrics.agent.services import agent_batch_ingest

    stored = 0
    started = time.perf_counter()
    for body in sent:
        now = timezone.now()
        serializer = IngestBatchSerializer(data=body, context={"now": now, "retention_days": 35})
        serializer.is_valid(raise_exception=True)
        result = agent_batch_ingest(
            organization=organization, batch=serializer.validated_data, now=now
        )
        stored += result.samples_stored
    return time.perf_counter() - started, stored


def table_bytes(*tables: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        total = 0
        for table in tables:
            cursor.execute("SELECT pg_total_relation_size(%s)", [table])
            total += cursor.fetchone()[0]
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--minutes", type=int, default=3)
    args = parser.parse_args()
    database_url = os.environ["DATABASE_URL"]
    setup_django(database_url)
    try:
        from django.db import connection
        from django.utils import timezone

        from apps.accounts.models import Organization
        from apps.cloud.models import Instance

        organization = Organization.objects.create(name="Bench", slug="bench")
        ids = [f"ins-b{i:07d}" for i in range(args.instances)]
        Instance.objects.bulk_create(
            Instance(
                organization=organization, provider_id=i, region="ap-shanghai",
                instance_type="HCCPNV5", gpu_count=GPUS,
            )
            for i in ids
        )  # fmt: skip
        start = timezone.now().replace(second=0, microsecond=0) - dt.timedelta(hours=1)
        sent = batches(ids, start, args.minutes)
        seconds, stored = ingest_all(organization, sent)
        again_seconds, again_stored = ingest_all(organization, sent)
        assert again_stored == 0
        samples = sum(len(b["samples"]) for b in sent)
        rate, again_rate = samples / seconds, samples / again_seconds
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE metrics_gpusample")
        sample_bytes = table_bytes("metrics_gpusample")
        counter_bytes = table_bytes("metrics_workcounterpoint")
        rollup_bytes = table_bytes("metrics_gpuhourrollup")
        per_million = sample_bytes / stored * 1e6
        cpu_s_per_million = seconds / stored * 1e6
        rows = [
            (
                "Ingest (serializer + service, one process)",
                f"{samples:,} samples in {len(sent):,} batches: {seconds:.1f} s = {rate:,.0f} samples/s "
                f"({rate / TARGET_SAMPLES_PER_S:.2f}x the target); the same batches resent: "
                f"{again_seconds:.1f} s = {again_rate:,.0f}/s, 0 stored",
                f">= {TARGET_SAMPLES_PER_S:,.0f} samples/s (1,000 x 8 GPUs at 10 s)",
                "pass" if rate >= TARGET_SAMPLES_PER_S else "FAIL",
            ),
            (
                "Cost per 1M samples",
                f"{cpu_s_per_million:,.0f} s of wall time in one process; {per_million / 1e6:,.1f} MB of raw rows "
                f"(table + indexes); counters {counter_bytes / 1e6:.1f} MB and hourly rollups "
                f"{rollup_bytes / 1e6:.1f} MB for this run",
                "stated",
                "-",
            ),
        ]
        print(
            record(
                "Agent ingest",
                rows,
                command=f"DATABASE_URL=... .venv/bin/python -m bench.agent_ingest "
                f"--instances {args.instances} --minutes {args.minutes}",
                info=machine(),
            )
        )
    finally:
        teardown(database_url)


if __name__ == "__main__":
    main()

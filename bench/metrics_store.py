"""Benchmark of the metric store on PostgreSQL: ingest, increments, reads, scale and storage.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gpu_ledger_bench \\
        .venv/bin/python -m bench.metrics_store [--quick]

Creates (and finally drops) the database named in DATABASE_URL, migrates it, generates a fleet
with tests.fleet_generator and measures every figure side by side with its baseline in the
same run, because the machine is shared and only ratios are comparable between runs. Appends a
dated section to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.harness import machine, record, setup_django, teardown

METRIC_COUNT = 7
BASELINE_TABLE = "bench_point"


def best_of(repeat: int, action: Callable[[], object]) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
    return min(timings)


def create_fleet(size: int) -> list[int]:
    from apps.accounts.models import Organization
    from apps.cloud.models import Instance, Project

    organization = Organization.objects.create(name="Bench", slug="bench")
    projects = [
        Project.objects.create(organization=organization, name=f"p{i}", slug=f"p{i}")
        for i in range(5)
    ]
    Instance.objects.bulk_create(
        Instance(
            organization=organization,
            provider_id=f"ins-{i:06d}",
            region="ap-shanghai",
            instance_type="GN7.2XLARGE32",
            gpu_count=1 + i % 4,
            project=projects[i % len(projects)],
        )
        for i in range(size)
    )
    return list(Instance.objects.order_by("id").values_list("id", flat=True))


def baseline_copy(ids: list[int], series: list) -> tuple[float, int, int]:
    """Row-per-value COPY of the same observed points (binary, built by numpy so that the
    figure is PostgreSQL's, not Python's): seconds, rows, bytes on disk with the primary key."""
    from django.db import connection

    from apps.core import pgcopy
    from apps.metrics.constants import Metric

    codes = {m: i for i, m in enumerate(Metric.values)}
    instances, stamps_us, metrics, values = [], [], [], []
    for item in series:
        item_values = np.asarray(item.values)
        present = ~np.isnan(item_values)
        count = int(present.sum())
        instances.append(np.full(count, item.instance_id, dtype=np.int64))
        stamps_us.append(np.asarray(item.timestamps, dtype=np.int64)[present] * 1_000_000)
        metrics.append(np.full(count, codes[item.metric], dtype=np.int64))
        values.append(item_values[present])
    rows = int(sum(part.size for part in values))
    payload = pgcopy.stream(
        [
            pgcopy.records(
                [
                    ("int8", np.concatenate(instances)),
                    (
                        "timestamptz",
                        pgcopy.epoch_microseconds_to_pg_timestamps(np.concatenate(stamps_us)),
                    ),
                    ("int2", np.concatenate(metrics)),
                    ("float4", np.concatenate(values)),
                ]
            )
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE {BASELINE_TABLE} (instance_id int8, ts timestamptz, metric int2,"
            " value float4, PRIMARY KEY (instance_id, metric, ts))"
        )
    started = time.perf_counter()
    with connection.cursor() as _, pgcopy.connection_cursor() as cursor:
        pgcopy.send(cursor, f"COPY {BASELINE_TABLE} FROM STDIN (FORMAT BINARY)", payload)
        connection.connection.commit()
    seconds = time.perf_counter() - started
    size = _relation_bytes(BASELINE_TABLE)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {BASELINE_TABLE}")
    return seconds, rows, size


def _relation_bytes(table: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        # Settles the visibility map and free space so the size is that of a steady table.
        cursor.execute(f"VACUUM ANALYZE {table}")
        cursor.execute("SELECT pg_total_relation_size(%s)", [table])
        return int(cursor.fetchone()[0])


def run(quick: bool) -> list[tuple[str, str, str, str]]:
    from apps.core.timegrid import date_to_epoch_day, epoch_minute_to_datetime
    from apps.metrics.selectors import metrics_read
    from apps.metrics.services import metrics_write_bulk
    from tests.fleet_generator import fleet_patterns, fleet_series

    size = 50 if quick else 1_000
    read_days = 3 if quick else 30
    ids = create_fleet(size)
    patterns = fleet_patterns(size)
    today = date_to_epoch_day(dt.date.today())
    backfill_day = today - 1
    rows: list[tuple[str, str, str, str]] = []
    chunk = 250

    def write_day(day: int, metrics: list[str] | None = None, rollups: bool = True) -> None:
        for offset in range(0, size, chunk):
            series = fleet_series(ids[offset : offset + chunk], patterns[offset : offset + chunk],
                                  day, metrics=metrics, first_index=offset)  # fmt: skip
            metrics_write_bulk(series=series, update_rollups=rollups)

    # --- backfill: one day of every metric, synthesized first so only the write is timed.
    print(f"backfill: {size} instances x 1 day x {METRIC_COUNT} metrics", flush=True)
    batches = [
        fleet_series(ids[o : o + chunk], patterns[o : o + chunk], backfill_day, first_index=o)
        for o in range(0, size, chunk)
    ]
    values = sum(np.asarray(s.values).size for batch in batches for s in batch)
    started = time.perf_counter()
    for batch in batches:
        metrics_write_bulk(series=batch)
    backfill_s = time.perf_counter() - started
    copy_s, copy_rows, copy_bytes = baseline_copy(ids, [s for b in batches for s in b])
    ingest_ratio = (values / backfill_s) / (copy_rows / copy_s)
    rows.append(("Backfill ingest through metrics_write_bulk (with rollups)",
                 f"{values / 1e6:.2f} M values in {backfill_s:.2f} s = {values / backfill_s / 1e6:.2f} M/s; "
                 f"row-per-value COPY {copy_rows / copy_s / 1e6:.2f} M/s; ratio {ingest_ratio:.1f}x",
                 ">= 10x", _verdict(ingest_ratio >= 10)))  # fmt: skip
    del batches

    # --- 30 days of GPU utilization for the reads (untimed set-up), then today's morning.
    print(f"set-up: {read_days - 1} more days of gpu_util_pct", flush=True)
    for day in range(backfill_day - read_days + 1, backfill_day):
        write_day(day, metrics=["gpu_util_pct"], rollups=False)
    print("set-up: first 12 hours of today, all metrics", flush=True)
    noon = 720
    today_series = [
        s for o in range(0, size, chunk)
        for s in fleet_series(ids[o : o + chunk], patterns[o : o + chunk], today, first_index=o)
    ]  # fmt: skip
    metrics_write_bulk(series=[_slice(s, 0, noon) for s in today_series])

    # --- incremental: the next 5 minutes of every metric of every instance.
    increment = [_slice(s, noon, noon + 5) for s in today_series]
    started = time.perf_counter()
    result = metrics_write_bulk(series=increment)
    increment_s = time.perf_counter() - started
    again_s = best_of(1, lambda: metrics_write_bulk(series=increment))
    rows.append(("Incremental 5-minute merge + rollups",
                 f"{len(increment)} series x 5 points: {increment_s:.2f} s "
                 f"({result.days_updated} existing days updated, {result.hours_recomputed} hours "
                 f"recomputed); same increment again (no-op): {again_s:.2f} s",
                 "<= 2 s", _verdict(increment_s <= 2)))  # fmt: skip

    # --- read: instances x days of one metric into numpy vs np.load of the same float32 bytes.
    def read(count: int, days: int) -> np.ndarray:
        start = epoch_minute_to_datetime((backfill_day - days + 1) * 1440)
        end = epoch_minute_to_datetime((backfill_day + 1) * 1440)
        return metrics_read(instance_ids=ids[:count], metric="gpu_util_pct", start=start, end=end)

    full = read(size, read_days)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fleet.npy"
        np.save(path, full)
        np.load(path)  # warm the page cache: the baseline is a cached load
        # Alternate the two, best of 5 each, so both see the same (shared, noisy) machine.
        load_times, read_times = [], []
        for _ in range(5):
            load_times.append(best_of(1, lambda: np.load(path)))
            read_times.append(best_of(1, lambda: read(size, read_days)))
        load_s, read_s = min(load_times), min(read_times)
    observed = int(np.count_nonzero(~np.isnan(full)))
    read_ratio = read_s / load_s
    rows.append((f"Read {size} x {read_days} days of gpu_util_pct into numpy",
                 f"{read_s:.3f} s ({full.nbytes / 1e6:.0f} MB, {observed / 1e6:.1f} M observed); "
                 f"cached np.load {load_s:.3f} s; ratio {read_ratio:.1f}x",
                 "<= 8x", _verdict(read_ratio <= 8)))  # fmt: skip
    del full

    # --- scale: the same read for fewer instances and fewer days.
    scale = []
    for count in sorted({max(size // 10, 1), max(size * 3 // 10, 1), size}):
        for days in sorted({min(7, read_days), read_days}):
            seconds = best_of(5, functools.partial(read, count, days))
            scale.append((count, days, seconds, seconds / (count * days) * 1e6))
    per_cell = [s[3] for s in scale]
    spread = max(per_cell) / min(per_cell)
    table = "; ".join(f"{c}x{d}d {s * 1000:.1f} ms ({u:.1f} us/instance-day)"
                      for c, d, s, u in scale)  # fmt: skip
    # Linear growth: multiplying the instances (or the days) by k multiplies the cost by at
    # most k (with 25 % for noise). A fixed cost per query or per instance is linear too and
    # makes small reads dearer per instance-day, so that spread is reported, not judged.
    cost = {(c, d): s for c, d, s, _u in scale}
    counts, day_counts = sorted({c for c, _d in cost}), sorted({d for _c, d in cost})
    growths = [(f"{counts[-1] // counts[0]}x instances at {d}d", counts[-1] / counts[0],
                cost[counts[-1], d] / cost[counts[0], d]) for d in day_counts]  # fmt: skip
    growths += [(f"{day_counts[-1] / day_counts[0]:.1f}x days at {c} instances",
                 day_counts[-1] / day_counts[0], cost[c, day_counts[-1]] / cost[c, day_counts[0]])
                for c in counts if len(day_counts) > 1]  # fmt: skip
    linear = all(grown <= 1.25 * factor for _name, factor, grown in growths)
    rows.append(("Read scale (instances x days)", table + "; cost grew " + ", ".join(
                 f"{grown:.1f}x for {name}" for name, _factor, grown in growths)
                 + f"; cost per instance-day max/min {spread:.1f}",
                 "linear (k times the data costs at most k times as much, +25 %)",
                 _verdict(linear)))  # fmt: skip

    # --- storage: bytes on disk per stored (observed) value, indexes and TOAST included.
    from django.db import connection

    # Pending recent points (the increment's) are raw data too: their table counts.
    raw_bytes = _relation_bytes("metrics_metricday") + _relation_bytes("metrics_metricdayrecent")
    with connection.cursor() as cursor:
        cursor.execute("SELECT SUM(minutes_observed), COUNT(*) FROM metrics_metricday")
        stored, day_rows = cursor.fetchone()
    per_value = raw_bytes / int(stored)
    per_slot = raw_bytes / (int(day_rows) * 1440)
    rollup_bytes = _relation_bytes("metrics_instancehourrollup")
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM metrics_instancehourrollup")
        hour_rows = cursor.fetchone()[0]
    rows.append(("Storage per stored value (table + TOAST + indexes)",
                 f"{per_value:.2f} B per observed value ({per_slot:.2f} B per minute slot, "
                 f"{int(stored) / 1e6:.1f} M values); row-per-value COPY table "
                 f"{copy_bytes / copy_rows:.1f} B; hourly rollups {rollup_bytes / hour_rows:.0f} "
                 f"B per instance-hour", "<= 6 B", _verdict(per_value <= 6)))  # fmt: skip

    # --- compaction: folding the increment's recent points into the day arrays is off the
    # ingest path (hourly task), but it is work the store does, so it is measured too.
    from apps.metrics.services import metrics_recent_compact

    started = time.perf_counter()
    folded = metrics_recent_compact()
    compact_s = time.perf_counter() - started
    rows.append(("Compaction of recent points (metrics.compact_recent, off the ingest path)",
                 f"{folded} days folded in {compact_s:.2f} s", "informative", "-"))  # fmt: skip
    _ = statistics
    return rows


def _slice(series, start: int, end: int):
    from apps.metrics.services import MetricSeries

    return MetricSeries(series.instance_id, series.metric, np.asarray(series.timestamps)[start:end],
                        np.asarray(series.values)[start:end])  # fmt: skip


def _verdict(ok: bool) -> str:
    return "pass" if ok else "FAIL"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 instances x 3 days smoke run")
    parser.add_argument("--no-record", action="store_true", help="do not append to RESULTS.md")
    options = parser.parse_args()
    database_url = os.environ.get(
        "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gpu_ledger_bench"
    )
    os.environ["DATABASE_URL"] = database_url
    setup_django(database_url)
    start_load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    try:
        rows = run(options.quick)
        info = f"{machine()}; load average at the start {start_load}"
    finally:
        teardown(database_url)
    command = (
        "DATABASE_URL=postgres://postgres@127.0.0.1:5432/gpu_ledger_bench "
        ".venv/bin/python -m bench.metrics_store" + (" --quick" if options.quick else "")
    )
    if options.no_record:
        print("\n".join(" | ".join(row) for row in rows))
    else:
        title = "Metric store" + (
            " (--quick smoke run, not a measurement)" if options.quick else ""
        )
        print(record(title, rows, command=command, info=info))


if __name__ == "__main__":
    main()

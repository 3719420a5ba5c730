"""Metric sync: Cloud Monitor per-minute GPU/CPU metrics into the metric store.

Each instance has a watermark (``Instance.metrics_synced_until``): everything before it is
stored. A sync asks for [watermark, now - lag) in windows of at most ``max_points`` minutes,
for at most ``max_instances`` instances per request (instances sharing a watermark share
requests), one request per metric. Each window is written, and the watermarks moved past it,
in one transaction: a worker killed between windows resumes exactly where it stopped, and a
window fetched twice is merged idempotently by the store.

Request count of a backfill of N instances over P minutes with M metrics is exactly
ceil(N / max_instances) * M * ceil(P / max_points), the minimum the API allows.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q

from apps.cloud.models import CloudAccount, Instance
from apps.cloud.providers.tencent.client import TencentClient
from apps.core.timegrid import ceil_minute, floor_minute
from apps.metrics.constants import Metric
from apps.metrics.services import MetricSeries, metrics_write_bulk

# Cloud Monitor (namespace QCE/CVM) metric name -> our metric.
MONITOR_METRICS: dict[str, Metric] = {
    "GpuUtil": Metric.GPU_UTIL_PCT,
    "GpuMemUsage": Metric.GPU_MEM_USED_PCT,
    "GpuMemUsed": Metric.GPU_MEM_USED_MB,
    "GpuTemp": Metric.GPU_TEMP_C,
    "GpuPowDraw": Metric.GPU_POWER_W,
    "CPUUsage": Metric.CPU_UTIL_PCT,
    "MemUsage": Metric.MEM_UTIL_PCT,
}
PERIOD_SECONDS = 60
# Cloud Monitor publishes a minute 1-2 minutes after it ends.
DATA_LAG = timedelta(minutes=2)
# Incremental syncs re-read a few minutes before the watermark to pick up late points.
REFETCH = timedelta(minutes=5)


@dataclass(frozen=True)
class MetricsLimits:
    max_instances: int = 10
    max_points: int = 1440


@dataclass
class MetricsResult:
    requests: int = 0
    points: int = 0
    windows: int = 0

    def __str__(self) -> str:
        return f"{self.points:,} points in {self.requests} GetMonitorData requests"


Progress = Callable[[int, int], None]  # (requests done, requests planned)


def plan_requests(
    instances: int, minutes: int, limits: MetricsLimits, metrics: int = len(MONITOR_METRICS)
) -> int:
    """The minimum number of GetMonitorData requests for a backfill."""
    return (
        math.ceil(instances / limits.max_instances)
        * metrics
        * math.ceil(minutes / limits.max_points)
    )


def _instances_to_sync(account: CloudAccount, since: datetime) -> list[Instance]:
    # Terminated instances are synced up to their termination (their history stays). Only the
    # account's regions are asked: an instance learned from bills may be in another one.
    return list(
        Instance.objects.filter(account=account, region__in=list(account.regions))
        .filter(Q(terminated_at__isnull=True) | Q(terminated_at__gt=since))
        .order_by("region", "provider_id")
    )


def _instance_window(
    instance: Instance, horizon: datetime, end: datetime
) -> tuple[datetime, datetime] | None:
    """The [start, stop) an instance's next metric sync asks for, None when there is nothing.

    A live instance: from its watermark (less ``REFETCH``, for late points) or the horizon, to
    ``end``. A terminated one is asked for the time it ran only: from its launch (an instance
    learned from bills has no watermark yet) to the minute after its end, and never again once
    its watermark has passed that, so a dead instance costs no requests at all.
    """
    watermark = instance.metrics_synced_until
    start = horizon if watermark is None else max(horizon, floor_minute(watermark) - REFETCH)
    stop = end
    if instance.terminated_at is not None:
        stop = min(end, ceil_minute(instance.terminated_at))
        if watermark is None and instance.launched_at is not None:
            start = max(start, floor_minute(instance.launched_at))
    # A caught-up instance has nothing new (a live one: re-reading only its last minutes is
    # waste; a terminated one: it has ended), so it costs no request at all.
    if watermark is not None and watermark >= stop:
        return None
    return (start, stop) if start < stop else None


def sync_metrics(
    account: CloudAccount,
    client: TencentClient,
    *,
    now: datetime,
    backfill_days: int = 30,
    limits: MetricsLimits | None = None,
    progress: Progress | None = None,
) -> MetricsResult:
    limits = limits or MetricsLimits()
    end = floor_minute(now - DATA_LAG)
    horizon = floor_minute(now - timedelta(days=backfill_days))
    # Instances sharing a region and a window share requests.
    groups: dict[tuple[str, datetime, datetime], list[Instance]] = defaultdict(list)
    for instance in _instances_to_sync(account, horizon):
        span = _instance_window(instance, horizon, end)
        if span is not None:
            groups[(instance.region, *span)].append(instance)

    planned = sum(
        plan_requests(len(members), int((stop - start).total_seconds() // 60), limits)
        for (_, start, stop), members in groups.items()
    )
    step = timedelta(minutes=limits.max_points)
    windows = [
        Window(
            region,
            members[first : first + limits.max_instances],
            window_start,
            min(stop, window_start + step),
        )
        for (region, start, stop), members in groups.items()
        for first in range(0, len(members), limits.max_instances)
        for window_start in _window_starts(start, stop, step)
    ]
    result = MetricsResult()
    # The rate limit, not this process, should be the bottleneck: the metrics of the next
    # windows are fetched by a few threads while this thread stores the current one. More than
    # one window ahead, so a request that is retrying (backing off) does not idle the others.
    with ThreadPoolExecutor(max_workers=FETCH_THREADS, thread_name_prefix="monitor") as pool:
        in_flight: deque[list[Future[Fetched]]] = deque()
        upcoming = iter(windows)
        failures: list[BaseException] = []

        def fill() -> None:
            while len(in_flight) < FETCH_AHEAD_WINDOWS and (window := next(upcoming, None)):
                in_flight.append(_fetch_window(pool, client, window, failures))

        try:
            for window in windows:
                fill()
                fetched = [future.result() for future in in_flight.popleft()]
                fill()
                _store_window(window, fetched, result)
                if progress:
                    progress(result.requests, planned)
        except BaseException:
            # Stopping (a permanent error, a deadline): do not send what nobody will store.
            for futures in in_flight:
                for future in futures:
                    future.cancel()
            raise
    return result


# Threads mostly wait (on the rate limiter, the network, a retry's backoff), so there are more
# of them than cores, with several windows queued: on a bad day half of the calls are waiting
# out a retry at any moment, and a window waiting for one call that is backing off must not
# leave the others idle (bench/backfill_faults.py). The rate limiter, not the thread count,
# bounds the request rate; the queue is bounded (8 windows of 7 requests of at most 14,400
# points each) because the windows are stored in order.
FETCH_THREADS = 16
FETCH_AHEAD_WINDOWS = 8
Fetched = tuple[Metric, list[dict[str, Any]]]


@dataclass(frozen=True)
class Window:
    region: str
    batch: list[Instance]
    start: datetime
    end: datetime


def _window_starts(start: datetime, end: datetime, step: timedelta) -> list[datetime]:
    starts = []
    while start < end:
        starts.append(start)
        start += step
    return starts


def _fetch_window(
    pool: ThreadPoolExecutor, client: TencentClient, window: Window, failures: list[BaseException]
) -> list[Future[Fetched]]:
    """Start fetching every metric of the window's instances; no database access here.

    Once one fetch has failed (a permanent error, or a retry budget spent) the sync stops, so
    the fetches not yet sent re-raise that error instead of asking the cloud again.
    """
    ids = [instance.provider_id for instance in window.batch]
    # StartTime and EndTime are both inclusive: the last minute asked for is end - 1 minute.
    last_minute = window.end - timedelta(minutes=1)

    def fetch(monitor_name: str, metric: Metric) -> Fetched:
        if failures:
            raise failures[0]
        try:
            points = client.get_monitor_data(
                window.region, monitor_name, ids, window.start, last_minute, PERIOD_SECONDS
            )
        except BaseException as error:
            failures.append(error)
            raise
        return metric, points

    return [pool.submit(fetch, name, metric) for name, metric in MONITOR_METRICS.items()]


def _store_window(window: Window, fetched: list[Fetched], result: MetricsResult) -> None:
    """Store one window's points and move its instances' watermark to its end, atomically."""
    by_provider_id = {instance.provider_id: instance for instance in window.batch}
    series: list[MetricSeries] = []
    for metric, points in fetched:
        result.requests += 1
        for point in points:
            dimensions = {d["Name"]: d["Value"] for d in point.get("Dimensions") or []}
            instance = by_provider_id.get(dimensions.get("InstanceId", ""))
            timestamps = point.get("Timestamps") or []
            if instance is None or not timestamps:
                continue
            series.append(MetricSeries(instance.pk, metric, timestamps, point.get("Values") or []))
            result.points += len(timestamps)
    with transaction.atomic():
        metrics_write_bulk(series=series)
        Instance.objects.filter(pk__in=[i.pk for i in window.batch]).update(
            metrics_synced_until=window.end
        )
    for instance in window.batch:
        instance.metrics_synced_until = window.end
    result.windows += 1

"""Ingest of one agent batch: validated whole, stored whole or not at all, idempotently."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.accounts.models import Organization
from apps.cloud.models import Instance
from apps.metrics.agent.models import GpuSample, WorkCounterPoint
from apps.metrics.agent.rollups import floor_hour, gpu_hours_rebuild
from apps.metrics.services import raw_retention_days

GPU_FIELDS = (
    "util_pct",
    "mem_used_mb",
    "mem_total_mb",
    "power_w",
    "power_limit_w",
    "sm_clock_mhz",
    "throttle_reasons",
    "temp_c",
    "processes",
)


@dataclasses.dataclass(frozen=True)
class IngestResult:
    instance_id: str
    samples_received: int
    samples_stored: int  # new points; a resent point is received, not stored again
    counters_received: int
    counters_stored: int


def agent_batch_ingest(
    *, organization: Organization, batch: dict[str, Any], now: dt.datetime
) -> IngestResult:
    """Store a validated batch (IngestBatchSerializer's data) for the organization's instance.

    Raises ``Instance.DoesNotExist`` when the organization has no instance of that id (another
    organization's instance included), and ``ValidationError`` naming the counter when one
    would fall: a counter never decreases in time, so a lower value after a higher one is a
    broken agent, and storing it would read as negative work. Points already stored (same
    instance, card or counter, and timestamp) are left as they are, so a batch sent twice is
    stored once.
    """
    with transaction.atomic():
        # Locked so two batches of one instance cannot interleave their counter checks.
        instance = (
            Instance.objects.for_organization(organization)
            .select_for_update()
            .get(provider_id=batch["instance_id"])
        )
        _check_counters(instance, batch["counters"])
        samples_stored = _insert(
            GpuSample,
            instance,
            [
                GpuSample(
                    instance=instance,
                    gpu_index=sample["index"],
                    sampled_at=sample["sampled_at"],
                    gpu_uuid=sample.get("uuid") or "",
                    gpu_name=sample.get("name") or "",
                    received_at=now,
                    **{name: _plain(sample.get(name)) for name in GPU_FIELDS},
                )
                for sample in batch["samples"]
            ],
        )
        # The hours the batch has a sample in, rebuilt from what is stored (in this
        # transaction, so they never lag the samples); a batch that stored nothing new (a
        # resend) changes no hour.
        if samples_stored:
            gpu_hours_rebuild(
                instance=instance,
                touched={(s["index"], floor_hour(s["sampled_at"])) for s in batch["samples"]},
                now=now,
            )
        counters_stored = _insert(
            WorkCounterPoint,
            instance,
            [
                WorkCounterPoint(
                    instance=instance,
                    source=point["source"],
                    name=point["name"],
                    sampled_at=point["sampled_at"],
                    value=point["value"],
                    received_at=now,
                )
                for point in batch["counters"]
            ],
        )
    return IngestResult(
        instance_id=instance.provider_id,
        samples_received=len(batch["samples"]),
        samples_stored=samples_stored,
        counters_received=len(batch["counters"]),
        counters_stored=counters_stored,
    )


def _plain(value: Any) -> Any:
    # Nested serializer output is OrderedDicts/ReturnLists; JSONField wants plain values.
    if isinstance(value, list):
        return [dict(item) for item in value]
    return value


def _insert(model: type[GpuSample] | type[WorkCounterPoint], instance: Instance, rows: list) -> int:
    """Insert rows, skipping those whose point is already stored; the number inserted."""
    if not rows:
        return 0
    moments = [row.sampled_at for row in rows]
    existing = model.objects.filter(
        instance=instance, sampled_at__gte=min(moments), sampled_at__lte=max(moments)
    )
    before = existing.count()
    model.objects.bulk_create(rows, ignore_conflicts=True, batch_size=1000)
    return existing.count() - before


def _check_counters(instance: Instance, counters: list[dict[str, Any]]) -> None:
    """Each counter series with the batch's points merged in must never decrease in time."""
    by_series: dict[tuple[str, str], list[tuple[dt.datetime, float, int]]] = defaultdict(list)
    for position, point in enumerate(counters):
        by_series[(point["source"], point["name"])].append(
            (point["sampled_at"], point["value"], position)
        )
    errors: dict[str, list[str]] = {}
    for (source, name), points in by_series.items():
        stored = WorkCounterPoint.objects.filter(instance=instance, source=source, name=name)
        start, end = min(p[0] for p in points), max(p[0] for p in points)
        known = {
            row.sampled_at: row.value
            for row in [
                *stored.filter(sampled_at__range=(start, end)),
                *stored.filter(sampled_at__lt=start).order_by("-sampled_at")[:1],
                *stored.filter(sampled_at__gt=end).order_by("sampled_at")[:1],
            ]
        }
        merged: dict[dt.datetime, tuple[float, int | None]] = {
            moment: (value, None) for moment, value in known.items()
        }
        for moment, value, position in points:
            if moment in known and known[moment] != value:
                errors[f"counters[{position}].value"] = [
                    f"{value:g} differs from the {known[moment]:g} stored for "
                    f"{source}:{name} at {moment.isoformat()}; a sent point never changes."
                ]
            merged[moment] = (value, position)
        _check_never_falls(source, name, merged, errors)
    if errors:
        raise ValidationError(errors)


def _check_never_falls(
    source: str,
    name: str,
    merged: dict[dt.datetime, tuple[float, int | None]],
    errors: dict[str, list[str]],
) -> None:
    """Name the batch's point (its position) at each place the merged series falls."""
    previous: tuple[dt.datetime, float, int | None] | None = None
    for moment in sorted(merged):
        value, position = merged[moment]
        if previous is not None and value < previous[1]:
            # The later point is the batch's, or else the earlier one is (stored data never
            # falls by itself): name whichever the batch sent.
            named = position if position is not None else previous[2]
            if named is not None:
                errors.setdefault(f"counters[{named}].value", []).append(
                    f"{value:g} at {moment.isoformat()} is below {previous[1]:g} at "
                    f"{previous[0].isoformat()}: {source}:{name} is cumulative and never falls."
                )
        previous = (moment, value, position)


def agent_points_prune(
    *, as_of: dt.datetime, retention_days: int | None = None, batch_size: int = 5_000
) -> int:
    """Delete agent points from before the raw retention's first kept UTC day; rows deleted.

    The same horizon as the Cloud Monitor raw days (``METRICS_RAW_RETENTION_DAYS``): with
    ``as_of`` on UTC day D and retention R, points before D - R go. Short batches, each its
    own transaction, so ingest is never blocked behind one long delete.
    """
    retention = raw_retention_days() if retention_days is None else retention_days
    if retention < 1:
        raise ValueError("retention_days must be at least 1")
    first_kept_day = as_of.astimezone(dt.UTC).date() - dt.timedelta(days=retention)
    cutoff = dt.datetime.combine(first_kept_day, dt.time(), tzinfo=dt.UTC)
    deleted = 0
    for model in (GpuSample, WorkCounterPoint):
        while True:
            with transaction.atomic():
                batch = model.objects.filter(sampled_at__lt=cutoff).values("pk")[:batch_size]
                count, _ = model.objects.filter(
                    pk__in=list(batch.values_list("pk", flat=True))
                ).delete()
            deleted += count
            if count < batch_size:
                break
    return deleted

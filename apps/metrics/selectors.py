"""Reads of metric data: raw minute arrays for the analysis, rollups for dashboards and API."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np
from django.db.models import QuerySet

from apps.accounts.models import Organization
from apps.core.timegrid import datetime_to_epoch_seconds
from apps.metrics.constants import MINUTES_PER_DAY, SECONDS_PER_MINUTE, Metric
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup, ProjectDayRollup
from apps.metrics.storage import raw


def metrics_read(
    *,
    instance_ids: Sequence[int],
    metric: Metric | str,
    start: dt.datetime,
    end: dt.datetime,
) -> np.ndarray:
    """Per-minute values as a float32 (instances, minutes) array, NaN where no point exists.

    Row i is ``instance_ids[i]``; column j is the UTC minute starting ``j`` minutes after the
    minute containing ``start``; the last column is the minute before ``end`` (exclusive). The
    caller scopes ``instance_ids`` to its organization: this is the analysis' bulk path.
    """
    metric = Metric(metric).value
    if len(set(instance_ids)) != len(instance_ids):
        raise ValueError("instance_ids must not repeat")
    first_minute = datetime_to_epoch_seconds(start) // SECONDS_PER_MINUTE
    end_minute = -(-datetime_to_epoch_seconds(end) // SECONDS_PER_MINUTE)
    if end_minute < first_minute:
        raise ValueError("end must not be before start")
    first_day = first_minute // MINUTES_PER_DAY
    last_day = (end_minute - 1) // MINUTES_PER_DAY if end_minute > first_minute else first_day
    n_days = last_day - first_day + 1
    days = np.empty((len(instance_ids), n_days, MINUTES_PER_DAY), dtype=np.float32)
    if end_minute > first_minute:
        raw.read_into(days, instance_ids, metric, first_day)  # NaN-fills the missing days
    else:
        days.fill(np.nan)
    flat = days.reshape(len(instance_ids), n_days * MINUTES_PER_DAY)
    offset = first_minute - first_day * MINUTES_PER_DAY
    width = end_minute - first_minute
    if offset == 0 and width == flat.shape[1]:
        return flat
    # A range that is not whole days is copied out, so the caller never holds the padding.
    return np.ascontiguousarray(flat[:, offset : offset + width])


def metrics_read_many(
    *,
    instance_ids: Sequence[int],
    metrics: Sequence[Metric | str],
    start: dt.datetime,
    end: dt.datetime,
) -> dict[str, np.ndarray]:
    """``metrics_read`` for several metrics over the same grid, keyed by metric name."""
    return {
        Metric(m).value: metrics_read(instance_ids=instance_ids, metric=m, start=start, end=end)
        for m in metrics
    }


def instance_hour_rollups(
    *,
    organization: Organization,
    start: dt.datetime,
    end: dt.datetime,
    instance_ids: Sequence[int] | None = None,
) -> QuerySet[InstanceHourRollup]:
    """Hourly rollups of the organization's instances with start <= hour_start < end."""
    rows = InstanceHourRollup.objects.for_organization(organization).filter(
        hour_start__gte=start, hour_start__lt=end
    )
    if instance_ids is not None:
        rows = rows.filter(instance_id__in=list(instance_ids))
    return rows.order_by("instance_id", "hour_start")


def instance_day_rollups(
    *,
    organization: Organization,
    start_day: dt.date,
    end_day: dt.date,
    instance_ids: Sequence[int] | None = None,
) -> QuerySet[InstanceDayRollup]:
    """Daily rollups (UTC days) of the organization's instances, start_day..end_day inclusive."""
    rows = InstanceDayRollup.objects.for_organization(organization).filter(
        day__gte=start_day, day__lte=end_day
    )
    if instance_ids is not None:
        rows = rows.filter(instance_id__in=list(instance_ids))
    return rows.order_by("instance_id", "day")


def project_day_rollups(
    *,
    organization: Organization,
    start_day: dt.date,
    end_day: dt.date,
    project_ids: Sequence[int] | None = None,
) -> QuerySet[ProjectDayRollup]:
    """Daily rollups (UTC days) of the organization's projects, start_day..end_day inclusive."""
    rows = ProjectDayRollup.objects.for_organization(organization).filter(
        day__gte=start_day, day__lte=end_day
    )
    if project_ids is not None:
        rows = rows.filter(project_id__in=list(project_ids))
    return rows.order_by("project_id", "day")

"""Reads of the analysis: what is due, stored segments as per-minute labels, profiles, settings."""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from collections.abc import Sequence

import numpy as np
from django.db.models import F, Min, OuterRef, Q, Subquery, Sum
from django.db.models.functions import TruncDate

from apps.accounts.models import Organization
from apps.analysis.engine import DEFAULT_THRESHOLDS, Phase, PhaseThresholds
from apps.analysis.models import (
    PHASE_HOUR_COLUMNS,
    PHASE_KEYS,
    AnalysisSettings,
    AnalysisState,
    InstanceProfile,
    PhaseHour,
    PhaseSegment,
)
from apps.analysis.results import to_minute
from apps.metrics.models import InstanceHourRollup


def analysis_due(
    *, end: dt.datetime, lookback_days: int, instance_ids: Sequence[int] | None = None
) -> dict[int, dt.datetime]:
    """Instance id -> earliest hour in ``[end - lookback_days, end)`` with data not yet analysed.

    An hour is due when its rollup was updated after the instance's ``data_checked_at`` (or the
    instance was never analysed), or when it is at or after the instance's ``analysed_until``.
    One grouped query, whatever the fleet size.
    """
    states = AnalysisState.objects.filter(instance_id=OuterRef("instance_id"))
    rows = (
        InstanceHourRollup.objects.filter(
            hour_start__gte=end - dt.timedelta(days=lookback_days), hour_start__lt=end
        )
        .annotate(
            checked_at=Subquery(states.values("data_checked_at")[:1]),
            until=Subquery(states.values("analysed_until")[:1]),
        )
        .filter(
            Q(checked_at__isnull=True)
            | Q(until__isnull=True)
            | Q(updated_at__gt=F("checked_at"))
            | Q(hour_start__gte=F("until"))
        )
    )
    if instance_ids is not None:
        rows = rows.filter(instance_id__in=list(instance_ids))
    grouped = rows.order_by().values("instance_id").annotate(first=Min("hour_start"))
    return {row["instance_id"]: row["first"] for row in grouped}


def instances_with_data(
    *,
    start: dt.datetime,
    end: dt.datetime,
    instance_ids: Sequence[int] | None = None,
    organization_id: int | None = None,
) -> list[int]:
    """Ids of instances with at least one hour rollup in ``[start, end)``, ascending."""
    rows = InstanceHourRollup.objects.filter(hour_start__gte=start, hour_start__lt=end)
    if instance_ids is not None:
        rows = rows.filter(instance_id__in=list(instance_ids))
    if organization_id is not None:
        rows = rows.filter(organization_id=organization_id)
    return sorted(set(rows.order_by().values_list("instance_id", flat=True).distinct()))


def analysis_settings_get(organization: Organization) -> AnalysisSettings:
    """The organization's settings row (an unsaved one with no overrides if none exists)."""
    row = AnalysisSettings.objects.filter(organization=organization).first()
    return row or AnalysisSettings(organization=organization, thresholds={})


def thresholds_as_dict(thresholds: PhaseThresholds) -> dict[str, float | int]:
    return dataclasses.asdict(thresholds)


def default_thresholds() -> dict[str, float | int]:
    return thresholds_as_dict(DEFAULT_THRESHOLDS)


@dataclasses.dataclass(frozen=True)
class MergedSegment:
    """A phase segment as readers see it: day cuts merged away, clipped to the period."""

    phase: Phase
    start_at: dt.datetime
    end_at: dt.datetime
    mean_gpu_util_pct: float | None

    @property
    def minutes(self) -> int:
        return (self.end_at - self.start_at) // dt.timedelta(minutes=1)


def instance_segments(
    *, instance_id: int, start: dt.datetime, end: dt.datetime
) -> list[MergedSegment]:
    """Stored segments of one instance overlapping ``[start, end)``, clipped and merged.

    Adjacent segments of one phase (cut at a UTC midnight when stored) become one; the mean
    utilization of the merged segment is weighted by minutes. Gaps that were never analysed are
    not filled in: the caller counts them as unknown.
    """
    rows = (
        PhaseSegment.objects.filter(instance_id=instance_id, start_at__lt=end, end_at__gt=start)
        .order_by("start_at")
        .values_list("phase", "start_at", "end_at", "mean_gpu_util_pct")
    )
    merged: list[list] = []  # [phase, start, end, util-minutes, observed minutes]
    for phase, start_at, end_at, mean in rows:
        first, last = max(start_at, start), min(end_at, end)
        minutes = (last - first) // dt.timedelta(minutes=1)
        weight = 0.0 if mean is None else mean * minutes
        counted = 0 if mean is None else minutes
        if merged and merged[-1][0] == phase and merged[-1][2] == first:
            merged[-1][2] = last
            merged[-1][3] += weight
            merged[-1][4] += counted
        else:
            merged.append([phase, first, last, weight, counted])
    return [
        MergedSegment(
            phase=Phase(phase),
            start_at=first,
            end_at=last,
            mean_gpu_util_pct=round(weight / counted, 2) if counted else None,
        )
        for phase, first, last, weight, counted in merged
    ]


def period_labels(
    *, instance_ids: Sequence[int], start: dt.datetime, end: dt.datetime
) -> np.ndarray:
    """(instances, minutes) uint8 phase labels of ``[start, end)`` rebuilt from stored segments.

    Minutes no segment covers (never analysed) are ``Phase.UNKNOWN``, like minutes without data.
    """
    first, minutes = to_minute(start), to_minute(end) - to_minute(start)
    row_of = {instance_id: row for row, instance_id in enumerate(instance_ids)}
    labels = np.zeros((len(instance_ids), max(minutes, 0)), dtype=np.uint8)
    rows = PhaseSegment.objects.filter(
        instance_id__in=list(instance_ids), start_at__lt=end, end_at__gt=start
    ).exclude(phase=Phase.UNKNOWN)
    for instance_id, phase, start_at, end_at in rows.values_list(
        "instance_id", "phase", "start_at", "end_at"
    ).iterator(chunk_size=5000):
        a = max(to_minute(start_at) - first, 0)
        b = min(to_minute(end_at) - first, minutes)
        labels[row_of[instance_id], a:b] = phase
    return labels


def instance_profile(instance_id: int) -> InstanceProfile | None:
    return InstanceProfile.objects.filter(instance_id=instance_id).first()


def phase_minutes_daily(
    *,
    organization: Organization,
    start: dt.date,
    end: dt.date,
    group_by: str = "instance",
    instance_ids: Sequence[int] | None = None,
) -> dict[tuple[int | None, dt.date], dict[str, int]]:
    """Phase minutes per day of ``[start, end)`` in the organization's timezone, summed.

    Keys are (instance id, local day) with ``group_by="instance"``, or (project id, local day)
    with ``group_by="project"`` (the instance's current project; None for unallocated
    instances); values map every phase key to minutes, in Phase order. Summed from
    ``PhaseHour`` in one grouped query: each UTC hour counts on the local day its start falls
    on (in a timezone with a half-hour offset a day is shifted by that half hour). Days
    without an analysed hour with data are absent.
    """
    if group_by not in ("instance", "project"):
        raise ValueError(f"group_by: expected 'instance' or 'project', got {group_by!r}")
    tz = zoneinfo.ZoneInfo(organization.timezone)
    first = dt.datetime.combine(start, dt.time(), tzinfo=tz)
    last = dt.datetime.combine(end, dt.time(), tzinfo=tz)
    rows = PhaseHour.objects.for_organization(organization).filter(
        hour_start__gte=first, hour_start__lt=last
    )
    if instance_ids is not None:
        rows = rows.filter(instance_id__in=list(instance_ids))
    key = "instance_id" if group_by == "instance" else "instance__project_id"
    grouped = (
        rows.annotate(local_day=TruncDate("hour_start", tzinfo=tz))
        .order_by()
        .values(key, "local_day")
        .annotate(**{f"sum_{c}": Sum(c) for c in PHASE_HOUR_COLUMNS})
    )
    return {
        (row[key], row["local_day"]): {
            phase: int(row[f"sum_{column}"])
            for phase, column in zip(PHASE_KEYS, PHASE_HOUR_COLUMNS, strict=True)
        }
        for row in grouped
    }

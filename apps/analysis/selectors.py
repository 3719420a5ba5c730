"""Reads of the analysis: what is due, stored segments as per-minute labels, profiles, settings."""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np
from django.db import connection
from django.db.models import Case, F, QuerySet, Value, When

from apps.accounts.models import Organization
from apps.analysis.engine import DEFAULT_THRESHOLDS, Evidence, Phase, PhaseThresholds
from apps.analysis.models import (
    PHASE_DAY_SHAPE,
    PHASE_KEYS,
    AnalysisSettings,
    AnalysisState,
    InstanceProfile,
    PhaseDay,
    PhaseSegment,
)
from apps.billing.selectors import UnallocatedReason, project_tag_keys, unallocated_reason
from apps.cloud.models import Instance, Project
from apps.core.timegrid import (
    SECONDS_PER_MINUTE,
    date_to_epoch_day,
    datetime_to_epoch_minute,
    epoch_day_hour_starts,
    epoch_minute_to_date,
)
from apps.metrics.models import InstanceHourRollup


def analysis_due(
    *, end: dt.datetime, lookback_days: int, instance_ids: Sequence[int] | None = None
) -> dict[int, dt.datetime]:
    """Instance id -> earliest hour in ``[end - lookback_days, end)`` with data not yet analysed.

    An hour is due when its rollup was updated after the instance's ``data_checked_at`` (or the
    instance was never analysed), or when it is at or after the instance's ``analysed_until``.
    One grouped query, whatever the fleet size: the rollups joined to the watermarks (a
    correlated subquery per rollup row took 6-8x as long over a fleet's 35 days).
    """
    rollups, states = InstanceHourRollup._meta.db_table, AnalysisState._meta.db_table
    params: list[dt.datetime | int] = [end - dt.timedelta(days=lookback_days), end]
    only = ""
    if instance_ids is not None:
        ids = [int(i) for i in instance_ids]
        if not ids:
            return {}
        only = f"AND r.instance_id IN ({', '.join(['%s'] * len(ids))})"
        params.extend(ids)
    sql = f"""
        SELECT r.instance_id, MIN(r.hour_start)
        FROM {rollups} r LEFT JOIN {states} s ON s.instance_id = r.instance_id
        WHERE r.hour_start >= %s AND r.hour_start < %s {only}
          AND (s.instance_id IS NULL OR s.data_checked_at IS NULL
               OR r.updated_at > s.data_checked_at OR r.hour_start >= s.analysed_until)
        GROUP BY r.instance_id
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return {instance_id: _aware(first) for instance_id, first in rows}


def _aware(moment: dt.datetime | str) -> dt.datetime:
    """A timestamp from raw SQL as an aware UTC datetime (SQLite returns text or naive)."""
    if isinstance(moment, str):
        moment = dt.datetime.fromisoformat(moment)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


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


def organization_instances(*, organization: Organization) -> QuerySet[Instance]:
    """The organization's instances (with their project): another organization's are absent."""
    return Instance.objects.for_organization(organization).select_related("project")


def _gpu_instances_in_period(
    organization: Organization, start: dt.datetime, end: dt.datetime
) -> QuerySet[Instance]:
    return (
        Instance.objects.for_organization(organization)
        .filter(gpu_count__gt=0)
        .exclude(terminated_at__lte=start)
        .exclude(launched_at__gte=end)
        .order_by("pk")
    )


def gpu_instances_in_period(
    *, organization: Organization, start: dt.datetime, end: dt.datetime
) -> list[Instance]:
    """The organization's GPU instances that existed at some point of ``[start, end)``, by id."""
    return list(_gpu_instances_in_period(organization, start, end))


class PricedInstance(Protocol):
    """What pricing an instance's GPU time reads of it: an ``Instance`` or an ``InstanceRow``."""

    @property
    def pk(self) -> int: ...
    @property
    def organization_id(self) -> int: ...
    @property
    def project_id(self) -> int | None: ...
    @property
    def account_id(self) -> int | None: ...
    @property
    def gpu_count(self) -> float: ...
    @property
    def launched_at(self) -> dt.datetime | None: ...
    @property
    def terminated_at(self) -> dt.datetime | None: ...
    @property
    def zone(self) -> str: ...
    @property
    def instance_type(self) -> str: ...
    @property
    def charge_type(self) -> str: ...
    @property
    def tags(self) -> dict[str, str] | None: ...


class InstanceRow(NamedTuple):
    """The ``Instance`` fields of those names that pricing, the unallocated reasons and the
    no-data reasons (``state``) read."""

    pk: int
    organization_id: int
    project_id: int | None
    account_id: int | None
    gpu_count: float
    launched_at: dt.datetime | None
    terminated_at: dt.datetime | None
    zone: str
    instance_type: str
    charge_type: str
    tags: dict[str, str] | None
    state: str


def gpu_instance_rows_in_period(
    *, organization: Organization, start: dt.datetime, end: dt.datetime
) -> list[InstanceRow]:
    """``gpu_instances_in_period`` as tuples of the fields pricing reads: a fleet summary of
    1,000 instances builds them in ~6 ms instead of ~18 ms for the model objects. ``tags``
    only of the instances without a project (what the unallocated reasons read): decoding
    every instance's tags was a third of that."""
    fields = [f for f in InstanceRow._fields if f != "tags"]
    rows = (
        _gpu_instances_in_period(organization, start, end)
        .annotate(
            unallocated_tags=Case(When(project__isnull=True, then=F("tags")), default=Value(None))
        )
        .values_list(*fields, "unallocated_tags")
    )
    at = InstanceRow._fields.index("tags")
    return [InstanceRow._make((*row[:at], row[-1], *row[at:-1])) for row in rows]


def unallocated_reasons(
    *, organization: Organization, instances: Sequence[PricedInstance]
) -> dict[int, UnallocatedReason]:
    """Instance id -> why it has no project, for the instances without one."""
    keys = project_tag_keys(organization)
    return {
        instance.pk: unallocated_reason(instance.tags or {}, keys)
        for instance in instances
        if instance.project_id is None
    }


def project_names(*, organization: Organization) -> dict[int, str]:
    """Project id -> name of the organization's projects."""
    return dict(Project.objects.for_organization(organization).values_list("id", "name"))


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
    evidence: Evidence = Evidence.FULL
    """Metrics the segment had (the weakest of its stored pieces): see ``unseparated_phases``."""

    @property
    def minutes(self) -> int:
        return (self.end_at - self.start_at) // dt.timedelta(minutes=1)


def instance_segments(
    *, instance_id: int, start: dt.datetime, end: dt.datetime
) -> list[MergedSegment]:
    """Stored segments of one instance overlapping ``[start, end)``, clipped and merged.

    Adjacent segments of one phase (cut at a UTC midnight when stored) become one; the mean
    utilization of the merged segment is weighted by minutes, and its evidence is what all its
    pieces had (a metric missing from one piece leaves its phases unseparated for the whole).
    Gaps that were never analysed are not filled in: the caller counts them as unknown.
    """
    rows = (
        PhaseSegment.objects.filter(instance_id=instance_id, start_at__lt=end, end_at__gt=start)
        .order_by("start_at")
        .values_list("phase", "start_at", "end_at", "mean_gpu_util_pct", "evidence")
    )
    merged: list[list] = []  # [phase, start, end, util-minutes, observed minutes, evidence]
    for phase, start_at, end_at, mean, evidence in rows:
        first, last = max(start_at, start), min(end_at, end)
        minutes = (last - first) // dt.timedelta(minutes=1)
        weight = 0.0 if mean is None else mean * minutes
        counted = 0 if mean is None else minutes
        if merged and merged[-1][0] == phase and merged[-1][2] == first:
            merged[-1][2] = last
            merged[-1][3] += weight
            merged[-1][4] += counted
            merged[-1][5] &= evidence
        else:
            merged.append([phase, first, last, weight, counted, evidence])
    return [
        MergedSegment(
            phase=Phase(phase),
            start_at=first,
            end_at=last,
            mean_gpu_util_pct=round(weight / counted, 2) if counted else None,
            evidence=Evidence(evidence),
        )
        for phase, first, last, weight, counted, evidence in merged
    ]


def period_labels(
    *, instance_ids: Sequence[int], start: dt.datetime, end: dt.datetime
) -> np.ndarray:
    """(instances, minutes) uint8 phase labels of ``[start, end)`` rebuilt from stored segments.

    Minutes no segment covers (never analysed) are ``Phase.UNKNOWN``, like minutes without data.
    """
    first, minutes = (
        datetime_to_epoch_minute(start),
        datetime_to_epoch_minute(end) - datetime_to_epoch_minute(start),
    )
    row_of = {instance_id: row for row, instance_id in enumerate(instance_ids)}
    labels = np.zeros((len(instance_ids), max(minutes, 0)), dtype=np.uint8)
    rows = PhaseSegment.objects.filter(
        instance_id__in=list(instance_ids), start_at__lt=end, end_at__gt=start
    ).exclude(phase=Phase.UNKNOWN)
    for instance_id, phase, start_at, end_at in rows.values_list(
        "instance_id", "phase", "start_at", "end_at"
    ).iterator(chunk_size=5000):
        a = max(datetime_to_epoch_minute(start_at) - first, 0)
        b = min(datetime_to_epoch_minute(end_at) - first, minutes)
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
    until: dt.datetime | None = None,
) -> dict[tuple[int | None, dt.date], dict[str, int]]:
    """Phase minutes per day of ``[start, end)`` in the organization's timezone, summed.

    Keys are (instance id, local day) with ``group_by="instance"``, or (project id, local day)
    with ``group_by="project"`` (the instance's current project; None for unallocated
    instances); values map every phase key to minutes, in Phase order. Summed from the hours
    of the ``PhaseDay`` rows of the UTC days overlapping the period (one query, decoded with
    numpy): each UTC hour counts on the local day its start falls on (in a timezone with a
    half-hour offset a day is shifted by that half hour). Days without an analysed hour with
    data are absent. With ``until``, only the hours that begin before it count (the part of
    the days known at that moment, to the hour).
    """
    if group_by not in ("instance", "project"):
        raise ValueError(f"group_by: expected 'instance' or 'project', got {group_by!r}")
    tz = zoneinfo.ZoneInfo(organization.timezone)
    first = datetime_to_epoch_minute(dt.datetime.combine(start, dt.time(), tzinfo=tz))
    last = datetime_to_epoch_minute(dt.datetime.combine(end, dt.time(), tzinfo=tz))
    if until is not None:
        last = min(last, datetime_to_epoch_minute(until))
    if last <= first:
        return {}
    rows = PhaseDay.objects.for_organization(organization).filter(
        day__gte=epoch_minute_to_date(first), day__lte=epoch_minute_to_date(last - 1)
    )
    if instance_ids is not None:
        rows = rows.filter(instance_id__in=list(instance_ids))
    key = "instance_id" if group_by == "instance" else "instance__project_id"
    fetched = list(rows.order_by().values_list(key, "day", "minutes"))
    if not fetched:
        return {}
    groups = list(dict.fromkeys(row[0] for row in fetched))
    group_of = {group: index for index, group in enumerate(groups)}
    group = np.array([group_of[row[0]] for row in fetched], dtype=np.int64)
    day = np.array([date_to_epoch_day(row[1]) for row in fetched], dtype=np.int64)
    minutes = np.frombuffer(b"".join(bytes(row[2]) for row in fetched), dtype=np.uint8)
    minutes = minutes.reshape(len(fetched), *PHASE_DAY_SHAPE)
    # Epoch minute of each stored hour, and the local day (ordinal) its start falls on.
    hour_start = epoch_day_hour_starts(day)
    unique, inverse = np.unique(hour_start, return_inverse=True)
    local = np.array(
        [
            dt.datetime.fromtimestamp(m * SECONDS_PER_MINUTE, tz).date().toordinal()
            for m in unique.tolist()
        ],
        dtype=np.int64,
    )[inverse.reshape(hour_start.shape)]
    counted = (hour_start >= first) & (hour_start < last) & minutes.any(axis=2)
    if not counted.any():
        return {}
    cells, index = np.unique(
        np.stack([group[:, None].repeat(hour_start.shape[1], axis=1)[counted], local[counted]]),
        axis=1,
        return_inverse=True,
    )
    sums = np.zeros((cells.shape[1], PHASE_DAY_SHAPE[1]), dtype=np.int64)
    np.add.at(sums, index.ravel(), minutes[counted])
    return {
        (groups[g], dt.date.fromordinal(d)): dict(zip(PHASE_KEYS, row, strict=True))
        for g, d, row in zip(cells[0].tolist(), cells[1].tolist(), sums.tolist(), strict=True)
    }

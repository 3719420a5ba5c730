"""Why minutes have no phase: the ``unknown`` figures of a fleet, split by reason.

The priced figures (``FleetWaste``) count a minute ``unknown`` when no analysis labelled it.
That has three causes, and a reader needs to tell them apart (only the first is a gap in the
cloud's data; the last fixes itself within the hour):

- ``not_analysed``: the minute has a GPU utilization sample but no stored phase: the analysis
  has not run over it yet (new or late data). Counted per UTC hour as the hour rollup's
  minutes with GPU utilization less the hour's labelled minutes in ``PhaseDay`` (a labelled
  minute is exactly a minute with GPU utilization).
- ``stopped``: no sample, and the instance was not running: an instance priced without hourly
  bills (from its list price) whose state is not RUNNING. Billed hours are running hours, so
  a billed instance has no stopped minutes.
- ``no_metrics``: no sample although the instance was running (billed, or listed as running):
  the rest.

The reason minutes of each instance add up to its unknown minutes, and its unknown money and
GPU-hours are split over them by the largest remainder, so the reasons add up to the
``unknown`` figures exactly. Only the (instance, UTC day) pairs whose day rollup has more GPU
utilization minutes than ``PhaseDay`` labelled are read hour by hour: after the analysis has
caught up that is none.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from collections import defaultdict
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection
from django.db.models import Q, Sum

from apps.analysis.engine import Phase
from apps.analysis.engine.waste import split_cents
from apps.analysis.fleet_waste import FleetWaste
from apps.analysis.models import PHASE_DAY_SHAPE, PhaseDay
from apps.analysis.pricing import SOURCE_BILLS, PhaseFigures
from apps.cloud.models import Instance
from apps.core.timegrid import (
    MINUTES_PER_HOUR,
    datetime_to_epoch_minute,
    epoch_minute_to_datetime,
    floor_hour,
)
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup

RUNNING = "RUNNING"


class NoDataReason(enum.StrEnum):
    """Why a minute has no phase (the API's reason codes; words are the front-end's)."""

    NO_METRICS = "no_metrics"
    STOPPED = "stopped"
    NOT_ANALYSED = "not_analysed"


REASONS: tuple[NoDataReason, ...] = tuple(NoDataReason)
#: The reason codes, as the API's schema names them (``NoDataReasonEnum``).
REASON_CHOICES: list[str] = [reason.value for reason in REASONS]
_COLUMN = {reason: index for index, reason in enumerate(REASONS)}


@dataclasses.dataclass(frozen=True)
class NoData:
    """Row ``i`` is ``fleet.instance_ids[i]``; columns are ``REASONS`` in order."""

    minutes: npt.NDArray[np.int64]
    gpu_hours_e4: npt.NDArray[np.int64]
    cost_cents: npt.NDArray[np.int64]

    def sums(self, rows: Sequence[int] | None = None) -> dict[NoDataReason, PhaseFigures]:
        """Each reason's figures summed over ``rows`` (default: every row)."""
        index = slice(None) if rows is None else np.asarray(rows, dtype=np.intp)
        minutes = self.minutes[index].sum(axis=0)
        hours = self.gpu_hours_e4[index].sum(axis=0)
        cents = self.cost_cents[index].sum(axis=0)
        return {
            reason: PhaseFigures(
                minutes=int(minutes[column]),
                gpu_hours=Decimal(int(hours[column])).scaleb(-4),
                cost=Decimal(int(cents[column])).scaleb(-2),
            )
            for column, reason in enumerate(REASONS)
        }


def no_data(
    *,
    fleet: FleetWaste,
    start: dt.datetime,
    end: dt.datetime,
    states: Mapping[int, str] | None = None,
) -> NoData:
    """The ``unknown`` minutes, GPU-hours and money of ``fleet`` over ``[start, end)`` by reason.

    ``states`` (instance id -> ``Instance.state``) saves a query when the caller has them.
    """
    unknown = fleet.minutes[:, Phase.UNKNOWN].astype(np.int64)
    minutes = np.zeros((len(fleet), len(REASONS)), dtype=np.int64)
    rows = np.flatnonzero(unknown > 0).tolist()
    ids = [fleet.instance_ids[row] for row in rows]
    if fleet.pending_minutes is not None:
        pending = {i: fleet.pending_minutes.get(i, 0) for i in ids}
    else:
        pending = _not_analysed_minutes(ids, start, end)
    if states is not None:
        running = {instance_id for instance_id in ids if states.get(instance_id) == RUNNING}
    else:
        running = set(
            Instance.objects.filter(pk__in=ids, state=RUNNING).values_list("pk", flat=True)
        )
    # As columns (a fleet summary has ~1,000 rows with unknown minutes).
    index = np.asarray(rows, dtype=np.intp)
    left = unknown[index]
    not_analysed = np.minimum(left, np.array([pending.get(i, 0) for i in ids], dtype=np.int64))
    left = left - not_analysed
    priced_by_the_hour = [fleet.cost_sources[row] != SOURCE_BILLS for row in rows]
    not_running = [i not in running for i in ids]
    stopped = np.where(
        np.array(priced_by_the_hour, dtype=bool) & np.array(not_running, dtype=bool), left, 0
    )
    minutes[index, _COLUMN[NoDataReason.NOT_ANALYSED]] = not_analysed
    minutes[index, _COLUMN[NoDataReason.STOPPED]] = stopped
    minutes[index, _COLUMN[NoDataReason.NO_METRICS]] = left - stopped
    return NoData(
        minutes=minutes,
        gpu_hours_e4=_split(fleet.gpu_hours_e4[:, Phase.UNKNOWN], minutes),
        cost_cents=_split(fleet.cost_cents[:, Phase.UNKNOWN], minutes),
    )


def _split(totals: npt.NDArray[np.int64], minutes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Each row's total over its reason minutes (largest remainder, exact); a row without
    minutes but with money (none in practice) puts it on the first reason, ``no_metrics``."""
    if not len(minutes):
        return np.zeros((0, len(REASONS)), dtype=np.int64)
    return split_cents(np.asarray(totals, dtype=np.int64), minutes)


def _not_analysed_minutes(
    instance_ids: Sequence[int], start: dt.datetime, end: dt.datetime
) -> dict[int, int]:
    """Instance id -> minutes of ``[start, end)``'s hours with GPU utilization and no phase."""
    if not instance_ids:
        return {}
    first_day = start.astimezone(dt.UTC).date()
    last_day = (end.astimezone(dt.UTC) - dt.timedelta(microseconds=1)).date()
    labelled: dict[tuple[int, dt.date], npt.NDArray[np.int64]] = {}
    if connection.vendor == "postgresql":
        labelled = _behind_days_sql(instance_ids, first_day, last_day)
    else:
        labelled = _behind_days(instance_ids, first_day, last_day)
    behind = list(labelled)
    if not behind:
        return {}
    # Only the days the analysis is behind on are read hour by hour: one range of hours per
    # behind day, of the instances behind on it (filtering the period's hours of every behind
    # instance in Python read the whole fleet's month when only its first and last days were
    # behind: 4 s for 1,000 instances).
    first_hour, last_minute = floor_hour(start), datetime_to_epoch_minute(end)
    first_minute = datetime_to_epoch_minute(start)
    in_days = _pairs_q(set(behind), since=first_hour, until=end)
    hours = InstanceHourRollup.objects.filter(in_days, gpu_util_pct_minutes__gt=0)
    # Hours entirely inside the period of days without any labelled minute count all their
    # minutes: summed per instance by the database. The rest (hours cut by the period, days
    # partly labelled) hour by hour.
    unlabelled = {key for key in behind if not labelled[key].any()}
    whole_from = -(-first_minute // MINUTES_PER_HOUR) * MINUTES_PER_HOUR
    whole_to = (last_minute // MINUTES_PER_HOUR) * MINUTES_PER_HOUR
    whole = Q(
        hour_start__gte=epoch_minute_to_datetime(whole_from),
        hour_start__lt=epoch_minute_to_datetime(whole_to),
    )
    out: dict[int, int] = defaultdict(int)
    if unlabelled:
        summed = (
            hours.filter(whole)
            .filter(_pairs_q(unlabelled))
            .values("instance_id")
            .annotate(missing=Sum("gpu_util_pct_minutes"))
            .order_by()
            .values_list("instance_id", "missing")
        )
        for instance_id, missing in summed:
            out[instance_id] += int(missing)
        rest = hours.exclude(whole & _pairs_q(unlabelled))
    else:
        rest = hours
    for instance_id, hour_start, count in rest.values_list(
        "instance_id", "hour_start", "gpu_util_pct_minutes"
    ).iterator(chunk_size=5000):
        day = hour_start.astimezone(dt.UTC).date()
        begin = datetime_to_epoch_minute(hour_start)
        inside = min(begin + MINUTES_PER_HOUR, last_minute) - max(begin, first_minute)
        if inside <= 0:
            continue
        known = int(labelled[(instance_id, day)][hour_start.astimezone(dt.UTC).hour])
        missing = max(0, int(count) - known)
        # An hour cut by the period counts its share of the missing minutes.
        out[instance_id] += missing * inside // MINUTES_PER_HOUR
    return {instance_id: minutes for instance_id, minutes in out.items() if minutes}


def _behind_days(
    instance_ids: Sequence[int], first_day: dt.date, last_day: dt.date
) -> dict[tuple[int, dt.date], npt.NDArray[np.int64]]:
    """(instance, UTC day) -> labelled minutes per hour, of the days whose rollup has more GPU
    utilization minutes than ``PhaseDay`` labelled: the day rollups, then their PhaseDay rows,
    joined and decoded here."""
    observed_of = {
        (instance_id, day): observed
        for instance_id, day, observed in InstanceDayRollup.objects.filter(
            instance_id__in=list(instance_ids),
            day__gte=first_day,
            day__lte=last_day,
            gpu_util_pct_minutes__gt=0,
        ).values_list("instance_id", "day", "gpu_util_pct_minutes")
    }
    if not observed_of:
        return {}
    keys: list[tuple[int, dt.date]] = []
    raws: list[bytes] = []
    for instance_id, day, raw in PhaseDay.objects.filter(
        instance_id__in=sorted({key[0] for key in observed_of}),
        day__gte=first_day,
        day__lte=last_day,
    ).values_list("instance_id", "day", "minutes"):
        if (instance_id, day) in observed_of:
            keys.append((instance_id, day))
            raws.append(bytes(raw))
    stored: dict[tuple[int, dt.date], int] = {}
    per_hour = np.zeros((0, PHASE_DAY_SHAPE[0]), dtype=np.int64)
    if raws:
        counts = np.frombuffer(b"".join(raws), dtype=np.uint8).reshape(len(raws), *PHASE_DAY_SHAPE)
        # Labelled minutes of each hour: every phase but unknown (column 0).
        per_hour = counts[:, :, 1:].sum(axis=2, dtype=np.int64)
        stored = {key: row for row, key in enumerate(keys)}
    totals = per_hour.sum(axis=1).tolist()
    empty = np.zeros(PHASE_DAY_SHAPE[0], dtype=np.int64)
    labelled: dict[tuple[int, dt.date], npt.NDArray[np.int64]] = {}
    for key, observed in observed_of.items():
        row = stored.get(key)
        if observed > (0 if row is None else totals[row]):
            labelled[key] = empty if row is None else per_hour[row]
    return labelled


# A day's labelled minutes (every phase but unknown, of every hour) are the stored generated
# column ``labelled_minutes`` of PhaseDay on PostgreSQL (migration analysis 0008, summed from the
# packed bytes on every write): only the days the analysis is behind on come back. Reading every
# day's bytes to decode them in Python cost ~0.2 s for a fleet's month (28,000 rows), mostly to
# find that none is behind; summing the 96 bytes per row in the query ~0.1 s.
#
# First the days on which the fleet as a whole has more GPU utilization minutes than labelled
# ones (two sums per day, no join): a labelled minute is a minute with GPU utilization, so no
# (instance, day) has more labelled than observed minutes, and a day whose sums are equal has no
# instance behind on it. Only those days (once the analysis has caught up, none; else the last
# hour's day) are joined instance by instance: joining the month's 30,000 day rollups to their
# PhaseDay rows took ~30 ms of a 1,000-instance summary, the two sums ~10.
_BEHIND_DAYS_SQL = f"""
    SELECT o.day FROM (
        SELECT day, SUM(gpu_util_pct_minutes) AS minutes FROM {InstanceDayRollup._meta.db_table}
        WHERE instance_id = ANY(%(ids)s) AND day >= %(first_day)s AND day <= %(last_day)s
        GROUP BY day
    ) o LEFT JOIN (
        SELECT day, SUM(labelled_minutes) AS minutes FROM {PhaseDay._meta.db_table}
        WHERE instance_id = ANY(%(ids)s) AND day >= %(first_day)s AND day <= %(last_day)s
        GROUP BY day
    ) l ON l.day = o.day
    WHERE o.minutes > COALESCE(l.minutes, 0)
"""
_BEHIND_SQL = f"""
    SELECT r.instance_id, r.day, p.minutes
    FROM {InstanceDayRollup._meta.db_table} r
    LEFT JOIN {PhaseDay._meta.db_table} p ON p.instance_id = r.instance_id AND p.day = r.day
    WHERE r.instance_id = ANY(%(ids)s) AND r.day = ANY(%(days)s)
      AND r.gpu_util_pct_minutes > 0
      AND r.gpu_util_pct_minutes > COALESCE(p.labelled_minutes, 0)
"""


def _behind_days_sql(
    instance_ids: Sequence[int], first_day: dt.date, last_day: dt.date
) -> dict[tuple[int, dt.date], npt.NDArray[np.int64]]:
    """``_behind_days``, the comparison made by PostgreSQL (``_BEHIND_DAYS_SQL``, then
    ``_BEHIND_SQL`` on the days it names)."""
    params: dict[str, Any] = {
        "ids": list(instance_ids),
        "first_day": first_day,
        "last_day": last_day,
    }
    with connection.cursor() as cursor:
        cursor.execute(_BEHIND_DAYS_SQL, params)
        days = [day for (day,) in cursor.fetchall()]
        if not days:
            return {}
        cursor.execute(_BEHIND_SQL, {**params, "days": days})
        rows = cursor.fetchall()
    labelled: dict[tuple[int, dt.date], npt.NDArray[np.int64]] = {}
    for instance_id, day, raw in rows:
        per_hour = np.zeros(PHASE_DAY_SHAPE[0], dtype=np.int64)
        if raw is not None:
            counts = np.frombuffer(bytes(raw), dtype=np.uint8).reshape(PHASE_DAY_SHAPE)
            per_hour = counts[:, 1:].sum(axis=1, dtype=np.int64)
        labelled[(instance_id, day)] = per_hour
    return labelled


def _pairs_q(
    pairs: set[tuple[int, dt.date]],
    *,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
) -> Q:
    """The hours of these (instance, UTC day) pairs: one range per day, clipped to
    [since, until) where given."""
    by_day: dict[dt.date, list[int]] = defaultdict(list)
    for instance_id, day in pairs:
        by_day[day].append(instance_id)
    q = Q()
    for day, ids in by_day.items():
        day_start = dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
        day_end = day_start + dt.timedelta(days=1)
        q |= Q(
            instance_id__in=sorted(ids),
            hour_start__gte=day_start if since is None else max(day_start, since),
            hour_start__lt=day_end if until is None else min(day_end, until),
        )
    return q

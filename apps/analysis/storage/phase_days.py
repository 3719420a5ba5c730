"""Hourly phase minutes packed by UTC day (``PhaseDay``): replace the hours of a range (a diff).

A fast path for PostgreSQL (binary COPY into a scratch table, one DELETE and one upsert) and a
portable one for SQLite. Everything runs inside the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np
from django.db import connection

from apps.analysis.billed_hours import billed_hours_phases_refresh
from apps.analysis.models import PHASE_DAY_SHAPE, PhaseDay
from apps.analysis.waste_days import waste_days_rebuild
from apps.core import pgcopy
from apps.core.timegrid import (
    MINUTES_PER_DAY,
    MINUTES_PER_HOUR,
    date_to_epoch_day,
    datetime_to_epoch_minute,
    epoch_minute_to_date,
)

_SQLITE_BATCH_ROWS = 500


def phase_days_replace(
    *,
    organization_id: int,
    instance_ids: Sequence[int],
    row_instance_ids: np.ndarray,
    day_starts: np.ndarray,
    minutes: np.ndarray,
    start: dt.datetime,
    end: dt.datetime,
) -> tuple[int, int]:
    """Make the hours of ``instance_ids`` in ``[start, end)`` stored in ``PhaseDay`` equal these
    (see ``_phase_days_replace``), and the billed-hours rollup's phase minutes of those days
    and the summary's day figures (``waste_days``) with them."""
    counts = _phase_days_replace(
        organization_id=organization_id,
        instance_ids=instance_ids,
        row_instance_ids=row_instance_ids,
        day_starts=day_starts,
        minutes=minutes,
        start=start,
        end=end,
    )
    if end > start:
        ids = [int(i) for i in instance_ids]
        day_from = start.astimezone(dt.UTC).date()
        day_to = (end - dt.timedelta(microseconds=1)).astimezone(dt.UTC).date()
        billed_hours_phases_refresh(
            organization_id=organization_id, instance_ids=ids, day_from=day_from, day_to=day_to
        )
        # After the billed hours' phase minutes: the summary's day figures read them.
        waste_days_rebuild(
            organization_id=organization_id, instance_ids=ids, day_from=day_from, day_to=day_to
        )
    return counts


def _phase_days_replace(
    *,
    organization_id: int,
    instance_ids: Sequence[int],
    row_instance_ids: np.ndarray,
    day_starts: np.ndarray,
    minutes: np.ndarray,
    start: dt.datetime,
    end: dt.datetime,
) -> tuple[int, int]:
    """Make the hours of ``instance_ids`` in ``[start, end)`` stored in ``PhaseDay`` equal these.

    Row i is instance ``row_instance_ids[i]``, the UTC day starting at epoch minute
    ``day_starts[i]``, with (24, phases) minute counts ``minutes[i]`` (zeros for an hour without
    data). Only the hours starting in ``[start, end)`` are replaced: the other hours of a day
    the range cuts keep their stored counts (a shorter re-run keeps what lies past ``end``).
    Rows whose bytes would not change are not rewritten; a day left with no hour of data is
    deleted. Returns (hours with data in the rows inserted or updated, hours with data in the
    rows deleted).
    """
    if not len(instance_ids):
        return 0, 0
    first, last = datetime_to_epoch_minute(start), datetime_to_epoch_minute(end)
    first_day = first // MINUTES_PER_DAY * MINUTES_PER_DAY
    days = np.arange(first_day, last, MINUTES_PER_DAY, dtype=np.int64)
    hour_starts = days[:, None] + MINUTES_PER_HOUR * np.arange(24, dtype=np.int64)
    in_range = (hour_starts >= first) & (hour_starts < last)  # (days, 24)
    days, in_range = days[in_range.any(axis=1)], in_range[in_range.any(axis=1)]
    if not days.size:
        return 0, 0
    ids = [int(i) for i in instance_ids]
    day_from, day_to = epoch_minute_to_date(days[0]), epoch_minute_to_date(days[-1])
    new_ids = np.asarray(row_instance_ids, dtype=np.int64)
    new_days = np.asarray(day_starts, dtype=np.int64)
    new_minutes = np.asarray(minutes, dtype=np.uint8).reshape(-1, *PHASE_DAY_SHAPE)
    stored_rows = PhaseDay.objects.filter(instance_id__in=ids, day__gte=day_from, day__lte=day_to)
    if not stored_rows.exists():
        # Nothing stored in the range (a first analysis, or a new day): no diff needed.
        keep = new_minutes.any(axis=(1, 2))
        new_ids, new_days, new_minutes = new_ids[keep], new_days[keep], new_minutes[keep]
        _insert_phase_days(organization_id, new_ids, new_days, new_minutes)
        return _hours_with_data(new_minutes), 0
    partial = ~in_range.all(axis=1)
    if partial.any():
        new_ids, new_days, new_minutes = _merge_cut_days(
            stored_rows, new_ids, new_days, new_minutes, days[partial], in_range[partial]
        )
    keep = new_minutes.any(axis=(1, 2))
    new_ids, new_days, new_minutes = new_ids[keep], new_days[keep], new_minutes[keep]
    if connection.vendor == "postgresql":
        return _pg_phase_days_diff(
            organization_id, ids, new_ids, new_days, new_minutes, day_from, day_to
        )
    stored = {
        (instance_id, day): (organization, bytes(raw))
        for instance_id, day, organization, raw in stored_rows.values_list(
            "instance_id", "day", "organization_id", "minutes"
        )
    }
    writes: list[PhaseDay] = []
    for instance_id, minute, row in zip(
        new_ids.tolist(), new_days.tolist(), new_minutes, strict=True
    ):
        day, raw = epoch_minute_to_date(minute), row.tobytes()
        if stored.pop((instance_id, day), None) == (organization_id, raw):
            continue
        writes.append(
            PhaseDay(organization_id=organization_id, instance_id=instance_id, day=day, minutes=raw)
        )
    doomed = list(stored)
    deleted = sum(_hours_with_data(_decode(raw)) for _org, raw in stored.values())
    for offset in range(0, len(doomed), _SQLITE_BATCH_ROWS):
        PhaseDay.objects.filter(pk__in=doomed[offset : offset + _SQLITE_BATCH_ROWS]).delete()
    PhaseDay.objects.bulk_create(
        writes,
        batch_size=_SQLITE_BATCH_ROWS,
        update_conflicts=True,
        unique_fields=["instance", "day"],
        update_fields=["organization", "minutes"],
    )
    return sum(_hours_with_data(_decode(w.minutes)) for w in writes), deleted


def _decode(raw: bytes | memoryview) -> np.ndarray:
    return np.frombuffer(bytes(raw), dtype=np.uint8).reshape(1, *PHASE_DAY_SHAPE)


def _hours_with_data(minutes: np.ndarray) -> int:
    """Hours with at least one counted minute in (rows, 24, phases) counts."""
    return int(np.count_nonzero(minutes.any(axis=2)))


def _merge_cut_days(
    stored_rows,  # QuerySet[PhaseDay]
    ids: np.ndarray,
    days: np.ndarray,
    minutes: np.ndarray,
    cut_days: np.ndarray,
    cut_in_range: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of the days the range cuts, completed with the stored hours outside the range.

    At most two such days per instance (the first and the last), so this reads few rows.
    """
    mask_of = {int(day): mask for day, mask in zip(cut_days.tolist(), cut_in_range, strict=True)}
    minutes = minutes.copy()
    index = {(i, d): n for n, (i, d) in enumerate(zip(ids.tolist(), days.tolist(), strict=True))}
    for n, day in enumerate(days.tolist()):
        if day in mask_of:  # hours outside the range are not this analysis' to write
            minutes[n][~mask_of[day]] = 0
    extra: list[tuple[int, int, np.ndarray]] = []
    cut_dates = [epoch_minute_to_date(day) for day in mask_of]
    for instance_id, day, raw in stored_rows.filter(day__in=cut_dates).values_list(
        "instance_id", "day", "minutes"
    ):
        minute = date_to_epoch_day(day) * MINUTES_PER_DAY
        outside = ~mask_of[minute]
        old = _decode(raw)[0]
        row_index = index.get((instance_id, minute))
        if row_index is None:
            row = np.where(outside[:, None], old, 0).astype(np.uint8)
            extra.append((instance_id, minute, row))
        else:
            minutes[row_index][outside] = old[outside]
    if extra:
        ids = np.concatenate([ids, np.array([e[0] for e in extra], dtype=np.int64)])
        days = np.concatenate([days, np.array([e[1] for e in extra], dtype=np.int64)])
        minutes = np.concatenate([minutes, np.stack([e[2] for e in extra])])
    return ids, days, minutes


_PHASE_DAY_COLUMNS = "organization_id, instance_id, day, minutes"


def _phase_day_fields(ids: np.ndarray, days: np.ndarray, minutes: np.ndarray) -> list:
    pg_dates = pgcopy.epoch_days_to_pg_dates(days // MINUTES_PER_DAY)
    # PhaseDay.minutes is a fixed-size bytea: the (24, phases) uint8 counts.
    return [("int8", ids), ("date", pg_dates), ("u1", minutes.reshape(len(ids), -1))]


def _insert_phase_days(
    organization_id: int, ids: np.ndarray, days: np.ndarray, minutes: np.ndarray
) -> None:
    if not len(ids):
        return
    if connection.vendor == "postgresql":
        organization = ("int8", np.full(len(ids), organization_id))
        with pgcopy.connection_cursor() as cursor:
            pgcopy.send(
                cursor,
                f"COPY {PhaseDay._meta.db_table} ({_PHASE_DAY_COLUMNS}) FROM STDIN (FORMAT BINARY)",
                pgcopy.stream(
                    [pgcopy.records([organization, *_phase_day_fields(ids, days, minutes)])]
                ),
            )
        return
    PhaseDay.objects.bulk_create(
        (
            PhaseDay(
                organization_id=organization_id,
                instance_id=instance_id,
                day=epoch_minute_to_date(minute),
                minutes=row.tobytes(),
            )
            for instance_id, minute, row in zip(ids.tolist(), days.tolist(), minutes, strict=True)
        ),
        batch_size=_SQLITE_BATCH_ROWS,
    )


def _pg_phase_days_diff(
    organization_id: int,
    instance_ids: list[int],
    ids: np.ndarray,
    days: np.ndarray,
    minutes: np.ndarray,
    day_from: dt.date,
    day_to: dt.date,
) -> tuple[int, int]:
    """Binary COPY into a temp table, then one DELETE of vanished days and one upsert."""
    table = PhaseDay._meta.db_table
    scratch = "_analysis_phase_days"
    with pgcopy.connection_cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {scratch}")
        cursor.execute(
            f"CREATE TEMP TABLE {scratch} (instance_id int8, day date, minutes bytea)"
            " ON COMMIT DROP"
        )
        if len(ids):
            pgcopy.send(
                cursor,
                f"COPY {scratch} FROM STDIN (FORMAT BINARY)",
                pgcopy.stream([pgcopy.records(_phase_day_fields(ids, days, minutes))]),
            )
        # Temp tables have no statistics; without them the planner may loop per row.
        cursor.execute(f"ANALYZE {scratch}")
        cursor.execute(
            f"DELETE FROM {table} AS t WHERE t.instance_id = ANY(%s)"
            " AND t.day >= %s AND t.day <= %s AND NOT EXISTS ("
            f"SELECT 1 FROM {scratch} AS s WHERE s.instance_id = t.instance_id AND s.day = t.day)"
            " RETURNING t.minutes",
            [instance_ids, day_from, day_to],
        )
        deleted = sum(_hours_with_data(_decode(raw)) for (raw,) in cursor.fetchall())
        cursor.execute(
            f"INSERT INTO {table} AS t ({_PHASE_DAY_COLUMNS})"
            f" SELECT %s, s.instance_id, s.day, s.minutes FROM {scratch} AS s"
            # Unchanged days are filtered out first: ON CONFLICT would lock (write) them.
            f" WHERE NOT EXISTS (SELECT 1 FROM {table} AS o WHERE o.instance_id = s.instance_id"
            " AND o.day = s.day AND o.organization_id = %s AND o.minutes = s.minutes)"
            " ON CONFLICT (instance_id, day) DO UPDATE SET"
            " organization_id = EXCLUDED.organization_id, minutes = EXCLUDED.minutes"
            " WHERE (t.organization_id, t.minutes)"
            " IS DISTINCT FROM (EXCLUDED.organization_id, EXCLUDED.minutes)"
            " RETURNING t.minutes",
            [organization_id, organization_id],
        )
        written = sum(_hours_with_data(_decode(raw)) for (raw,) in cursor.fetchall())
        return written, deleted

"""SQL of the analysis results: a fast path for PostgreSQL, a portable one for SQLite.

Every write is a diff: rows that would not change are not touched, so re-running an analysis on
the same data writes nothing (same ids, same bytes) and never bumps anyone's ``updated_at``.
Everything runs inside the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from django.db import connection
from django.utils import timezone

from apps.analysis import results
from apps.analysis.engine import OffWindow
from apps.analysis.models import (
    PHASE_DAY_SHAPE,
    AnalysisState,
    InstanceProfile,
    PhaseDay,
    PhaseSegment,
)
from apps.analysis.results import (
    MINUTES_PER_DAY,
    MINUTES_PER_HOUR,
    DaySegments,
    from_minute,
    to_minute,
)

_CHUNK = 500
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()
SegmentKey = tuple[int, int]  # (instance id, start epoch minute)
SegmentValue = tuple[int, int, float | None]  # (end epoch minute, phase, mean)
_PROFILE_FIELDS = (
    "tz",
    "start_at",
    "end_at",
    "computed_at",
    "median_pct",
    "p95_pct",
    "coverage",
    "has_off_window",
    "off_window_weekly_hours",
    "off_window_supporting_weeks",
    "off_window",
)


def _pg_cursor():  # -> psycopg.Cursor
    """A psycopg cursor on Django's connection (inside its transaction) for binary COPY."""
    import psycopg

    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def segments_replace(
    *,
    organization_id: int,
    instance_ids: Sequence[int],
    segments: DaySegments,
    start: dt.datetime,
    end: dt.datetime,
) -> tuple[int, int]:
    """Make the stored segments starting in ``[start, end)`` equal ``segments``.

    A stored segment that starts in the range but runs past ``end`` (from an earlier, longer
    analysis) keeps its part after ``end``. Returns (rows inserted, rows deleted).
    """
    ids = np.asarray(instance_ids, dtype=np.int64)[segments.row]
    if connection.vendor == "postgresql":
        return _pg_segments_replace(organization_id, instance_ids, ids, segments, start, end)
    stored = list(
        PhaseSegment.objects.filter(
            instance_id__in=list(instance_ids), start_at__gte=start, start_at__lt=end
        ).values_list("id", "instance_id", "start_at", "end_at", "phase", "mean_gpu_util_pct")
    )
    if not stored:
        # The common case of a new range (and the whole of a first analysis): no diff needed.
        _insert_segments(organization_id, ids, segments)
        return len(segments), 0

    end_minute = to_minute(end)
    wanted: dict[SegmentKey, SegmentValue] = {}
    for instance_id, first, last, phase, mean in zip(
        ids.tolist(),
        segments.start_minute.tolist(),
        segments.end_minute.tolist(),
        segments.phase.tolist(),
        segments.mean_gpu_util_pct.tolist(),
        strict=True,
    ):
        wanted[(instance_id, first)] = (last, phase, None if math.isnan(mean) else mean)
    doomed: list[int] = []
    for row_id, instance_id, start_at, end_at, phase, mean in stored:
        key = (instance_id, to_minute(start_at))
        value = (to_minute(end_at), phase, mean)
        if wanted.get(key) == value:
            del wanted[key]  # already stored exactly like this
            continue
        doomed.append(row_id)
        if value[0] > end_minute:
            # The tail after the analysed range was not re-analysed: keep it.
            wanted[(instance_id, end_minute)] = value
    for offset in range(0, len(doomed), _CHUNK):
        PhaseSegment.objects.filter(id__in=doomed[offset : offset + _CHUNK]).delete()
    keys = list(wanted)
    values = [wanted[k] for k in keys]
    _insert_segments(
        organization_id,
        np.array([k[0] for k in keys], dtype=np.int64),
        DaySegments(
            row=np.zeros(len(keys), dtype=np.int64),
            start_minute=np.array([k[1] for k in keys], dtype=np.int64),
            end_minute=np.array([v[0] for v in values], dtype=np.int64),
            phase=np.array([v[1] for v in values], dtype=np.int64),
            mean_gpu_util_pct=np.array(
                [np.nan if v[2] is None else v[2] for v in values], dtype=np.float64
            ),
        ),
    )
    return len(keys), len(doomed)


_SEGMENT_COLUMNS = "organization_id, instance_id, phase, start_at, end_at, mean_gpu_util_pct"


def _pg_segments_replace(
    organization_id: int,
    instance_ids: Sequence[int],
    ids: np.ndarray,
    segments: DaySegments,
    start: dt.datetime,
    end: dt.datetime,
) -> tuple[int, int]:
    """``segments_replace`` in SQL: COPY into a temp table, then one DELETE and one INSERT.

    Same diff as the portable path (rows equal in every column are kept, a doomed stored
    segment running past ``end`` keeps its tail), without reading the stored rows into Python.
    """
    table = PhaseSegment._meta.db_table
    scratch = "_analysis_segments"
    id_list = [int(i) for i in instance_ids]
    with _pg_cursor() as cursor:
        cursor.execute(
            f"SELECT EXISTS (SELECT 1 FROM {table} WHERE instance_id = ANY(%s)"
            " AND start_at >= %s AND start_at < %s)",
            [id_list, start, end],
        )
        if not cursor.fetchone()[0]:
            # The common case of a new range (and the whole of a first analysis): no diff needed.
            _insert_segments(organization_id, ids, segments)
            return len(segments), 0
        cursor.execute(f"DROP TABLE IF EXISTS {scratch}")
        cursor.execute(
            f"CREATE TEMP TABLE {scratch} (organization_id int8, instance_id int8, phase int2,"
            " start_at timestamptz, end_at timestamptz, mean_gpu_util_pct float8) ON COMMIT DROP"
        )
        if len(segments):
            _copy(
                cursor,
                f"COPY {scratch} ({_SEGMENT_COLUMNS}) FROM STDIN (FORMAT BINARY)",
                _segment_records(organization_id, ids, segments),
            )
        # Temp tables have no statistics; without them the planner may loop per row.
        cursor.execute(f"ANALYZE {scratch}")
        cursor.execute(
            f"WITH doomed AS (DELETE FROM {table} AS t WHERE t.instance_id = ANY(%s)"
            " AND t.start_at >= %s AND t.start_at < %s AND NOT EXISTS ("
            f"SELECT 1 FROM {scratch} AS s WHERE s.instance_id = t.instance_id"
            " AND s.start_at = t.start_at AND s.end_at = t.end_at AND s.phase = t.phase"
            " AND s.mean_gpu_util_pct IS NOT DISTINCT FROM t.mean_gpu_util_pct)"
            " RETURNING t.instance_id, t.phase, t.end_at, t.mean_gpu_util_pct),"
            # The tail after the analysed range was not re-analysed: keep it.
            f" tails AS (INSERT INTO {scratch} ({_SEGMENT_COLUMNS})"
            " SELECT %s, instance_id, phase, %s, end_at, mean_gpu_util_pct FROM doomed"
            " WHERE end_at > %s RETURNING 1)"
            " SELECT (SELECT count(*) FROM doomed), (SELECT count(*) FROM tails)",
            [id_list, start, end, organization_id, end, end],
        )
        deleted, _tails = cursor.fetchone()
        cursor.execute(
            f"INSERT INTO {table} ({_SEGMENT_COLUMNS}) SELECT {_SEGMENT_COLUMNS}"
            f" FROM {scratch} AS s WHERE NOT EXISTS (SELECT 1 FROM {table} AS t"
            " WHERE t.instance_id = s.instance_id AND t.start_at = s.start_at)"
            " ORDER BY s.instance_id, s.start_at"
        )
        return cursor.rowcount, int(deleted)


def _segment_records(organization_id: int, ids: np.ndarray, segments: DaySegments) -> list[bytes]:
    """Binary COPY records of segments, columns as ``_SEGMENT_COLUMNS``."""
    known = ~np.isnan(segments.mean_gpu_util_pct)
    parts = []
    # A NULL makes a record shorter, so rows with and without a mean are two layouts.
    for rows, with_mean in ((known, True), (~known, False)):
        fields = [
            ("int8", np.full(int(rows.sum()), organization_id)),
            ("int8", ids[rows]),
            ("int2", segments.phase[rows]),
            ("timestamptz", _pg_timestamps(segments.start_minute[rows])),
            ("timestamptz", _pg_timestamps(segments.end_minute[rows])),
        ]
        if with_mean:
            fields.append(("float8", segments.mean_gpu_util_pct[rows]))
        parts.append(_copy_records(fields, nulls=0 if with_mean else 1))
    return parts


def _insert_segments(organization_id: int, ids: np.ndarray, segments: DaySegments) -> None:
    if not len(segments):
        return
    if connection.vendor == "postgresql":
        table = PhaseSegment._meta.db_table
        with _pg_cursor() as cursor:
            _copy(
                cursor,
                f"COPY {table} ({_SEGMENT_COLUMNS}) FROM STDIN (FORMAT BINARY)",
                _segment_records(organization_id, ids, segments),
            )
        return
    means = segments.mean_gpu_util_pct.tolist()
    PhaseSegment.objects.bulk_create(
        (
            PhaseSegment(
                organization_id=organization_id,
                instance_id=instance_id,
                phase=phase,
                start_at=from_minute(first),
                end_at=from_minute(last),
                mean_gpu_util_pct=None if math.isnan(mean) else mean,
            )
            for instance_id, first, last, phase, mean in zip(
                ids.tolist(),
                segments.start_minute.tolist(),
                segments.end_minute.tolist(),
                segments.phase.tolist(),
                means,
                strict=True,
            )
        ),
        batch_size=_CHUNK,
    )


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
    first, last = to_minute(start), to_minute(end)
    first_day = first // MINUTES_PER_DAY * MINUTES_PER_DAY
    days = np.arange(first_day, last, MINUTES_PER_DAY, dtype=np.int64)
    hour_starts = days[:, None] + MINUTES_PER_HOUR * np.arange(24, dtype=np.int64)
    in_range = (hour_starts >= first) & (hour_starts < last)  # (days, 24)
    days, in_range = days[in_range.any(axis=1)], in_range[in_range.any(axis=1)]
    if not days.size:
        return 0, 0
    ids = [int(i) for i in instance_ids]
    day_from, day_to = _date(days[0]), _date(days[-1])
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
        day, raw = _date(minute), row.tobytes()
        if stored.pop((instance_id, day), None) == (organization_id, raw):
            continue
        writes.append(
            PhaseDay(organization_id=organization_id, instance_id=instance_id, day=day, minutes=raw)
        )
    doomed = list(stored)
    deleted = sum(_hours_with_data(_decode(raw)) for _org, raw in stored.values())
    for offset in range(0, len(doomed), _CHUNK):
        PhaseDay.objects.filter(pk__in=doomed[offset : offset + _CHUNK]).delete()
    PhaseDay.objects.bulk_create(
        writes,
        batch_size=_CHUNK,
        update_conflicts=True,
        unique_fields=["instance", "day"],
        update_fields=["organization", "minutes"],
    )
    return sum(_hours_with_data(_decode(w.minutes)) for w in writes), deleted


def _date(epoch_minute: int | np.integer) -> dt.date:
    return dt.date.fromordinal(_EPOCH_ORDINAL + int(epoch_minute) // MINUTES_PER_DAY)


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
    cut_dates = [_date(day) for day in mask_of]
    for instance_id, day, raw in stored_rows.filter(day__in=cut_dates).values_list(
        "instance_id", "day", "minutes"
    ):
        minute = (day.toordinal() - _EPOCH_ORDINAL) * MINUTES_PER_DAY
        outside = ~mask_of[minute]
        old = _decode(raw)[0]
        n = index.get((instance_id, minute))
        if n is None:
            row = np.where(outside[:, None], old, 0).astype(np.uint8)
            extra.append((instance_id, minute, row))
        else:
            minutes[n][outside] = old[outside]
    if extra:
        ids = np.concatenate([ids, np.array([e[0] for e in extra], dtype=np.int64)])
        days = np.concatenate([days, np.array([e[1] for e in extra], dtype=np.int64)])
        minutes = np.concatenate([minutes, np.stack([e[2] for e in extra])])
    return ids, days, minutes


_PHASE_DAY_COLUMNS = "organization_id, instance_id, day, minutes"


def _phase_day_fields(ids: np.ndarray, days: np.ndarray, minutes: np.ndarray) -> list:
    pg_days = days // MINUTES_PER_DAY - _PG_EPOCH_DAY
    return [("int8", ids), ("date", pg_days), ("minutes", minutes.reshape(len(ids), -1))]


def _insert_phase_days(
    organization_id: int, ids: np.ndarray, days: np.ndarray, minutes: np.ndarray
) -> None:
    if not len(ids):
        return
    if connection.vendor == "postgresql":
        organization = ("int8", np.full(len(ids), organization_id))
        with _pg_cursor() as cursor:
            _copy(
                cursor,
                f"COPY {PhaseDay._meta.db_table} ({_PHASE_DAY_COLUMNS}) FROM STDIN (FORMAT BINARY)",
                [_copy_records([organization, *_phase_day_fields(ids, days, minutes)])],
            )
        return
    PhaseDay.objects.bulk_create(
        (
            PhaseDay(
                organization_id=organization_id,
                instance_id=instance_id,
                day=_date(minute),
                minutes=row.tobytes(),
            )
            for instance_id, minute, row in zip(ids.tolist(), days.tolist(), minutes, strict=True)
        ),
        batch_size=_CHUNK,
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
    with _pg_cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {scratch}")
        cursor.execute(
            f"CREATE TEMP TABLE {scratch} (instance_id int8, day date, minutes bytea)"
            " ON COMMIT DROP"
        )
        if len(ids):
            _copy(
                cursor,
                f"COPY {scratch} FROM STDIN (FORMAT BINARY)",
                [_copy_records(_phase_day_fields(ids, days, minutes))],
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


# --- PostgreSQL binary COPY built by numpy ----------------------------------------------------
# psycopg's write_row costs microseconds per field in Python; these rows are fixed-size, so
# they are laid out as one numpy structured array (each field a big-endian int32 length and its
# bytes) and sent in one piece.
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8
_COPY_TRAILER = b"\xff\xff"
_PG_EPOCH_DAY = 10_957  # PostgreSQL counts dates and timestamps from 2000-01-01
_BINARY: dict[str, Any] = {
    "int8": ">i8",
    "int2": ">i2",
    "float8": ">f8",
    "date": ">i4",
    "timestamptz": ">i8",
    "minutes": ("u1", (PHASE_DAY_SHAPE[0] * PHASE_DAY_SHAPE[1],)),  # PhaseDay.minutes bytea
}


def _pg_timestamps(epoch_minutes: np.ndarray) -> np.ndarray:
    """Epoch minutes as PostgreSQL's binary timestamptz (microseconds since 2000-01-01)."""
    return (np.asarray(epoch_minutes, dtype=np.int64) - _PG_EPOCH_DAY * 1440) * 60_000_000


def _copy_records(fields: list[tuple[str, np.ndarray]], nulls: int = 0) -> bytes:
    """Binary COPY records; ``nulls`` trailing NULL fields are appended to every record."""
    layout: list[tuple[str, str]] = [("count", ">i2")]
    for index, (kind, _values) in enumerate(fields):
        layout += [(f"l{index}", ">i4"), (f"v{index}", _BINARY[kind])]
    layout += [(f"n{index}", ">i4") for index in range(nulls)]
    out = np.empty(len(fields[0][1]), dtype=np.dtype(layout))
    out["count"] = len(fields) + nulls
    for index, (kind, values) in enumerate(fields):
        out[f"l{index}"] = np.dtype(_BINARY[kind]).itemsize
        out[f"v{index}"] = values
    for index in range(nulls):
        out[f"n{index}"] = -1  # a field length of -1 is NULL
    return out.tobytes()


def _copy(cursor, sql: str, parts: list[bytes]) -> None:  # cursor: psycopg.Cursor
    with cursor.copy(sql) as copy:
        copy.write(_COPY_HEADER + b"".join(parts) + _COPY_TRAILER)


def profiles_store(
    organization_id: int,
    instance_ids: Sequence[int],
    profiles: Sequence[tuple[dict[str, Any], OffWindow | None]],
    profile_start: dt.datetime,
    end: dt.datetime,
    as_of: dt.datetime,
) -> tuple[int, int]:
    """Create or update the profiles that differ; (profiles written, off windows found).

    ``profiles`` are ``results.profile_fields`` of each instance, in ``instance_ids`` order.
    """
    stored = {
        p.instance_id: p for p in InstanceProfile.objects.filter(instance_id__in=instance_ids)
    }
    creates: list[InstanceProfile] = []
    updates: list[InstanceProfile] = []
    off_windows = 0
    for instance_id, (computed, window) in zip(instance_ids, profiles, strict=True):
        off_windows += window is not None
        fields = {**computed, "start_at": profile_start, "end_at": end, "computed_at": as_of}
        existing = stored.get(instance_id)
        if existing is None:
            creates.append(
                InstanceProfile(organization_id=organization_id, instance_id=instance_id, **fields)
            )
        elif any(
            results.canonical_json(getattr(existing, k)) != results.canonical_json(v)
            if k in ("median_pct", "p95_pct", "coverage", "off_window")
            else getattr(existing, k) != v
            for k, v in fields.items()
        ):
            for key, value in fields.items():
                setattr(existing, key, value)
            # bulk_update does not run auto_now.
            existing.updated_at = timezone.now()
            updates.append(existing)
    InstanceProfile.objects.bulk_create(creates, batch_size=500)
    if updates:
        InstanceProfile.objects.bulk_update(
            updates, [*_PROFILE_FIELDS, "updated_at"], batch_size=200
        )
    return len(creates) + len(updates), off_windows


def watermarks_advance(
    instance_ids: Sequence[int], end: dt.datetime, data_checked_at: dt.datetime | None
) -> None:
    """Move the watermarks to ``end`` (never backwards); unchanged states are not written."""
    stored = {s.instance_id: s for s in AnalysisState.objects.filter(instance_id__in=instance_ids)}
    changed: list[AnalysisState] = []
    for instance_id in instance_ids:
        state = stored.get(instance_id) or AnalysisState(
            instance_id=instance_id, analysed_until=end
        )
        until = max(state.analysed_until, end)
        checked = data_checked_at or state.data_checked_at
        if instance_id in stored and (until, checked) == (
            state.analysed_until,
            state.data_checked_at,
        ):
            continue
        state.analysed_until, state.data_checked_at = until, checked
        changed.append(state)
    AnalysisState.objects.bulk_create(
        changed,
        update_conflicts=True,
        unique_fields=["instance"],
        update_fields=["analysed_until", "data_checked_at"],
    )

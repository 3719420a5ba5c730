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
    PHASE_HOUR_COLUMNS,
    AnalysisState,
    InstanceProfile,
    PhaseHour,
    PhaseSegment,
)
from apps.analysis.results import DaySegments, from_minute, to_minute

_CHUNK = 500
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


def phase_hours_replace(
    *,
    organization_id: int,
    instance_ids: Sequence[int],
    row_instance_ids: np.ndarray,
    hour_starts: np.ndarray,
    counts: np.ndarray,
    start: dt.datetime,
    end: dt.datetime,
) -> tuple[int, int]:
    """Make the stored ``PhaseHour`` rows of ``instance_ids`` in ``[start, end)`` equal these.

    Row i is instance ``row_instance_ids[i]``, the hour starting at epoch minute
    ``hour_starts[i]``, with the per-phase minute ``counts[i]`` (Phase order). Rows that already
    hold the same counts are not rewritten; stored rows of the range that are not given (the
    hour has no data any more) are deleted. Returns (rows inserted or updated, rows deleted).
    """
    if not len(instance_ids):
        return 0, 0
    if connection.vendor == "postgresql":
        return _pg_phase_hours_replace(
            organization_id, instance_ids, row_instance_ids, hour_starts, counts, start, end
        )
    stored = {
        (instance_id, to_minute(hour_start)): (organization, tuple(values))
        for instance_id, hour_start, organization, *values in PhaseHour.objects.filter(
            instance_id__in=list(instance_ids), hour_start__gte=start, hour_start__lt=end
        ).values_list("instance_id", "hour_start", "organization_id", *PHASE_HOUR_COLUMNS)
    }
    writes: list[PhaseHour] = []
    for instance_id, minute, row in zip(
        row_instance_ids.tolist(), hour_starts.tolist(), counts.tolist(), strict=True
    ):
        old = stored.pop((instance_id, minute), None)
        if old == (organization_id, tuple(row)):
            continue
        writes.append(
            PhaseHour(
                organization_id=organization_id,
                instance_id=instance_id,
                hour_start=from_minute(minute),
                **dict(zip(PHASE_HOUR_COLUMNS, row, strict=True)),
            )
        )
    doomed = [(instance_id, from_minute(minute)) for instance_id, minute in stored]
    for offset in range(0, len(doomed), _CHUNK):
        PhaseHour.objects.filter(pk__in=doomed[offset : offset + _CHUNK]).delete()
    PhaseHour.objects.bulk_create(
        writes,
        batch_size=_CHUNK,
        update_conflicts=True,
        unique_fields=["instance", "hour_start"],
        update_fields=["organization", *PHASE_HOUR_COLUMNS],
    )
    return len(writes), len(doomed)


def _pg_phase_hours_replace(
    organization_id: int,
    instance_ids: Sequence[int],
    row_instance_ids: np.ndarray,
    hour_starts: np.ndarray,
    counts: np.ndarray,
    start: dt.datetime,
    end: dt.datetime,
) -> tuple[int, int]:
    """Binary COPY into a temp table, then one DELETE of vanished hours and one upsert."""
    table = PhaseHour._meta.db_table
    scratch = "_analysis_phase_hours"
    columns = ", ".join(PHASE_HOUR_COLUMNS)
    fields = [("int8", row_instance_ids), ("timestamptz", _pg_timestamps(hour_starts))]
    fields += [("int2", counts[:, i]) for i in range(counts.shape[1])]
    ids = [int(i) for i in instance_ids]
    with _pg_cursor() as cursor:
        cursor.execute(
            f"SELECT EXISTS (SELECT 1 FROM {table} WHERE instance_id = ANY(%s)"
            " AND hour_start >= %s AND hour_start < %s)",
            [ids, start, end],
        )
        if not cursor.fetchone()[0]:
            # Nothing stored in the range (a first analysis, or a new day): no diff needed.
            if len(row_instance_ids):
                organization = ("int8", np.full(len(row_instance_ids), organization_id))
                _copy(
                    cursor,
                    f"COPY {table} (organization_id, instance_id, hour_start, {columns})"
                    " FROM STDIN (FORMAT BINARY)",
                    [_copy_records([organization, *fields])],
                )
            return len(row_instance_ids), 0
        phases = ", ".join(f"{c} int2" for c in PHASE_HOUR_COLUMNS)
        cursor.execute(f"DROP TABLE IF EXISTS {scratch}")
        cursor.execute(
            f"CREATE TEMP TABLE {scratch} (instance_id int8, hour_start timestamptz, {phases})"
            " ON COMMIT DROP"
        )
        _copy(cursor, f"COPY {scratch} FROM STDIN (FORMAT BINARY)", [_copy_records(fields)])
        # Temp tables have no statistics; without them the planner may loop per row.
        cursor.execute(f"ANALYZE {scratch}")
        cursor.execute(
            f"DELETE FROM {table} AS t WHERE t.instance_id = ANY(%s)"
            " AND t.hour_start >= %s AND t.hour_start < %s AND NOT EXISTS ("
            f"SELECT 1 FROM {scratch} AS s"
            " WHERE s.instance_id = t.instance_id AND s.hour_start = t.hour_start)",
            [ids, start, end],
        )
        deleted = cursor.rowcount
        cursor.execute(
            f"INSERT INTO {table} AS t (organization_id, instance_id, hour_start, {columns})"
            f" SELECT %s, s.instance_id, s.hour_start, {columns} FROM {scratch} AS s"
            # Unchanged hours are filtered out first: ON CONFLICT would lock (write) them.
            f" WHERE NOT EXISTS (SELECT 1 FROM {table} AS o WHERE o.instance_id = s.instance_id"
            " AND o.hour_start = s.hour_start AND o.organization_id = %s AND "
            + " AND ".join(f"o.{c} = s.{c}" for c in PHASE_HOUR_COLUMNS)
            + ") ON CONFLICT (instance_id, hour_start) DO UPDATE SET organization_id ="
            " EXCLUDED.organization_id, "
            + ", ".join(f"{c} = EXCLUDED.{c}" for c in PHASE_HOUR_COLUMNS)
            + f" WHERE (t.organization_id, {', '.join(f't.{c}' for c in PHASE_HOUR_COLUMNS)})"
            f" IS DISTINCT FROM (EXCLUDED.organization_id,"
            f" {', '.join(f'EXCLUDED.{c}' for c in PHASE_HOUR_COLUMNS)})",
            [organization_id, organization_id],
        )
        return cursor.rowcount, deleted


# --- PostgreSQL binary COPY built by numpy ----------------------------------------------------
# psycopg's write_row costs microseconds per field in Python; these rows are fixed-size, so
# they are laid out as one numpy structured array (each field a big-endian int32 length and its
# bytes) and sent in one piece.
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8
_COPY_TRAILER = b"\xff\xff"
_PG_EPOCH_DAY = 10_957  # PostgreSQL counts dates and timestamps from 2000-01-01
_BINARY = {"int8": ">i8", "int2": ">i2", "float8": ">f8", "date": ">i4", "timestamptz": ">i8"}


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

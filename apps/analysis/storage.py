"""SQL of the analysis results: a fast path for PostgreSQL, a portable one for SQLite.

Every write is a diff: rows that would not change are not touched, so re-running an analysis on
the same data writes nothing (same ids, same bytes) and never bumps anyone's ``updated_at``.
Everything runs inside the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence

import numpy as np
from django.db import connection
from django.utils import timezone

from apps.analysis import results
from apps.analysis.engine import HourOfWeekProfile, PhaseThresholds
from apps.analysis.models import PHASE_KEYS, AnalysisState, InstanceProfile, PhaseSegment
from apps.analysis.results import DaySegments, from_minute, to_minute
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup

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


def _insert_segments(organization_id: int, ids: np.ndarray, segments: DaySegments) -> None:
    if not len(segments):
        return
    if connection.vendor == "postgresql":
        table = PhaseSegment._meta.db_table
        columns = "organization_id, instance_id, phase, start_at, end_at, mean_gpu_util_pct"
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
        with _pg_cursor() as cursor:
            _copy(cursor, f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)", parts)
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


def rollup_phase_minutes_update(
    *, period: str, instance_ids: np.ndarray, starts: np.ndarray, counts: np.ndarray
) -> int:
    """Set ``phase_minutes`` of existing hour (``period="hour"``) or day rollups; rows changed.

    Row i is instance ``instance_ids[i]``, period starting at epoch minute ``starts[i]``, with
    the per-phase minute ``counts[i]`` (Phase order). Only that one column is written: the
    rollup's own ``updated_at`` stays as the metric store left it, because the incremental
    analysis reads it to find new data. Rows that do not exist (hours without any metric
    point) are not created, and rows that already hold the same counts are not rewritten.
    """
    model = InstanceHourRollup if period == "hour" else InstanceDayRollup
    column = "hour_start" if period == "hour" else "day"
    table = model._meta.db_table
    if not len(instance_ids):
        return 0
    if connection.vendor == "postgresql":
        scratch = f"_analysis_{period}_phase_minutes"
        kind = "timestamptz" if period == "hour" else "date"
        moments = (
            _pg_timestamps(starts)
            if period == "hour"
            else starts // results.MINUTES_PER_DAY - _PG_EPOCH_DAY
        )
        phases = ", ".join(f"p{i} int2" for i in range(counts.shape[1]))
        built = (
            "jsonb_build_object("
            + ", ".join(f"'{key}', s.p{i}" for i, key in enumerate(PHASE_KEYS))
            + ")"
        )
        fields = [("int8", instance_ids), (kind, moments)]
        fields += [("int2", counts[:, i]) for i in range(counts.shape[1])]
        with _pg_cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {scratch}")
            cursor.execute(
                f"CREATE TEMP TABLE {scratch} (instance_id int8, {column} {kind}, {phases})"
                " ON COMMIT DROP"
            )
            _copy(cursor, f"COPY {scratch} FROM STDIN (FORMAT BINARY)", [_copy_records(fields)])
            # Temp tables have no statistics; without them the planner may loop per row.
            cursor.execute(f"ANALYZE {scratch}")
            cursor.execute(
                f"UPDATE {table} AS r SET phase_minutes = {built} FROM {scratch} AS s"
                f" WHERE r.instance_id = s.instance_id AND r.{column} = s.{column}"
                f" AND r.phase_minutes IS DISTINCT FROM {built}"
            )
            return cursor.rowcount
    texts = results.phase_minutes_json(counts)
    if period == "hour":
        adapt = connection.ops.adapt_datetimefield_value
        moments_list = [adapt(from_minute(m)) for m in starts.tolist()]
    else:
        adapt = connection.ops.adapt_datefield_value
        moments_list = [adapt(from_minute(m).date()) for m in starts.tolist()]
    sql = (
        f"UPDATE {table} SET phase_minutes = %s WHERE instance_id = %s AND {column} = %s"
        " AND (phase_minutes IS NULL OR phase_minutes != %s)"
    )
    changed = 0
    params = [
        (text, instance_id, moment, text)
        for text, instance_id, moment in zip(
            texts, instance_ids.tolist(), moments_list, strict=True
        )
    ]
    with connection.cursor() as cursor:
        for offset in range(0, len(params), _CHUNK):
            cursor.executemany(sql, params[offset : offset + _CHUNK])
            changed += max(cursor.rowcount, 0)
    return changed


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
    profile: HourOfWeekProfile,
    thresholds: PhaseThresholds,
    end: dt.datetime,
    as_of: dt.datetime,
) -> tuple[int, int]:
    """Create or update the profiles that differ; (profiles written, off windows found)."""
    stored = {
        p.instance_id: p for p in InstanceProfile.objects.filter(instance_id__in=instance_ids)
    }
    creates: list[InstanceProfile] = []
    updates: list[InstanceProfile] = []
    off_windows = 0
    for row, instance_id in enumerate(instance_ids):
        fields, window = results.profile_fields(profile.instance(row), thresholds)
        off_windows += window is not None
        fields.update(start_at=profile.start_utc, end_at=end, computed_at=as_of)
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

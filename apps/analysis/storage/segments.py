"""Phase segments: make the stored segments of a range equal the analysis' (a diff).

A fast path for PostgreSQL (binary COPY into a scratch table, one DELETE and one INSERT) and a
portable one for SQLite. Everything runs inside the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence

import numpy as np
from django.db import connection

from apps.analysis.models import PhaseSegment
from apps.analysis.results import DaySegments
from apps.core import pgcopy
from apps.core.timegrid import datetime_to_epoch_minute, epoch_minute_to_datetime

_SQLITE_BATCH_ROWS = 500
SegmentKey = tuple[int, int]  # (instance id, start epoch minute)
SegmentValue = tuple[int, int, float | None, int]  # (end epoch minute, phase, mean, evidence)


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
        ).values_list(
            "id", "instance_id", "start_at", "end_at", "phase", "mean_gpu_util_pct", "evidence"
        )
    )
    if not stored:
        # The common case of a new range (and the whole of a first analysis): no diff needed.
        _insert_segments(organization_id, ids, segments)
        return len(segments), 0

    end_minute = datetime_to_epoch_minute(end)
    wanted: dict[SegmentKey, SegmentValue] = {}
    for instance_id, first, last, phase, mean, evidence in zip(
        ids.tolist(),
        segments.start_minute.tolist(),
        segments.end_minute.tolist(),
        segments.phase.tolist(),
        segments.mean_gpu_util_pct.tolist(),
        segments.evidence.tolist(),
        strict=True,
    ):
        wanted[(instance_id, first)] = (last, phase, None if math.isnan(mean) else mean, evidence)
    doomed: list[int] = []
    for row_id, instance_id, start_at, end_at, phase, mean, evidence in stored:
        key = (instance_id, datetime_to_epoch_minute(start_at))
        value = (datetime_to_epoch_minute(end_at), phase, mean, evidence)
        if wanted.get(key) == value:
            del wanted[key]  # already stored exactly like this
            continue
        doomed.append(row_id)
        if value[0] > end_minute:
            # The tail after the analysed range was not re-analysed: keep it.
            wanted[(instance_id, end_minute)] = value
    for offset in range(0, len(doomed), _SQLITE_BATCH_ROWS):
        PhaseSegment.objects.filter(id__in=doomed[offset : offset + _SQLITE_BATCH_ROWS]).delete()
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
            evidence=np.array([v[3] for v in values], dtype=np.uint8),
        ),
    )
    return len(keys), len(doomed)


# The nullable mean goes last: rows without one are written with a trailing NULL.
_SEGMENT_COLUMNS = (
    "organization_id, instance_id, phase, start_at, end_at, evidence, mean_gpu_util_pct"
)


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
    with pgcopy.connection_cursor() as cursor:
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
            " start_at timestamptz, end_at timestamptz, evidence int2, mean_gpu_util_pct float8)"
            " ON COMMIT DROP"
        )
        if len(segments):
            pgcopy.send(
                cursor,
                f"COPY {scratch} ({_SEGMENT_COLUMNS}) FROM STDIN (FORMAT BINARY)",
                pgcopy.stream(_segment_records(organization_id, ids, segments)),
            )
        # Temp tables have no statistics; without them the planner may loop per row.
        cursor.execute(f"ANALYZE {scratch}")
        cursor.execute(
            f"WITH doomed AS (DELETE FROM {table} AS t WHERE t.instance_id = ANY(%s)"
            " AND t.start_at >= %s AND t.start_at < %s AND NOT EXISTS ("
            f"SELECT 1 FROM {scratch} AS s WHERE s.instance_id = t.instance_id"
            " AND s.start_at = t.start_at AND s.end_at = t.end_at AND s.phase = t.phase"
            " AND s.evidence = t.evidence"
            " AND s.mean_gpu_util_pct IS NOT DISTINCT FROM t.mean_gpu_util_pct)"
            " RETURNING t.instance_id, t.phase, t.end_at, t.evidence, t.mean_gpu_util_pct),"
            # The tail after the analysed range was not re-analysed: keep it.
            f" tails AS (INSERT INTO {scratch} ({_SEGMENT_COLUMNS})"
            " SELECT %s, instance_id, phase, %s, end_at, evidence, mean_gpu_util_pct FROM doomed"
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
            ("timestamptz", pgcopy.epoch_minutes_to_pg_timestamps(segments.start_minute[rows])),
            ("timestamptz", pgcopy.epoch_minutes_to_pg_timestamps(segments.end_minute[rows])),
            ("int2", segments.evidence[rows]),
        ]
        if with_mean:
            fields.append(("float8", segments.mean_gpu_util_pct[rows]))
        parts.append(pgcopy.records(fields, trailing_nulls=0 if with_mean else 1))
    return parts


def _insert_segments(organization_id: int, ids: np.ndarray, segments: DaySegments) -> None:
    if not len(segments):
        return
    if connection.vendor == "postgresql":
        table = PhaseSegment._meta.db_table
        with pgcopy.connection_cursor() as cursor:
            pgcopy.send(
                cursor,
                f"COPY {table} ({_SEGMENT_COLUMNS}) FROM STDIN (FORMAT BINARY)",
                pgcopy.stream(_segment_records(organization_id, ids, segments)),
            )
        return
    means = segments.mean_gpu_util_pct.tolist()
    PhaseSegment.objects.bulk_create(
        (
            PhaseSegment(
                organization_id=organization_id,
                instance_id=instance_id,
                phase=phase,
                start_at=epoch_minute_to_datetime(first),
                end_at=epoch_minute_to_datetime(last),
                mean_gpu_util_pct=None if math.isnan(mean) else mean,
                evidence=evidence,
            )
            for instance_id, first, last, phase, mean, evidence in zip(
                ids.tolist(),
                segments.start_minute.tolist(),
                segments.end_minute.tolist(),
                segments.phase.tolist(),
                means,
                segments.evidence.tolist(),
                strict=True,
            )
        ),
        batch_size=_SQLITE_BATCH_ROWS,
    )

"""SQL for raw metric days, with a fast path for PostgreSQL and a portable one for SQLite.

PostgreSQL moves the bytes with binary COPY and array parameters (one round trip per step,
bytea never hex-encoded); SQLite uses plain statements, which is fine for the embedded default.
Everything here runs inside the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from django.db import connection

from apps.metrics.constants import DAY_VALUES_BYTES, MINUTES_PER_DAY
from apps.metrics.storage.grid import EPOCH_DAY, STORED_DTYPE, day_to_date, decode_day

TABLE = "metrics_metricday"
# Class id of the advisory locks that serialize merges per instance ("METR").
_LOCK_CLASS = 0x4D455452 & 0x7FFFFFFF
_SQLITE_CHUNK = 500

DayKey = tuple[int, str, int]  # (instance id, metric, epoch day)


def is_postgresql() -> bool:
    return connection.vendor == "postgresql"


def pg_cursor():  # -> psycopg.Cursor
    """A psycopg cursor on Django's connection (so inside its transaction) that binds
    parameters server-side and can return binary results; Django's own cursors bind
    client-side, which renders a 40 MB bytea array as hex text."""
    import psycopg

    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def lock_instances(instance_ids: Iterable[int]) -> None:
    """Serialize read-merge-write of the same instance between concurrent writers.

    Two writers merging into the same day would otherwise both read the old array and the
    second UPDATE would drop the first one's points. PostgreSQL takes transaction-scoped
    advisory locks in a fixed order (no deadlock between two bulk writers); SQLite already runs
    one writing transaction at a time (``transaction_mode=IMMEDIATE`` in settings).
    """
    if not is_postgresql():
        return
    keys = sorted({int(i) & 0x7FFFFFFF for i in instance_ids})
    with pg_cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s, k)"
            " FROM (SELECT k FROM unnest(%s::int4[]) AS k ORDER BY k) AS keys",
            [_LOCK_CLASS, keys],
        )


def fetch_days(keys: Sequence[DayKey]) -> dict[DayKey, tuple[int, np.ndarray]]:
    """The stored (row id, float32 day) of each key that exists."""
    if not keys:
        return {}
    found: dict[DayKey, tuple[int, np.ndarray]] = {}
    if is_postgresql():
        with pg_cursor() as cursor:
            cursor.execute(
                f"SELECT d.id, d.instance_id, d.metric, d.day - DATE '1970-01-01', d.\"values\""
                f" FROM {TABLE} d JOIN unnest(%s::int8[], %s::text[], %s::date[])"
                " AS k(instance_id, metric, day)"
                " ON d.instance_id = k.instance_id AND d.metric = k.metric AND d.day = k.day",
                [[k[0] for k in keys], [k[1] for k in keys], [day_to_date(k[2]) for k in keys]],
                binary=True,
            )
            for row_id, instance_id, metric, day, blob in cursor:
                found[(instance_id, metric, day)] = (row_id, decode_day(blob))
        return found
    wanted = set(keys)
    by_metric: dict[str, set[int]] = defaultdict(set)
    for instance_id, metric, _day in keys:
        by_metric[metric].add(instance_id)
    first_day = day_to_date(min(k[2] for k in keys))
    last_day = day_to_date(max(k[2] for k in keys))
    with connection.cursor() as cursor:
        for metric, instance_ids in by_metric.items():
            ordered = sorted(instance_ids)
            for start in range(0, len(ordered), _SQLITE_CHUNK):
                chunk = ordered[start : start + _SQLITE_CHUNK]
                marks = ",".join(["%s"] * len(chunk))
                cursor.execute(
                    f"SELECT id, instance_id, CAST(julianday(day) - 2440587.5 AS INTEGER),"
                    f' "values" FROM {TABLE} WHERE metric = %s AND instance_id IN ({marks})'
                    " AND day BETWEEN %s AND %s",
                    [metric, *chunk, first_day, last_day],
                )
                for row_id, instance_id, day, blob in cursor.fetchall():
                    key = (instance_id, metric, day)
                    if key in wanted:
                        found[key] = (row_id, decode_day(blob))
    return found


def insert_days(rows: Sequence[tuple[DayKey, bytes, int]], now: dt.datetime) -> None:
    """Insert new days: ((instance, metric, epoch day), values bytes, observed minutes)."""
    if not rows:
        return
    if is_postgresql():
        with (
            pg_cursor() as cursor,
            cursor.copy(
                f'COPY {TABLE} (instance_id, metric, day, "values", minutes_observed, updated_at)'
                " FROM STDIN (FORMAT BINARY)"
            ) as copy,
        ):
            copy.set_types(["int8", "text", "date", "bytea", "int2", "timestamptz"])
            for (instance_id, metric, day), blob, observed in rows:
                copy.write_row((instance_id, metric, day_to_date(day), blob, observed, now))
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            f'INSERT INTO {TABLE} (instance_id, metric, day, "values", minutes_observed,'
            " updated_at) VALUES (%s, %s, %s, %s, %s, %s)",
            [
                (
                    i,
                    m,
                    day_to_date(d),
                    blob,
                    observed,
                    connection.ops.adapt_datetimefield_value(now),
                )
                for (i, m, d), blob, observed in rows
            ],
        )


def update_days(rows: Sequence[tuple[int, bytes, int]], now: dt.datetime) -> None:
    """Replace the values of existing days: (row id, values bytes, observed minutes)."""
    if not rows:
        return
    if is_postgresql():
        with pg_cursor() as cursor:
            cursor.execute(
                f'UPDATE {TABLE} AS d SET "values" = p.v, minutes_observed = p.n, updated_at = %s'
                " FROM unnest(%s::int8[], %s::bytea[], %s::int2[]) AS p(id, v, n)"
                " WHERE d.id = p.id",
                [now, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]],
            )
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            f'UPDATE {TABLE} SET "values" = %s, minutes_observed = %s, updated_at = %s'
            " WHERE id = %s",
            [
                (blob, observed, connection.ops.adapt_datetimefield_value(now), row_id)
                for row_id, blob, observed in rows
            ],
        )


# Binary COPY record of (position int4, day offset int4, values bytea of one day).
_RECORD = np.dtype(
    [
        ("fields", ">i2"),
        ("pos_len", ">i4"),
        ("pos", ">i4"),
        ("day_len", ">i4"),
        ("day", ">i4"),
        ("values_len", ">i4"),
        ("values", STORED_DTYPE, (MINUTES_PER_DAY,)),
    ]
)
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"


def read_into(out: np.ndarray, instance_ids: Sequence[int], metric: str, first_day: int) -> None:
    """Fill ``out`` (instances, days, 1,440) with the stored days from ``first_day`` on.

    Row i of ``out`` is ``instance_ids[i]``; days without a row keep what ``out`` holds (NaN).
    """
    if not len(instance_ids):
        return
    n_days = out.shape[1]
    start = day_to_date(first_day)
    end = day_to_date(first_day + n_days - 1)
    if not is_postgresql():
        _read_into_sqlite(out, instance_ids, metric, start, end)
        return
    # Binary COPY is the fastest way out of PostgreSQL: the bytea arrives as raw bytes and every
    # record has the same size, so numpy decodes the whole stream with one structured view.
    buffer = bytearray()
    with pg_cursor() as cursor:
        query = (
            'COPY (SELECT (k.pos - 1)::int4, d.day - %s::date, d."values"'
            f" FROM {TABLE} d JOIN unnest(%s::int8[]) WITH ORDINALITY AS k(instance_id, pos)"
            " ON d.instance_id = k.instance_id"
            " WHERE d.metric = %s AND d.day BETWEEN %s AND %s) TO STDOUT (FORMAT BINARY)"
        )
        with cursor.copy(query, [start, list(map(int, instance_ids)), metric, start, end]) as copy:
            for block in copy:
                buffer += block
    records = _parse_copy(buffer)
    out[records["pos"], records["day"]] = records["values"]


def _parse_copy(buffer: bytearray) -> np.ndarray:
    if not buffer.startswith(_COPY_SIGNATURE):
        raise ValueError("unexpected COPY stream (no binary signature)")
    extension = int.from_bytes(buffer[15:19], "big")
    body = memoryview(buffer)[19 + extension : len(buffer) - 2]
    if len(body) % _RECORD.itemsize:
        raise ValueError("unexpected COPY stream (a raw day is not 1,440 float32)")
    records = np.frombuffer(body, dtype=_RECORD)
    if records.size and not (
        np.all(records["fields"] == 3) and np.all(records["values_len"] == DAY_VALUES_BYTES)
    ):
        raise ValueError("unexpected COPY stream (record layout)")
    return records


def _read_into_sqlite(
    out: np.ndarray, instance_ids: Sequence[int], metric: str, start: dt.date, end: dt.date
) -> None:
    position = {int(instance_id): i for i, instance_id in enumerate(instance_ids)}
    first_day = (start - EPOCH_DAY).days
    ordered = sorted(position)
    with connection.cursor() as cursor:
        for offset in range(0, len(ordered), _SQLITE_CHUNK):
            chunk = ordered[offset : offset + _SQLITE_CHUNK]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                'SELECT instance_id, CAST(julianday(day) - 2440587.5 AS INTEGER), "values"'
                f" FROM {TABLE} WHERE metric = %s AND instance_id IN ({marks})"
                " AND day BETWEEN %s AND %s",
                [metric, *chunk, start, end],
            )
            for instance_id, day, blob in cursor.fetchall():
                out[position[instance_id], day - first_day] = np.frombuffer(blob, STORED_DTYPE)


def delete_days_before(cutoff: dt.date, batch_size: int) -> int:
    """Delete up to ``batch_size`` raw days older than ``cutoff``; the number deleted."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {TABLE} WHERE id IN"
            f" (SELECT id FROM {TABLE} WHERE day < %s ORDER BY day, id LIMIT %s)",
            [cutoff, batch_size],
        )
        return cursor.rowcount

"""Writes of raw metric days: new day rows, patched day rows, recent points, retention.

PostgreSQL receives fixed-size rows as binary COPY built by numpy; SQLite runs plain
statements, which is fine for the embedded default. Everything here runs inside the caller's
transaction.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence

import numpy as np
from django.db import connection

from apps.core import pgcopy
from apps.core.timegrid import epoch_day_to_date
from apps.metrics.storage import codec
from apps.metrics.storage.points import STORED_DTYPE
from apps.metrics.storage.raw.keys import (
    KEYS_SQL,
    ON_KEYS_SQL,
    RECENT,
    SLOT_DTYPE,
    TABLE,
    is_postgresql,
    key_params,
)

# Class id of the advisory locks that serialize merges per instance ("METR").
_LOCK_CLASS = 0x4D455452 & 0x7FFFFFFF


def lock_instances(instance_ids: Iterable[int]) -> None:
    """Serialize read-merge-write of the same instance between concurrent writers.

    Two writers merging into the same day would otherwise both read the old array and the
    second write would drop the first one's points. PostgreSQL takes transaction-scoped
    advisory locks in a fixed order (no deadlock between two bulk writers); SQLite already runs
    one writing transaction at a time (``transaction_mode=IMMEDIATE`` in settings).
    """
    if not is_postgresql():
        return
    keys = sorted({int(i) & 0x7FFFFFFF for i in instance_ids})
    with pgcopy.connection_cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s, k)"
            " FROM (SELECT k FROM unnest(%s::int4[]) AS k ORDER BY k) AS keys",
            [_LOCK_CLASS, keys],
        )


def insert_days(
    instance_ids: np.ndarray,
    metrics: Sequence[str],
    days: np.ndarray,
    arrays: np.ndarray,
    observed: np.ndarray,
    now: dt.datetime,
) -> None:
    """Insert new day rows: one (1,440,) float32 array and its observed minutes per key."""
    if not len(metrics):
        return
    scales, codes = codec.encode(arrays)
    if is_postgresql():
        metric_names = np.array(metrics)
        parts = []
        for metric in sorted(set(metrics)):
            name = metric.encode()
            for rows, payload in _by_layout(
                np.flatnonzero(metric_names == metric), scales, codes, arrays
            ):
                parts.append(
                    pgcopy.records(
                        [
                            (">i8", instance_ids[rows]),
                            (f"S{len(name)}", np.full(rows.size, name)),
                            (">i4", pgcopy.epoch_days_to_pg_dates(days[rows])),
                            (">i2", scales[rows]),
                            payload,
                            (">i2", observed[rows]),
                            (">i8", np.full(rows.size, pgcopy.datetime_to_pg_timestamp(now))),
                        ]
                    )
                )
        with pgcopy.connection_cursor() as cursor:
            pgcopy.send(
                cursor,
                f'COPY {TABLE} (instance_id, metric, day, scale, "values", minutes_observed,'
                " updated_at) FROM STDIN (FORMAT BINARY)",
                pgcopy.stream(parts),
            )
        return
    stamp = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        cursor.executemany(
            f'INSERT INTO {TABLE} (instance_id, metric, day, scale, "values", minutes_observed,'
            " updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [
                (
                    int(i),
                    m,
                    epoch_day_to_date(d),
                    int(scale),
                    codec.to_bytes(a, scale, c),
                    int(n),
                    stamp,
                )
                for i, m, d, a, scale, c, n in zip(
                    instance_ids, metrics, days, arrays, scales, codes, observed, strict=True
                )
            ],
        )


def _by_layout(
    rows: np.ndarray, scales: np.ndarray, codes: np.ndarray, arrays: np.ndarray
) -> Iterator[tuple[np.ndarray, pgcopy.Field]]:
    """Split ``rows`` into the coded and the raw days, each with its payload field: COPY
    records built by numpy are fixed-size, and the two layouts differ in size."""
    raw = scales[rows] == codec.RAW
    if not raw.all():
        coded = rows[~raw]
        yield coded, (codec.CODE_DTYPE, codes[coded])
    if raw.any():
        yield rows[raw], (STORED_DTYPE, arrays[rows[raw]])


def update_days(
    row_ids: np.ndarray, arrays: np.ndarray | None, observed: np.ndarray, now: dt.datetime
) -> None:
    """Set the observed minutes (and, unless ``arrays`` is None, the values) of day rows."""
    if not len(row_ids):
        return
    if is_postgresql():
        columns, assignments = "id int8, n int2", "minutes_observed = p.n"
        if arrays is None:
            parts = [pgcopy.records([(">i8", row_ids), (">i2", observed)])]
        else:
            scales, codes = codec.encode(arrays)
            columns += ", s int2, v bytea"
            assignments += ', scale = p.s, "values" = p.v'
            parts = [
                pgcopy.records(
                    [
                        (">i8", row_ids[rows]),
                        (">i2", observed[rows]),
                        (">i2", scales[rows]),
                        payload,
                    ]
                )
                for rows, payload in _by_layout(np.arange(len(row_ids)), scales, codes, arrays)
            ]
        with pgcopy.connection_cursor() as cursor:
            cursor.execute(f"CREATE TEMP TABLE IF NOT EXISTS _metricday_patch ({columns})")
            cursor.execute("TRUNCATE _metricday_patch")
            pgcopy.send(
                cursor, "COPY _metricday_patch FROM STDIN (FORMAT BINARY)", pgcopy.stream(parts)
            )
            cursor.execute(
                f"UPDATE {TABLE} AS d SET {assignments}, updated_at = %s"
                " FROM _metricday_patch AS p WHERE d.id = p.id",
                [now],
            )
            cursor.execute("DROP TABLE _metricday_patch")
        return
    stamp = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        if arrays is None:
            cursor.executemany(
                f"UPDATE {TABLE} SET minutes_observed = %s, updated_at = %s WHERE id = %s",
                [(int(n), stamp, int(i)) for i, n in zip(row_ids, observed, strict=True)],
            )
            return
        scales, codes = codec.encode(arrays)
        cursor.executemany(
            f'UPDATE {TABLE} SET scale = %s, "values" = %s, minutes_observed = %s,'
            " updated_at = %s WHERE id = %s",
            [
                (int(scale), codec.to_bytes(a, scale, c), int(n), stamp, int(i))
                for i, a, scale, c, n in zip(row_ids, arrays, scales, codes, observed, strict=True)
            ],
        )


def upsert_recent(
    instance_ids: np.ndarray,
    metrics: Sequence[str],
    days: np.ndarray,
    slots: Sequence[np.ndarray],
    values: Sequence[np.ndarray],
    now: dt.datetime,
) -> None:
    """Store the complete recent points (slots ascending) of each key, replacing older ones."""
    if not len(metrics):
        return
    rows = [
        (
            int(i),
            m,
            epoch_day_to_date(d),
            s.astype(SLOT_DTYPE).tobytes(),
            v.astype(STORED_DTYPE).tobytes(),
        )
        for i, m, d, s, v in zip(instance_ids, metrics, days, slots, values, strict=True)
    ]
    columns = 'instance_id, metric, day, slots, "values"'
    if is_postgresql():
        with pgcopy.connection_cursor() as cursor:
            cursor.execute(
                f"CREATE TEMP TABLE IF NOT EXISTS _recent_patch AS SELECT {columns}"
                f" FROM {RECENT} WITH NO DATA"
            )
            cursor.execute("TRUNCATE _recent_patch")
            with cursor.copy(f"COPY _recent_patch ({columns}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["int8", "text", "date", "bytea", "bytea"])
                for row in rows:
                    copy.write_row(row)
            cursor.execute(
                f"INSERT INTO {RECENT} ({columns}, updated_at) SELECT {columns}, %s"
                " FROM _recent_patch ON CONFLICT (instance_id, metric, day) DO UPDATE"
                ' SET slots = EXCLUDED.slots, "values" = EXCLUDED."values",'
                " updated_at = EXCLUDED.updated_at",
                [now],
            )
            cursor.execute("DROP TABLE _recent_patch")
        return
    stamp = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {RECENT} ({columns}, updated_at) VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (instance_id, metric, day) DO UPDATE SET slots = excluded.slots,"
            ' "values" = excluded."values", updated_at = excluded.updated_at',
            [(*row, stamp) for row in rows],
        )


def delete_recent(instance_ids: np.ndarray, metrics: Sequence[str], days: np.ndarray) -> None:
    """Drop the recent points of the keys (after they were folded into the day rows)."""
    if not len(metrics):
        return
    if is_postgresql():
        with pgcopy.connection_cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {RECENT} t USING {KEYS_SQL} WHERE {ON_KEYS_SQL}",
                key_params(instance_ids, metrics, days),
            )
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            f"DELETE FROM {RECENT} WHERE instance_id = %s AND metric = %s AND day = %s",
            [
                (int(i), m, epoch_day_to_date(d))
                for i, m, d in zip(instance_ids, metrics, days, strict=True)
            ],
        )


def delete_days_before(cutoff: dt.date, batch_size: int) -> int:
    """Delete up to ``batch_size`` raw days older than ``cutoff``; the day rows deleted.

    Their recent points go first, so a recent row never outlives its day row.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {RECENT} WHERE id IN"
            f" (SELECT id FROM {RECENT} WHERE day < %s ORDER BY day, id LIMIT %s)",
            [cutoff, batch_size],
        )
        cursor.execute(
            f"DELETE FROM {TABLE} WHERE id IN"
            f" (SELECT id FROM {TABLE} WHERE day < %s ORDER BY day, id LIMIT %s)",
            [cutoff, batch_size],
        )
        return cursor.rowcount

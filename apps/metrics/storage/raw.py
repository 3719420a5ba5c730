"""SQL for raw metric days, with a fast path for PostgreSQL and a portable one for SQLite.

A raw day is its MetricDay row (1,440 values, laid out as ``codec`` says) with the points of its
MetricDayRecent row, if any, applied over it. PostgreSQL moves the bytes with binary COPY built
and parsed by numpy (one round trip per step, bytea never hex-encoded); SQLite uses plain
statements, which is fine for the embedded default. Everything here runs inside the caller's
transaction.

Keys are given column-wise: instance ids, metric names and epoch days, one entry per key.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import struct
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

import numpy as np
from django.db import connection

from apps.metrics.constants import MINUTES_PER_DAY, Metric
from apps.metrics.storage import codec, pgcopy
from apps.metrics.storage.grid import STORED_DTYPE, date_to_day, day_to_date

TABLE = "metrics_metricday"
RECENT = "metrics_metricdayrecent"
# Class id of the advisory locks that serialize merges per instance ("METR").
_LOCK_CLASS = 0x4D455452 & 0x7FFFFFFF
_SQLITE_CHUNK = 500
SLOT_DTYPE = np.dtype("<i2")
# The scales a stored day can have, spelled in the fleet read's SQL (one aggregate each).
_ALL_SCALES = (codec.RAW, *codec.SCALES)
# A merge's COPY row up to the day's bytes: the length and value of its key index (int4), row
# id (int8) and scale (int2), then the length of the day.
_FETCH_ROW = struct.Struct(">iiiqihi")
# A fleet read's COPY row starts with the length and value of the instance id (int8); each
# field after it with its length (-1 for NULL).
_ID_FIELD = struct.Struct(">iq")
_LENGTH = struct.Struct(">i")


def _copy_rows(cursor, sql: str, params: Sequence, fields: int) -> Iterator[tuple[memoryview, int]]:
    """Yield (message, offset of its first field) per row of a binary ``COPY ... TO STDOUT``
    whose rows have ``fields`` fields.

    PostgreSQL sends one message per row (the first also carries the stream header, the
    trailer comes alone), so each row is decoded and released as it comes and a fleet read
    never holds its bytes twice.
    """
    with cursor.copy(sql, params) as copy:
        offset = None
        for message in copy:
            offset = 0 if offset is not None else _stream_header_length(message)
            if len(message) - offset == len(pgcopy.TRAILER) or len(message) == offset:
                continue
            if int.from_bytes(message[offset : offset + 2], "big") != fields:
                raise _unexpected(f"a row without {fields} fields")
            yield memoryview(message), offset + 2


def _unexpected(what: str) -> ValueError:
    return ValueError(f"unexpected COPY stream ({what})")


def _stream_header_length(message: bytes | memoryview) -> int:
    if bytes(message[: len(pgcopy.SIGNATURE)]) != pgcopy.SIGNATURE:
        raise _unexpected("no binary signature")
    return 19 + int.from_bytes(message[15:19], "big")


@dataclasses.dataclass
class DayState:
    """What is stored for a list of keys: the effective days and where they come from."""

    days: np.ndarray  # (keys, 1,440) float32, NaN where no point (or no row)
    row_ids: np.ndarray  # (keys,) int64 MetricDay id, 0 where the day has no row yet
    recent_keys: np.ndarray  # key index of each point held in a MetricDayRecent row
    recent_slots: np.ndarray  # its minute of the day


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
    second write would drop the first one's points. PostgreSQL takes transaction-scoped
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


def _key_params(instance_ids: np.ndarray, metrics: Sequence[str], days: np.ndarray) -> list:
    # Sent as binary integer arrays: dumping thousands of metric names as text[] cost more
    # than the query itself.
    return [
        np.asarray(instance_ids).tolist(),
        [_METRIC_CODES[m] for m in metrics],
        np.asarray(days).tolist(),
    ]


_METRIC_CODES = {metric: code for code, metric in enumerate(Metric.values, start=1)}
# unnest of the keys, numbered from 0 in column i; joined on (instance, metric, day). Metric
# names are the fixed vocabulary, so they are spelled in the statement.
_KEYS = (
    "(SELECT k.instance_id, (ARRAY["
    + ", ".join(f"'{metric}'" for metric in _METRIC_CODES)
    + "])[k.code] AS metric, DATE '1970-01-01' + k.day AS day, (k.n - 1)::int4 AS i"
    " FROM unnest(%b::int8[], %b::int2[], %b::int4[]) WITH ORDINALITY"
    " AS k(instance_id, code, day, n)) AS k"
)
_ON = "t.instance_id = k.instance_id AND t.metric = k.metric AND t.day = k.day"


def fetch_state(instance_ids: np.ndarray, metrics: Sequence[str], days: np.ndarray) -> DayState:
    """The effective stored days of the keys (NaN days for keys without a row)."""
    count = len(metrics)
    state = DayState(
        days=np.full((count, MINUTES_PER_DAY), np.nan, dtype=np.float32),
        row_ids=np.zeros(count, dtype=np.int64),
        recent_keys=np.zeros(0, dtype=np.int64),
        recent_slots=np.zeros(0, dtype=np.int64),
    )
    if not count:
        return state
    if is_postgresql():
        params = _key_params(instance_ids, metrics, days)
        with pg_cursor() as cursor:
            for message, at in _copy_rows(
                cursor,
                f'COPY (SELECT k.i, t.id, t.scale, t."values" FROM {_KEYS} JOIN {TABLE} t'
                f" ON {_ON}) TO STDOUT (FORMAT BINARY)",
                params,
                fields=4,
            ):
                length_i, key, length_id, row_id, length_scale, scale, size = (
                    _FETCH_ROW.unpack_from(message, at)
                )
                if (
                    (length_i, length_id, length_scale) != (4, 8, 2)
                    or size != codec.payload_bytes(scale)
                    or len(message) != at + _FETCH_ROW.size + size
                ):
                    raise _unexpected("a raw day of the wrong size")
                state.row_ids[key] = row_id
                codec.from_bytes(message, scale, state.days[key], at + _FETCH_ROW.size)
            cursor.execute(
                f'SELECT k.i, t.slots, t."values" FROM {_KEYS} JOIN {RECENT} t ON {_ON}',
                params,
                binary=True,
            )
            recent = cursor.fetchall()
    else:
        index = {
            (int(i), m, int(d)): n
            for n, (i, m, d) in enumerate(zip(instance_ids, metrics, days, strict=True))
        }
        for key, (row_id, scale, blob) in _sqlite_select(TABLE, "id, scale", index):
            state.row_ids[index[key]] = row_id
            codec.from_bytes(blob, scale, state.days[index[key]])
        recent = [
            (index[key], slots, values)
            for key, (slots, values) in _sqlite_select(RECENT, "slots", index)
        ]
    if recent:
        keys, slots = _apply_recent(state.days, recent)
        state.recent_keys, state.recent_slots = keys, slots
    return state


def _apply_recent(days: np.ndarray, recent: list) -> tuple[np.ndarray, np.ndarray]:
    """Apply (key index, slots, values) rows over ``days``; the (key, slot) of every point."""
    slot_parts = [np.frombuffer(row[1], SLOT_DTYPE).astype(np.int64) for row in recent]
    value_parts = [np.frombuffer(row[2], STORED_DTYPE) for row in recent]
    keys = np.repeat(
        np.array([row[0] for row in recent], dtype=np.int64), [p.size for p in slot_parts]
    )
    slots = np.concatenate(slot_parts)
    days[keys, slots] = np.concatenate(value_parts)
    return keys, slots


def _sqlite_select(table: str, columns: str, index: dict[tuple[int, str, int], int]):
    """(key, (*columns, values)) of the rows of ``table`` matching the keys of ``index``."""
    by_metric: dict[str, set[int]] = defaultdict(set)
    for instance_id, metric, _day in index:
        by_metric[metric].add(instance_id)
    first_day = day_to_date(min(k[2] for k in index))
    last_day = day_to_date(max(k[2] for k in index))
    with connection.cursor() as cursor:
        for metric, instance_ids in by_metric.items():
            ordered = sorted(instance_ids)
            for start in range(0, len(ordered), _SQLITE_CHUNK):
                chunk = ordered[start : start + _SQLITE_CHUNK]
                marks = ",".join(["%s"] * len(chunk))
                cursor.execute(
                    f'SELECT instance_id, day, {columns}, "values" FROM {table} WHERE metric = %s'
                    f" AND instance_id IN ({marks}) AND day BETWEEN %s AND %s",
                    [metric, *chunk, first_day, last_day],
                )
                for instance_id, day, *rest in cursor.fetchall():
                    key = (instance_id, metric, date_to_day(_date(day)))
                    if key in index:
                        yield key, rest


def _date(value: dt.date | str) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(value)


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
                            (">i4", pgcopy.epoch_days_to_pg(days[rows])),
                            (">i2", scales[rows]),
                            payload,
                            (">i2", observed[rows]),
                            (">i8", np.full(rows.size, pgcopy.datetime_to_pg(now))),
                        ]
                    )
                )
        with pg_cursor() as cursor:
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
                (int(i), m, day_to_date(d), int(scale), codec.to_bytes(a, scale, c), int(n), stamp)
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
    scales, codes = codec.encode(arrays) if arrays is not None else (None, None)
    if is_postgresql():
        columns, assignments = "id int8, n int2", "minutes_observed = p.n"
        if arrays is None:
            parts = [pgcopy.records([(">i8", row_ids), (">i2", observed)])]
        else:
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
        with pg_cursor() as cursor:
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
            day_to_date(d),
            s.astype(SLOT_DTYPE).tobytes(),
            v.astype(STORED_DTYPE).tobytes(),
        )
        for i, m, d, s, v in zip(instance_ids, metrics, days, slots, values, strict=True)
    ]
    columns = 'instance_id, metric, day, slots, "values"'
    if is_postgresql():
        with pg_cursor() as cursor:
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
        with pg_cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {RECENT} t USING {_KEYS} WHERE {_ON}",
                _key_params(instance_ids, metrics, days),
            )
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            f"DELETE FROM {RECENT} WHERE instance_id = %s AND metric = %s AND day = %s",
            [
                (int(i), m, day_to_date(d))
                for i, m, d in zip(instance_ids, metrics, days, strict=True)
            ],
        )


def recent_keys(limit: int) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Up to ``limit`` keys that have recent points, oldest first."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT instance_id, metric, day FROM {RECENT} ORDER BY updated_at, id LIMIT %s",
            [limit],
        )
        rows = cursor.fetchall()
    return (
        np.array([r[0] for r in rows], dtype=np.int64),
        [r[1] for r in rows],
        np.array([date_to_day(_date(r[2])) for r in rows], dtype=np.int64),
    )


def read_into(out: np.ndarray, instance_ids: Sequence[int], metric: str, first_day: int) -> None:
    """Fill ``out`` (instances, days, 1,440) with the stored days from ``first_day`` on.

    Row i of ``out`` is ``instance_ids[i]``; days without a row are NaN. ``out`` may come
    uninitialized (``np.empty``): on PostgreSQL only the days without a row are NaN-filled, which
    spares the fleet read a pass over its whole array.
    """
    if not len(instance_ids):
        return
    n_days = out.shape[1]
    start = day_to_date(first_day)
    end = day_to_date(first_day + n_days - 1)
    ids = np.asarray(instance_ids, dtype=np.int64)
    sorted_ids = np.sort(ids)
    if not is_postgresql():
        out.fill(np.nan)
        _read_into_sqlite(out, ids, metric, start, end)
        return
    if n_days > _MAX_READ_DAYS:
        raise ValueError(f"a read spans at most {_MAX_READ_DAYS} days")
    # One COPY row per instance carrying all its days: per scale, a run of fixed-size (day
    # offset, day) records that numpy decodes in one call (30 rows of one day each cost
    # Python more than PostgreSQL spends sending them). ``instance_id = ANY(...)`` probes the
    # (instance, metric, day) index per instance, so a read of 100 instances costs a tenth of a
    # read of 1,000 whatever the planner's statistics say.
    runs = ", ".join(
        f"string_agg(t.record, ''::bytea) FILTER (WHERE t.scale = {scale})" for scale in _ALL_SCALES
    )
    where = "t.instance_id = ANY(%s) AND t.metric = %s AND t.day BETWEEN %s AND %s"
    params = [start, sorted_ids.tolist(), metric, start, end]
    position = {int(i): p for p, i in enumerate(ids.tolist())}
    stored = np.zeros(out.shape[:2], dtype=bool)
    offsets = np.arange(n_days)
    with pg_cursor() as cursor:
        for message, at in _copy_rows(
            cursor,
            f"COPY (SELECT t.instance_id, {runs} FROM (SELECT t.instance_id, t.scale,"
            f' int2send((t.day - %s::date)::int2) || t."values" AS record FROM {TABLE} t'
            f" WHERE {where}) AS t GROUP BY t.instance_id) TO STDOUT (FORMAT BINARY)",
            params,
            fields=1 + len(_ALL_SCALES),
        ):
            length, instance_id = _ID_FIELD.unpack_from(message, at)
            if length != 8:
                raise _unexpected("an instance id that is not int8")
            p = position[instance_id]
            at += _ID_FIELD.size
            for scale in _ALL_SCALES:
                (length,) = _LENGTH.unpack_from(message, at)
                at += _LENGTH.size
                if length > 0:  # -1: no day of this scale
                    _decode_run(message, at, length, scale, out[p], stored[p], offsets)
                    at += length
        out[~stored] = np.nan
        cursor.execute(
            f'SELECT t.instance_id, t.day - %s::date, t.slots, t."values" FROM {RECENT} t'
            f" WHERE {where}",
            params,
            binary=True,
        )
        recent = cursor.fetchall()
    for instance_id, day, slots, values in recent:
        out[position[instance_id], day, np.frombuffer(slots, SLOT_DTYPE)] = np.frombuffer(
            values, STORED_DTYPE
        )


_MAX_READ_DAYS = 32_767  # day offsets travel as int2
# A record of the fleet read: the day's offset from the first day read, then the day.
_RUN_RECORDS = {
    scale: np.dtype(
        [("day", ">i2"), ("values", codec.CODE_DTYPE if scale else STORED_DTYPE, MINUTES_PER_DAY)]
    )
    for scale in _ALL_SCALES
}


def _decode_run(
    message: memoryview,
    at: int,
    length: int,
    scale: int,
    out: np.ndarray,
    stored: np.ndarray,
    offsets: np.ndarray,
) -> None:
    """Decode a run of one instance's days of one scale into ``out`` (days read, 1,440).

    ``offsets`` is ``arange(days read)``. A run of consecutive days (the usual case: an
    instance that existed all along, or since some day) is decoded straight into place.
    """
    layout = _RUN_RECORDS[scale]
    count, rest = divmod(length, layout.itemsize)
    if rest or not count:
        raise _unexpected("a raw day of the wrong size")
    records = np.frombuffer(message, layout, count, at)
    days = records["day"].astype(np.intp)
    first = int(days[0])
    if first < 0:
        raise _unexpected("a day before the range read")
    in_place = np.array_equal(days, offsets[first : first + count])
    target = (
        out[first : first + count] if in_place else np.empty((count, MINUTES_PER_DAY), np.float32)
    )
    if scale == codec.RAW:
        target[:] = records["values"]
    else:
        codec.decode(records["values"], scale, target)
    if in_place:
        stored[first : first + count] = True
    else:
        out[days] = target  # IndexError for a day past the range read
        stored[days] = True


def _read_into_sqlite(
    out: np.ndarray, ids: np.ndarray, metric: str, start: dt.date, end: dt.date
) -> None:
    position = {int(instance_id): i for i, instance_id in enumerate(ids)}
    first_day = date_to_day(start)
    ordered = sorted(position)
    with connection.cursor() as cursor:
        # Day rows first, then their recent points over them.
        for table, column in ((TABLE, "scale"), (RECENT, "slots")):
            for offset in range(0, len(ordered), _SQLITE_CHUNK):
                chunk = ordered[offset : offset + _SQLITE_CHUNK]
                marks = ",".join(["%s"] * len(chunk))
                cursor.execute(
                    f'SELECT instance_id, day, {column}, "values" FROM {table} WHERE metric = %s'
                    f" AND instance_id IN ({marks}) AND day BETWEEN %s AND %s",
                    [metric, *chunk, start, end],
                )
                for instance_id, day, extra, blob in cursor.fetchall():
                    target = out[position[instance_id], date_to_day(_date(day)) - first_day]
                    if table == TABLE:
                        codec.from_bytes(blob, extra, target)
                    else:
                        target[np.frombuffer(extra, SLOT_DTYPE)] = np.frombuffer(blob, STORED_DTYPE)


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

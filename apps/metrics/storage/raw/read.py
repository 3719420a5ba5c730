"""Reads of raw metric days: the state a merge starts from, and the fleet read.

A raw day is its MetricDay row (1,440 values, laid out as ``codec`` says) with the points of its
MetricDayRecent row, if any, applied over it. PostgreSQL sends the bytes as binary COPY parsed
by numpy (one round trip per step, bytea never hex-encoded); SQLite uses plain statements,
which is fine for the embedded default.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import struct
from collections.abc import Sequence

import numpy as np
from django.db import connection

from apps.core import pgcopy
from apps.core.timegrid import MINUTES_PER_DAY, date_to_epoch_day, epoch_day_to_date
from apps.metrics.storage import codec
from apps.metrics.storage.points import STORED_DTYPE
from apps.metrics.storage.raw.keys import (
    KEYS_SQL,
    ON_KEYS_SQL,
    RECENT,
    SLOT_DTYPE,
    TABLE,
    as_date,
    is_postgresql,
    key_params,
    sqlite_rows,
    sqlite_select_keys,
)

# The scales a stored day can have, spelled in the fleet read's SQL (one aggregate each).
_ALL_SCALES = (codec.RAW, *codec.SCALES)
# A merge's COPY row up to the day's bytes: the length and value of its key index (int4), row
# id (int8) and scale (int2), then the length of the day.
_FETCH_ROW = struct.Struct(">iiiqihi")
# A fleet read's COPY row starts with the length and value of the instance id (int8); each
# field after it with its length (-1 for NULL).
_ID_FIELD = struct.Struct(">iq")
_LENGTH = struct.Struct(">i")


@dataclasses.dataclass
class DayState:
    """What is stored for a list of keys: the effective days and where they come from."""

    days: np.ndarray  # (keys, 1,440) float32, NaN where no point (or no row)
    row_ids: np.ndarray  # (keys,) int64 MetricDay id, 0 where the day has no row yet
    recent_keys: np.ndarray  # key index of each point held in a MetricDayRecent row
    recent_slots: np.ndarray  # its minute of the day


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
        params = key_params(instance_ids, metrics, days)
        with pgcopy.connection_cursor() as cursor:
            for message, at in pgcopy.copy_out_rows(
                cursor,
                f'COPY (SELECT k.i, t.id, t.scale, t."values" FROM {KEYS_SQL} JOIN {TABLE} t'
                f" ON {ON_KEYS_SQL}) TO STDOUT (FORMAT BINARY)",
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
                    raise pgcopy.unexpected_stream("a raw day of the wrong size")
                state.row_ids[key] = row_id
                codec.from_bytes(message, scale, state.days[key], at + _FETCH_ROW.size)
            cursor.execute(
                f'SELECT k.i, t.slots, t."values" FROM {KEYS_SQL} JOIN {RECENT} t ON {ON_KEYS_SQL}',
                params,
                binary=True,
            )
            recent = cursor.fetchall()
    else:
        index = {
            (int(i), m, int(d)): n
            for n, (i, m, d) in enumerate(zip(instance_ids, metrics, days, strict=True))
        }
        for key, (row_id, scale, blob) in sqlite_select_keys(TABLE, "id, scale", index):
            state.row_ids[index[key]] = row_id
            codec.from_bytes(blob, scale, state.days[index[key]])
        recent = [
            (index[key], slots, values)
            for key, (slots, values) in sqlite_select_keys(RECENT, "slots", index)
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
        np.array([date_to_epoch_day(as_date(r[2])) for r in rows], dtype=np.int64),
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
    start = epoch_day_to_date(first_day)
    end = epoch_day_to_date(first_day + n_days - 1)
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
    with pgcopy.connection_cursor() as cursor:
        for message, at in pgcopy.copy_out_rows(
            cursor,
            f"COPY (SELECT t.instance_id, {runs} FROM (SELECT t.instance_id, t.scale,"
            f' int2send((t.day - %s::date)::int2) || t."values" AS record FROM {TABLE} t'
            f" WHERE {where}) AS t GROUP BY t.instance_id) TO STDOUT (FORMAT BINARY)",
            params,
            fields=1 + len(_ALL_SCALES),
        ):
            length, instance_id = _ID_FIELD.unpack_from(message, at)
            if length != 8:
                raise pgcopy.unexpected_stream("an instance id that is not int8")
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
        raise pgcopy.unexpected_stream("a raw day of the wrong size")
    records = np.frombuffer(message, layout, count, at)
    days = records["day"].astype(np.intp)
    first = int(days[0])
    if first < 0:
        raise pgcopy.unexpected_stream("a day before the range read")
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
    first_day = date_to_epoch_day(start)
    # Day rows first, then their recent points over them.
    for table, column in ((TABLE, "scale"), (RECENT, "slots")):
        for instance_id, day, (extra, blob) in sqlite_rows(
            table, column, metric, list(position), start, end
        ):
            target = out[position[instance_id], day - first_day]
            if table == TABLE:
                codec.from_bytes(blob, extra, target)
            else:
                target[np.frombuffer(extra, SLOT_DTYPE)] = np.frombuffer(blob, STORED_DTYPE)

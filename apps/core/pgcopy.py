"""PostgreSQL binary COPY, built and parsed by numpy, on Django's own connection.

psycopg's ``write_row`` costs microseconds per field in Python; a batch of rollups, raw days or
analysis results is thousands of rows of fixed-size fields, so the records are laid out as one
numpy structured array instead (each field a big-endian int32 length followed by its bytes) and
sent in one piece. A NULL makes a record shorter, so NULLs are either trailing fields of a
layout of their own (``records(..., trailing_nulls=n)``) or sent as NaN / 0 and turned into
NULL by SQL (``NULLIF``).

The reading side (``copy_out_rows``) hands out one row per message, so a large read is decoded
as it streams and never held twice.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from django.db import connection

from apps.core.timegrid import MINUTES_PER_DAY, SECONDS_PER_MINUTE, datetime_to_epoch_microseconds

SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
HEADER = SIGNATURE + b"\x00\x00\x00\x00\x00\x00\x00\x00"  # flags, header extension length
TRAILER = b"\xff\xff"
# PostgreSQL counts dates and timestamps from 2000-01-01, in days and microseconds.
PG_EPOCH_DAY = 10_957
PG_EPOCH_MINUTE = PG_EPOCH_DAY * MINUTES_PER_DAY
PG_EPOCH_US = PG_EPOCH_DAY * 86_400 * 1_000_000
_MICROSECONDS_PER_MINUTE = SECONDS_PER_MINUTE * 1_000_000
_SEND_CHUNK_BYTES = 1 << 20
_NULL_LENGTH = -1

# Field types by PostgreSQL type name: the big-endian numpy type of its binary form.
BINARY_TYPES: dict[str, str] = {
    "int8": ">i8",
    "int4": ">i4",
    "int2": ">i2",
    "float8": ">f8",
    "float4": ">f4",
    "date": ">i4",
    "timestamptz": ">i8",
}

# (type, values): the type is a PostgreSQL type name of ``BINARY_TYPES`` or a numpy dtype;
# ``values`` has one entry per row (a sub-array for a fixed-size bytea, such as a raw day).
Field = tuple[Any, np.ndarray]


def records(fields: Sequence[Field], *, trailing_nulls: int = 0) -> bytes:
    """COPY records (no header) of ``len(fields[0][1])`` rows.

    ``trailing_nulls`` NULL fields are appended to every record (for a nullable last column
    of rows that all lack it).
    """
    count = len(fields[0][1])
    layout: list[tuple] = [("count", ">i2")]
    for index, (kind, values) in enumerate(fields):
        dtype = np.dtype(BINARY_TYPES.get(kind, kind) if isinstance(kind, str) else kind)
        layout += [(f"l{index}", ">i4"), (f"v{index}", dtype, np.shape(values)[1:])]
    layout += [(f"n{index}", ">i4") for index in range(trailing_nulls)]
    out = np.empty(count, dtype=np.dtype(layout))
    out["count"] = len(fields) + trailing_nulls
    for index, (_kind, values) in enumerate(fields):
        out[f"l{index}"] = out.dtype[f"v{index}"].itemsize
        out[f"v{index}"] = values
    for index in range(trailing_nulls):
        out[f"n{index}"] = _NULL_LENGTH
    return out.tobytes()


def stream(parts: Iterable[bytes]) -> bytes:
    """A complete binary COPY stream of the given record blocks."""
    return HEADER + b"".join(parts) + TRAILER


def send(cursor: Any, sql: str, payload: bytes) -> None:
    """Run ``COPY ... FROM STDIN (FORMAT BINARY)`` with a complete binary stream.

    ``cursor`` is a psycopg cursor (``connection_cursor()``).
    """
    view = memoryview(payload)
    with cursor.copy(sql) as copy:
        for offset in range(0, len(view), _SEND_CHUNK_BYTES):
            copy.write(view[offset : offset + _SEND_CHUNK_BYTES])


def copy_out_rows(
    cursor: Any, sql: str, params: Sequence, fields: int
) -> Iterator[tuple[memoryview, int]]:
    """Yield (message, offset of its first field) per row of a ``COPY ... TO STDOUT (FORMAT
    BINARY)`` whose rows have ``fields`` fields.

    PostgreSQL sends one message per row (the first also carries the stream header, the
    trailer comes alone), so each row is decoded and released as it comes.
    """
    with cursor.copy(sql, params) as copy:
        offset = None
        for message in copy:
            offset = 0 if offset is not None else _stream_header_length(message)
            if len(message) - offset == len(TRAILER) or len(message) == offset:
                continue
            if int.from_bytes(message[offset : offset + 2], "big") != fields:
                raise unexpected_stream(f"a row without {fields} fields")
            yield memoryview(message), offset + 2


def unexpected_stream(what: str) -> ValueError:
    return ValueError(f"unexpected COPY stream ({what})")


def _stream_header_length(message: bytes | memoryview) -> int:
    if bytes(message[: len(SIGNATURE)]) != SIGNATURE:
        raise unexpected_stream("no binary signature")
    # The signature, 4 bytes of flags, then the header extension's length and bytes.
    return 19 + int.from_bytes(message[15:19], "big")


def connection_cursor() -> Any:  # -> psycopg.Cursor
    """A psycopg cursor on Django's connection (so inside its transaction) that binds
    parameters server-side and can return binary results; Django's own cursors bind
    client-side, which renders a 40 MB bytea array as hex text."""
    import psycopg

    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def epoch_days_to_pg_dates(epoch_days: np.ndarray) -> np.ndarray:
    """Epoch days as PostgreSQL's binary date (days since 2000-01-01)."""
    return np.asarray(epoch_days, dtype=np.int64) - PG_EPOCH_DAY


def epoch_minutes_to_pg_timestamps(epoch_minutes: np.ndarray) -> np.ndarray:
    """Epoch minutes as PostgreSQL's binary timestamptz (microseconds since 2000-01-01)."""
    return (np.asarray(epoch_minutes, dtype=np.int64) - PG_EPOCH_MINUTE) * _MICROSECONDS_PER_MINUTE


def epoch_microseconds_to_pg_timestamps(epoch_us: np.ndarray) -> np.ndarray:
    """Unix-epoch microseconds as PostgreSQL's binary timestamptz."""
    return np.asarray(epoch_us, dtype=np.int64) - PG_EPOCH_US


def datetime_to_pg_timestamp(moment: dt.datetime) -> int:
    """An aware datetime as PostgreSQL's binary timestamptz (microseconds since 2000-01-01)."""
    return datetime_to_epoch_microseconds(moment) - PG_EPOCH_US

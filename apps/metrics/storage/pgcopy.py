"""PostgreSQL binary COPY streams built by numpy, for fixed-size rows.

psycopg's ``write_row`` costs microseconds per field in Python; a rollup or raw-day batch is
thousands of rows of fixed-size fields, so the records are laid out as one numpy structured
array instead (each field is a big-endian int32 length followed by its bytes) and sent in one
piece. NULLs would make records variable-sized, so callers send NaN or 0 and let SQL turn
them into NULL (``NULLIF``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

import numpy as np

SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
HEADER = SIGNATURE + b"\x00\x00\x00\x00\x00\x00\x00\x00"
TRAILER = b"\xff\xff"
# PostgreSQL counts dates and timestamps from 2000-01-01.
PG_EPOCH_DAY = 10_957
PG_EPOCH_US = PG_EPOCH_DAY * 86_400 * 1_000_000
_CHUNK = 1 << 20

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

Field = tuple[np.dtype | str, np.ndarray]


def records(fields: Sequence[Field]) -> bytes:
    """COPY records (no header) of ``len(fields[0][1])`` rows; each field is (dtype, values).

    ``values`` has one entry per row (a sub-array for a fixed-size bytea such as a raw day).
    """
    count = len(fields[0][1])
    layout: list[tuple] = [("count", ">i2")]
    for index, (dtype, values) in enumerate(fields):
        shape = np.shape(values)[1:]
        layout += [(f"l{index}", ">i4"), (f"v{index}", np.dtype(dtype), shape)]
    out = np.empty(count, dtype=np.dtype(layout))
    out["count"] = len(fields)
    for index, (_dtype, values) in enumerate(fields):
        out[f"l{index}"] = out.dtype[f"v{index}"].itemsize
        out[f"v{index}"] = values
    return out.tobytes()


def stream(parts: Iterable[bytes]) -> bytes:
    return HEADER + b"".join(parts) + TRAILER


def send(cursor, sql: str, payload: bytes) -> None:
    """Run ``COPY ... FROM STDIN (FORMAT BINARY)`` with a complete binary stream."""
    view = memoryview(payload)
    with cursor.copy(sql) as copy:
        for offset in range(0, len(view), _CHUNK):
            copy.write(view[offset : offset + _CHUNK])


def epoch_days_to_pg(days: np.ndarray) -> np.ndarray:
    return np.asarray(days, dtype=np.int64) - PG_EPOCH_DAY


def datetime_to_pg(moment: dt.datetime) -> int:
    """Microseconds since 2000-01-01 UTC of an aware datetime."""
    delta = moment - dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
    return delta // dt.timedelta(microseconds=1)

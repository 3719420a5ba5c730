"""The one PostgreSQL binary-COPY module: the layout it builds, and PostgreSQL reading it back."""

from __future__ import annotations

import datetime as dt
import struct

import numpy as np
import pytest
from django.db import connection

from apps.core import pgcopy
from apps.core.timegrid import date_to_epoch_day, datetime_to_epoch_minute


def test_it_lays_out_each_record_as_a_field_count_then_length_and_big_endian_value() -> None:
    payload = pgcopy.records(
        [("int8", np.array([1, -2])), ("int2", np.array([3, 4])), ("float8", np.array([0.5, 1.5]))],
        trailing_nulls=1,
    )
    record = struct.Struct(">h iq ih id i")
    assert len(payload) == 2 * record.size
    assert record.unpack_from(payload, 0) == (4, 8, 1, 2, 3, 8, 0.5, -1)
    assert record.unpack_from(payload, record.size) == (4, 8, -2, 2, 4, 8, 1.5, -1)


def test_it_wraps_records_in_the_binary_signature_and_the_trailer() -> None:
    stream = pgcopy.stream([b"a", b"b"])
    assert stream.startswith(pgcopy.SIGNATURE)
    assert stream == pgcopy.HEADER + b"ab" + b"\xff\xff"
    assert len(pgcopy.HEADER) == 19


def test_it_counts_dates_and_timestamps_from_2000_like_postgresql() -> None:
    millennium = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
    assert pgcopy.epoch_days_to_pg_dates(np.array([date_to_epoch_day(millennium.date())])) == [0]
    minute = datetime_to_epoch_minute(millennium) + 1
    assert pgcopy.epoch_minutes_to_pg_timestamps(np.array([minute])).tolist() == [60_000_000]
    assert pgcopy.datetime_to_pg_timestamp(millennium + dt.timedelta(microseconds=7)) == 7


@pytest.mark.django_db
def test_it_copies_rows_into_postgresql_and_reads_them_back_row_by_row() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("binary COPY is PostgreSQL's")
    start = dt.datetime(2026, 10, 26, 12, 34, tzinfo=dt.UTC)
    minutes = np.array([datetime_to_epoch_minute(start), datetime_to_epoch_minute(start) + 90])
    days = np.array([date_to_epoch_day(start.date()), date_to_epoch_day(start.date()) - 400])
    blobs = np.array([[1, 2, 3], [250, 0, 7]], dtype=np.uint8)
    columns = [
        ("int8", np.array([7, 8])),
        ("timestamptz", pgcopy.epoch_minutes_to_pg_timestamps(minutes)),
        ("date", pgcopy.epoch_days_to_pg_dates(days)),
        ("u1", blobs),  # a fixed-size bytea
    ]
    with pgcopy.connection_cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE _pgcopy_check (id int8, at timestamptz, day date, raw bytea,"
            " mean float8) ON COMMIT DROP"
        )
        pgcopy.send(
            cursor,
            "COPY _pgcopy_check FROM STDIN (FORMAT BINARY)",
            pgcopy.stream([pgcopy.records(columns, trailing_nulls=1)]),
        )
        cursor.execute("SELECT id, at, day, raw, mean FROM _pgcopy_check ORDER BY id")
        assert cursor.fetchall() == [
            (7, start, start.date(), b"\x01\x02\x03", None),
            (
                8,
                start + dt.timedelta(minutes=90),
                start.date() - dt.timedelta(days=400),
                b"\xfa\x00\x07",
                None,
            ),
        ]
        rows = [
            struct.unpack_from(">iq", message, at)
            for message, at in pgcopy.copy_out_rows(
                cursor,
                "COPY (SELECT id, mean FROM _pgcopy_check WHERE id > %s ORDER BY id)"
                " TO STDOUT (FORMAT BINARY)",
                [0],
                fields=2,
            )
        ]
    assert rows == [(8, 7), (8, 8)]

"""One INSERT ... ON CONFLICT DO UPDATE for many rows, on PostgreSQL and SQLite.

Rows are given column-wise as numpy arrays. PostgreSQL receives them as one binary COPY into a
scratch table built by numpy (no per-row Python), then one INSERT ... SELECT; SQLite runs the
same statement once per row. Only ``update`` columns are overwritten on conflict, so two writers
that fill different metric columns of one rollup row never undo each other, and a new row gets
``constants`` (the defaults) in the columns nobody computed.

Encodings: a float NaN is stored as NULL (the statistics of an empty block); a nullable integer
column (a foreign key) stores 0 as NULL; date columns hold epoch days and datetime columns
epoch microseconds (UTC).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import numpy as np
from django.db import connection, models

from apps.core import pgcopy
from apps.core.timegrid import EPOCH, epoch_day_to_date


def upsert(
    model: type[models.Model],
    *,
    keys: Sequence[str],
    arrays: Mapping[str, np.ndarray],
    constants: Mapping[str, str],
    update: Sequence[str],
) -> None:
    """Upsert rows given column-wise: ``arrays`` maps a column to its values (one per row).

    ``constants`` maps a column to a SQL literal used for every inserted row.
    """
    columns = list(arrays)
    if not columns or not len(arrays[columns[0]]):
        return
    table = model._meta.db_table
    fields = {field.column: field for field in model._meta.concrete_fields}
    quote = connection.ops.quote_name
    target = ", ".join(quote(c) for c in [*columns, *constants])
    conflict = ", ".join(quote(c) for c in keys)
    assignments = ", ".join(f"{quote(c)} = EXCLUDED.{quote(c)}" for c in update)
    if connection.vendor == "postgresql":
        _upsert_postgresql(table, fields, columns, arrays, constants, target, conflict, assignments)
        return
    marks = ", ".join(["%s"] * len(columns) + list(constants.values()))
    sql = (
        f"INSERT INTO {quote(table)} ({target}) VALUES ({marks})"
        f" ON CONFLICT ({conflict}) DO UPDATE SET {assignments}"
    )
    rows = zip(*(_sqlite_values(fields[c], arrays[c]) for c in columns), strict=True)
    with connection.cursor() as cursor:
        cursor.executemany(sql, list(rows))


def _pg_type(field: models.Field) -> str:
    if isinstance(field, models.FloatField):
        return "float8"
    if isinstance(field, models.DateTimeField):
        return "timestamptz"
    if isinstance(field, models.DateField):
        return "date"
    # Every integer column (ids, minutes, counts) travels as int8; the INSERT narrows it.
    return "int8"


def _upsert_postgresql(
    table: str,
    fields: dict,
    columns: list[str],
    arrays: Mapping[str, np.ndarray],
    constants: Mapping[str, str],
    target: str,
    conflict: str,
    assignments: str,
) -> None:
    quote = connection.ops.quote_name
    scratch = quote(f"_upsert_{table}")
    types = {c: _pg_type(fields[c]) for c in columns}
    records = []
    for column in columns:
        values = np.asarray(arrays[column])
        if types[column] == "date":
            values = pgcopy.epoch_days_to_pg_dates(values)
        elif types[column] == "timestamptz":
            values = pgcopy.epoch_microseconds_to_pg_timestamps(values)
        records.append((pgcopy.BINARY_TYPES[types[column]], values))
    definitions = ", ".join(f"{quote(c)} {types[c]}" for c in columns)

    def selected(column: str) -> str:
        if types[column] == "float8":
            return f"NULLIF({quote(column)}, 'NaN')"
        if fields[column].null and types[column].startswith("int"):
            return f"NULLIF({quote(column)}, 0)"
        return quote(column)

    extra = "".join(f", {value}" for value in constants.values())
    with pgcopy.connection_cursor() as cursor:
        cursor.execute(f"CREATE TEMP TABLE IF NOT EXISTS {scratch} ({definitions})")
        pgcopy.send(
            cursor,
            f"COPY {scratch} FROM STDIN (FORMAT BINARY)",
            pgcopy.stream([pgcopy.records(records)]),
        )
        cursor.execute(
            f"INSERT INTO {quote(table)} ({target})"
            f" SELECT {', '.join(selected(c) for c in columns)}{extra} FROM {scratch}"
            f" ON CONFLICT ({conflict}) DO UPDATE SET {assignments}"
        )
        cursor.execute(f"DROP TABLE {scratch}")


def _sqlite_values(field: models.Field, values: np.ndarray) -> list:
    values = np.asarray(values)
    if isinstance(field, models.DateTimeField):
        return [
            connection.ops.adapt_datetimefield_value(EPOCH + dt.timedelta(microseconds=int(v)))
            for v in values
        ]
    if isinstance(field, models.DateField):
        return [epoch_day_to_date(v) for v in values]
    if isinstance(field, models.FloatField):
        return [None if v != v else v for v in values.astype(np.float64).tolist()]
    plain = values.astype(np.int64).tolist()
    if field.null:
        return [v or None for v in plain]
    return plain

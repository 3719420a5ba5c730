"""One INSERT ... ON CONFLICT DO UPDATE for many rows, on PostgreSQL and SQLite.

PostgreSQL receives one array per column and unnests them (one round trip whatever the row
count); SQLite runs the same statement once per row. Only ``update`` columns are overwritten on
conflict, so two writers that fill different metric columns of one rollup row never undo each
other, and a new row gets ``constants`` (the defaults) in the columns nobody computed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from django.db import connection, models


def upsert(
    model: type[models.Model],
    *,
    keys: Sequence[str],
    arrays: Mapping[str, list],
    constants: Mapping[str, str],
    update: Sequence[str],
) -> None:
    """Upsert rows given column-wise: ``arrays`` maps a column to its values (one per row).

    ``constants`` maps a column to a SQL literal used for every inserted row. A float NaN in
    ``arrays`` is stored as NULL (the statistics of an empty block).
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
    rows = zip(*(_sqlite_values(arrays[c]) for c in columns), strict=True)
    with connection.cursor() as cursor:
        cursor.executemany(sql, list(rows))


# psycopg's binary COPY type names for the column types the rollups use.
_COPY_TYPES = {
    "bigint": "int8",
    "integer": "int4",
    "smallint": "int2",
    "double precision": "float8",
    "date": "date",
    "timestamp with time zone": "timestamptz",
}


def _upsert_postgresql(
    table: str,
    fields: dict,
    columns: list[str],
    arrays: Mapping[str, list],
    constants: Mapping[str, str],
    target: str,
    conflict: str,
    assignments: str,
) -> None:
    # Binary COPY into a scratch table, then one INSERT ... SELECT: psycopg's C row writer is
    # several times faster than dumping Python lists as array parameters.
    from apps.metrics.storage.raw import pg_cursor

    quote = connection.ops.quote_name
    scratch = quote(f"_upsert_{table}")
    listed = ", ".join(quote(c) for c in columns)
    selected = ", ".join(
        f"NULLIF({quote(c)}, 'NaN')" if isinstance(fields[c], models.FloatField) else quote(c)
        for c in columns
    )
    extra = "".join(f", {value}" for value in constants.values())
    with pg_cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {scratch}")
        cursor.execute(
            f"CREATE TEMP TABLE {scratch} ON COMMIT DROP AS"
            f" SELECT {listed} FROM {quote(table)} WITH NO DATA"
        )
        with cursor.copy(f"COPY {scratch} ({listed}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types([_COPY_TYPES[fields[c].db_type(connection)] for c in columns])
            for row in zip(*(arrays[c] for c in columns), strict=True):
                copy.write_row(row)
        cursor.execute(
            f"INSERT INTO {quote(table)} ({target}) SELECT {selected}{extra} FROM {scratch}"
            f" ON CONFLICT ({conflict}) DO UPDATE SET {assignments}"
        )


def _sqlite_values(values: list) -> list:
    adapted = []
    for value in values:
        if isinstance(value, dt.datetime):
            value = connection.ops.adapt_datetimefield_value(value)
        elif isinstance(value, float) and value != value:
            value = None
        adapted.append(value)
    return adapted

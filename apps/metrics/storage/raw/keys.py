"""What the raw reads and writes share: the tables, the key list in SQL, the SQLite lookups.

Keys are given column-wise: instance ids, metric names and epoch days, one entry per key.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from django.db import connection

from apps.core.timegrid import date_to_epoch_day, epoch_day_to_date
from apps.metrics.constants import Metric

TABLE = "metrics_metricday"
RECENT = "metrics_metricdayrecent"
# Minutes of the day of a MetricDayRecent row's points, little-endian like the values.
SLOT_DTYPE = np.dtype("<i2")
_SQLITE_CHUNK = 500

_METRIC_CODES = {metric: code for code, metric in enumerate(Metric.values, start=1)}
# unnest of the keys, numbered from 0 in column i; joined on (instance, metric, day). Metric
# names are the fixed vocabulary, so they are spelled in the statement.
KEYS_SQL = (
    "(SELECT k.instance_id, (ARRAY["
    + ", ".join(f"'{metric}'" for metric in _METRIC_CODES)
    + "])[k.code] AS metric, DATE '1970-01-01' + k.day AS day, (k.n - 1)::int4 AS i"
    " FROM unnest(%b::int8[], %b::int2[], %b::int4[]) WITH ORDINALITY"
    " AS k(instance_id, code, day, n)) AS k"
)
ON_KEYS_SQL = "t.instance_id = k.instance_id AND t.metric = k.metric AND t.day = k.day"


def is_postgresql() -> bool:
    return connection.vendor == "postgresql"


def key_params(instance_ids: np.ndarray, metrics: Sequence[str], days: np.ndarray) -> list:
    """The parameters of ``KEYS_SQL``."""
    # Sent as binary integer arrays: dumping thousands of metric names as text[] cost more
    # than the query itself.
    return [
        np.asarray(instance_ids).tolist(),
        [_METRIC_CODES[m] for m in metrics],
        np.asarray(days).tolist(),
    ]


def as_date(value: dt.date | str) -> dt.date:
    """A date column's value: SQLite hands dates back as ISO strings."""
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(value)


def sqlite_rows(
    table: str,
    columns: str,
    metric: str,
    instance_ids: Sequence[int],
    first_day: dt.date,
    last_day: dt.date,
) -> Iterator[tuple[int, int, list[Any]]]:
    """(instance id, epoch day, [*columns, values]) of the rows of one metric of ``table``.

    The instance ids are sent in chunks (SQLite limits the parameters of a statement).
    """
    ordered = sorted(instance_ids)
    with connection.cursor() as cursor:
        for start in range(0, len(ordered), _SQLITE_CHUNK):
            chunk = ordered[start : start + _SQLITE_CHUNK]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                f'SELECT instance_id, day, {columns}, "values" FROM {table} WHERE metric = %s'
                f" AND instance_id IN ({marks}) AND day BETWEEN %s AND %s",
                [metric, *chunk, first_day, last_day],
            )
            for instance_id, day, *rest in cursor.fetchall():
                yield instance_id, date_to_epoch_day(as_date(day)), rest


def sqlite_select_keys(
    table: str, columns: str, index: dict[tuple[int, str, int], int]
) -> Iterator[tuple[tuple[int, str, int], list[Any]]]:
    """(key, [*columns, values]) of the rows of ``table`` matching the keys of ``index``."""
    by_metric: dict[str, set[int]] = {}
    for instance_id, metric, _day in index:
        by_metric.setdefault(metric, set()).add(instance_id)
    first_day = epoch_day_to_date(min(k[2] for k in index))
    last_day = epoch_day_to_date(max(k[2] for k in index))
    for metric, instance_ids in by_metric.items():
        for instance_id, day, rest in sqlite_rows(
            table, columns, metric, list(instance_ids), first_day, last_day
        ):
            key = (instance_id, metric, day)
            if key in index:
                yield key, rest

"""Exact grouped sums of money on both databases.

PostgreSQL sums NUMERIC exactly. SQLite (the embedded default) sums decimals as floats, which
drifts by fractions of a cent over thousands of rows, so there the rows come back ungrouped and
are summed in Python with Decimal (see ``apps.billing.selectors.cost_totals``).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Aggregate, Case, DateField, F, QuerySet, Sum, Value, When


def grouped_sums(
    rows: QuerySet[Any],
    fields: Mapping[str, Any],
    *,
    columns: Sequence[str] = (),
    count: Aggregate | None = None,
    amount: str = "cost",
    fetch_all: bool = False,
) -> Iterable[tuple[dict[str, Any], Decimal, int]]:
    """(group, sum of ``amount``, rows counted) per distinct value of ``fields`` + ``columns``.

    ``count`` is an aggregate counting the group's rows (None: 0 is reported). ``fetch_all``
    reads the groups in one round trip with a plain cursor, skipping the ORM's per-value
    converters: for results of a few thousand rows whose columns are numbers, dates and text
    (a JSON column would come back as its text).
    """
    names = [*fields, *columns]
    annotated = rows.annotate(**fields).order_by()
    if connection.vendor == "postgresql":
        aggregates: dict[str, Any] = {"amount_sum": Sum(amount)}
        if count is not None:
            aggregates["row_count"] = count
        # Tuples, made into dicts here: Django's ``values()`` rows cost twice as much (a 90-day
        # report by project reads ~3,400 of them).
        grouped = annotated.values_list(*names).annotate(**aggregates)
        width = len(names)
        for values in _fetched(grouped) if fetch_all else grouped.iterator(chunk_size=5000):
            total = values[width] or Decimal(0)
            counted = values[width + 1] if count is not None else 0
            yield dict(zip(names, values[:width], strict=True)), total, counted
        return
    totals: dict[tuple, list[Any]] = defaultdict(lambda: [Decimal(0), 0, None])
    for row in annotated.values(*names, amount).iterator(chunk_size=5000):
        value = row.pop(amount)
        key = tuple(repr(sorted(v.items())) if isinstance(v, dict) else v for v in row.values())
        entry = totals[key]
        entry[0] += value
        entry[1] += 1
        entry[2] = row
    for total, counted, row in totals.values():
        yield row, total, counted


def grouped_rows(
    rows: QuerySet[Any], fields: Mapping[str, Any], *, amount: str = "cost"
) -> list[tuple[Any, ...]]:
    """The groups of ``grouped_sums(rows, fields, fetch_all=True)`` as plain tuples: the
    values of ``fields`` in their order, then the sum of ``amount``.

    For a caller that reads the columns by position: a dict per group cost a 90-day report by
    project (~1,700 groups) ~2 ms of its ~20 (cProfile), more than the query's own execution.
    """
    if connection.vendor == "postgresql":
        grouped = (
            rows.annotate(**fields).order_by().values_list(*fields).annotate(amount_sum=Sum(amount))
        )
        # ``amount`` is NOT NULL in the tables summed here, so no group's sum is NULL.
        return _fetched(grouped)
    return [
        (*row.values(), total) for row, total, _count in grouped_sums(rows, fields, amount=amount)
    ]


def day_rows(
    rows: QuerySet[Any],
    fields: Mapping[str, Any],
    *,
    collapse_before: dt.date | None = None,
    as_stored: bool = False,
    amount: str = "cost",
) -> list[tuple[Any, ...]]:
    """(day, the values of ``fields``..., the sum of ``amount``) of ``rows`` (a daily rollup,
    with a ``day`` column) grouped per day and ``fields``, as ``grouped_rows``; the days
    before ``collapse_before`` are summed together, with day None.

    ``as_stored``: the days from ``collapse_before`` are not grouped but read one row each,
    so a (day, fields) may repeat and the caller adds them up. For rows already one per
    group and day, as the project-day sums are: grouping them again was ~0.8 ms of a 90-day
    report's ~2.6 ms query (PostgreSQL; the earlier days, wanted summed, still are grouped
    there, in the same round trip). SQLite groups them all, its sums being Python's.
    """
    day: Any = F("day")
    if collapse_before is not None:
        day = Case(
            When(day__lt=collapse_before, then=Value(None)),
            default=F("day"),
            output_field=DateField(),
        )
    if not as_stored or collapse_before is None or connection.vendor != "postgresql":
        return grouped_rows(rows, {"collapsed_day": day, **fields}, amount=amount)
    names = list(fields)
    each = (
        rows.filter(day__gte=collapse_before)
        .annotate(**fields)
        .order_by()
        .values_list("day", *names, amount)
    )
    summed = (
        rows.filter(day__lt=collapse_before)
        .annotate(**fields)
        .order_by()
        .values_list(*names)
        .annotate(collapsed_day=Value(None, output_field=DateField()), amount_sum=Sum(amount))
        .values_list("collapsed_day", *names, "amount_sum")
    )
    return _fetched(each.union(summed, all=True))


def grouped_sums_many(
    rows: QuerySet[Any], columns: Sequence[str], amounts: Sequence[str]
) -> Iterable[tuple[tuple[Any, ...], list[Decimal]]]:
    """(values of ``columns``, the sum of each of ``amounts``) per distinct ``columns``: the
    sums of ``grouped_sums`` for several amount columns in one query (one pass over the rows
    instead of one per amount)."""
    width = len(columns)
    if connection.vendor == "postgresql":
        grouped = (
            rows.order_by()
            .values_list(*columns)
            .annotate(**{f"amount_sum_{i}": Sum(name) for i, name in enumerate(amounts)})
        )
        for values in grouped:
            yield tuple(values[:width]), [value or Decimal(0) for value in values[width:]]
        return
    totals: dict[tuple[Any, ...], list[Decimal]] = {}
    for values in rows.order_by().values_list(*columns, *amounts).iterator(chunk_size=5000):
        entry = totals.setdefault(tuple(values[:width]), [Decimal(0) for _ in amounts])
        for i, value in enumerate(values[width:]):
            entry[i] += value
    yield from totals.items()


def _fetched(grouped: QuerySet[Any]) -> list[tuple[Any, ...]]:
    """The rows of ``grouped`` in one round trip (a server-side cursor, which ``iterator``
    opens, costs a DECLARE, a FETCH per chunk and a CLOSE), as the database driver returns
    them."""
    sql, params = grouped.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()

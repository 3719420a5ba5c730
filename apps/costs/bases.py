"""The two bases of spend, as FOCUS defines them, and the bill lines each one moves.

- ``billed`` (FOCUS BilledCost): as invoiced. A line's whole cost is on the local day its fee
  period begins, the day it was charged; the totals of a period equal the bill's.
- ``amortized`` (FOCUS EffectiveCost): a prepaid purchase or renewal and its refund, covering
  more than an hour, spread evenly over the seconds it covers (``apps.billing.amortization``);
  every other line stays where billed. Run rates, forecasts and per-day charts read this one:
  a renewal no longer makes one day cost a month.

The daily rollup (``CostDay``, ``CostProjectDay``) holds one set of rows per basis, so a reader
picks its basis with one filter and sums ``cost`` as before.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from django.db.models import DurationField, ExpressionWrapper, F, Q, QuerySet

from apps.billing import amortization
from apps.billing.models import BillLine

BILLED = amortization.BILLED
AMORTIZED = amortization.AMORTIZED
BASES = amortization.BASES
#: What the dashboards show unless asked otherwise.
DEFAULT_BASIS = AMORTIZED


def spread_q() -> Q:
    """The lines the amortized basis spreads (needs the ``fee_span`` alias, ``with_span``)."""
    return Q(
        charge_category__in=sorted(amortization.SPREAD_CATEGORIES),
        fee_span__gt=amortization.HOURLY_LINE_MAX,
    )


def with_span(lines: QuerySet[BillLine]) -> QuerySet[BillLine]:
    return lines.alias(
        fee_span=ExpressionWrapper(
            F("fee_end_at") - F("fee_begin_at"), output_field=DurationField()
        )
    )


def spread_lines(
    lines: QuerySet[BillLine], start: dt.datetime, end: dt.datetime
) -> QuerySet[BillLine]:
    """The spread lines of ``lines`` whose period overlaps ``start`` .. ``end`` (exclusive),
    whenever they were charged: a renewal of last month covers days of this one."""
    return (
        with_span(lines)
        .filter(spread_q())
        .filter(fee_begin_at__lt=end, fee_end_at__gte=start - dt.timedelta(seconds=1))
    )


def kept_lines(lines: QuerySet[BillLine]) -> QuerySet[BillLine]:
    """The lines both bases keep where billed."""
    return with_span(lines).exclude(spread_q())


def day_pieces(
    rows: QuerySet[Any], tz: dt.tzinfo, first: dt.date, last: dt.date, columns: tuple[str, ...]
) -> Iterator[tuple[dt.date, dict[str, Any], Decimal]]:
    """(local day, the line's ``columns``, money) of the spread lines ``rows`` (bill lines),
    for the days ``first`` .. ``last`` (inclusive) only."""
    values = rows.order_by().values(
        "cost", "fee_begin_at", "fee_end_at", "charge_category", *columns
    )
    for row in values.iterator(chunk_size=2000):
        pieces = amortization.spread_days(
            row["cost"], row["fee_begin_at"], row["fee_end_at"], row["charge_category"], tz
        )
        group = {name: row[name] for name in columns}
        for day, amount in pieces:
            if first <= day <= last:
                yield day, group, amount


def hour_pieces(
    rows: QuerySet[Any], start: dt.datetime, end: dt.datetime, columns: tuple[str, ...]
) -> Iterator[tuple[dt.datetime, dict[str, Any], Decimal]]:
    """(UTC hour, the row's ``columns``, money) of the spread lines ``rows`` (bill lines,
    annotated as the caller needs) for the hours from ``start`` until ``end``."""
    values = rows.order_by().values(
        "cost", "fee_begin_at", "fee_end_at", "charge_category", *columns
    )
    for row in values.iterator(chunk_size=2000):
        pieces = amortization.spread_hours(
            row["cost"], row["fee_begin_at"], row["fee_end_at"], row["charge_category"]
        )
        group = {name: row[name] for name in columns}
        for hour, amount in pieces:
            if start <= hour < end:
                yield hour, group, amount

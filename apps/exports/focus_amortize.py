"""A prepaid line's cost spread evenly over the seconds it covers (pure: no Django, no database).

FOCUS's EffectiveCost is amortized: a subscription or reserved-instance purchase is 0 on its own
row and its cost appears, a piece at a time, over the period it pays for. The pieces here are
*cumulative* roundings: the piece of ``[a, b)`` is ``R(cost x (b - start) / T) - R(cost x (a -
start) / T)`` with ``R`` the rounding to 8 decimals (the bills' precision) and ``T`` the seconds
covered. So the pieces of any set of cuts sum exactly to the cost, and a piece does not depend on
which other cuts were made: a month exported at once and the same month exported a day at a time
give the same totals, to the last decimal.

The export cuts a period at Beijing midnights (bill days: a piece never straddles a bill month)
and at the export window's bounds.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import ROUND_HALF_EVEN, Decimal

BEIJING = dt.timezone(dt.timedelta(hours=8))
_Q8 = Decimal("0.00000001")
_Q12 = Decimal("0.000000000001")
_DAY = dt.timedelta(days=1)


def cumulative(cost: Decimal, start: dt.datetime, end: dt.datetime, moment: dt.datetime) -> Decimal:
    """The part of ``cost`` covering ``[start, moment)``, rounded to 8 decimals."""
    if moment <= start:
        return Decimal(0)
    if moment >= end:
        return cost
    covered = Decimal((moment - start) // dt.timedelta(microseconds=1))
    total = Decimal((end - start) // dt.timedelta(microseconds=1))
    return (cost * covered / total).quantize(_Q8, ROUND_HALF_EVEN)


def piece(
    cost: Decimal, start: dt.datetime, end: dt.datetime, a: dt.datetime, b: dt.datetime
) -> Decimal:
    """The part of ``cost`` (covering ``[start, end)``) that falls in ``[a, b)``."""
    return cumulative(cost, start, end, b) - cumulative(cost, start, end, a)


def share(
    value: Decimal, start: dt.datetime, end: dt.datetime, a: dt.datetime, b: dt.datetime
) -> Decimal:
    """``value`` x the part of ``[start, end)`` in ``[a, b)``, to 12 decimals: a quantity, whose
    product with a unit price must give the piece's cost (8 decimals would be off by a unit
    price times 5e-9: 0.0004 yuan on a year's reserved instance)."""
    if end <= start:
        return value
    covered = Decimal((min(b, end) - max(a, start)) // dt.timedelta(microseconds=1))
    total = Decimal((end - start) // dt.timedelta(microseconds=1))
    return (value * covered / total).quantize(_Q12, ROUND_HALF_EVEN)


def beijing_days(
    start: dt.datetime, end: dt.datetime, *, window: tuple[dt.datetime, dt.datetime]
) -> Iterator[tuple[dt.datetime, dt.datetime]]:
    """``[start, end)`` cut at Beijing midnights, the parts inside ``window`` only (in order)."""
    low, high = max(start, window[0]), min(end, window[1])
    if low >= high:
        return
    local = low.astimezone(BEIJING)
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    cut = low
    following = midnight + _DAY
    while cut < high:
        stop = min(following.astimezone(dt.UTC), high)
        yield cut, stop
        cut = stop
        following += _DAY


def spread(
    cost: Decimal,
    start: dt.datetime,
    end: dt.datetime,
    *,
    window: tuple[dt.datetime, dt.datetime],
) -> list[tuple[dt.datetime, dt.datetime, Decimal]]:
    """(slice start, slice end, amount) of ``cost`` over its Beijing days inside ``window``.

    A line covering no time at all (a refund booked at one instant) is one slice of its whole
    cost at that instant, when the instant is inside the window.
    """
    if end <= start:
        if window[0] <= start < window[1]:
            return [(start, start, cost)]
        return []
    return [
        (a, b, piece(cost, start, end, a, b)) for a, b in beijing_days(start, end, window=window)
    ]

"""How a bill line's money spreads over time: billed (as invoiced) or amortized (pure: no Django).

FOCUS names two views of the same money. ``BilledCost`` is as invoiced: a line's whole cost on
the moment it was charged (its ``fee_begin_at``). ``EffectiveCost`` is amortized: a prepaid
purchase or renewal (``charge_category`` purchase) and its refund are spread evenly over the
seconds they cover, so that a 53,239.50 renewal is 1,774.65 a day of its month instead of one
day costing 69,153.86. Usage, credits and adjustments stay where billed, and so does any line
covering an hour or less (an hourly line is already where its money was used).

A line covers ``fee_begin_at`` to ``fee_end_at`` inclusive of its last second when that ends on
:59 (Tencent writes 10:00:00-10:59:59 for an hour; a month as 2026-10-15 00:00:00 - 2026-11-14
23:59:59). The pieces are whole units of the line's smallest decimal (1e-8 yuan for the bills'
eight decimals) allotted by largest remainder, so they sum to the line's cost exactly, not just
to the cent, however many buckets it covers; ties go to the earlier bucket, so the split is the
same on every run.

Buckets are hours (``spread_hours``: UTC hours, which are every timezone's hours but for the
few with a half-hour offset) or local days of a timezone (``spread_days``). A bucket is the
first moment of the hour, or the local date.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import TypeVar

Bucket = TypeVar("Bucket", dt.datetime, dt.date)

# ``apps.billing.classify``'s categories, spelled here to keep this module free of imports.
SPREAD_CATEGORIES = frozenset({"purchase", "refund"})
#: A line covering at most this long stays where billed (an hourly line plus its :59 second).
HOURLY_LINE_MAX = dt.timedelta(hours=1, seconds=1)
BILLED = "billed"
AMORTIZED = "amortized"
BASES = (BILLED, AMORTIZED)
_UNIT = Decimal("1e-8")
_HOUR = dt.timedelta(hours=1)


def covered_until(end: dt.datetime) -> dt.datetime:
    """The first moment after a line's period: ``end`` plus its last second when on :59
    (``apps.billing.rollups.billed_seconds`` counts the same seconds)."""
    return end + dt.timedelta(seconds=1) if end.second == 59 else end


def is_spread(charge_category: str, begin: dt.datetime, end: dt.datetime) -> bool:
    """Whether the amortized view spreads the line over its period."""
    return (
        charge_category in SPREAD_CATEGORIES
        and end - begin > HOURLY_LINE_MAX
        and covered_until(end) > begin
    )


def spread_hours(
    cost: Decimal, begin: dt.datetime, end: dt.datetime, charge_category: str
) -> list[tuple[dt.datetime, Decimal]]:
    """(first moment of the UTC hour, money) of the line's amortized pieces, in order."""
    return _spread(cost, begin, end, charge_category, _hour_edges, _hour_of)


def spread_days(
    cost: Decimal,
    begin: dt.datetime,
    end: dt.datetime,
    charge_category: str,
    tz: dt.tzinfo,
) -> list[tuple[dt.date, Decimal]]:
    """(local day in ``tz``, money) of the line's amortized pieces, in order."""
    return _spread(
        cost,
        begin,
        end,
        charge_category,
        lambda start, stop: _day_edges(start, stop, tz),
        lambda moment: moment.astimezone(tz).date(),
    )


def _spread(
    cost: Decimal,
    begin: dt.datetime,
    end: dt.datetime,
    charge_category: str,
    edges: Callable[[dt.datetime, dt.datetime], Iterator[tuple[dt.datetime, dt.datetime]]],
    bucket_of: Callable[[dt.datetime], Bucket],
) -> list[tuple[Bucket, Decimal]]:
    if not is_spread(charge_category, begin, end):
        return [(bucket_of(begin), cost)]
    stop = covered_until(end)
    spans = list(edges(begin, stop))
    seconds = [int((b - a).total_seconds()) for a, b in spans]
    parts = allot(cost, seconds)
    return [(bucket_of(a), part) for (a, _b), part in zip(spans, parts, strict=True)]


def allot(amount: Decimal, weights: list[int]) -> list[Decimal]:
    """``amount`` split in proportion to the non-negative integer ``weights`` (not all zero),
    in whole units of its smallest decimal (at least 1e-8), by largest remainder: the parts
    sum to ``amount`` exactly. Ties go to the earlier weight."""
    exponent = amount.as_tuple().exponent
    unit = _UNIT if not isinstance(exponent, int) or exponent >= -8 else Decimal(1).scaleb(exponent)
    total_weight = sum(weights)
    if total_weight <= 0:
        raise ValueError("weights must not all be zero")
    units = int((abs(amount) / unit).to_integral_exact())
    sign = -1 if amount < 0 else 1
    floors = [units * w // total_weight for w in weights]
    remainders = [units * w % total_weight for w in weights]
    left = units - sum(floors)
    for index in sorted(range(len(weights)), key=lambda i: (-remainders[i], i))[:left]:
        floors[index] += 1
    return [(unit * (sign * f)).quantize(unit) for f in floors]


def _hour_of(moment: dt.datetime) -> dt.datetime:
    utc = moment.astimezone(dt.UTC)
    return utc.replace(minute=0, second=0, microsecond=0)


def _hour_edges(start: dt.datetime, stop: dt.datetime) -> Iterator[tuple[dt.datetime, dt.datetime]]:
    cursor = start.astimezone(dt.UTC)
    stop = stop.astimezone(dt.UTC)
    while cursor < stop:
        following = min(_hour_of(cursor) + _HOUR, stop)
        yield cursor, following
        cursor = following


def _day_edges(
    start: dt.datetime, stop: dt.datetime, tz: dt.tzinfo
) -> Iterator[tuple[dt.datetime, dt.datetime]]:
    # In UTC throughout: Python compares and subtracts two moments of one zone by their wall
    # clocks, which would make a 25-hour DST day 24 hours long.
    cursor = start.astimezone(dt.UTC)
    stop = stop.astimezone(dt.UTC)
    while cursor < stop:
        day = cursor.astimezone(tz).date()
        midnight = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=tz)
        following = min(midnight.astimezone(dt.UTC), stop)
        yield cursor, following
        cursor = following

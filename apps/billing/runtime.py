"""The one definition of a *runtime line*: the bill lines an instance's hourly price is made of.

A runtime line is a component of a bill line that

- pays for running the instance: its stored ``component_class`` (``apps.billing.classify``) is
  one of ``classify.PRICED_AS_RUNTIME``: compute, GPU, and any component we could not classify
  (counted as runtime, and counted visibly, rather than money dropped);
- is an hour of use: ``charge_category`` usage (purchases, renewals, refunds, credits and
  adjustments are not hours of use) and billing at most an hour. A line bills from
  ``fee_begin_at`` to ``fee_end_at`` inclusive of its last second (10:00:00-10:59:59 is 3,600 s).

Components that keep billing when an instance is stopped with STOP_CHARGING (storage: disks,
snapshots; network: bandwidth, public IPs) are *persistent* lines: the same usage lines of the
other classes. Every price, waste figure and saving reads these definitions (in SQL, as a Django
filter or in Python), never a list of component codes.

An instance's hours of use are counted once per billed hour: Tencent bills one line per hour
with one component per part billed, so the compute and the GPU components of one hour are one
hour, not two. The seconds of an instance are those of its *distinct* runtime spans.

A prepaid instance has no hours of use on its bill: its runtime price is the amortized one, its
purchases', renewals' and refunds' runtime components spread over the hours they cover
(``spread_share``), over the hours covered (``union_seconds``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal

from django.db.models import Q

from apps.billing import classify

PRICED_AS_RUNTIME = classify.PRICED_AS_RUNTIME
PERSISTENT = (classify.STORAGE, classify.NETWORK)
HOURLY_LINE_MAX = dt.timedelta(hours=1, seconds=1)


# What a component's ``TimeSpan`` counts, in seconds per unit (``TimeUnitName``). An hourly
# settlement line spans its whole hour from FeeBeginTime to FeeEndTime, but an instance that ran
# part of it (launched, stopped or released inside the hour) bills only the seconds it ran, and
# says so in its TimeSpan: those are the seconds the price is paid for.
TIME_UNIT_SECONDS = {
    "秒": 1,
    "s": 1,
    "second": 1,
    "分钟": 60,
    "小时": 3600,
    "h": 3600,
    "hour": 3600,
}


def billed_seconds(
    begin: dt.datetime,
    end: dt.datetime,
    time_span: Decimal | None = None,
    time_unit: str = "",
) -> int:
    """Seconds a line bills: its span, plus the last second when it ends on :59; fewer when its
    ``time_span`` (in ``time_unit``) says it ran for less of the span."""
    stop = end + dt.timedelta(seconds=1) if end.second == 59 else end
    span = int((stop - begin).total_seconds())
    per_unit = TIME_UNIT_SECONDS.get((time_unit or "").strip().lower())
    if time_span is None or per_unit is None or time_span <= 0:
        return span
    return min(span, int(-(-Decimal(time_span) * per_unit // 1)))


def is_usage_hour(charge_category: str, begin: dt.datetime, end: dt.datetime) -> bool:
    """A usage line billing at most an hour (any component class)."""
    return charge_category == classify.USAGE and end - begin <= HOURLY_LINE_MAX


def is_runtime(component_class: str) -> bool:
    return component_class in PRICED_AS_RUNTIME


def is_runtime_line(
    component_class: str, charge_category: str, begin: dt.datetime, end: dt.datetime
) -> bool:
    """The Python form of ``RUNTIME_LINE_SQL`` / ``runtime_lines``."""
    return is_runtime(component_class) and is_usage_hour(charge_category, begin, end)


def _sql_list(values: tuple[str, ...]) -> str:
    # The classes are this module's constants (lowercase words), never user input.
    assert all(v.isalpha() and v.islower() for v in values)
    return ", ".join(f"'{v}'" for v in values)


# The same in SQL (columns of ``billing_billline``, unqualified). ``date_part`` (double
# precision), not ``extract`` (numeric since PostgreSQL 14): a third faster, exact for seconds.
_SPAN_SECONDS_SQL = (
    "(date_part('epoch', fee_end_at - fee_begin_at)::bigint"
    " + (date_part('second', fee_end_at) >= 59)::int)"
)
_UNIT_SECONDS_SQL = " ".join(
    f"WHEN '{unit}' THEN {seconds}" for unit, seconds in TIME_UNIT_SECONDS.items()
)
BILLED_SECONDS_SQL = (
    f"LEAST({_SPAN_SECONDS_SQL}, COALESCE(CASE WHEN time_span > 0 THEN"
    f" ceil(time_span * CASE lower(trim(time_unit)) {_UNIT_SECONDS_SQL} END)::bigint END,"
    f" {_SPAN_SECONDS_SQL}))"
)
USAGE_HOUR_SQL = (
    f"charge_category = '{classify.USAGE}'"
    " AND fee_end_at - fee_begin_at <= interval '1 hour 1 second'"
)
RUNTIME_CLASS_SQL = f"component_class IN ({_sql_list(PRICED_AS_RUNTIME)})"
RUNTIME_LINE_SQL = f"{RUNTIME_CLASS_SQL} AND {USAGE_HOUR_SQL}"


def usage_lines() -> Q:
    """Usage lines of any class (their length is checked apart: Django cannot compare spans
    to a constant without an annotation)."""
    return Q(charge_category=classify.USAGE)


def runtime_lines() -> Q:
    """Runtime usage lines, as a filter (the length check is ``is_usage_hour``'s)."""
    return Q(component_class__in=PRICED_AS_RUNTIME, charge_category=classify.USAGE)


def spread_share(
    cost: Decimal, begin: int, end: int, start: int, stop: int
) -> tuple[Decimal, int, int]:
    """The part of a purchase (or refund) line's ``cost`` amortized into ``[start, stop)``, and
    the stretch of it that falls there (empty when none), all moments in epoch seconds (bills
    are whole seconds; a month's spread lines read as timestamps cost more than the rest of
    the amortization): the cost spread evenly over the seconds the line covers, its last
    second included when it ends on :59 (``apps.billing.amortization``'s view, without its
    per-bucket pieces: a price needs the share of a window, not every hour's)."""
    covered_to = end + 1 if end % 60 == 59 else end
    lo, hi = max(begin, start), min(covered_to, stop)
    total = covered_to - begin
    if hi <= lo or total <= 0:
        return Decimal(0), lo, lo
    return cost * (hi - lo) / total, lo, hi


def union_seconds(spans: Iterable[tuple[int, int]]) -> int:
    """Seconds covered by the union of ``[a, b)`` spans (epoch seconds): two purchases of one
    period (a renewal and its refund) cover its hours once."""
    total, reach = 0, None
    for a, b in sorted(spans):
        if reach is not None:
            a = max(a, reach)
        if b > a:
            total += b - a
            reach = b
    return total

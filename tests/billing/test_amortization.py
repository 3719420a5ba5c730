"""The amortized view of a bill line: purchases and refunds spread evenly, to the exact total."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal

import pytest

from apps.billing.amortization import allot, is_spread, spread_days, spread_hours

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
UTC = dt.UTC


def _at(text: str, tz: dt.tzinfo = SHANGHAI) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=tz)


def test_a_month_long_renewal_spreads_evenly_over_its_days() -> None:
    # 包年包月续费 of 2026-10-15 00:00:00 .. 2026-11-14 23:59:59 Beijing: 31 days.
    cost = Decimal("53239.50000000")
    pieces = spread_days(
        cost, _at("2026-10-15 00:00:00"), _at("2026-11-14 23:59:59"), "purchase", SHANGHAI
    )
    assert [day for day, _ in pieces] == [
        dt.date(2026, 10, 15) + dt.timedelta(days=i) for i in range(31)
    ]
    assert sum(amount for _, amount in pieces) == cost
    # 53,239.50 / 31 = 1,717.4032258064...: every day within one unit of it.
    assert {amount for _, amount in pieces} <= {Decimal("1717.40322580"), Decimal("1717.40322581")}


def test_the_hours_of_a_renewal_sum_to_it_exactly() -> None:
    cost = Decimal("10886.40000000")
    pieces = spread_hours(cost, _at("2026-11-01 00:00:00"), _at("2026-11-30 23:59:59"), "purchase")
    assert len(pieces) == 30 * 24
    assert pieces[0][0] == dt.datetime(2026, 10, 31, 16, tzinfo=UTC)
    assert sum(amount for _, amount in pieces) == cost
    assert {amount for _, amount in pieces} == {Decimal("15.12")}


def test_a_refund_spreads_as_negative_money_over_the_period_it_returns() -> None:
    cost = Decimal("-5627.00")
    pieces = spread_days(
        cost, _at("2026-11-10 12:00:00"), _at("2026-11-30 23:59:59"), "refund", SHANGHAI
    )
    assert sum(amount for _, amount in pieces) == cost
    assert all(amount < 0 for _, amount in pieces)
    # Half a day on the 10th, whole days after: the first piece is about half of the others.
    first, second = pieces[0][1], pieces[1][1]
    assert abs(first * 2 - second) <= Decimal("0.00000002")
    assert pieces[0][0] == dt.date(2026, 11, 10)
    assert pieces[-1][0] == dt.date(2026, 11, 30)


@pytest.mark.parametrize(
    ("month_start", "month_end", "days"),
    [
        ("2028-02-01 00:00:00", "2028-02-29 23:59:59", 29),  # leap February
        ("2027-02-01 00:00:00", "2027-02-28 23:59:59", 28),
        ("2026-04-01 00:00:00", "2026-04-30 23:59:59", 30),
    ],
)
def test_leap_and_short_months_spread_over_their_own_days(
    month_start: str, month_end: str, days: int
) -> None:
    cost = Decimal("1000.00")
    pieces = spread_days(cost, _at(month_start), _at(month_end), "purchase", SHANGHAI)
    assert len(pieces) == days
    assert sum(amount for _, amount in pieces) == cost
    expected = cost / days
    assert all(abs(amount - expected) < Decimal("0.00000001") for _, amount in pieces)


def test_a_line_crossing_the_viewers_midnight_splits_at_it() -> None:
    # Two days from Beijing midnight; a viewer in UTC sees its midnight at 08:00 Beijing.
    cost = Decimal("48.00")
    begin, end = _at("2026-11-01 00:00:00"), _at("2026-11-02 23:59:59")
    in_utc = spread_days(cost, begin, end, "purchase", UTC)
    assert in_utc == [
        (dt.date(2026, 10, 31), Decimal("8.00000000")),
        (dt.date(2026, 11, 1), Decimal("24.00000000")),
        (dt.date(2026, 11, 2), Decimal("16.00000000")),
    ]
    in_beijing = spread_days(cost, begin, end, "purchase", SHANGHAI)
    assert [amount for _, amount in in_beijing] == [Decimal("24.00000000")] * 2


def test_a_daylight_saving_day_carries_its_25_hours() -> None:
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    # 2026-10-25 is 25 hours long in Berlin: 25 of the 73 hours of these three days.
    cost = Decimal("73.00")
    pieces = spread_days(
        cost,
        _at("2026-10-24 00:00:00", berlin),
        _at("2026-10-26 23:59:59", berlin),
        "purchase",
        berlin,
    )
    assert [amount for _, amount in pieces] == [Decimal("24"), Decimal("25"), Decimal("24")]


@pytest.mark.parametrize("category", ["usage", "credit", "adjustment"])
def test_usage_credits_and_adjustments_stay_where_billed(category: str) -> None:
    cost = Decimal("-120.96")
    begin, end = _at("2026-11-03 10:00:00"), _at("2026-11-30 23:59:59")
    assert not is_spread(category, begin, end)
    assert spread_days(cost, begin, end, category, SHANGHAI) == [(dt.date(2026, 11, 3), cost)]
    assert spread_hours(cost, begin, end, category) == [
        (dt.datetime(2026, 11, 3, 2, tzinfo=UTC), cost)
    ]


def test_an_hourly_purchase_line_stays_where_billed() -> None:
    begin, end = _at("2026-11-03 10:00:00"), _at("2026-11-03 10:59:59")
    assert not is_spread("purchase", begin, end)
    assert spread_hours(Decimal("3.5"), begin, end, "purchase") == [
        (dt.datetime(2026, 11, 3, 2, tzinfo=UTC), Decimal("3.5"))
    ]


def test_remainders_go_to_the_largest_fractions_then_the_earliest() -> None:
    assert allot(Decimal("0.00000010"), [1, 1, 1]) == [
        Decimal("0.00000004"),
        Decimal("0.00000003"),
        Decimal("0.00000003"),
    ]
    assert allot(Decimal("-0.00000010"), [1, 2]) == [Decimal("-0.00000003"), Decimal("-0.00000007")]
    assert sum(allot(Decimal("100.00"), [3600] * 7 + [1])) == Decimal("100.00")
    with pytest.raises(ValueError, match="zero"):
        allot(Decimal(1), [0, 0])

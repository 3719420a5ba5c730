"""Which bill months a bills sync reads (months are Beijing time), and when a month is final."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.months import (
    CLOSED_AFTER_DAYS,
    bill_month_bounds,
    bill_months_span,
    closes_on,
    month_of,
    months_between,
    months_to_sync,
    next_bookkeeping,
)
from apps.billing.sync import BillsResult
from apps.cloud.models import SyncKind, SyncState
from tests.alerts.builders import bill, make_account


def state(progress: dict | None = None) -> SyncState:
    return SyncState(
        kind=SyncKind.BILLS,
        last_success_at=datetime(2026, 11, 1, tzinfo=UTC),
        progress=progress or {},
    )


def read(current: SyncState, now: datetime, totals: dict[str, str]) -> list[str]:
    """One sync: the months it reads, with the bookkeeping moved on as the sync does it."""
    months = months_to_sync(current, now=now, backfill_days=30)
    results = [BillsResult(month, 100, Decimal(totals.get(month, "1"))) for month in months]
    current.progress = next_bookkeeping(current, results, now=now)
    return months


def test_it_reads_every_month_the_backfill_touches_on_a_first_sync() -> None:
    now = datetime(2026, 11, 3, 4, 0, tzinfo=UTC)
    assert months_to_sync(None, now=now, backfill_days=40) == ["2026-09", "2026-10", "2026-11"]
    assert months_to_sync(SyncState(kind=SyncKind.BILLS), now=now, backfill_days=2) == ["2026-11"]


def test_it_counts_months_in_beijing_time() -> None:
    # 16:30 UTC on October 31st is already November 1st in Beijing.
    now = datetime(2026, 10, 31, 16, 30, tzinfo=UTC)
    assert months_between(now, now) == ["2026-11"]


def test_it_rereads_the_ended_month_when_the_month_changes_in_beijing() -> None:
    current = state({"current_month": "2026-10", "open_months": {}})
    # 15:30 UTC on October 31st is 23:30 in Beijing: still October.
    assert read(current, datetime(2026, 10, 31, 15, 30, tzinfo=UTC), {}) == ["2026-10"]
    # An hour later it is November 1st in Beijing: October's last hour is read with November.
    assert read(current, datetime(2026, 10, 31, 16, 30, tzinfo=UTC), {}) == ["2026-10", "2026-11"]
    # Once a Beijing day is enough.
    assert read(current, datetime(2026, 10, 31, 17, 30, tzinfo=UTC), {}) == ["2026-11"]
    assert read(current, datetime(2026, 11, 1, 15, 30, tzinfo=UTC), {}) == ["2026-11"]
    assert read(current, datetime(2026, 11, 1, 16, 30, tzinfo=UTC), {}) == ["2026-10", "2026-11"]


def test_it_rereads_the_previous_month_daily_until_it_stops_changing_after_the_closing_day() -> (
    None
):
    current = state({"current_month": "2026-10", "open_months": {}})
    day = datetime(2026, 11, 1, 4, 0, tzinfo=UTC)
    read_on = []
    totals = {"2026-10": "100"}
    for offset in range(12):
        moment = day + timedelta(days=offset)
        if offset == 2:
            totals = {"2026-10": "99.5"}  # a refund on the 3rd
        if "2026-10" in read(current, moment, totals):
            read_on.append(moment.day)
    # Read every day up to the closing day (the 6th), where it is unchanged since the 5th.
    assert read_on == [1, 2, 3, 4, 5, 6]
    assert "2026-10" not in current.progress["open_months"]


def test_it_keeps_a_month_open_while_its_rereads_still_change() -> None:
    current = state({"current_month": "2026-10", "open_months": {}})
    day = datetime(2026, 11, 1, 4, 0, tzinfo=UTC)
    read_on = []
    for offset in range(12):
        moment = day + timedelta(days=offset)
        # Adjustments keep coming until the 8th.
        totals = {"2026-10": str(100 - min(offset, 7))}
        if "2026-10" in read(current, moment, totals):
            read_on.append(moment.day)
    assert read_on == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert current.progress["open_months"] == {}


def test_it_reads_the_old_month_once_more_after_a_long_gap() -> None:
    current = state({"current_month": "2026-10", "open_months": {}})
    late = datetime(2026, 11, 20, 4, 0, tzinfo=UTC)
    assert read(current, late, {}) == ["2026-10", "2026-11"]
    # Read that late for the first time, it is final at once.
    assert current.progress == {"current_month": "2026-11", "open_months": {}}
    assert read(current, late + timedelta(days=1), {}) == ["2026-11"]


def test_it_rereads_the_previous_month_after_an_upgrade_without_bookkeeping() -> None:
    early = datetime(2026, 11, 3, 4, 0, tzinfo=UTC)
    assert months_to_sync(state(), now=early, backfill_days=30) == ["2026-10", "2026-11"]


def test_it_keeps_months_a_first_sync_reads_inside_their_closing_days_open() -> None:
    now = datetime(2026, 11, 3, 4, 0, tzinfo=UTC)
    results = [
        BillsResult("2026-09", 10, Decimal(1)),
        BillsResult("2026-10", 10, Decimal(1)),
        BillsResult("2026-11", 10, Decimal(1)),
    ]
    progress = next_bookkeeping(None, results, now=now)
    assert progress["current_month"] == "2026-11"
    assert list(progress["open_months"]) == ["2026-10"]


def test_a_bill_month_is_a_beijing_calendar_month_in_utc() -> None:
    # Beijing is UTC+8 all year: a month starts at 16:00 UTC on the last day of the one before.
    assert bill_month_bounds("2026-11") == (
        datetime(2026, 10, 31, 16, tzinfo=UTC),
        datetime(2026, 11, 30, 16, tzinfo=UTC),
    )
    assert bill_month_bounds("2026-12")[1] == datetime(2026, 12, 31, 16, tzinfo=UTC)
    start, end = bill_month_bounds("2026-02")
    assert [month_of(start), month_of(end - timedelta(microseconds=1)), month_of(end)] == [
        "2026-02",
        "2026-02",
        "2026-03",
    ]
    assert closes_on("2026-12") == date(2027, 1, 1) + timedelta(days=CLOSED_AFTER_DAYS)


@pytest.mark.django_db
def test_a_span_of_bill_months_covers_their_lines_dated_outside_them(acme: Organization) -> None:
    account = make_account(acme)
    november = bill_month_bounds("2026-11")
    assert bill_months_span(acme.pk, ["2026-11"]) == november
    # A late adjustment of October dated in December, and October's own month.
    line = bill(account, datetime(2026, 12, 3, 2, tzinfo=UTC), "-5")
    BillLine.objects.filter(pk=line.pk).update(month="2026-10")
    assert bill_months_span(acme.pk, ["2026-11", "2026-10"]) == (
        bill_month_bounds("2026-10")[0],
        datetime(2026, 12, 3, 2, 0, 1, tzinfo=UTC),
    )

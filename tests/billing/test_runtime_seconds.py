"""Seconds a bill line pays for: its fee span, or fewer when its TimeSpan says it ran less."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from apps.billing.runtime import billed_seconds

HOUR = dt.datetime(2026, 11, 30, 3, tzinfo=dt.UTC)
END = HOUR + dt.timedelta(minutes=59, seconds=59)


def test_it_counts_the_whole_hour_inclusive_of_its_last_second() -> None:
    assert billed_seconds(HOUR, END) == 3600
    assert billed_seconds(HOUR, END, Decimal("3600"), "秒") == 3600


def test_it_counts_only_the_seconds_a_partial_hour_ran() -> None:
    # An hourly settlement line spans its whole hour; the instance ran 581 s of it.
    assert billed_seconds(HOUR, END, Decimal("581"), "秒") == 581
    assert billed_seconds(HOUR, END, Decimal("0.5"), "小时") == 1800


def test_it_never_counts_more_than_the_span_nor_trusts_an_unknown_unit() -> None:
    assert billed_seconds(HOUR, END, Decimal("7200"), "秒") == 3600
    assert billed_seconds(HOUR, END, Decimal("1"), "月") == 3600
    assert billed_seconds(HOUR, END, Decimal("0"), "秒") == 3600
    assert billed_seconds(HOUR, END, None, "") == 3600

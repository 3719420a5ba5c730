"""A prepaid line spread over its Beijing days: pieces that sum exactly, however it is cut."""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal

from apps.exports.focus_amortize import BEIJING, beijing_days, piece, share, spread

START = dt.datetime(2026, 10, 5, tzinfo=BEIJING).astimezone(dt.UTC)
END = dt.datetime(2026, 11, 5, tzinfo=BEIJING).astimezone(dt.UTC)
COST = Decimal("7295.00000001")


def test_it_cuts_a_period_at_beijing_midnights_inside_the_window() -> None:
    days = list(beijing_days(START, END, window=(START, END)))
    assert len(days) == 31
    assert days[0][0] == START
    assert days[-1][1] == END
    assert all(b == following[0] for (_, b), following in itertools.pairwise(days))
    assert {a.astimezone(BEIJING).hour for a, _ in days} == {0}
    # The window cuts too: a window from 13:00 Beijing time starts a partial day there.
    noon = dt.datetime(2026, 10, 10, 13, tzinfo=BEIJING).astimezone(dt.UTC)
    (first, *_rest) = beijing_days(START, END, window=(noon, END))
    assert first == (noon, dt.datetime(2026, 10, 11, tzinfo=BEIJING).astimezone(dt.UTC))
    assert list(beijing_days(START, END, window=(END, END + dt.timedelta(days=3)))) == []


def test_its_pieces_sum_exactly_to_the_cost_and_are_even() -> None:
    pieces = spread(COST, START, END, window=(START, END))
    assert sum((amount for _, _, amount in pieces), Decimal(0)) == COST
    amounts = {amount for _, _, amount in pieces}
    assert max(amounts) - min(amounts) <= Decimal("0.00000001")
    assert all(amount.as_tuple().exponent >= -8 for amount in amounts)  # type: ignore[operator]


def test_a_window_cut_anywhere_gives_the_same_money() -> None:
    cut = dt.datetime(2026, 10, 20, 7, 31, 13, tzinfo=dt.UTC)
    before = spread(COST, START, END, window=(START, cut))
    after = spread(COST, START, END, window=(cut, END))
    whole = sum((amount for _, _, amount in before + after), Decimal(0))
    assert whole == COST
    assert len(before) + len(after) == 32
    assert piece(COST, START, END, START, cut) + piece(COST, START, END, cut, END) == COST


def test_a_refund_spreads_negative_and_a_window_outside_gives_nothing() -> None:
    refund = spread(-COST, START, END, window=(START, END))
    assert sum((amount for _, _, amount in refund), Decimal(0)) == -COST
    assert spread(COST, START, END, window=(END, END + dt.timedelta(days=1))) == []


def test_a_quantity_share_is_proportional_to_the_time() -> None:
    day = dt.timedelta(days=1)
    assert share(Decimal(31), START, END, START, START + day) == 1
    expected = (Decimal(1) / 31).quantize(Decimal("1e-12"))
    assert share(Decimal(1), START, END, START - day, START + day) == expected

"""A bill line's FOCUS rows in an export window: its own, then its amortized ones.

EffectiveCost is amortized. A subscription purchase (or its refund) is 0 on its own row and its
cost appears on *amortized rows*, one per Beijing day it covers (``apps.billing.amortization``:
pieces summing exactly to the line). A commitment purchase (RI / SP) pays for instance-hours:
its amortized cost is carried by the usage it paid for (``focus_commitments``), and the rest, a
day at a time, by rows of its unused capacity. Amortized rows are ChargeCategory Usage,
ChargeFrequency Recurring, BilledCost 0, with the purchase's ``x_BillLineId``; a day's row is
in the export whose window holds the day's start, as a bill line is by its charge period's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from typing import Any

from apps.billing import amortization
from apps.billing.sync import BEIJING
from apps.exports.focus import GpuFigures, billing_period, focus_row, is_prepaid
from apps.exports.focus_commitments import commitment_columns, commitment_kind, hour_of

_Q8 = Decimal("0.00000001")
_Q12 = Decimal("0.000000000001")
_HOUR = dt.timedelta(hours=1)
_DAY = dt.timedelta(days=1)
_SECOND = dt.timedelta(seconds=1)
Window = tuple[dt.datetime, dt.datetime]


def focus_rows(row: Mapping[str, Any], gpu: GpuFigures, window: Window) -> list[dict[str, Any]]:
    """Every FOCUS row of a bill line in the export ``window``: its own (when its charge period
    starts inside the window) followed by its amortized rows inside the window."""
    line = focus_row(row, gpu)
    own = [line] if window[0] <= row["fee_begin_at"] < window[1] else []
    return own + amortized_rows(row, line, window)


def beijing_midnight_after(moment: dt.datetime) -> dt.datetime:
    """The first Beijing midnight at or after ``moment`` (where an amortized day starts)."""
    local = moment.astimezone(BEIJING)
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return (midnight if midnight == local else midnight + _DAY).astimezone(dt.UTC)


def amortized_rows(
    row: Mapping[str, Any], line: Mapping[str, Any], window: Window
) -> list[dict[str, Any]]:
    """The amortized rows of a prepaid line (``line``: its ``focus_row``) in ``window``: a
    subscription's days (ListCost and ContractedCost the day's pieces of the line's, the
    quantities its share of the time), or a commitment's unused days."""
    if not is_prepaid(row):
        return []
    if commitment_kind(row):
        return unused_commitment_rows(row, line, window)
    start, end = line["ChargePeriodStart"], line["ChargePeriodEnd"]
    begin, stop, category = row["fee_begin_at"], row["fee_end_at"], row["charge_category"]

    def days(amount: Decimal) -> list[tuple[dt.date, Decimal]]:
        return amortization.spread_days(amount, begin, stop, category, BEIJING)

    out = []
    for (day, effective), (_, listed), (_, contracted) in zip(
        days(row["cost"]), days(line["ListCost"]), days(line["ContractedCost"]), strict=True
    ):
        midnight = dt.datetime.combine(day, dt.time(), tzinfo=BEIJING)
        a = max(midnight.astimezone(dt.UTC), start)
        if not window[0] <= a < window[1]:
            continue
        b = min((midnight + _DAY).astimezone(dt.UTC), end)
        quantity = line["PricingQuantity"]
        if quantity is not None:
            quantity = _share(quantity, start, end, a, b)
        out.append(
            _amortized(
                line,
                a,
                b,
                ContractedCost=contracted,
                EffectiveCost=effective,
                ListCost=listed,
                PricingCategory="Standard",
                PricingQuantity=quantity,
                ConsumedQuantity=quantity,
                ConsumedUnit=line["PricingUnit"],
            )
        )
    return out


def unused_commitment_rows(
    row: Mapping[str, Any], line: Mapping[str, Any], window: Window
) -> list[dict[str, Any]]:
    """A commitment purchase's unused capacity: a row a Beijing day (starting in ``window``)
    with the money of the day's hours the usage it paid for did not take (``selectors`` gives
    it per hour as ``commitment_unused``; the covered usage carries the rest). A day fully used
    has no row. Without the figures (a line read on its own), every hour counts as unused."""
    start, end = line["ChargePeriodStart"], line["ChargePeriodEnd"]
    unused = row.get("commitment_unused")
    if unused is None:
        unused = dict(
            amortization.spread_hours(
                row["cost"], row["fee_begin_at"], row["fee_end_at"], row["charge_category"]
            )
        )
    columns = commitment_columns(row, commitment_kind(row), "Unused")
    out = []
    day = beijing_midnight_after(start) - _DAY
    while day < end:
        a, b = max(day, start), min(day + _DAY, end)
        day += _DAY
        if not window[0] <= a < window[1]:
            continue
        money, hour = Decimal(0), hour_of(a)
        while hour < b:
            money += unused.get(hour, Decimal(0))
            hour += _HOUR
        if money == 0:
            continue
        quantity = line["PricingQuantity"]
        if quantity is not None:
            cost = row["cost"]
            quantity = quantity * money / cost if cost else _share(quantity, start, end, a, b)
            quantity = quantity.quantize(_Q12, ROUND_HALF_EVEN)
        out.append(
            _amortized(
                line,
                a,
                b,
                **columns,
                ContractedCost=_times(line["ContractedUnitPrice"], quantity, money),
                EffectiveCost=money,
                ListCost=_times(line["ListUnitPrice"], quantity, money),
                PricingCategory="Committed",
                PricingQuantity=quantity,
                # FOCUS: no consumption on the unused part of a commitment.
                ConsumedQuantity=None,
                ConsumedUnit=None,
            )
        )
    return out


def _amortized(
    line: Mapping[str, Any], a: dt.datetime, b: dt.datetime, **values: Any
) -> dict[str, Any]:
    """An amortized row of ``[a, b)``: the line's columns, no money billed, ``values`` over."""
    period_start, period_end = billing_period(a.astimezone(BEIJING).strftime("%Y-%m"))
    return {
        **line,
        "BilledCost": Decimal(0),
        "BillingPeriodStart": period_start,
        "BillingPeriodEnd": period_end,
        "ChargeCategory": "Usage",
        "ChargeClass": None,
        "ChargeFrequency": "Recurring",
        "ChargePeriodStart": a,
        "ChargePeriodEnd": b,
        "x_GpuHours": None,
        "x_GpuUtilAvgPct": None,
        "x_IdleCost": None,
        **values,
    }


def _share(
    value: Decimal, start: dt.datetime, end: dt.datetime, a: dt.datetime, b: dt.datetime
) -> Decimal:
    """``value`` x the part of ``[start, end)`` that ``[a, b)`` is, to 12 decimals: a quantity,
    whose product with a unit price must give the day's cost (8 decimals would be off by a unit
    price times 5e-9: 0.0004 yuan on a year's reserved instance)."""
    return (value * Decimal((b - a) // _SECOND) / Decimal((end - start) // _SECOND)).quantize(
        _Q12, ROUND_HALF_EVEN
    )


def _times(price: Decimal | None, quantity: Decimal | None, fallback: Decimal) -> Decimal:
    if price is None or quantity is None:
        return fallback
    return (price * quantity).quantize(_Q8, ROUND_HALF_UP)

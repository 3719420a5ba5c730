"""Waste priced from the bills: what each phase of an instance actually cost over a period.

The money is the runtime cost the cloud billed for the instance's hours in the period (every
runtime component of its runtime lines, ``apps.billing.runtime``: compute, GPU, unknown), summed
exactly (Decimal, never a database float) and split over the phases of the minutes of those
hours by ``engine.waste(..., total_cost=billed)``, so the phases add up to the bill to the cent.
Hours that were not billed (stopped with STOP_CHARGING) carry no money and no GPU-hours; disks
and IPs, which keep billing, are not GPU money. An instance without runtime lines in the period (a monthly subscription, or bills not
synced yet) is priced at its ``InstancePrice`` instead, and says so in ``cost_source``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np

from apps.analysis.engine import Phase, WasteReport, waste
from apps.analysis.engine.waste import gpu_hours_of_card_minutes
from apps.analysis.selectors import PricedInstance, period_labels
from apps.billing.models import BillLine
from apps.billing.runtime import HOURLY_LINE_MAX, billed_seconds, is_runtime_line, runtime_lines
from apps.billing.selectors import BilledRuntime, amortized_runtime
from apps.cloud.models import ChargeType, InstancePrice
from apps.core.timegrid import ceil_epoch_minute, datetime_to_epoch_minute

# Tencent quotes subscriptions per month; amortised over a 30-day month of hours.
HOURS_PER_MONTH = Decimal(720)
_GPU_HOURS = Decimal("0.0001")
SOURCE_BILLS = "bills"
SOURCE_LIST_PRICE = "list_price"
SOURCE_UNPRICED = "unpriced"


@dataclasses.dataclass(frozen=True)
class PhaseFigures:
    minutes: int
    gpu_hours: Decimal
    cost: Decimal


@dataclasses.dataclass(frozen=True)
class InstanceWaste:
    """One instance's period: per-phase minutes, GPU-hours and money, and where the money is from."""

    instance_id: int
    project_id: int | None
    cost_source: str
    currency: str
    by_phase: dict[Phase, PhaseFigures]
    total_cost: Decimal
    billed_cost: Decimal | None
    """The exact billed amount before rounding to the cent (None unless from bills)."""

    @property
    def idle_cost(self) -> Decimal:
        return self.by_phase[Phase.IDLE].cost

    @property
    def data_bound_cost(self) -> Decimal:
        return self.by_phase[Phase.DATA_PROCESSING].cost


@dataclasses.dataclass
class _Billed:
    # Whole lines are summed as Decimal (exact, and much faster than Fraction); only the
    # prorated share of a line cut by the period needs a Fraction.
    whole: Decimal = Decimal(0)
    partial: Fraction = Fraction(0)
    currency: str = ""
    spans: list[tuple[int, int]] = dataclasses.field(default_factory=list)


def instances_waste(
    *, instances: Sequence[PricedInstance], start: dt.datetime, end: dt.datetime, currency: str
) -> list[InstanceWaste]:
    """Per-phase figures of each instance over ``[start, end)`` (in the given order).

    ``currency`` is used when neither a bill nor a price names one (an unpriced instance).
    """
    ids = [instance.pk for instance in instances]
    labels = period_labels(instance_ids=ids, start=start, end=end)
    billed = _billed(ids, start, end)
    prices = _hourly_prices(instances, start, end)
    first, minutes = datetime_to_epoch_minute(start), labels.shape[1]
    out = []
    for row, instance in enumerate(instances):
        mask = np.zeros(minutes, dtype=bool)
        bill = billed.get(instance.pk)
        if bill is not None:
            for a, b in bill.spans:
                mask[max(a - first, 0) : max(min(b - first, minutes), 0)] = True
            total = bill.whole + _to_decimal(bill.partial)
            report = waste(labels[row][mask], Decimal(0), total_cost=total)
            source, money_currency, exact = SOURCE_BILLS, bill.currency, total
        else:
            _mark_existence(mask, instance, first)
            price = prices.get(instance.pk)
            hourly = price.hourly if price else Decimal(0)
            money_currency = price.currency if price else currency
            report = waste(labels[row][mask], hourly)
            source = price.source if price else SOURCE_UNPRICED
            exact = None
        out.append(
            InstanceWaste(
                instance_id=instance.pk,
                project_id=instance.project_id,
                cost_source=source,
                currency=money_currency or currency,
                by_phase=_scaled(report, instance.gpu_count),
                total_cost=report.total_cost,
                billed_cost=exact,
            )
        )
    return out


def _billed(ids: Sequence[int], start: dt.datetime, end: dt.datetime) -> dict[int, _Billed]:
    """Runtime lines overlapping the period, per instance: exact total and billed spans.

    A line that only partly overlaps the period (a period not on whole hours) counts in
    proportion to the overlap; lines inside it count in full, exactly. The spans of an hour's
    components coincide: the minutes are a union, so an hour is counted once.
    """
    lines = (
        BillLine.objects.filter(runtime_lines())
        .filter(
            instance_id__in=list(ids),
            fee_begin_at__lt=end,
            fee_end_at__gte=start,
            fee_begin_at__gt=start - HOURLY_LINE_MAX,
        )
        .values_list(
            "instance_id", "fee_begin_at", "fee_end_at", "cost", "currency", "component_class",
            "charge_category",
        )
    )  # fmt: skip
    out: dict[int, _Billed] = defaultdict(_Billed)
    for instance_id, begin, end_at, cost, currency, cls, category in lines.iterator(
        chunk_size=5000
    ):
        if not is_runtime_line(cls, category, begin, end_at):
            continue  # a line of more than an hour: not an hour of use
        # Bills give the last second inclusively (10:00:00-10:59:59).
        span = billed_seconds(begin, end_at)
        stop = begin + dt.timedelta(seconds=span)
        overlap = (min(stop, end) - max(begin, start)).total_seconds()
        if overlap <= 0 or span <= 0:
            continue
        item = out[instance_id]
        if overlap >= span:
            item.whole += cost
        else:
            item.partial += Fraction(cost) * Fraction(int(overlap), int(span))
        item.currency = currency
        item.spans.append((datetime_to_epoch_minute(begin), ceil_epoch_minute(stop)))
    return dict(out)


@dataclasses.dataclass(frozen=True)
class HourlyPrice:
    """The hourly runtime price of an instance without hourly runtime lines, and its source."""

    hourly: Decimal
    currency: str
    source: str


def _hourly_prices(
    instances: Sequence[PricedInstance],
    start: dt.datetime,
    end: dt.datetime,
    *,
    amortized: Mapping[int, BilledRuntime] | None = None,
) -> dict[int, HourlyPrice]:
    """Instance id -> the hourly runtime price of the instances without hourly runtime lines:
    a subscription's purchases' runtime amortized over the hours of the period they cover
    (``apps.billing.selectors.amortized_runtime``: the bills), else the discounted price of
    the account's price catalog (the list price)."""
    accounts = {i.account_id for i in instances if i.account_id is not None}
    # Keyed like the instances look it up; an instance without an account finds nothing.
    catalog: dict[tuple[int | None, str, str, str], InstancePrice] = {
        (p.account_id, p.zone, p.instance_type, p.charge_type): p
        for p in InstancePrice.objects.filter(account_id__in=accounts)
    }
    prepaid = [i.pk for i in instances if i.charge_type == ChargeType.PREPAID]
    if amortized is None:
        amortized = amortized_runtime(prepaid, start, end) if prepaid else {}
    out: dict[int, HourlyPrice] = {}
    for instance in instances:
        bill = amortized.get(instance.pk)
        if bill is not None and bill.seconds > 0:
            hourly_paid = bill.cost * 3600 / bill.seconds
            out[instance.pk] = HourlyPrice(hourly_paid, bill.currency, SOURCE_BILLS)
            continue
        price = catalog.get(
            (instance.account_id, instance.zone, instance.instance_type, instance.charge_type)
        )
        if price is None:
            continue
        hourly = price.hourly or price.hourly_list
        if hourly is None and instance.charge_type == ChargeType.PREPAID:
            monthly = price.monthly or price.monthly_list
            hourly = monthly / HOURS_PER_MONTH if monthly is not None else None
        if hourly is not None:
            out[instance.pk] = HourlyPrice(hourly, price.currency, SOURCE_LIST_PRICE)
    return out


def _mark_existence(mask: np.ndarray, instance: PricedInstance, first: int) -> None:
    """Mark the minutes of the period in which the instance existed (and so cost money)."""
    minutes = mask.size
    a = (
        0
        if instance.launched_at is None
        else max(datetime_to_epoch_minute(instance.launched_at) - first, 0)
    )
    b = minutes
    if instance.terminated_at is not None:
        b = min(max(datetime_to_epoch_minute(instance.terminated_at) - first, 0), minutes)
    mask[a:b] = True


def _scaled(report: WasteReport, gpu_count: float) -> dict[Phase, PhaseFigures]:
    return scaled_figures(
        [report.by_phase[p].minutes for p in Phase],
        [report.by_phase[p].cost for p in Phase],
        gpu_count,
    )


def scaled_figures(
    minutes: Sequence[int], costs: Sequence[Decimal], gpu_count: float
) -> dict[Phase, PhaseFigures]:
    """Per-phase figures of minutes and money in Phase order, GPU-hours for ``gpu_count``."""
    # The engine counts whole cards; a vGPU share (gpu_count 0.5) scales its GPU-hours too.
    cards = Decimal(str(gpu_count)) if gpu_count else Decimal(0)
    if cards < 0 or not cards.is_finite():
        return {
            phase: PhaseFigures(
                minutes=minutes[phase],
                gpu_hours=(Decimal(minutes[phase]) * cards / 60).quantize(
                    _GPU_HOURS, rounding=ROUND_HALF_UP
                ),
                cost=costs[phase],
            )
            for phase in Phase
        }
    # minutes x cards / 60 rounded half-up, in integers (cards = num / den exactly).
    num, den = cards.as_integer_ratio()
    return {
        phase: PhaseFigures(
            minutes=minutes[phase],
            gpu_hours=gpu_hours_of_card_minutes(minutes[phase] * num, den),
            cost=costs[phase],
        )
        for phase in Phase
    }


def _to_decimal(amount: Fraction) -> Decimal:
    if amount.denominator == 1:
        return Decimal(amount.numerator)
    exact = Decimal(amount.numerator) / Decimal(amount.denominator)
    # Prorated lines only: far below a cent, and the engine rounds the total to the cent.
    return exact.quantize(Decimal("1e-12"), rounding=ROUND_HALF_UP)

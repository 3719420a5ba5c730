"""Spend: the money of the bill lines, summed for every consumer outside the cost report.

Digests, budgets, anomalies and /metrics read their money here (the cost report reads
``apps.costs.selectors``), so a digest, a budget and an anomaly over the same lines give the
same figure to the cent. How to recompute any of them by hand from the bill lines:

- a line belongs to the period its fee begins in: ``start <= fee_begin_at < end``;
- its money is ``cost``, Tencent's RealCost (after discounts), every component of the bill;
- a ``day`` is the local day (in the ``tz`` given) on which the line's fee begins.

Sums are exact on both databases (``apps.costs.sums.grouped_sums``): NUMERIC on PostgreSQL,
Decimal in Python on SQLite.

``basis`` is how purchases count (FOCUS): ``billed`` (BilledCost, as invoiced: a prepaid
renewal is money of the hour it was bought in) is the only basis these selectors answer so
far; ``amortized`` (EffectiveCost) is refused with a ValueError until it is built, rather
than answered with billed money under another name.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Collection, Sequence
from decimal import Decimal
from typing import Any

from django.db.models import Min, QuerySet
from django.db.models.functions import TruncDate

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.runtime import HOURLY_LINE_MAX, billed_seconds
from apps.billing.selectors import BilledRuntime, billed_runtime, cost_total
from apps.costs.sums import grouped_sums

BILLED = "billed"
AMORTIZED = "amortized"
BASES = (BILLED,)
"""The bases the selectors answer (see the module)."""

#: What ``spend_by`` groups by: a local day, or one of the line's own columns.
GROUPS = ("day", "project", "instance", "currency")
_COLUMNS = {"project": "project_id", "instance": "instance_id", "currency": "currency"}
_RATE_LOOKBACK = dt.timedelta(hours=24)
_RATE_QUANTUM = Decimal("0.00000001")

SpendKey = tuple[Any, ...]


def _check_basis(basis: str) -> None:
    if basis not in BASES:
        raise ValueError(f"Spend on the {basis!r} basis is not available (bases: {BASES}).")


def spend_lines(
    organization: Organization,
    start: dt.datetime,
    end: dt.datetime,
    *,
    currency: str | None = None,
    project_ids: Collection[int] | None = None,
    instance_ids: Collection[int] | None = None,
) -> QuerySet[BillLine]:
    """The organization's lines whose fee begins in ``[start, end)``, in ``currency`` (every
    currency with None), of ``project_ids`` / ``instance_ids`` when given."""
    lines = BillLine.objects.for_organization(organization).filter(
        fee_begin_at__gte=start, fee_begin_at__lt=end
    )
    if currency is not None:
        lines = lines.filter(currency=currency)
    if project_ids is not None:
        lines = lines.filter(project_id__in=list(project_ids))
    if instance_ids is not None:
        lines = lines.filter(instance_id__in=list(instance_ids))
    return lines


def spend_by(
    organization: Organization,
    start: dt.datetime,
    end: dt.datetime,
    group_by: Sequence[str],
    *,
    tz: dt.tzinfo | None = None,
    currency: str | None = None,
    project_ids: Collection[int] | None = None,
    instance_ids: Collection[int] | None = None,
    basis: str = BILLED,
) -> dict[SpendKey, Decimal]:
    """Spend of ``spend_lines`` per key: a tuple of the ``group_by`` values in their order
    (``day``: the local date in ``tz``; ``project`` / ``instance``: the id, None for lines
    without one; ``currency``). One grouped query; the values add up to ``spend_total``.
    """
    _check_basis(basis)
    unknown = [name for name in group_by if name not in GROUPS]
    if not group_by or unknown:
        raise ValueError(f"Spend is grouped by one or more of {GROUPS}, not {list(group_by)}.")
    if "day" in group_by and tz is None:
        raise ValueError("Spend by day needs the timezone its days are in.")
    if end <= start:
        return {}
    lines = spend_lines(
        organization,
        start,
        end,
        currency=currency,
        project_ids=project_ids,
        instance_ids=instance_ids,
    )
    fields = {"local_day": TruncDate("fee_begin_at", tzinfo=tz)} if "day" in group_by else {}
    columns = tuple(_COLUMNS[name] for name in group_by if name != "day")
    names = ["local_day" if name == "day" else _COLUMNS[name] for name in group_by]
    totals: dict[SpendKey, Decimal] = defaultdict(Decimal)
    for row, amount, _count in grouped_sums(lines, fields, columns=columns):
        totals[tuple(row[name] for name in names)] += amount
    return dict(totals)


def spend_total(
    organization: Organization,
    start: dt.datetime,
    end: dt.datetime,
    *,
    currency: str | None = None,
    project_ids: Collection[int] | None = None,
    instance_ids: Collection[int] | None = None,
    basis: str = BILLED,
) -> Decimal:
    """Spend of ``spend_lines``, all of it (0 without lines)."""
    _check_basis(basis)
    if end <= start:
        return Decimal(0)
    return cost_total(
        spend_lines(
            organization,
            start,
            end,
            currency=currency,
            project_ids=project_ids,
            instance_ids=instance_ids,
        )
    )


def cost_rates_per_hour(
    organization: Organization,
    instance_ids: Collection[int],
    now: dt.datetime,
    *,
    basis: str = BILLED,
) -> dict[int, Decimal]:
    """Instance id -> what it costs an hour at ``now``: the sum of its latest billed hour's
    lines (every component) among those that began in the 24 hours before ``now``, else a
    subscription covering ``now`` as its cost over the hours it covers (to 8 decimals; several
    covering subscriptions add up). An instance with neither is absent.
    """
    _check_basis(basis)
    ids = list(instance_ids)
    lines = BillLine.objects.for_organization(organization).filter(instance_id__in=ids)
    hours: dict[int, dict[dt.datetime, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for instance_id, begin, end, cost in lines.filter(
        fee_begin_at__gte=now - _RATE_LOOKBACK, fee_begin_at__lt=now
    ).values_list("instance_id", "fee_begin_at", "fee_end_at", "cost"):
        if end - begin <= HOURLY_LINE_MAX:
            hours[instance_id][begin] += cost
    rates = {instance_id: by_hour[max(by_hour)] for instance_id, by_hour in hours.items()}
    running: dict[int, Decimal] = defaultdict(Decimal)
    for instance_id, begin, end, cost in lines.filter(
        fee_begin_at__lte=now, fee_end_at__gt=now
    ).values_list("instance_id", "fee_begin_at", "fee_end_at", "cost"):
        if end - begin > HOURLY_LINE_MAX:
            # Bills end a period on hh:59:59 inclusively: its seconds count the last one.
            running[instance_id] += cost * 3600 / billed_seconds(begin, end)
    for instance_id, rate in running.items():
        rates.setdefault(instance_id, rate.quantize(_RATE_QUANTUM))
    return rates


def runtime_billed(
    instance_ids: Sequence[int], start: dt.datetime, end: dt.datetime
) -> dict[int, BilledRuntime]:
    """Instance id -> the money and distinct seconds of its runtime lines (compute, GPU) whose
    fee began in ``[start, end)`` (``billing.selectors.billed_runtime``): an instance's price an
    hour, and what its stopped hours still billed, for the readers above costs (automation)."""
    return billed_runtime(instance_ids, start, end)


def first_billed_at(
    organization: Organization, *, account_ids: QuerySet[Any] | Collection[int]
) -> dt.datetime | None:
    """When the earliest fee of the organization's lines of these accounts began (None: no
    line)."""
    first: dt.datetime | None = (
        BillLine.objects.for_organization(organization)
        .filter(account_id__in=account_ids)
        .aggregate(first=Min("fee_begin_at"))["first"]
    )
    return first

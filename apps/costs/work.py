"""Cost of work: what a million samples (or tokens) cost on an instance, from its bill.

The money is ``spend_total`` (apps/costs/spend.py: the bill lines whose fee begins in the
period, every component, billed basis); the work is the agent's cumulative counter over the
same period (``apps.metrics.agent.selectors.work_done``). By hand: add the instance's lines'
``cost`` for ``start <= fee_begin_at < end``, take the counter's last value before ``end``
less its value at ``start``, and divide, times 1,000,000. Periods are meant to be whole hours,
as the bill's lines are.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import ROUND_HALF_EVEN, Decimal

from apps.accounts.models import Organization
from apps.cloud.models import Instance
from apps.costs.spend import BILLED, spend_by
from apps.metrics.agent.selectors import work_done

PER = 1_000_000
QUANTUM = Decimal("0.000001")

# Why a figure is None (reason codes; words are the edge's).
NO_COUNTER = "no_counter"  # the agent reported no point of the counter in the period
NO_WORK = "no_work"  # the counter did not move: money with no work is not a price per unit


@dataclasses.dataclass(frozen=True)
class WorkCost:
    instance_id: int
    spend: Decimal
    currency: str
    work: float | None
    cost_per_million: Decimal | None
    reason: str | None = None


def cost_per_million_work(
    *,
    organization: Organization,
    instances: list[Instance],
    source: str,
    name: str,
    start: dt.datetime,
    end: dt.datetime,
    basis: str = BILLED,
) -> list[WorkCost]:
    """Per instance (in the order given): spend, work, and spend per 1,000,000 units of work
    in ``[start, end)``, in the organization's currency; None with a reason where the agent
    has no counter or it did not move."""
    currency = organization.currency
    work = work_done(
        instance_ids=[i.pk for i in instances], source=source, name=name, start=start, end=end
    )
    spend_of = spend_by(
        organization,
        start,
        end,
        ["instance"],
        currency=currency,
        instance_ids=[i.pk for i in instances],
        basis=basis,
    )
    figures = []
    for instance in instances:
        spend = spend_of.get((instance.pk,), Decimal(0))
        units = work.get(instance.pk)
        if units is None or units <= 0:
            figures.append(
                WorkCost(
                    instance.pk,
                    spend,
                    currency,
                    units,
                    None,
                    NO_COUNTER if units is None else NO_WORK,
                )
            )
            continue
        # repr() is the float's shortest exact decimal: 600000.0 stays 600000, not 599999.99...
        per_million = (spend * PER / Decimal(repr(units))).quantize(QUANTUM, ROUND_HALF_EVEN)
        figures.append(WorkCost(instance.pk, spend, currency, units, per_million))
    return figures

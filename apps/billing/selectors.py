"""Reads of bill lines: totals that reconcile to the cent."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from django.db import connection, models
from django.db.models import QuerySet, Sum

from apps.accounts.models import Organization
from apps.billing.models import BillLine, InstanceBillDay
from apps.billing.rollups import (
    BILLED_SECONDS_SQL,
    COMPUTE_COMPONENTS,
    HOURLY_COMPUTE_SQL,
    HOURLY_LINE_MAX,
    billed_seconds,
)
from apps.cloud.models import Instance, ProjectTagKey
from apps.cloud.projects import DEFAULT_PROJECT_TAG_KEYS


def cost_totals(lines: QuerySet[BillLine], group_by: str) -> dict[Any, Decimal]:
    """Sum of ``cost`` per value of ``group_by`` (e.g. "resource_id", "project__name").

    PostgreSQL sums NUMERIC exactly. SQLite (the embedded default) sums decimals as floats,
    which drifts by fractions of a cent over thousands of lines, so there the sum is done in
    Python with Decimal.
    """
    if connection.vendor == "postgresql":
        rows = lines.order_by().values_list(group_by).annotate(total=Sum("cost"))
        return dict(rows)
    totals: dict[Any, Decimal] = defaultdict(Decimal)
    for key, cost in lines.values_list(group_by, "cost").iterator(chunk_size=5000):
        totals[key] += cost
    return dict(totals)


def cost_total(lines: QuerySet[BillLine]) -> Decimal:
    """Sum of ``cost`` of the lines (exact on both databases, see ``cost_totals``)."""
    if connection.vendor == "postgresql":
        return lines.aggregate(total=Sum("cost"))["total"] or Decimal(0)
    return sum(lines.values_list("cost", flat=True).iterator(chunk_size=5000), Decimal(0))


class UnallocatedReason(models.TextChoices):
    """Why spend has no project: users fix their tagging from this."""

    NO_TAG = "no_tag", "No project tag"
    EMPTY_VALUE = "empty_value", "Project tag with an empty value"
    NO_RULE = "no_rule", "Tag value without a project"


def project_tag_keys(organization: Organization) -> list[str]:
    """The tag keys whose values name the organization's projects, in priority order."""
    keys = ProjectTagKey.objects.for_organization(organization).values_list("key", flat=True)
    return list(keys) or list(DEFAULT_PROJECT_TAG_KEYS)


def unallocated_reason(tags: dict[str, str], keys: list[str]) -> UnallocatedReason:
    """Why a resource with these tags has no project (assuming it has none).

    No project key at all is "no tag"; keys present but all blank (``project=""``) is "empty
    value"; otherwise a value is there and no project takes it (its project was removed, or the
    value was taken out of every project's tag values): "no rule".
    """
    present = [key for key in keys if key in tags]
    if not present:
        return UnallocatedReason.NO_TAG
    if all(not (tags[key] or "").strip() for key in present):
        return UnallocatedReason.EMPTY_VALUE
    return UnallocatedReason.NO_RULE


def unallocated_cost_by_reason(
    lines: QuerySet[BillLine], *, organization: Organization
) -> dict[UnallocatedReason, Decimal]:
    """Cost of the lines without a project, per reason (every reason present, zero if none).

    A line's own tags decide, completed by its instance's (bills carry only cost-allocation
    tags, as the sync does when it allocates). The values add up to the unallocated total.
    """
    keys = project_tag_keys(organization)
    totals = dict.fromkeys(UnallocatedReason, Decimal(0))
    unallocated = lines.filter(project__isnull=True).order_by()
    rows: Iterable[tuple[Any, Any, Decimal | None]]
    if connection.vendor == "postgresql":
        # Grouped by the instance's id, its tags read afterwards: hashing the instance's tags
        # too (after a join) took ~14 ms for a 90-day period of 100 unallocated instances'
        # CostDay rows, this ~9 ms.
        by_id = list(unallocated.values_list("tags", "instance_id").annotate(total=Sum("cost")))
        ids = {instance_id for _tags, instance_id, _cost in by_id if instance_id is not None}
        tags_of = dict(
            Instance.objects.for_organization(organization)
            .filter(pk__in=ids)
            .values_list("pk", "tags")
        )
        rows = [(tags, tags_of.get(i) if i else None, cost) for tags, i, cost in by_id]
    else:
        # SQLite sums decimals as floats (see ``cost_totals``): sum in Python.
        rows = unallocated.values_list("tags", "instance__tags", "cost").iterator(chunk_size=5000)
    for tags, instance_tags, cost in rows:
        merged = {**(instance_tags or {}), **(tags or {})}
        totals[unallocated_reason(merged, keys)] += cost or Decimal(0)
    return totals


@dataclasses.dataclass(frozen=True)
class BilledCompute:
    """What an instance's hourly compute lines of a period bill: their cost and seconds."""

    cost: Decimal
    seconds: int
    currency: str


def _midnight(moment: dt.datetime, *, up: bool) -> dt.datetime:
    day = moment.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day + dt.timedelta(days=1) if up and day < moment else day


def billed_compute(
    ids: Sequence[int], start: dt.datetime, end: dt.datetime
) -> dict[int, BilledCompute]:
    """Instance id -> its hourly compute lines with ``fee_begin_at`` in ``[start, end)``, summed.

    The whole UTC days of the period are read from the instance-day rollup, the partial days at
    its edges from the lines themselves: the same sums as over every line (the rollup equals its
    lines, ``apps.billing.rollups``), from about one row per instance-day. An instance billed
    in several currencies is given the one of most billed seconds.
    """
    ids = list(ids)
    if not ids or end <= start:
        return {}
    first, last = _midnight(start, up=True), _midnight(end, up=False)
    edges = [(start, end)] if first >= last else [(start, first), (last, end)]
    sums: dict[tuple[int, str], list] = defaultdict(lambda: [Decimal(0), 0])
    if first < last:
        for instance_id, currency, cost, seconds in _day_sums(ids, first.date(), last.date()):
            sums[(instance_id, currency)][0] += cost
            sums[(instance_id, currency)][1] += seconds
    for lo, hi in edges:
        if lo >= hi:
            continue
        for instance_id, currency, cost, seconds in _line_sums(ids, lo, hi):
            sums[(instance_id, currency)][0] += cost
            sums[(instance_id, currency)][1] += seconds
    out: dict[int, BilledCompute] = {}
    for (instance_id, currency), (cost, seconds) in sorted(sums.items()):
        known = out.get(instance_id)
        if known is None or seconds > known.seconds:
            out[instance_id] = BilledCompute(cost=cost, seconds=seconds, currency=currency)
    return out


def _day_sums(
    ids: list[int], first: dt.date, stop: dt.date
) -> Iterable[tuple[int, str, Decimal, int]]:
    """(instance, currency, cost, seconds) of the rollup days in ``[first, stop)``."""
    days = InstanceBillDay.objects.filter(instance_id__in=ids, day__gte=first, day__lt=stop)
    if connection.vendor == "postgresql":
        return (
            days.order_by()
            .values_list("instance_id", "currency")
            .annotate(Sum("cost"), Sum("billed_seconds"))
        )
    # SQLite sums decimals as floats (see ``cost_totals``): sum in Python.
    return days.values_list("instance_id", "currency", "cost", "billed_seconds").iterator(
        chunk_size=5000
    )


def _line_sums(
    ids: list[int], start: dt.datetime, end: dt.datetime
) -> Iterable[tuple[int, str, Decimal, int]]:
    """(instance, currency, cost, seconds) of the hourly compute lines beginning in the range."""
    if connection.vendor == "postgresql":
        sql = f"""
            SELECT instance_id, currency, sum(cost), sum({BILLED_SECONDS_SQL})
            FROM {BillLine._meta.db_table}
            WHERE instance_id = ANY(%s) AND fee_begin_at >= %s AND fee_begin_at < %s
              AND {HOURLY_COMPUTE_SQL}
            GROUP BY instance_id, currency
        """
        with connection.cursor() as cursor:
            cursor.execute(sql, [ids, start, end, list(COMPUTE_COMPONENTS)])
            return [(i, c, Decimal(cost), int(s)) for i, c, cost, s in cursor.fetchall()]
    lines = BillLine.objects.filter(
        instance_id__in=ids,
        component_code__in=COMPUTE_COMPONENTS,
        fee_begin_at__gte=start,
        fee_begin_at__lt=end,
    ).values_list("instance_id", "currency", "fee_begin_at", "fee_end_at", "cost")
    return [
        (instance_id, currency, cost, billed_seconds(begin, end_at))
        for instance_id, currency, begin, end_at, cost in lines.iterator(chunk_size=5000)
        if end_at - begin <= HOURLY_LINE_MAX
    ]

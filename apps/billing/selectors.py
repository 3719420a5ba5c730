"""Reads of bill lines: totals that reconcile to the cent."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from django.db import connection, models
from django.db.models import Max, QuerySet, Sum

from apps.accounts.models import Organization
from apps.billing import classify
from apps.billing.amortization import HOURLY_LINE_MAX, SPREAD_CATEGORIES
from apps.billing.models import BillLine, InstanceBillDay, InstanceComponentDay
from apps.billing.runtime import (
    BILLED_SECONDS_SQL,
    PERSISTENT,
    RUNTIME_LINE_SQL,
    USAGE_HOUR_SQL,
    billed_seconds,
    is_runtime,
    is_usage_hour,
    spread_share,
    union_seconds,
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


def unallocated_reasons_of(
    rows: Sequence[tuple[dict[str, str] | None, int | None]], *, organization: Organization
) -> list[UnallocatedReason]:
    """The reason of each (line tags, instance id) without a project: the line's own tags
    decide, completed by its instance's (bills carry only cost-allocation tags, as the sync does
    when it allocates)."""
    keys = project_tag_keys(organization)
    ids = {instance_id for _tags, instance_id in rows if instance_id is not None}
    tags_of: dict[int, dict[str, str]] = {}
    if ids:
        tags_of = dict(
            Instance.objects.for_organization(organization)
            .filter(pk__in=ids)
            .values_list("pk", "tags")
        )
    return [
        unallocated_reason(
            {**((tags_of.get(instance_id) or {}) if instance_id else {}), **(tags or {})}, keys
        )
        for tags, instance_id in rows
    ]


def unallocated_cost_by_reason(
    lines: QuerySet[BillLine], *, organization: Organization
) -> dict[UnallocatedReason, Decimal]:
    """Cost of the lines (or their ``CostDay`` sums) without a project, per reason (every
    reason present, zero if none); the values add up to the unallocated total."""
    totals = dict.fromkeys(UnallocatedReason, Decimal(0))
    unallocated = lines.filter(project__isnull=True).order_by()
    rows: list[tuple[Any, Any, Decimal | None]]
    if connection.vendor == "postgresql":
        # Grouped by the instance's id, its tags read afterwards: hashing the instance's tags
        # too (after a join) took ~14 ms for a 90-day period of 100 unallocated instances'
        # CostDay rows, this ~9 ms.
        rows = list(unallocated.values_list("tags", "instance_id").annotate(total=Sum("cost")))
    else:
        # SQLite sums decimals as floats (see ``cost_totals``): sum in Python.
        rows = list(unallocated.values_list("tags", "instance_id", "cost"))
    reasons = unallocated_reasons_of(
        [(tags, instance_id) for tags, instance_id, _cost in rows], organization=organization
    )
    for reason, (_tags, _instance_id, cost) in zip(reasons, rows, strict=True):
        totals[reason] += cost or Decimal(0)
    return totals


@dataclasses.dataclass(frozen=True)
class BilledComponent:
    """One component's usage lines of a period: what it billed and over how many seconds."""

    component_class: str
    code: str
    name: str
    cost: Decimal
    seconds: int

    @property
    def is_runtime(self) -> bool:
        return is_runtime(self.component_class)


@dataclasses.dataclass(frozen=True)
class BilledRuntime:
    """What an instance's runtime lines (``apps.billing.runtime``) of a period bill.

    ``cost`` is every runtime component's, ``seconds`` the distinct seconds they bill (a span
    once, however many components bill it), so ``cost / seconds`` is the hourly price paid.
    ``components`` are the period's usage components of every class in that currency, runtime
    and persistent (disks, IPs), largest cost first.
    """

    cost: Decimal
    seconds: int
    currency: str
    components: tuple[BilledComponent, ...] = ()

    @property
    def runtime_components(self) -> tuple[BilledComponent, ...]:
        return tuple(c for c in self.components if c.is_runtime)

    @property
    def persistent_components(self) -> tuple[BilledComponent, ...]:
        return tuple(c for c in self.components if c.component_class in PERSISTENT)

    @property
    def unknown_components(self) -> tuple[BilledComponent, ...]:
        return tuple(c for c in self.components if c.component_class == classify.UNKNOWN)


def _midnight(moment: dt.datetime, *, up: bool) -> dt.datetime:
    day = moment.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day + dt.timedelta(days=1) if up and day < moment else day


# (instance, currency) -> [cost, seconds]; (instance, currency, class, code) -> [cost, s, name]
_Sums = dict[tuple[int, str], list]
_Parts = dict[tuple[int, str, str, str], list]


def billed_runtime(
    ids: Sequence[int], start: dt.datetime, end: dt.datetime
) -> dict[int, BilledRuntime]:
    """Instance id -> its runtime lines with ``fee_begin_at`` in ``[start, end)``, summed, with
    its usage components of every class.

    The whole UTC days of the period are read from the instance-day rollups, the partial days
    at its edges from the lines themselves: the same sums as over every line (the rollups equal
    their lines, ``apps.billing.rollups``), from a few rows per instance-day. An instance billed
    in several currencies is given the one of most billed seconds. An instance with usage lines
    but no runtime line (stopped all period, its disks billing) has ``seconds`` 0.
    """
    ids = list(ids)
    if not ids or end <= start:
        return {}
    first, last = _midnight(start, up=True), _midnight(end, up=False)
    edges = [(start, end)] if first >= last else [(start, first), (last, end)]
    sums: _Sums = defaultdict(lambda: [Decimal(0), 0])
    parts: _Parts = defaultdict(lambda: [Decimal(0), 0, ""])
    if first < last:
        _day_sums(ids, first.date(), last.date(), sums, parts)
    for lo, hi in edges:
        if lo < hi:
            _line_sums(ids, lo, hi, sums, parts)
    for instance_id, currency, _cls, _code in parts:
        # A currency with persistent lines only (stopped, its disks billing): no runtime.
        sums.setdefault((instance_id, currency), [Decimal(0), 0])
    return _per_instance(sums, parts)


def _per_instance(sums: _Sums, parts: _Parts) -> dict[int, BilledRuntime]:
    """Each instance's sums in the currency of its most seconds, with that currency's parts."""
    out: dict[int, BilledRuntime] = {}
    for (instance_id, currency), (cost, seconds) in sorted(sums.items()):
        known = out.get(instance_id)
        if known is None or seconds > known.seconds:
            out[instance_id] = BilledRuntime(cost=cost, seconds=seconds, currency=currency)
    by_instance: dict[int, list[BilledComponent]] = defaultdict(list)
    for (instance_id, currency, cls, code), (cost, seconds, name) in parts.items():
        if out[instance_id].currency == currency:
            by_instance[instance_id].append(BilledComponent(cls, code, name, cost, seconds))
    return {
        instance_id: dataclasses.replace(
            billed,
            components=tuple(
                sorted(by_instance[instance_id], key=lambda c: (-c.cost, c.component_class, c.code))
            ),
        )
        for instance_id, billed in out.items()
    }


def _day_sums(ids: list[int], first: dt.date, stop: dt.date, sums: _Sums, parts: _Parts) -> None:
    """Add the rollup days in ``[first, stop)``."""
    days = InstanceBillDay.objects.filter(instance_id__in=ids, day__gte=first, day__lt=stop)
    components = InstanceComponentDay.objects.filter(
        instance_id__in=ids, day__gte=first, day__lt=stop
    )
    day_rows: Iterable[tuple[Any, ...]]
    part_rows: Iterable[tuple[Any, ...]]
    fields = ("instance_id", "currency", "component_class", "component_code")
    if connection.vendor == "postgresql":
        day_rows = (
            days.order_by()
            .values_list("instance_id", "currency")
            .annotate(Sum("cost"), Sum("billed_seconds"))
        )
        part_rows = (
            components.order_by()
            .values_list(*fields)
            .annotate(Sum("cost"), Sum("billed_seconds"), Max("component_name"))
        )
    else:
        # SQLite sums decimals as floats (see ``cost_totals``): sum in Python.
        day_rows = days.values_list("instance_id", "currency", "cost", "billed_seconds")
        part_rows = components.values_list(*fields, "cost", "billed_seconds", "component_name")
    for instance_id, currency, cost, seconds in day_rows:
        _add(sums[(instance_id, currency)], cost, seconds)
    for instance_id, currency, cls, code, cost, seconds, name in part_rows:
        _add(parts[(instance_id, currency, cls, code)], cost, seconds, name)


def _add(item: list, cost: Decimal, seconds: int, name: str | None = None) -> None:
    item[0] += Decimal(cost)
    item[1] += int(seconds)
    if name is not None:
        item[2] = max(item[2], name or "")


def _line_sums(
    ids: list[int], start: dt.datetime, end: dt.datetime, sums: _Sums, parts: _Parts
) -> None:
    """Add the usage lines beginning in the range (the partial days at a period's edges)."""
    if connection.vendor == "postgresql":
        where = (
            "instance_id = ANY(%(ids)s) AND fee_begin_at >= %(start)s AND fee_begin_at < %(end)s"
        )
        runtime_sql = f"""
            SELECT instance_id, currency, sum(cost), sum(seconds) FROM (
                SELECT instance_id, currency, sum(cost) AS cost,
                       max({BILLED_SECONDS_SQL}) AS seconds
                FROM {BillLine._meta.db_table}
                WHERE {where} AND {RUNTIME_LINE_SQL}
                GROUP BY instance_id, currency, fee_begin_at, fee_end_at
            ) AS spans
            GROUP BY instance_id, currency
        """
        parts_sql = f"""
            SELECT instance_id, currency, component_class, component_code, sum(cost),
                   sum({BILLED_SECONDS_SQL}), max(component_name)
            FROM {BillLine._meta.db_table}
            WHERE {where} AND {USAGE_HOUR_SQL}
            GROUP BY instance_id, currency, component_class, component_code
        """
        params: dict[str, Any] = {"ids": ids, "start": start, "end": end}
        with connection.cursor() as cursor:
            cursor.execute(runtime_sql, params)
            for instance_id, currency, cost, seconds in cursor.fetchall():
                _add(sums[(instance_id, currency)], cost, seconds)
            cursor.execute(parts_sql, params)
            for instance_id, currency, cls, code, cost, seconds, name in cursor.fetchall():
                _add(parts[(instance_id, currency, cls, code)], cost, seconds, name)
        return
    lines = BillLine.objects.filter(
        instance_id__in=ids, fee_begin_at__gte=start, fee_begin_at__lt=end
    ).values_list(
        "instance_id", "currency", "fee_begin_at", "fee_end_at", "cost", "component_class",
        "component_code", "component_name", "charge_category", "time_span", "time_unit",
    )  # fmt: skip
    # Per instance, each billed span once, with the most seconds any of its runtime parts ran.
    spans: dict[tuple[int, str], dict[tuple[dt.datetime, dt.datetime], int]] = defaultdict(dict)
    for (
        instance_id, currency, begin, end_at, cost, cls, code, name, category, span, unit
    ) in lines.iterator(chunk_size=5000):  # fmt: skip
        if not is_usage_hour(category, begin, end_at):
            continue
        seconds = billed_seconds(begin, end_at, span, unit)
        _add(parts[(instance_id, currency, cls, code)], cost, seconds, name)
        if is_runtime(cls):
            sums[(instance_id, currency)][0] += cost
            distinct = spans[(instance_id, currency)]
            distinct[(begin, end_at)] = max(distinct.get((begin, end_at), 0), seconds)
    for key, distinct in spans.items():
        sums[key][1] += sum(distinct.values())


def amortized_runtime(
    ids: Sequence[int], start: dt.datetime, end: dt.datetime
) -> dict[int, BilledRuntime]:
    """Instance id -> what its purchases, renewals and refunds put into ``[start, end)``,
    amortized: each spread line's cost evenly over the seconds it covers (its share of the
    period), ``seconds`` the period's seconds they cover (once, however many lines cover
    them), the runtime components' in ``cost``, every class's in ``components``. So
    ``cost / seconds`` is a prepaid instance's runtime price per hour as paid."""
    ids = list(ids)
    if not ids or end <= start:
        return {}
    sums: _Sums = defaultdict(lambda: [Decimal(0), 0])
    parts: _Parts = defaultdict(lambda: [Decimal(0), 0, ""])
    # Per key, the [lo, hi) stretches its lines put into the period, in epoch seconds.
    spans: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
    part_spans: dict[tuple[int, str, str, str], list[tuple[int, int]]] = defaultdict(list)
    first, stop = _epoch_second(start), _epoch_second(end)
    for instance_id, currency, begin, end_at, cost, cls, code, name in _spread_rows(
        ids, start, end
    ):
        if end_at - begin <= _HOURLY_LINE_MAX_S:
            continue  # an hour or less stays where billed (``amortization.is_spread``)
        share, lo, hi = spread_share(cost, begin, end_at, first, stop)
        if hi <= lo:
            continue
        _add(parts[(instance_id, currency, cls, code)], share, 0, name)
        part_spans[(instance_id, currency, cls, code)].append((lo, hi))
        sums.setdefault((instance_id, currency), [Decimal(0), 0])
        if is_runtime(cls):
            sums[(instance_id, currency)][0] += share
            spans[(instance_id, currency)].append((lo, hi))
    for key, covered in spans.items():
        sums[key][1] = union_seconds(covered)
    for part_key, part_covered in part_spans.items():
        parts[part_key][1] = union_seconds(part_covered)
    return _per_instance(sums, parts)


_HOURLY_LINE_MAX_S = int(HOURLY_LINE_MAX.total_seconds())
# The spread lines (purchases, renewals, refunds) of the instances that reach into a period,
# their moments as epoch seconds (``runtime.spread_share``).
_SPREAD_SQL = f"""
    SELECT instance_id, currency, floor(EXTRACT(EPOCH FROM fee_begin_at))::bigint,
           floor(EXTRACT(EPOCH FROM fee_end_at))::bigint, cost, component_class,
           component_code, component_name
    FROM {BillLine._meta.db_table}
    WHERE instance_id = ANY(%(ids)s) AND charge_category = ANY(%(categories)s)
      AND fee_begin_at < %(end)s AND fee_end_at >= %(start)s
"""


def _epoch_second(moment: dt.datetime) -> int:
    return int(moment.timestamp() // 1)


def _spread_rows(ids: list[int], start: dt.datetime, end: dt.datetime) -> Iterable[tuple]:
    categories = sorted(SPREAD_CATEGORIES)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                _SPREAD_SQL, {"ids": ids, "categories": categories, "start": start, "end": end}
            )
            return cursor.fetchall()
    lines = BillLine.objects.filter(
        instance_id__in=ids, charge_category__in=categories, fee_begin_at__lt=end, fee_end_at__gte=start
    ).values_list(
        "instance_id", "currency", "fee_begin_at", "fee_end_at", "cost", "component_class",
        "component_code", "component_name",
    )  # fmt: skip
    return [
        (i, currency, _epoch_second(b), _epoch_second(e), cost, cls, code, name)
        for i, currency, b, e, cost, cls, code, name in lines
    ]

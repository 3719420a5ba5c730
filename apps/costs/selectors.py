"""The cost report: bill lines summed in SQL by period bucket and up to two dimensions.

Money comes from the bill lines only (``cost`` is Tencent's RealCost, after discounts), summed
exactly: PostgreSQL sums NUMERIC; SQLite, the embedded default, sums decimals as floats, so
there the rows come back ungrouped and are summed in Python with Decimal. Amounts keep the
bills' eight decimals, so the cells of a report add up to the bill lines' total exactly.

A line belongs to the local day (organization's timezone) on which its fee period begins;
bucket boundaries (ISO weeks from Monday, calendar months) are local too.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from decimal import Decimal
from typing import Any

import numpy as np
from django.db.models import (
    Case,
    DateField,
    DurationField,
    ExpressionWrapper,
    F,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Trunc

from apps.accounts.models import Organization
from apps.analysis.engine import Phase
from apps.analysis.models import phase_key
from apps.billing.models import BillLine
from apps.billing.selectors import UnallocatedReason, unallocated_cost_by_reason
from apps.cloud.models import Instance, Project
from apps.costs import bases, phases
from apps.costs.dimensions import Dimension, dimension, filtered_lines
from apps.costs.forecast import Forecast, month_end_forecast
from apps.costs.models import CostDay, CostProjectDay
from apps.costs.params import CostQuery
from apps.costs.sums import grouped_sums

GroupKey = tuple[str | None, ...]
# An hourly line runs FeeBeginTime .. FeeBeginTime + 59:59; anything longer is not an hour.
HOURLY_LINE_MAX = dt.timedelta(hours=1, seconds=1)


@dataclasses.dataclass
class CostGroup:
    key: GroupKey
    series: dict[dt.date, Decimal]
    total: Decimal = Decimal(0)
    previous_total: Decimal = Decimal(0)


@dataclasses.dataclass
class CostReport:
    buckets: list[dt.date]
    groups: list[CostGroup]
    total: Decimal
    previous_total: Decimal
    labels: dict[str, dict[str, str]]
    """Dimension -> value -> human label (project and instance names)."""
    month_to_date: Forecast | None = None
    """The bill month so far and its forecast (``apps.costs.forecast``), when ``cost_report``
    was given ``now``: the organization's, or the ``project`` filter's projects'."""


def period_lines(organization: Organization, query: CostQuery) -> QuerySet[BillLine]:
    """The organization's lines of the query's currency whose fee begins in its period."""
    lines = BillLine.objects.for_organization(organization).filter(
        currency=query.currency,
        fee_begin_at__gte=query.start_at(),
        fee_begin_at__lt=query.end_at(),
    )
    return filtered_lines(lines, query.filters)


def period_days(organization: Organization, query: CostQuery) -> QuerySet[Any]:
    """``period_lines`` summed per local day (``CostDay``): the same money, ~50x fewer rows.

    The rollup carries the lines' own dimension columns, so the same filters apply.
    """
    days = CostDay.objects.for_organization(organization).filter(
        basis=query.basis, currency=query.currency, day__gte=query.start, day__lte=query.end
    )
    return filtered_lines(days, query.filters)


def bucket_of(day: dt.date, granularity: str) -> dt.date:
    if granularity == "week":
        return day - dt.timedelta(days=day.weekday())
    if granularity == "month":
        return day.replace(day=1)
    return day


def buckets(query: CostQuery) -> list[dt.date]:
    """The first local day of every bucket the period touches, in order."""
    out: list[dt.date] = []
    day = query.start
    while day <= query.end:
        first = bucket_of(day, query.granularity)
        if not out or out[-1] != first:
            out.append(first)
        day += dt.timedelta(days=1)
    return out


def _sum_groups(
    organization: Organization,
    query: CostQuery,
    dims: list[Dimension],
    *,
    granularity: str | None,
    phase_at: int | None,
) -> dict[tuple[dt.date | None, GroupKey], Decimal]:
    """Cost per (bucket, group key) with phases; without ``granularity`` the bucket is None.

    For a report with phases (``phase_at`` is the position of ``phase`` in the key, or there is
    a phase filter): the bill lines are summed per instance fee hour as well and each hour is
    split over the phases (``apps.costs.phases``). Without phases ``_day_sums`` reads the
    daily rollup instead.
    """
    fields: dict[str, Any] = {}
    for item in dims:
        fields.update(item.expressions)
    phase_filter = query.filters.get("phase")
    lines = period_lines(organization, query)
    cells: dict[tuple[Any, ...], Decimal] = defaultdict(Decimal)
    if query.basis == bases.AMORTIZED:
        # The spread lines' hours of the period, wherever they were charged, on their instance:
        # an idle prepaid instance's renewal is idle money hour by hour.
        spread = bases.spread_lines(
            filtered_lines(
                BillLine.objects.for_organization(organization).filter(currency=query.currency),
                query.filters,
            ),
            query.start_at(),
            query.end_at(),
        ).annotate(**fields)
        for hour, row, amount in bases.hour_pieces(
            spread, query.start_at(), query.end_at(), (*fields, "instance_id")
        ):
            bucket = None
            if granularity is not None:
                bucket = bucket_of(hour.astimezone(query.tz).date(), granularity)
            key = tuple(item.value(row) for item in dims)
            cells[(bucket, key, row["instance_id"], hour)] += amount
        lines = bases.kept_lines(lines)
    if granularity is not None:
        fields["bucket"] = Trunc(
            "fee_begin_at", granularity, output_field=DateField(), tzinfo=query.tz
        )
    fields["hour"] = F("fee_begin_at")
    fields["span"] = ExpressionWrapper(
        F("fee_end_at") - F("fee_begin_at"), output_field=DurationField()
    )
    for row, amount, _count in grouped_sums(lines, fields, columns=("instance_id",)):
        hourly = row["span"] <= HOURLY_LINE_MAX
        instance_id = row["instance_id"] if hourly else None
        key = tuple(item.value(row) for item in dims)
        cells[(row.get("bucket"), key, instance_id, row["hour"])] += amount
    order = list(cells)
    weights = phases.hour_weights(
        organization_id=organization.pk,
        instance_ids=[cell[2] for cell in order],
        hours=[cell[3] for cell in order],
    )
    units = np.array([phases.to_units(cells[cell]) for cell in order], dtype=np.int64)
    parts = phases.largest_remainder(units, weights) if order else np.zeros((0, len(Phase)))
    summed: dict[tuple[dt.date | None, GroupKey], int] = defaultdict(int)
    names = [phase_key(p) for p in Phase]
    for (bucket, key, _instance, _hour), row_parts in zip(order, parts.tolist(), strict=True):
        for phase, part in zip(names, row_parts, strict=True):
            if phase_filter and phase not in phase_filter:
                continue
            full = key if phase_at is None else (*key[:phase_at], phase, *key[phase_at + 1 :])
            summed[(bucket, full)] += part
    return {cell: phases.from_units(units) for cell, units in summed.items()}


def _day_sums(
    organization: Organization,
    query: CostQuery,
    dims: list[Dimension],
    spans: list[tuple[dt.date, dt.date]],
    project_names: dict[str, str] | None = None,
    collapse_before: dt.date | None = None,
) -> dict[tuple[dt.date | None, GroupKey], Decimal]:
    """Cost per (local day, group key) of the days in any of ``spans`` (inclusive), from
    ``CostDay`` in one grouped query: the report, its previous period and the month-to-date
    sums are all cut from these rows in Python, instead of one pass over the rollup each.

    ``project_names``, when given, receives the names of the projects read (slug -> name), so
    that the labels need no second query of the same rows. The days before
    ``collapse_before`` are summed together (day None): a report's previous period needs only
    its totals, and one row per group instead of one per group and day halves what a 90-day
    report reads and keys in Python."""
    if not spans:
        return {}
    fields: dict[str, Any] = {}
    by_id: dict[int, tuple[str, str]] = {}
    for index, item in enumerate(dims):
        if item.name in _BY_ID:
            # Grouped by the rollup's own foreign key, named afterwards: joining the project
            # or instance table to group by its slug doubles the query (EXPLAIN ANALYZE).
            by_id[index] = _BY_ID[item.name]
            fields[f"id{index}"] = F(by_id[index][0])
        else:
            fields.update(item.expressions)
    fields["bucket"] = F("day")
    if collapse_before is not None:
        fields["bucket"] = Case(
            When(day__lt=collapse_before, then=Value(None)),
            default=F("day"),
            output_field=DateField(),
        )
    in_spans = Q()
    for first, last in spans:
        in_spans |= Q(day__gte=first, day__lte=last)
    rollup: type[CostDay] | type[CostProjectDay] = CostDay
    if all(item.name == "project" for item in dims) and not any(
        name != "phase" for name in query.filters
    ):
        # Nothing but the project to group or filter by: the project-day sums (one row per
        # project and day instead of one per instance and day, the same money).
        rollup = CostProjectDay
    days = rollup.objects.for_organization(organization).filter(
        in_spans, basis=query.basis, currency=query.currency
    )
    # Ids, dates, text dimensions and sums: a few thousand rows, read in one round trip.
    rows = list(grouped_sums(filtered_lines(days, query.filters), fields, fetch_all=True))
    names = _names_by_id(organization, by_id, [row for row, _amount, _count in rows], project_names)
    totals: dict[tuple[dt.date | None, GroupKey], Decimal] = defaultdict(Decimal)
    for row, amount, _count in rows:
        key = tuple(
            names[index].get(row[f"id{index}"]) if index in by_id else item.value(row)
            for index, item in enumerate(dims)
        )
        totals[(row["bucket"], key)] += amount
    return dict(totals)


# Dimensions that are a column of the row's project or instance: (the rollup's foreign key,
# the column). ``dimensions.dimension`` reads the same columns through a join.
_BY_ID: dict[str, tuple[str, str]] = {
    "project": ("project_id", "slug"),
    "instance": ("instance_id", "provider_id"),
    "instance_type": ("instance_id", "instance_type"),
    "gpu_model": ("instance_id", "gpu_model"),
}


def _names_by_id(
    organization: Organization,
    by_id: dict[int, tuple[str, str]],
    rows: list[dict[str, Any]],
    project_names: dict[str, str] | None = None,
) -> dict[int, dict[int | None, str | None]]:
    """Dimension position -> foreign key -> the dimension's value (None: no project/instance,
    or a blank column), read in one query per table; with ``project_names``, the projects'
    names by slug are read with them into it."""
    out: dict[int, dict[int | None, str | None]] = {}
    for model, foreign_key in ((Project, "project_id"), (Instance, "instance_id")):
        positions = {i: spec[1] for i, spec in by_id.items() if spec[0] == foreign_key}
        if not positions:
            continue
        ids = {row[f"id{i}"] for row in rows for i in positions} - {None}
        columns = sorted(set(positions.values()))
        named = model is Project and project_names is not None and "slug" in columns
        read = [*columns, "name"] if named and "name" not in columns else columns
        found = {
            values[0]: dict(zip(read, values[1:], strict=True))
            for values in model.objects.for_organization(organization)
            .filter(pk__in=ids)
            .values_list("pk", *read)
        }
        if named:
            assert project_names is not None
            project_names.update({item["slug"]: item["name"] for item in found.values()})
        for index, column in positions.items():
            out[index] = {pk: _blank_none(item[column]) for pk, item in found.items()}
    return out


def usage_group_labels(
    organization: Organization, scope: str, keys: list[int | None]
) -> tuple[dict[int, str], dict[int, str]]:
    """The organization's project slugs by id, and the names of a utilization report's group
    ``keys`` by id: projects' at the ``project`` scope, instances' at ``instance``, none else."""
    slugs = dict(Project.objects.for_organization(organization).values_list("id", "slug"))
    names: dict[int, str] = {}
    if scope == "project":
        names = dict(Project.objects.for_organization(organization).values_list("id", "name"))
    elif scope == "instance":
        ids = [key for key in keys if key is not None]
        names = dict(
            Instance.objects.for_organization(organization)
            .filter(pk__in=ids)
            .values_list("id", "name")
        )
    return slugs, names


def _blank_none(value: Any) -> str | None:
    # As ``dimensions``: a blank column is no value.
    return None if value is None or value == "" else str(value)


def _dimensions(query: CostQuery) -> tuple[list[Dimension], int | None]:
    dims, phase_at = [], None
    for index, name in enumerate(query.group_by):
        if name == "phase":
            phase_at = index
            # A placeholder column: the split puts the phase in its place.
            dims.append(
                Dimension(name="phase", expressions={}, value=lambda row: None, filter=None)  # type: ignore[arg-type]
            )
        else:
            dims.append(dimension(name, index))
    return dims, phase_at


def cost_report(
    *, organization: Organization, query: CostQuery, now: dt.datetime | None = None
) -> CostReport:
    """The report of ``query``: a series per group, totals, and the previous period's totals;
    with ``now``, also the bill month's forecast (``apps.costs.forecast``)."""
    dims, phase_at = _dimensions(query)
    previous_query = query.previous()
    current: dict[tuple[dt.date | None, GroupKey], Decimal] = defaultdict(Decimal)
    previous: dict[tuple[dt.date | None, GroupKey], Decimal] = defaultdict(Decimal)
    project_names: dict[str, str] = {}
    if phase_at is None and not query.filters.get("phase"):
        # One pass over the daily rollup for the period and the previous one.
        # The previous period ends the day before this one starts: its days come back summed
        # (day None).
        assert previous_query.end < query.start
        daily = _day_sums(
            organization,
            query,
            dims,
            [(previous_query.start, query.end)],
            project_names,
            collapse_before=query.start,
        )
        for (day, key), amount in daily.items():
            if day is None:
                previous[(None, key)] += amount
            else:
                current[(bucket_of(day, query.granularity), key)] += amount
    else:
        # Phases need the hours: the bill lines, split (``_sum_groups``).
        current.update(
            _sum_groups(organization, query, dims, granularity=query.granularity, phase_at=phase_at)
        )
        previous.update(
            _sum_groups(organization, previous_query, dims, granularity=None, phase_at=phase_at)
        )
    groups: dict[GroupKey, CostGroup] = {}
    for (bucket, key), amount in current.items():
        group = groups.setdefault(key, CostGroup(key=key, series={}))
        assert bucket is not None
        group.series[bucket] = group.series.get(bucket, Decimal(0)) + amount
        group.total += amount
    for (_bucket, key), amount in previous.items():
        groups.setdefault(key, CostGroup(key=key, series={})).previous_total += amount
    ordered = sorted(groups.values(), key=lambda g: (-g.total, tuple(v or "" for v in g.key)))
    return CostReport(
        buckets=buckets(query),
        groups=ordered,
        total=sum(current.values(), Decimal(0)),
        previous_total=sum(previous.values(), Decimal(0)),
        labels=_labels(organization, query.group_by, ordered, project_names),
        month_to_date=None
        if now is None
        else month_end_forecast(
            organization,
            currency=query.currency,
            as_of=now,
            project_slugs=query.filters.get("project"),
        ),
    )


def _labels(
    organization: Organization,
    group_by: tuple[str, ...],
    groups: list[CostGroup],
    project_names: dict[str, str],
) -> dict[str, dict[str, str]]:
    """``project_names``: the names already read by slug (a project not in it is read)."""
    labels: dict[str, dict[str, str]] = {}
    for index, name in enumerate(group_by):
        values = {g.key[index] for g in groups if g.key[index] is not None}
        if name == "project" and values and values <= project_names.keys():
            labels[name] = {slug: project_names[slug] for slug in values if slug is not None}
        elif name == "project" and values:
            labels[name] = dict(
                Project.objects.for_organization(organization)
                .filter(slug__in=values)
                .values_list("slug", "name")
            )
        elif name == "instance" and values:
            labels[name] = dict(
                Instance.objects.for_organization(organization)
                .filter(provider_id__in=values)
                .values_list("provider_id", "name")
            )
    return labels


@dataclasses.dataclass(frozen=True)
class Unallocated:
    cost: Decimal
    by_reason: dict[UnallocatedReason, Decimal]


def unallocated(*, organization: Organization, query: CostQuery) -> Unallocated:
    """The period's cost without a project, and why (see ``billing.selectors``)."""
    if any(name != "phase" for name in query.filters):
        # A filter on a line's own columns: the reasons of the matching CostDay rows.
        days = period_days(organization, query)
        by_reason = unallocated_cost_by_reason(days, organization=organization)
    else:
        # The reasons kept per day with the project-day sums (``CostProjectDay``).
        by_reason = dict.fromkeys(UnallocatedReason, Decimal(0))
        rows = CostProjectDay.objects.for_organization(organization).filter(
            project__isnull=True,
            basis=query.basis,
            currency=query.currency,
            day__gte=query.start,
            day__lte=query.end,
        )
        reasons = grouped_sums(rows, {}, columns=("unallocated_reason",), fetch_all=True)
        for row, amount, _count in reasons:
            by_reason[UnallocatedReason(row["unallocated_reason"])] += amount
    return Unallocated(cost=sum(by_reason.values(), Decimal(0)), by_reason=by_reason)

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
from collections.abc import Iterable
from decimal import Decimal
from itertools import chain
from typing import Any

import numpy as np
from django.db.models import (
    DateField,
    DurationField,
    ExpressionWrapper,
    F,
    Q,
    QuerySet,
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
from apps.costs.sums import day_rows, grouped_sums

GroupKey = tuple[str | None, ...]
# (local day or bucket, None: the previous period; group key; money).
Cell = tuple[dt.date | None, GroupKey, Decimal]
# An hourly line runs FeeBeginTime .. FeeBeginTime + 59:59; anything longer is not an hour.
HOURLY_LINE_MAX = dt.timedelta(hours=1, seconds=1)


@dataclasses.dataclass
class CostGroup:
    key: GroupKey
    series: dict[dt.date, Decimal]
    total: Decimal = Decimal(0)
    previous_total: Decimal = Decimal(0)


@dataclasses.dataclass(frozen=True)
class Unallocated:
    cost: Decimal
    by_reason: dict[UnallocatedReason, Decimal]


@dataclasses.dataclass
class CostReport:
    buckets: list[dt.date]
    groups: list[CostGroup]
    total: Decimal
    previous_total: Decimal
    labels: dict[str, dict[str, str]]
    """Dimension -> value -> human label (project and instance names)."""
    unallocated: Unallocated
    """The period's cost without a project, and why (``unallocated``)."""
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
    by_reason: dict[UnallocatedReason, Decimal] | None = None,
) -> list[Cell]:
    """Cost per (local day, group key) of the days in any of ``spans`` (inclusive), from
    ``CostDay`` in one grouped query: the report, its previous period and the month-to-date
    sums are all cut from these rows in Python, instead of one pass over the rollup each.
    A (day, key) may come more than once (two instances with a blank ``gpu_model``, a day's
    unallocated reasons): the caller adds them up (``_groups``), once, instead of a dict
    here and the groups' series after it.

    ``project_names``, when given, receives the names of the projects read (slug -> name), so
    that the labels need no second query of the same rows. The days before
    ``collapse_before`` are summed together (day None): a report's previous period needs only
    its totals, and one row per group instead of one per group and day halves what a 90-day
    report reads and keys in Python.

    ``by_reason``, when given (only where ``_project_days_suffice``: those rows keep the
    reasons), receives the unallocated money of the days from ``collapse_before`` by reason:
    the report's unallocated share without a query of its own (~0.8 ms a request)."""
    if not spans:
        return []
    # Each row read is (day, the dimensions' columns..., sum) (``sums.day_rows``).
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
    in_spans = Q()
    for first, last in spans:
        in_spans |= Q(day__gte=first, day__lte=last)
    rollup: type[CostDay] | type[CostProjectDay] = CostDay
    if _project_days_suffice(query, dims):
        rollup = CostProjectDay
    if by_reason is not None:
        assert rollup is CostProjectDay
        # Last, before the sum: a project's rows have none, so this splits only the
        # unallocated money (one row per reason and day instead of one per day).
        fields["reason"] = F("unallocated_reason")
    days = rollup.objects.for_organization(organization).filter(
        in_spans, basis=query.basis, currency=query.currency
    )
    # Ids, dates, text dimensions and sums: a few thousand rows, read in one round trip. The
    # project-day sums are one row per project and day already (or reason): read as stored.
    rows = day_rows(
        filtered_lines(days, query.filters),
        fields,
        collapse_before=collapse_before,
        as_stored=rollup is CostProjectDay,
    )
    key_of = _group_keys(organization, dims, by_id, list(fields), rows, project_names)
    if by_reason is not None:
        for row in rows:
            # A blank reason is a project's row; no day, the collapsed days'.
            if row[-2] and row[0] is not None:
                by_reason[UnallocatedReason(row[-2])] += row[-1]
    return [(row[0], key_of[row[1:-1]], row[-1]) for row in rows]


def _project_days_suffice(query: CostQuery, dims: list[Dimension]) -> bool:
    """Whether the project-day sums (``CostProjectDay``: one row per project and day instead
    of one per instance and day, the same money) hold all the report needs: nothing but the
    project to group or filter by."""
    return all(item.name == "project" for item in dims) and not any(
        name != "phase" for name in query.filters
    )


def _group_keys(
    organization: Organization,
    dims: list[Dimension],
    by_id: dict[int, tuple[str, str]],
    columns: list[str],
    rows: list[tuple[Any, ...]],
    project_names: dict[str, str] | None,
) -> dict[tuple[Any, ...], GroupKey]:
    """The group key of each distinct group in ``rows`` (day, ``columns``' values..., sum),
    by those values: a key is made once per group (~20 in a report by project), not once
    per row (~1,700 in 90 days by day), which cost ~1 ms a request."""
    distinct = {row[1:-1] for row in rows}
    groups = {values: dict(zip(columns, values, strict=True)) for values in distinct}
    names = _names_by_id(organization, by_id, list(groups.values()), project_names)
    return {
        values: tuple(
            names[index].get(group[f"id{index}"]) if index in by_id else item.value(group)
            for index, item in enumerate(dims)
        )
        for values, group in groups.items()
    }


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
    project_names: dict[str, str] = {}
    cells: Iterable[Cell]
    by_reason: dict[UnallocatedReason, Decimal] | None = None
    if phase_at is None and not query.filters.get("phase"):
        # One pass over the daily rollup for the period and the previous one.
        # The previous period ends the day before this one starts: its days come back summed
        # (day None).
        assert previous_query.end < query.start
        if _project_days_suffice(query, dims):
            by_reason = dict.fromkeys(UnallocatedReason, Decimal(0))
        cells = _day_sums(
            organization,
            query,
            dims,
            [(previous_query.start, query.end)],
            project_names,
            collapse_before=query.start,
            by_reason=by_reason,
        )
    else:
        # Phases need the hours: the bill lines, split (``_sum_groups``); the previous
        # period's cells have no bucket (None), as the daily rollup's.
        current = _sum_groups(
            organization, query, dims, granularity=query.granularity, phase_at=phase_at
        )
        previous = _sum_groups(
            organization, previous_query, dims, granularity=None, phase_at=phase_at
        )
        cells = [
            (bucket, key, amount)
            for (bucket, key), amount in chain(current.items(), previous.items())
        ]
    groups = _groups(cells, query.granularity)
    ordered = sorted(groups.values(), key=lambda g: (-g.total, tuple(v or "" for v in g.key)))
    return CostReport(
        buckets=buckets(query),
        groups=ordered,
        # Exact either way (eight decimals, far from the context's 28 digits): the same
        # figures as summing the cells.
        total=sum((group.total for group in ordered), Decimal(0)),
        previous_total=sum((group.previous_total for group in ordered), Decimal(0)),
        labels=_labels(organization, query.group_by, ordered, project_names),
        unallocated=unallocated(organization=organization, query=query)
        if by_reason is None
        else Unallocated(cost=sum(by_reason.values(), Decimal(0)), by_reason=by_reason),
        month_to_date=None
        if now is None
        else month_end_forecast(
            organization,
            currency=query.currency,
            as_of=now,
            project_slugs=query.filters.get("project"),
        ),
    )


def _groups(cells: Iterable[Cell], granularity: str) -> dict[GroupKey, CostGroup]:
    """The report's groups from its cells (day or bucket, key, money), summed; a cell without
    a day is the previous period's."""
    groups: dict[GroupKey, CostGroup] = {}
    for day, key, amount in cells:
        group = groups.get(key)
        if group is None:
            # Made once per group: ``setdefault`` built (and dropped) one per cell.
            group = groups[key] = CostGroup(key=key, series={})
        if day is None:
            group.previous_total += amount
            continue
        # A day is its own bucket (and a bucket its own): no call per cell by day.
        bucket = day if granularity == "day" else bucket_of(day, granularity)
        series = group.series
        # The first amount as it is (adding it to a zero was a Decimal made per cell).
        series[bucket] = series[bucket] + amount if bucket in series else amount
        group.total += amount
    return groups


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

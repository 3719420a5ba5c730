"""The dashboard's usage tables: one row per instance, one row per project, for local days.

Every figure is read from a rollup, never from raw minutes or bill lines:

- ``cost``: ``CostDay`` (the bill lines summed per local day, on the period's basis: amortized
  unless asked for billed), the money of ``GET /costs``, so
  the instances' costs of a range add up to the report's total (the lines without an instance
  excepted) and the projects' spend to its ``group_by=project`` groups.
- ``gpu_util_avg_pct`` and the daily utilization: the hourly rollups (``InstanceHourRollup``)
  of the range's local hours, card-weighted: ``sum(gpu_busy_hours) / sum(gpu_hours) x 100``,
  the definition of ``GET /utilization``. Hours are grouped into the organization's local
  days in SQL.
- ``waste``: the money of the idle phase as ``/analysis/summary`` and ``/utilization`` price
  it (``analysis.fleet_pricing``: billed hours split over the phase minutes stored in
  ``PhaseDay``).

Ordering by cost, utilization or name is done in SQL (the instances annotated with their
range's cost and GPU-hours by correlated subqueries, ``filtered_instances``), so only the page's
rows are priced and their sparklines read. Ordering by waste needs every row's waste, which is
priced in Python from the phase rollups (``analysis.fleet_pricing``), so then the whole filtered
set is priced and sorted before the page is cut. Either way pages never overlap or skip a row,
and a page costs the same few queries whatever its size.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import zoneinfo
from collections import defaultdict
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from django.db.models import (
    Case,
    DecimalField,
    F,
    FloatField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce, Lower, NullIf, Round, TruncDate

from apps.accounts.models import Organization
from apps.analysis import fleet_pricing
from apps.analysis.selectors import gpu_instances_in_period
from apps.cloud.models import Instance, Project
from apps.costs.bases import DEFAULT_BASIS
from apps.costs.models import CostDay
from apps.costs.sums import grouped_sums
from apps.metrics.models import InstanceHourRollup

# Sparklines carry one value a day: a quarter at most keeps a row's payload small.
MAX_DAYS = 93
DEFAULT_DAYS = 7
ORDERINGS = ("cost", "waste", "util", "name")
CENT = Decimal("0.01")


@dataclasses.dataclass(frozen=True)
class Period:
    """Local days ``start`` .. ``end`` (both included) in ``tz``."""

    start: dt.date
    end: dt.date
    tz: zoneinfo.ZoneInfo
    basis: str = DEFAULT_BASIS
    """The basis of the money (``apps.costs.bases``)."""

    @property
    def days(self) -> list[dt.date]:
        return [self.start + dt.timedelta(days=i) for i in range((self.end - self.start).days + 1)]

    def start_at(self) -> dt.datetime:
        return dt.datetime.combine(self.start, dt.time(), tzinfo=self.tz)

    def end_at(self) -> dt.datetime:
        return dt.datetime.combine(self.end + dt.timedelta(days=1), dt.time(), tzinfo=self.tz)


@dataclasses.dataclass(frozen=True)
class InstanceFilters:
    project_id: int | None = None
    tag: tuple[str, str] | None = None
    instance_type: str | None = None
    gpu_model: str | None = None
    charge_type: str | None = None
    state: str | None = None
    region: str | None = None
    util_min: float | None = None
    util_max: float | None = None
    search: str | None = None


@dataclasses.dataclass
class Util:
    """Card-hours with a utilization point and their busy share, in total and per local day."""

    gpu_hours: float = 0.0
    gpu_busy_hours: float = 0.0
    daily: dict[dt.date, tuple[float, float]] = dataclasses.field(default_factory=dict)

    @property
    def avg_pct(self) -> float | None:
        return _pct(self.gpu_busy_hours, self.gpu_hours)

    def sparkline(self, days: Sequence[dt.date]) -> list[float | None]:
        out: list[float | None] = []
        for day in days:
            hours, busy = self.daily.get(day, (0.0, 0.0))
            out.append(_pct(busy, hours))
        return out


def _pct(busy: float, hours: float) -> float | None:
    return round(busy / hours * 100, 2) if hours else None


@dataclasses.dataclass
class InstanceRow:
    instance: Instance
    cost: Decimal
    waste: Decimal | None
    util: Util

    @property
    def util_avg_pct(self) -> float | None:
        return self.util.avg_pct


def _existed_or_billed(organization: Organization, period: Period, currency: str) -> Q:
    start, end = period.start_at(), period.end_at()
    existed = (Q(terminated_at__isnull=True) | Q(terminated_at__gt=start)) & (
        Q(launched_at__isnull=True) | Q(launched_at__lt=end)
    )
    # A terminated instance still listed as existing (no termination time known) shows only
    # when it cost something in the range.
    existed &= ~Q(state="TERMINATED", terminated_at__isnull=True)
    billed = Q(
        pk__in=_cost_days(organization, period, currency)
        .filter(instance__isnull=False)
        .values("instance_id")
    )
    return existed | billed


def _cost_days(organization: Organization, period: Period, currency: str) -> QuerySet[CostDay]:
    return CostDay.objects.for_organization(organization).filter(
        basis=period.basis, currency=currency, day__gte=period.start, day__lte=period.end
    )


def filtered_instances(
    organization: Organization, period: Period, currency: str, filters: InstanceFilters
) -> QuerySet[Instance]:
    """The instances that existed in the range or have cost in it, filtered, annotated with
    their cost (``cost_sum``) and GPU utilization (``util_pct``) of the range for SQL ordering.

    ``util_min``/``util_max`` filter on ``util_pct`` here; an instance without utilization data
    is left out when either is given.
    """
    rows = (
        Instance.objects.for_organization(organization)
        .filter(_existed_or_billed(organization, period, currency))
        .select_related("project")
    )
    exact = {
        "project_id": filters.project_id,
        "instance_type": filters.instance_type,
        "gpu_model": filters.gpu_model,
        "charge_type": filters.charge_type,
        "state": filters.state,
        "region": filters.region,
    }
    rows = rows.filter(**{name: value for name, value in exact.items() if value is not None})
    if filters.tag is not None:
        key, value = filters.tag
        # KeyTextTransform takes the key literally (a key with "__" is not a path).
        rows = rows.annotate(tag_value=KeyTextTransform(key, "tags")).filter(tag_value=value)
    if filters.search:
        rows = rows.filter(
            Q(name__icontains=filters.search) | Q(provider_id__icontains=filters.search)
        )
    hours = InstanceHourRollup.objects.filter(
        organization=organization,
        instance_id=OuterRef("pk"),
        hour_start__gte=period.start_at(),
        hour_start__lt=period.end_at(),
        gpu_util_pct_minutes__gt=0,
    ).values("instance_id")
    costs = (
        _cost_days(organization, period, currency)
        .filter(instance_id=OuterRef("pk"))
        .values("instance_id")
        .annotate(total=Sum("cost"))
        .values("total")
    )
    rows = rows.annotate(
        cost_sum=Coalesce(Subquery(costs), Value(Decimal(0)), output_field=DecimalField()),
        util_hours=Subquery(hours.annotate(total=Sum("gpu_hours")).values("total")),
        util_busy=Subquery(hours.annotate(total=Sum("gpu_busy_hours")).values("total")),
    ).annotate(
        # Rounded as the rows show it (``Util.avg_pct``), so that a filter at a shown value
        # keeps that row; via NUMERIC, as PostgreSQL rounds no double to digits.
        util_pct=Round(
            Cast(
                Case(
                    When(util_hours__gt=0, then=F("util_busy") * 100.0 / F("util_hours")),
                    default=None,
                    output_field=FloatField(),
                ),
                DecimalField(max_digits=20, decimal_places=8),
            ),
            2,
        )
    )
    if filters.util_min is not None:
        rows = rows.filter(util_pct__gte=filters.util_min)
    if filters.util_max is not None:
        rows = rows.filter(util_pct__lte=filters.util_max)
    return rows


def sql_ordered(rows: QuerySet[Instance], ordering: str) -> QuerySet[Instance]:
    """``rows`` ordered in SQL by cost, util or name (not waste: it is priced in Python);
    rows without the figure last either way, ties by id so that pages are stable."""
    name = ordering.lstrip("-")
    descending = ordering.startswith("-")
    key: Any = {
        "cost": F("cost_sum"),
        "util": F("util_pct"),
        "name": Lower(Coalesce(NullIf(F("name"), Value("")), F("provider_id"))),
    }[name]
    order = key.desc(nulls_last=True) if descending else key.asc(nulls_last=True)
    return rows.order_by(order, "pk")


def instance_costs(
    organization: Organization, period: Period, currency: str, instance_ids: Sequence[int]
) -> dict[int, Decimal]:
    """Instance id -> its bill lines' cost in the range (exact sums, one grouped query)."""
    if not instance_ids:
        return {}
    days = _cost_days(organization, period, currency).filter(instance_id__in=list(instance_ids))
    out: dict[int, Decimal] = defaultdict(Decimal)
    for row, amount, _count in grouped_sums(days, {}, columns=("instance_id",)):
        out[row["instance_id"]] += amount
    return dict(out)


def instance_utils(
    organization: Organization, period: Period, instance_ids: Sequence[int]
) -> dict[int, Util]:
    """Instance id -> its utilization in the range and per local day (one grouped query)."""
    if not instance_ids:
        return {}
    rows = (
        InstanceHourRollup.objects.filter(
            organization=organization,
            instance_id__in=list(instance_ids),
            hour_start__gte=period.start_at(),
            hour_start__lt=period.end_at(),
            gpu_util_pct_minutes__gt=0,
        )
        .annotate(local_day=TruncDate("hour_start", tzinfo=period.tz))
        .values("instance_id", "local_day")
        .annotate(hours=Sum("gpu_hours"), busy=Sum("gpu_busy_hours"))
        .order_by()
    )
    out: dict[int, Util] = {}
    for row in rows:
        util = out.setdefault(row["instance_id"], Util())
        hours, busy = float(row["hours"] or 0), float(row["busy"] or 0)
        util.gpu_hours += hours
        util.gpu_busy_hours += busy
        util.daily[row["local_day"]] = (hours, busy)
    return out


def instance_waste(
    instances: Sequence[Instance], period: Period, currency: str
) -> dict[int, Decimal]:
    """GPU instance id -> the money of its idle minutes (``analysis.fleet_pricing``)."""
    gpu = [i for i in instances if i.gpu_count > 0]
    figures = fleet_pricing.instances_waste(
        instances=gpu, start=period.start_at(), end=period.end_at(), currency=currency
    )
    return {f.instance_id: f.idle_cost for f in figures}


def _sort_key(name: str) -> Callable[[InstanceRow], Any]:
    if name == "cost":
        return lambda row: row.cost
    if name == "waste":
        return lambda row: row.waste
    if name == "util":
        return lambda row: row.util_avg_pct
    return lambda row: (row.instance.name or row.instance.provider_id).lower()


def ordered(rows: list[InstanceRow], ordering: str) -> list[InstanceRow]:
    """Rows by ``ordering`` (``-`` descending); rows without the figure last either way, ties
    by id so that pages are stable."""
    name = ordering.lstrip("-")
    key = _sort_key(name)
    present = [row for row in rows if key(row) is not None]
    missing = [row for row in rows if key(row) is None]
    present.sort(key=lambda row: row.instance.pk)
    present.sort(key=key, reverse=ordering.startswith("-"))
    missing.sort(key=lambda row: row.instance.pk)
    return present + missing


def rows_for(
    organization: Organization, period: Period, currency: str, instances: Sequence[Instance]
) -> list[InstanceRow]:
    """The rows of ``instances`` (in their order): exact cost, waste and daily utilization,
    one grouped query each whatever their number."""
    ids = [i.pk for i in instances]
    costs = instance_costs(organization, period, currency, ids)
    utils = instance_utils(organization, period, ids)
    waste = instance_waste(instances, period, currency)
    return [
        InstanceRow(
            instance=i,
            cost=costs.get(i.pk, Decimal(0)),
            waste=waste.get(i.pk),
            util=utils.get(i.pk, Util()),
        )
        for i in instances
    ]


def waste_ordered_rows(
    *,
    organization: Organization,
    period: Period,
    currency: str,
    filters: InstanceFilters,
    ordering: str,
) -> list[InstanceRow]:
    """Every filtered instance's row ordered by waste (the view cuts the page): waste is
    priced from the phase rollups in Python, so the whole filtered set is priced and sorted
    before the page is cut."""
    instances = list(filtered_instances(organization, period, currency, filters).order_by("pk"))
    return ordered(rows_for(organization, period, currency, instances), ordering)


def facets(organization: Organization) -> dict[str, list[str]]:
    """The distinct values the instance filters offer (one query)."""
    names = ("instance_type", "gpu_model", "charge_type", "state", "region")
    values: dict[str, set[str]] = {name: set() for name in names}
    for row in (
        Instance.objects.for_organization(organization).values_list(*names).distinct().order_by()
    ):
        for name, value in zip(names, row, strict=True):
            if value:
                values[name].add(value)
    return {name: sorted(found) for name, found in values.items()}


@dataclasses.dataclass
class ProjectRow:
    project: Project | None
    cost: Decimal = Decimal(0)
    daily_cost: dict[dt.date, Decimal] = dataclasses.field(default_factory=dict)
    waste: Decimal = Decimal(0)
    util: Util = dataclasses.field(default_factory=Util)
    instance_count: int = 0


def project_rows(*, organization: Organization, period: Period, currency: str) -> list[ProjectRow]:
    """Every project of the organization and the Unallocated row (project None), by spend.

    Spend is the bill lines' project (``GET /costs?group_by=project``); GPU-hours, utilization
    and waste follow the instances' current project, as ``GET /utilization`` groups them.
    """
    projects = list(Project.objects.for_organization(organization).order_by("name"))
    rows: dict[int | None, ProjectRow] = {p.pk: ProjectRow(project=p) for p in projects}
    rows[None] = ProjectRow(project=None)
    days = _cost_days(organization, period, currency)
    for row, amount, _count in grouped_sums(days, {}, columns=("project_id", "day")):
        target = rows.get(row["project_id"], rows[None])
        target.cost += amount
        target.daily_cost[row["day"]] = target.daily_cost.get(row["day"], Decimal(0)) + amount
    instances = gpu_instances_in_period(
        organization=organization, start=period.start_at(), end=period.end_at()
    )
    project_of = {i.pk: i.project_id for i in instances}
    for instance in instances:
        rows.get(instance.project_id, rows[None]).instance_count += 1
    for instance_id, util in instance_utils(organization, period, list(project_of)).items():
        summed = rows.get(project_of[instance_id], rows[None]).util
        summed.gpu_hours += util.gpu_hours
        summed.gpu_busy_hours += util.gpu_busy_hours
        for day, (hours, busy) in util.daily.items():
            before = summed.daily.get(day, (0.0, 0.0))
            summed.daily[day] = (before[0] + hours, before[1] + busy)
    for instance_id, idle in instance_waste(instances, period, currency).items():
        rows.get(project_of[instance_id], rows[None]).waste += idle
    out = list(rows.values())
    # The Unallocated row last, projects by spend.
    out.sort(key=lambda r: (r.project is None, -r.cost, r.project.name if r.project else ""))
    return out

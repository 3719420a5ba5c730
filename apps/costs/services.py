"""Writes of the costs app: rebuilding the daily cost rollup from the bill lines."""

from __future__ import annotations

import datetime as dt
import json
import zoneinfo
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Count, Max, QuerySet
from django.db.models.functions import TruncDate

from apps.accounts.models import Organization
from apps.billing import amortization
from apps.billing.models import BillLine
from apps.billing.months import bill_months_span
from apps.billing.selectors import unallocated_reasons_of
from apps.billing.sync import BEIJING
from apps.costs import bases
from apps.costs.models import CostBillDay, CostDay, CostProjectDay, CostRollupState
from apps.costs.sums import grouped_sums

GROUP_COLUMNS = (
    "instance_id",
    "project_id",
    "currency",
    "charge_type",
    "region_name",
    "zone_name",
    "tags",
)


@transaction.atomic
def cost_days_rebuild(*, organization: Organization, months: Sequence[str] | None = None) -> int:
    """Rebuild the organization's ``CostDay`` rows, both bases, of the local days the bill
    ``months`` touch (all of them with ``months=None``, when the timezone changed or when it
    was never built). Returns rows written.

    Whole local days are deleted and summed again from every line whose fee begins on them and
    every spread line covering them, so a day shared by two bill months is never half rebuilt.
    The days a month touches include those its purchases cover (a renewal of the 15th covers
    half of the next month). Concurrent rebuilds of one organization wait for each other (a
    lock on its state row).
    """
    tz_name = organization.timezone
    tz = zoneinfo.ZoneInfo(tz_name)
    state, created = CostRollupState.objects.select_for_update().get_or_create(
        organization=organization, defaults={"tz": tz_name}
    )
    lines = BillLine.objects.for_organization(organization)
    days = CostDay.objects.filter(organization=organization)
    project_days = CostProjectDay.objects.filter(organization=organization)
    window: tuple[dt.date, dt.date] | None = None
    bill_window: tuple[dt.date, dt.date] | None = None
    bill_days = CostBillDay.objects.filter(organization=organization)
    # Never built (or built in another timezone): every day, whatever months were read.
    if months is not None and not created and state.tz == tz_name:
        if not months:
            return 0
        moments = _moments_touched(organization, lines, sorted(set(months)))
        window, bill_window = _days_of(moments, tz), _days_of(moments, BEIJING)
        days = days.filter(day__gte=window[0], day__lte=window[1])
        project_days = project_days.filter(day__gte=window[0], day__lte=window[1])
        bill_days = bill_days.filter(day__gte=bill_window[0], day__lte=bill_window[1])
    days.delete()
    project_days.delete()
    bill_days.delete()
    rows = _cost_day_rows(organization, lines, tz, window)
    CostDay.objects.bulk_create(rows, batch_size=5000)
    cost_project_days_write(organization=organization, days=days)
    CostBillDay.objects.bulk_create(
        _bill_day_rows(organization, lines, bill_window), batch_size=5000
    )
    state.tz = tz_name
    state.save()
    return len(rows)


def _moments_touched(
    organization: Organization, lines: QuerySet[BillLine], months: list[str]
) -> tuple[dt.datetime, dt.datetime]:
    """The moments (first, first after) of ``months`` and their lines (``bill_months_span``: a
    late adjustment of a month may be dated after it), widened to the periods their purchases
    cover."""
    begin, end = bill_months_span(organization.pk, months)
    of_months = lines.filter(month__in=months)
    covered = bases.with_span(of_months).filter(bases.spread_q()).aggregate(last=Max("fee_end_at"))
    if covered["last"] is not None:
        end = max(end, amortization.covered_until(covered["last"]))
    return begin, end


def _days_of(moments: tuple[dt.datetime, dt.datetime], tz: dt.tzinfo) -> tuple[dt.date, dt.date]:
    begin, end = moments
    return begin.astimezone(tz).date(), (end - dt.timedelta(microseconds=1)).astimezone(tz).date()


def _window_lines(
    lines: QuerySet[BillLine], tz: dt.tzinfo, window: tuple[dt.date, dt.date] | None
) -> tuple[QuerySet[BillLine], QuerySet[BillLine], dt.date, dt.date]:
    """The lines that begin on the days of ``window`` (None: all), the spread lines covering
    them, and the window's first and last day."""
    if window is None:
        return lines, bases.with_span(lines).filter(bases.spread_q()), dt.date.min, dt.date.max
    first, last = window
    start = dt.datetime.combine(first, dt.time(), tzinfo=tz)
    end = dt.datetime.combine(last + dt.timedelta(days=1), dt.time(), tzinfo=tz)
    begun = lines.filter(fee_begin_at__gte=start, fee_begin_at__lt=end)
    return begun, bases.spread_lines(lines, start, end), first, last


def _cost_day_rows(
    organization: Organization,
    lines: QuerySet[BillLine],
    tz: dt.tzinfo,
    window: tuple[dt.date, dt.date] | None,
) -> list[CostDay]:
    """The ``CostDay`` rows of both bases for the local days of ``window`` (None: all)."""
    begun, spread, first, last = _window_lines(lines, tz, window)
    fields: dict[str, Any] = {"day": TruncDate("fee_begin_at", tzinfo=tz)}
    rows = [
        CostDay(organization=organization, basis=bases.BILLED, cost=amount, line_count=count, **row)
        for row, amount, count in grouped_sums(
            begun, fields, columns=GROUP_COLUMNS, count=Count("id")
        )
    ]
    # Amortized: the lines kept where billed, and the pieces of the spread lines on these days.
    amortized: dict[tuple[Any, ...], list[Any]] = {}

    def add(row: dict[str, Any], amount: Decimal, count: int) -> None:
        key = tuple(_hashable(row[name]) for name in ("day", *GROUP_COLUMNS))
        entry = amortized.setdefault(key, [row, Decimal(0), 0])
        entry[1] += amount
        entry[2] += count

    for row, amount, count in grouped_sums(
        bases.kept_lines(begun), fields, columns=GROUP_COLUMNS, count=Count("id")
    ):
        add(row, amount, count)
    for day, group, amount in bases.day_pieces(spread, tz, first, last, GROUP_COLUMNS):
        add({"day": day, **group}, amount, 1)
    rows += [
        CostDay(
            organization=organization, basis=bases.AMORTIZED, cost=amount, line_count=count, **row
        )
        for row, amount, count in amortized.values()
    ]
    return rows


def _bill_day_rows(
    organization: Organization,
    lines: QuerySet[BillLine],
    window: tuple[dt.date, dt.date] | None,
) -> list[CostBillDay]:
    """The ``CostBillDay`` rows (amortized, Beijing days) of the days of ``window``."""
    begun, spread, first, last = _window_lines(lines, BEIJING, window)
    columns = ("currency", "project_id")
    sums: dict[tuple[Any, ...], list[Decimal]] = defaultdict(lambda: [Decimal(0), Decimal(0)])
    fields: dict[str, Any] = {"day": TruncDate("fee_begin_at", tzinfo=BEIJING)}
    for row, amount, _count in grouped_sums(bases.kept_lines(begun), fields, columns=columns):
        sums[(row["day"], row["currency"], row["project_id"])][0] += amount
    for day, group, amount in bases.day_pieces(spread, BEIJING, first, last, columns):
        entry = sums[(day, group["currency"], group["project_id"])]
        entry[0] += amount
        entry[1] += amount
    return [
        CostBillDay(
            organization=organization,
            day=day,
            currency=currency,
            project_id=project_id,
            cost=cost,
            spread=spread_part,
        )
        for (day, currency, project_id), (cost, spread_part) in sums.items()
    ]


def _hashable(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, dict) else value


def cost_project_days_write(*, organization: Organization, days: QuerySet[CostDay]) -> int:
    """Write the ``CostProjectDay`` rows of ``days`` (the organization's ``CostDay`` rows, all
    or those of the days just rebuilt, whose project-day rows are gone): a row per project and
    day, and per unallocated reason and day for the money without a project. Returns rows
    written."""
    rows = [
        CostProjectDay(organization=organization, cost=amount, **row)
        for row, amount, _count in grouped_sums(
            days.filter(project__isnull=False),
            {},
            columns=("basis", "day", "currency", "project_id"),
        )
    ]
    rows.extend(_unallocated_rows(organization, days.filter(project__isnull=True)))
    CostProjectDay.objects.bulk_create(rows, batch_size=5000)
    return len(rows)


def _unallocated_rows(organization: Organization, days: QuerySet[CostDay]) -> list[CostProjectDay]:
    """The project-day rows of ``days`` without a project: one per day and reason."""
    groups = list(
        grouped_sums(days, {}, columns=("basis", "day", "currency", "tags", "instance_id"))
    )
    reasons = unallocated_reasons_of(
        [(row["tags"], row["instance_id"]) for row, _amount, _count in groups],
        organization=organization,
    )
    sums: dict[tuple[str, dt.date, str, str], Decimal] = defaultdict(Decimal)
    for reason, (row, amount, _count) in zip(reasons, groups, strict=True):
        sums[(row["basis"], row["day"], row["currency"], reason.value)] += amount
    return [
        CostProjectDay(
            organization=organization,
            basis=basis,
            day=day,
            currency=currency,
            project=None,
            unallocated_reason=reason,
            cost=amount,
        )
        for (basis, day, currency, reason), amount in sums.items()
    ]


@transaction.atomic
def cost_unallocated_days_refresh(*, organization: Organization) -> int:
    """Rewrite the organization's unallocated project-day rows (every day): their reasons follow
    the instances' tags and the project tag keys, which change without any bill line changing.
    Returns rows written. Waits for a concurrent rebuild (the same lock)."""
    if not CostRollupState.objects.select_for_update().filter(organization=organization).exists():
        return 0  # never built: the first build writes them
    CostProjectDay.objects.filter(organization=organization, project__isnull=True).delete()
    rows = _unallocated_rows(
        organization, CostDay.objects.filter(organization=organization, project__isnull=True)
    )
    CostProjectDay.objects.bulk_create(rows, batch_size=5000)
    return len(rows)


def cost_days_ensure(organization: Organization) -> bool:
    """Build the rollup if it never was, or was built in another timezone; True if it did.

    Called where the inputs change (the organization saved, the schema migrated), never on a
    read: GET requests only read the rollup."""
    state = CostRollupState.objects.filter(organization=organization).first()
    if state is not None and state.tz == organization.timezone:
        return False
    if state is None and not BillLine.objects.for_organization(organization).exists():
        return False
    cost_days_rebuild(organization=organization)
    return True


def on_bill_lines_changed(
    sender: Any, *, organization: Organization, months: Sequence[str] | None, **kwargs: Any
) -> None:
    cost_days_rebuild(organization=organization, months=months)


def on_allocation_inputs_changed(sender: Any, *, organization: Organization, **kwargs: Any) -> None:
    """The project tag keys or some instance's tags changed: the unallocated money's reasons."""
    cost_unallocated_days_refresh(organization=organization)


def on_organization_saved(sender: Any, *, instance: Organization, **kwargs: Any) -> None:
    """An organization's timezone changed: its local days move, so the rollup is rebuilt in
    the same transaction as the change (``organization_update`` is atomic)."""
    if kwargs.get("raw"):
        return
    cost_days_ensure(instance)


def on_post_migrate(sender: Any, **kwargs: Any) -> None:
    """After ``migrate``: build the rollup of every organization whose rollup a migration
    dropped (or that was never built), so that no request has to."""
    using = kwargs.get("using")
    for organization in Organization.objects.using(using).all().iterator():
        cost_days_ensure(organization)

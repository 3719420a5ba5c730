"""Writes of the costs app: rebuilding the daily cost rollup from the bill lines."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Count, QuerySet
from django.db.models.functions import TruncDate

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.months import bill_months_span
from apps.costs.models import CostDay, CostProjectDay, CostRollupState
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
    """Rebuild the organization's ``CostDay`` rows of the local days the bill ``months`` touch
    (all of them with ``months=None``, or when the timezone changed). Returns rows written.

    Whole local days are deleted and summed again from every line whose fee begins on them,
    so a day shared by two bill months is never half rebuilt. Concurrent rebuilds of one
    organization wait for each other (a lock on its state row).
    """
    tz_name = organization.timezone
    tz = zoneinfo.ZoneInfo(tz_name)
    state, created = CostRollupState.objects.select_for_update().get_or_create(
        organization=organization, defaults={"tz": tz_name}
    )
    lines = BillLine.objects.for_organization(organization)
    days = CostDay.objects.filter(organization=organization)
    project_days = CostProjectDay.objects.filter(organization=organization)
    # Never built (or built in another timezone): every day, whatever months were read.
    if months is not None and not created and state.tz == tz_name:
        months = sorted(set(months))
        if not months:
            return 0
        begin, end = bill_months_span(organization.pk, months)
        first_day = begin.astimezone(tz).date()
        last_day = (end - dt.timedelta(microseconds=1)).astimezone(tz).date()
        lines = lines.filter(
            fee_begin_at__gte=dt.datetime.combine(first_day, dt.time(), tzinfo=tz),
            fee_begin_at__lt=dt.datetime.combine(
                last_day + dt.timedelta(days=1), dt.time(), tzinfo=tz
            ),
        )
        days = days.filter(day__gte=first_day, day__lte=last_day)
        project_days = project_days.filter(day__gte=first_day, day__lte=last_day)
    days.delete()
    project_days.delete()
    fields: dict[str, Any] = {"day": TruncDate("fee_begin_at", tzinfo=tz)}
    rows = [
        CostDay(
            organization=organization,
            cost=amount,
            line_count=count,
            **{name: row[name] for name in ("day", *GROUP_COLUMNS)},
        )
        for row, amount, count in grouped_sums(
            lines, fields, columns=GROUP_COLUMNS, count=Count("id")
        )
    ]
    CostDay.objects.bulk_create(rows, batch_size=5000)
    cost_project_days_write(organization=organization, days=days)
    state.tz = tz_name
    state.save()
    return len(rows)


def cost_project_days_write(*, organization: Organization, days: QuerySet[CostDay]) -> int:
    """Write the ``CostProjectDay`` rows of ``days`` (the organization's ``CostDay`` rows, all
    or those of the days just rebuilt, whose project-day rows are gone). Returns rows written."""
    rows = [
        CostProjectDay(
            organization=organization,
            day=row["day"],
            currency=row["currency"],
            project_id=row["project_id"],
            cost=amount,
        )
        for row, amount, _count in grouped_sums(days, {}, columns=("day", "currency", "project_id"))
    ]
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

"""Reads of bill lines: totals that reconcile to the cent."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.db import connection, models
from django.db.models import QuerySet, Sum

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.cloud.models import ProjectTagKey
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
        rows = unallocated.values_list("tags", "instance__tags").annotate(total=Sum("cost"))
    else:
        # SQLite sums decimals as floats (see ``cost_totals``): sum in Python.
        rows = unallocated.values_list("tags", "instance__tags", "cost").iterator(chunk_size=5000)
    for tags, instance_tags, cost in rows:
        merged = {**(instance_tags or {}), **(tags or {})}
        totals[unallocated_reason(merged, keys)] += cost or Decimal(0)
    return totals

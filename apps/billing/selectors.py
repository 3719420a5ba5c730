"""Reads of bill lines: totals that reconcile to the cent."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import QuerySet, Sum

from apps.billing.models import BillLine


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

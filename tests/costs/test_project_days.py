"""The project-day rollup (``CostProjectDay``) holds exactly the money of ``CostDay``.

An unfiltered report by project (or without groups) and the month to date read it instead of
``CostDay``, so it must be rewritten with it: after the first build and after a bill change
announced for some months (a partial rebuild of their days).
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

import pytest

from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.costs.models import CostDay, CostProjectDay
from tests.costs.conftest import billed  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


def _sums(model: type[CostDay] | type[CostProjectDay]) -> dict[tuple, Decimal]:
    out: dict[tuple, Decimal] = defaultdict(Decimal)
    for row in model.objects.values("organization_id", "day", "currency", "project_id", "cost"):
        out[(row["organization_id"], row["day"], row["currency"], row["project_id"])] += row["cost"]
    return dict(out)


def test_project_days_follow_cost_days(billed) -> None:  # noqa: F811
    account, _simulator = billed
    organization = account.organization
    days = _sums(CostDay)
    assert len({key[3] for key in days}) > 1, "several projects (or none) billed"
    assert _sums(CostProjectDay) == days
    # A bill change in one month: its days are rebuilt, the others kept.
    line = BillLine.objects.filter(organization=organization, project__isnull=False).first()
    assert line is not None
    BillLine.objects.filter(pk=line.pk).update(project=None, cost=line.cost + Decimal("1.5"))
    bill_lines_changed.send(sender=BillLine, organization=organization, months=[line.month])
    changed = _sums(CostDay)
    assert changed != days
    assert _sums(CostProjectDay) == changed

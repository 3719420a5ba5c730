"""The (organization, fee_begin_at) index serves the reads of lines by organization and period.

The exports (FOCUS and costs CSV, in charge-period order), the budgets and the costs report
select an organization's lines whose charge period starts in a window. On a few thousand lines
of two organizations over a year, PostgreSQL's plan for the FOCUS export's query of one month
scans ``billline_org_fee_begin``, not the whole table nor every line of the organization
(which, without it, it reads through the organization_id index and filters by date). The lines
are stored as bills arrive, hour after hour with the organizations interleaved: stored one
organization after the other, a table this small is read about as cheaply either way.
A plan, not a timing: no clock here.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.exports.selectors import export_lines
from tests.alerts.builders import make_account

pytestmark = pytest.mark.django_db

START = dt.datetime(2025, 12, 1, tzinfo=dt.UTC)
LINES_PER_ORGANIZATION = 2_500  # one line every 3.5 hours: a year and some
STEP_MINUTES = 210


def year_of_lines(*organizations: Organization) -> None:
    """A line every ``STEP_MINUTES`` for each organization, stored in the order bills arrive:
    hour after hour, the organizations' lines interleaved (as the hourly syncs write them)."""
    accounts = [make_account(organization) for organization in organizations]
    BillLine.objects.bulk_create(
        BillLine(
            organization_id=account.organization_id,
            account=account,
            bill_id=f"{account.organization_id}-{n}",
            component_code="v_cvm_compute",
            item_code="cvm",
            month=(START + dt.timedelta(minutes=STEP_MINUTES * n)).strftime("%Y-%m"),
            fee_begin_at=START + dt.timedelta(minutes=STEP_MINUTES * n),
            fee_end_at=START + dt.timedelta(minutes=STEP_MINUTES * n + 59, seconds=59),
            list_cost=Decimal("10.00"),
            cost=Decimal("8.00"),
        )
        for n in range(LINES_PER_ORGANIZATION)
        for account in accounts
    )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL plan")
def test_the_focus_exports_query_of_a_month_uses_the_organization_period_index(
    acme: Organization, globex: Organization
) -> None:
    year_of_lines(acme, globex)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE billing_billline")
    lines = export_lines(
        organization=acme,
        start=dt.datetime(2026, 6, 1, tzinfo=dt.UTC),
        end=dt.datetime(2026, 7, 1, tzinfo=dt.UTC),
    )

    plan = lines.explain()

    assert "billline_org_fee_begin" in plan, plan
    assert "Seq Scan on billing_billline" not in plan, plan
    # The month's lines, one every 3.5 hours from 2025-12-01 00:00 UTC, are all there.
    june = [
        START + dt.timedelta(minutes=STEP_MINUTES * n)
        for n in range(LINES_PER_ORGANIZATION)
        if dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
        <= START + dt.timedelta(minutes=STEP_MINUTES * n)
        < dt.datetime(2026, 7, 1, tzinfo=dt.UTC)
    ]
    assert [row["fee_begin_at"] for row in lines] == june

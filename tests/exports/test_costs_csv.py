"""costs.csv: every bill line with its allocation, reconciling to the bills to the cent."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import zoneinfo
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.selectors import cost_total
from apps.cloud.models import Instance
from apps.cloud.providers.tencent.simulator import SimulatedCloud
from apps.exports.rows import COST_COLUMNS
from tests.exports.conftest import streamed_text, sync_fleet_bills

pytestmark = pytest.mark.django_db


def costs_csv(client: APIClient, **query: str) -> tuple[Any, list[dict[str, str]]]:
    response = client.get("/api/v1/exports/costs.csv", query)
    assert response.status_code == 200, response.content
    text = streamed_text(response)
    return response, list(csv.DictReader(io.StringIO(text)))


def test_it_lists_each_line_with_its_local_day_project_team_and_instance(
    acme: Organization, cloud: SimulatedCloud, alice_client: APIClient
) -> None:
    # New York: the organization's days are not the bills' Beijing days.
    Organization.objects.filter(pk=acme.pk).update(timezone="America/New_York")
    sync_fleet_bills(acme, cloud)
    response, rows = costs_csv(alice_client, start="2026-10-10", end="2026-10-12")
    assert response["Content-Disposition"] == (
        'attachment; filename="acme-costs-20261010-20261012.csv"'
    )
    assert tuple(rows[0]) == COST_COLUMNS
    new_york = zoneinfo.ZoneInfo("America/New_York")
    start = dt.datetime(2026, 10, 10, tzinfo=new_york)
    end = dt.datetime(2026, 10, 12, tzinfo=new_york)
    lines = BillLine.objects.filter(fee_begin_at__gte=start, fee_begin_at__lt=end)
    assert len(rows) == lines.count() > 0
    assert sum((Decimal(r["cost"]) for r in rows), Decimal(0)) == cost_total(lines)
    assert {r["day"] for r in rows} == {"2026-10-10", "2026-10-11"}
    instances = {i.provider_id: i for i in Instance.objects.select_related("project")}
    for row in rows:
        begin = dt.datetime.fromisoformat(row["charge_period_start"])
        assert row["day"] == begin.astimezone(new_york).date().isoformat()
        instance = instances[row["instance_id"]]
        assert row["project"] == (instance.project.name if instance.project else "Unallocated")
        assert row["team"] == instance.tags.get("team", "")
        assert json.loads(row["tags"]) == instance.tags
        assert (row["instance_type"], row["region"]) == (instance.instance_type, instance.region)
        assert row["charge_type"] == instance.charge_type
        assert row["currency"] == "CNY"

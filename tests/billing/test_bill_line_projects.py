"""Bill lines follow the cloud's project re-allocation, inside the same transaction."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.cloud.models import CloudAccount, Instance, ProjectTagKey
from apps.cloud.projects import projects_reassign

pytestmark = pytest.mark.django_db


@pytest.fixture
def line(acme: Organization) -> BillLine:
    account = CloudAccount.objects.create(
        organization=acme, name="a", secret_id="AKID", secret_key_encrypted="x", regions=[]
    )
    instance = Instance.objects.create(
        organization=acme,
        account=account,
        provider_id="ins-1",
        region="ap-guangzhou",
        instance_type="GN7.2XLARGE32",
        tags={"team": "vision"},
    )
    moment = datetime(2026, 11, 1, tzinfo=UTC)
    return BillLine.objects.create(
        organization=acme,
        account=account,
        bill_id="b-1",
        component_code="c",
        item_code="i",
        month="2026-11",
        instance=instance,
        fee_begin_at=moment,
        fee_end_at=moment,
        list_cost=Decimal(1),
        cost=Decimal(1),
        tags={"team": "vision"},
    )


def test_it_moves_bill_lines_when_the_cloud_reassigns_projects(
    acme: Organization, line: BillLine
) -> None:
    ProjectTagKey.objects.create(organization=acme, key="team")
    projects_reassign(acme)
    line.refresh_from_db()
    assert line.project is not None
    assert line.project.name == "vision"


def test_it_rolls_back_the_instances_when_the_bill_lines_fail(
    acme: Organization, line: BillLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(**kwargs: object) -> int:
        raise RuntimeError("bill lines could not be moved")

    monkeypatch.setattr("apps.billing.receivers.bill_lines_reassign_projects", fail)
    ProjectTagKey.objects.create(organization=acme, key="team")
    with pytest.raises(RuntimeError):
        projects_reassign(acme)
    assert Instance.objects.get(provider_id="ins-1").project is None

"""A month of the simulator's bills for a few instances of each charge type, synced for real.

The lines are exactly what the built-in simulator publishes (its bill book, with the
``late_adjustments`` scenario), handed to the billing app's own ``sync_bills`` as
DescribeBillDetail would return them for those instances: a whole month of the whole fleet over
HTTP would take minutes. Instances are created from the simulator's fleet like the inventory
sync would, so the lines find their instance and project.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, cast

import pytest

from apps.accounts.models import Organization
from apps.billing.sync import sync_bills
from apps.cloud.models import CloudAccount, Instance, Project
from apps.cloud.providers.tencent.client import TencentClient
from apps.cloud.providers.tencent.simulator import SimulatedCloud
from apps.cloud.providers.tencent.simulator.constants import to_epoch
from apps.cloud.providers.tencent.simulator.fleet import LATE_ADJUSTMENTS, POSTPAID, PREPAID, SPOT
from apps.cloud.services import cloud_account_create

NOW = dt.datetime(2026, 11, 12, 4, 30, tzinfo=dt.UTC)
MONTHS = ("2026-10",)


class SimulatorBills:
    """DescribeBillDetail of the chosen instances: the lines the simulator publishes at NOW."""

    def __init__(self, cloud: SimulatedCloud, instance_ids: set[str]) -> None:
        self.cloud, self.instance_ids = cloud, instance_ids

    def describe_bill_detail(self, month: str) -> Iterator[dict[str, Any]]:
        for line in self.cloud.bills.lines(month, self.cloud.now()):
            if line.instance_id in self.instance_ids:
                yield line.detail

    def expected_total(self, start: dt.datetime, end: dt.datetime) -> Decimal:
        """Sum of the RealCost of the published lines whose fee hour starts in [start, end)."""
        return sum(
            (
                line.total_cny
                for month in MONTHS
                for line in self.cloud.bills.lines(month, self.cloud.now())
                if line.instance_id in self.instance_ids
                and to_epoch(start) <= line.fee_begin < to_epoch(end)
            ),
            Decimal(0),
        )


def streamed_text(response: Any) -> str:
    """The whole body of a streamed (CSV) response."""
    return b"".join(response.streaming_content).decode()


@pytest.fixture
def cloud() -> SimulatedCloud:
    return SimulatedCloud(
        seed=1,
        now=lambda: NOW,
        anchor=dt.datetime(2026, 11, 5, tzinfo=dt.UTC),
        scenarios={LATE_ADJUSTMENTS},
    )


def sync_fleet_bills(
    organization: Organization, cloud: SimulatedCloud, *, per_charge_type: int = 1
) -> tuple[CloudAccount, SimulatorBills]:
    account = cloud_account_create(
        organization=organization,
        name="Tencent (simulated)",
        secret_id="AKIDexports",
        secret_key="exports-secret",
        regions=["ap-guangzhou", "ap-shanghai"],
    )
    chosen = [cloud.fleet.all_instances[0]]  # the late adjustments are against it
    for charge_type in (POSTPAID, SPOT, PREPAID):
        chosen += [i for i in cloud.fleet.find(charge_type=charge_type) if i not in chosen][
            :per_charge_type
        ]
    for inst in chosen:
        project_tag = inst.tag("project")
        project = None
        if project_tag:
            project, _ = Project.objects.get_or_create(
                organization=organization,
                slug=project_tag,
                defaults={"name": project_tag, "tag_values": [project_tag]},
            )
        Instance.objects.create(
            organization=organization,
            account=account,
            provider_id=inst.instance_id,
            name=inst.name,
            region=inst.region,
            zone=inst.zone,
            instance_type=inst.spec.instance_type,
            gpu_model=inst.spec.gpu_type,
            gpu_count=inst.spec.gpu_count,
            charge_type=inst.charge_type,
            tags=dict(inst.tags),
            project=project,
        )
    bills = SimulatorBills(cloud, {inst.instance_id for inst in chosen})
    for month in MONTHS:
        sync_bills(account, cast(TencentClient, bills), month)
    return account, bills

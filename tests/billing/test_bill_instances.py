"""What bill lines say about instances the inventory does not list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.billing.instances import ENDED_AFTER, bill_lines_learn_instances, region_and_zone
from apps.billing.models import BillLine
from apps.cloud.models import CloudAccount, Instance, InstanceSource, InstanceType

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)
NOW = datetime(2026, 11, 20, 4, 30, tzinfo=UTC)


@pytest.fixture
def account(acme: Organization) -> CloudAccount:
    InstanceType.objects.create(
        instance_type="GN7.2XLARGE32",
        family="GN7",
        cpu_cores=8,
        memory_gb=32,
        gpu_count=1,
        gpu_model="NVIDIA T4",
        gpu_memory_gb=16,
    )
    return CloudAccount.objects.create(
        organization=acme, name="a", secret_id="AKID", secret_key_encrypted="x", regions=[]
    )


def bill(
    account: CloudAccount,
    resource_id: str,
    begin: datetime,
    *,
    seconds: int = 3600,
    cost: str = "5.2",
    action_type: str = "postpay_deduct_h",
) -> None:
    """One hourly line of an instance: its compute and its disk component (a refund: only the
    compute one)."""
    components = [("v_cvm_compute", "sv_cvm_compute_gn7", cost)]
    if Decimal(cost) > 0:
        components.append(("v_cvm_disk_system", "sv_cvm_disk_premium", "0.05"))
    for code, item_code, amount in components:
        BillLine.objects.create(
            organization=account.organization,
            account=account,
            bill_id=f"{resource_id}-{begin:%Y%m%d%H}-{action_type}",
            component_code=code,
            item_code=item_code,
            item_name="运算组件-GPU计算型GN7-8核32G-1*NVIDIA T4" if code == "v_cvm_compute" else "",
            month=begin.astimezone(UTC).strftime("%Y-%m"),
            resource_id=resource_id,
            resource_name="old-box",
            pay_mode_name="按量计费",
            action_type=action_type,
            region_name="华南地区（广州）",
            zone_name="广州三区",
            fee_begin_at=begin,
            fee_end_at=begin + timedelta(minutes=59, seconds=59),
            list_cost=Decimal(amount),
            cost=Decimal(amount),
            time_span=Decimal(seconds),
            time_unit="秒",
            tags={"project": "vision"},
        )


def test_it_reads_regions_and_zones_from_the_chinese_names() -> None:
    assert region_and_zone("华南地区（广州）", "广州三区") == ("ap-guangzhou", "ap-guangzhou-3")
    assert region_and_zone("华东地区（上海）", "上海十一区") == ("ap-shanghai", "ap-shanghai-11")
    assert region_and_zone("亚太东南（新加坡）", "") == ("ap-singapore", "")
    assert region_and_zone("", "") == ("", "")


def test_it_learns_a_gone_instance_with_its_billed_lifetime_and_hardware(
    account: CloudAccount,
) -> None:
    start = datetime(2026, 11, 10, 3, tzinfo=UTC)
    bill(account, "ins-gone0001", start, seconds=1800)  # created at 03:30
    bill(account, "ins-gone0001", start + HOUR)
    bill(account, "ins-gone0001", start + 2 * HOUR, seconds=600)  # terminated at 05:10
    assert bill_lines_learn_instances(account=account, now=NOW) == 6
    instance = Instance.objects.get(provider_id="ins-gone0001")
    assert (instance.source, instance.state) == (InstanceSource.BILLS, "TERMINATED")
    assert instance.launched_at == start + timedelta(minutes=30)
    assert instance.terminated_at == start + 2 * HOUR + timedelta(minutes=10)
    assert (instance.instance_type, instance.gpu_count, instance.gpu_memory_gb) == (
        "GN7.2XLARGE32",
        1.0,
        16.0,
    )
    assert (instance.region, instance.zone, instance.name) == (
        "ap-guangzhou",
        "ap-guangzhou-3",
        "old-box",
    )
    assert instance.project is not None
    assert not BillLine.objects.filter(instance__isnull=True).exists()


def test_it_leaves_an_instance_still_billed_lately_to_the_inventory(
    account: CloudAccount,
) -> None:
    bill(account, "ins-live0001", NOW - ENDED_AFTER)
    assert bill_lines_learn_instances(account=account, now=NOW) == 0
    assert not Instance.objects.exists()


def test_it_widens_the_lifetime_when_older_bills_arrive_and_is_idempotent(
    account: CloudAccount,
) -> None:
    start = datetime(2026, 11, 1, 3, tzinfo=UTC)
    bill(account, "ins-gone0002", start)
    bill_lines_learn_instances(account=account, now=NOW)
    bill(account, "ins-gone0002", start - 48 * HOUR)  # the previous month, read later
    assert bill_lines_learn_instances(account=account, now=NOW) == 2
    instance = Instance.objects.get(provider_id="ins-gone0002")
    assert instance.launched_at == start - 48 * HOUR
    assert instance.terminated_at == start + HOUR
    updated_at = instance.updated_at
    assert bill_lines_learn_instances(account=account, now=NOW) == 0
    instance.refresh_from_db()
    assert instance.updated_at == updated_at


def test_it_does_not_let_a_refund_extend_the_lifetime(account: CloudAccount) -> None:
    start = datetime(2026, 11, 5, 3, tzinfo=UTC)
    bill(account, "ins-gone0003", start)
    bill(account, "ins-gone0003", start + 24 * HOUR, cost="-3", action_type="adjustment")
    bill_lines_learn_instances(account=account, now=NOW)
    instance = Instance.objects.get(provider_id="ins-gone0003")
    assert instance.terminated_at == start + HOUR


def test_it_never_changes_an_instance_the_inventory_listed(
    account: CloudAccount, acme: Organization
) -> None:
    listed = Instance.objects.create(
        organization=acme,
        account=account,
        provider_id="ins-listed01",
        region="ap-guangzhou",
        instance_type="GN7.2XLARGE32",
        state="RUNNING",
    )
    bill(account, "ins-listed01", datetime(2026, 11, 5, 3, tzinfo=UTC))
    bill(account, "ins-listed01", NOW - HOUR)  # billed lately: it is running
    assert bill_lines_learn_instances(account=account, now=NOW) == 4
    listed.refresh_from_db()
    assert (listed.state, listed.source, listed.terminated_at) == (
        "RUNNING",
        InstanceSource.INVENTORY,
        None,
    )
    assert BillLine.objects.filter(instance=listed).count() == 4


def test_it_looks_only_at_the_months_just_read_when_told(account: CloudAccount) -> None:
    bill(account, "ins-gone0004", datetime(2026, 10, 20, 3, tzinfo=UTC))
    assert bill_lines_learn_instances(account=account, now=NOW, months=["2026-11"]) == 0
    assert not Instance.objects.exists()
    assert bill_lines_learn_instances(account=account, now=NOW, months=["2026-10"]) == 2
    assert Instance.objects.get().provider_id == "ins-gone0004"

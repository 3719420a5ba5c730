"""A small organization with one instance whose hour rollups say idle or busy (no simulator)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np

from apps.accounts.models import Organization
from apps.analysis.models import InstanceProfile
from apps.billing.models import BillLine
from apps.billing.rollups import bill_days_refresh
from apps.cloud.models import CloudAccount, Instance, Project
from apps.metrics.models import InstanceHourRollup

AS_OF = dt.datetime(2026, 11, 16, 0, 30, tzinfo=dt.UTC)
END = dt.datetime(2026, 11, 16, tzinfo=dt.UTC)
HOURLY_CNY = Decimal("5.00000000")


def make_instance(
    organization: Organization,
    name: str = "box",
    *,
    project: Project | None = None,
    account: CloudAccount | None = None,
) -> Instance:
    """A GN7.2XLARGE32 in its own account and project, unless given ones to share."""
    if account is None:
        account = CloudAccount.objects.create(
            organization=organization,
            name=f"Tencent {name}",
            secret_id="AKID-test",
            secret_key_encrypted="not-used",
            regions=["ap-shanghai"],
        )
    if project is None:
        project = Project.objects.create(organization=organization, name=f"p-{name}", slug=name)
    return Instance.objects.create(
        organization=organization,
        account=account,
        provider_id=f"ins-{name}",
        name=name,
        region="ap-shanghai",
        zone="ap-shanghai-2",
        instance_type="GN7.2XLARGE32",
        gpu_model="NVIDIA T4",
        gpu_count=1,
        gpu_memory_gb=16,
        project=project,
        launched_at=END - dt.timedelta(days=40),
    )


def set_usage(instance: Instance, *, gpu_util_p95: float, days: int = 14) -> None:
    """Replace the instance's hour rollups of the ``days`` before END with one flat level."""
    InstanceHourRollup.objects.filter(instance=instance).delete()
    InstanceHourRollup.objects.bulk_create(
        [
            InstanceHourRollup(
                organization_id=instance.organization_id,
                instance=instance,
                hour_start=END - dt.timedelta(hours=hour + 1),
                gpu_count=1,
                gpu_util_pct_avg=gpu_util_p95 / 2,
                gpu_util_pct_p95=gpu_util_p95,
                gpu_util_pct_minutes=60,
                gpu_mem_used_pct_avg=1.0,
                gpu_mem_used_pct_p95=1.5,
                gpu_temp_c_p95=40.0,
            )
            for hour in range(days * 24)
        ]
    )


def bill_hours(instance: Instance, *, start: dt.datetime, hours: int) -> None:
    """One compute line per hour (10:00:00-10:59:59 inclusive, like Tencent's bills)."""
    BillLine.objects.bulk_create(
        [
            BillLine(
                organization_id=instance.organization_id,
                account=instance.account,
                bill_id=f"{instance.provider_id}-{(start + dt.timedelta(hours=hour)):%Y%m%d%H}",
                component_code="v_cvm_compute",
                item_code="cvm",
                month="2026-11",
                instance=instance,
                fee_begin_at=start + dt.timedelta(hours=hour),
                fee_end_at=start + dt.timedelta(hours=hour, minutes=59, seconds=59),
                list_cost=HOURLY_CNY,
                cost=HOURLY_CNY,
            )
            for hour in range(hours)
        ]
    )
    # As the bills sync does after writing a month's lines.
    assert instance.account is not None
    bill_days_refresh(account=instance.account, months=["2026-11"])


def set_profile(
    instance: Instance, p95: np.ndarray, *, start: dt.datetime | None = None
) -> InstanceProfile:
    """The instance's weekly profile (Asia/Shanghai): ``p95`` (7 x 24) as its median and p95,
    every cell covered, over ``start`` (default two weeks before END) to END."""
    return InstanceProfile.objects.create(
        organization=instance.organization,
        instance=instance,
        tz="Asia/Shanghai",
        start_at=END - dt.timedelta(days=14) if start is None else start,
        end_at=END,
        computed_at=END,
        median_pct=p95.tolist(),
        p95_pct=p95.tolist(),
        coverage=np.ones((7, 24)).tolist(),
    )

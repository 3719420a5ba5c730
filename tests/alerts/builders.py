"""Small worlds for the alerts tests: an account, projects, instances and bill lines."""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.cloud.models import CloudAccount, Instance, Project

_bill_ids = itertools.count(1)


def make_account(organization: Organization) -> CloudAccount:
    return CloudAccount.objects.create(
        organization=organization,
        name="Tencent",
        secret_id="AKID-test",
        secret_key_encrypted="not-used",
        regions=["ap-shanghai"],
    )


def make_project(organization: Organization, name: str) -> Project:
    return Project.objects.create(organization=organization, name=name, slug=name)


def make_instance(
    account: CloudAccount, name: str, project: Project | None = None, state: str = "RUNNING"
) -> Instance:
    return Instance.objects.create(
        organization_id=account.organization_id,
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
        state=state,
    )


def bill(
    account: CloudAccount,
    begin_at: dt.datetime,
    cost: str | Decimal,
    *,
    project: Project | None = None,
    instance: Instance | None = None,
    currency: str = "CNY",
) -> BillLine:
    """One bill line of an hour starting ``begin_at`` costing ``cost``, announced as a bills
    sync does (the costs rollup, which budgets read, follows)."""
    line = BillLine.objects.create(
        organization_id=account.organization_id,
        account=account,
        bill_id=f"bill-{next(_bill_ids)}",
        component_code="v_cvm_compute",
        item_code="cvm",
        month=begin_at.strftime("%Y-%m"),
        project=project,
        instance=instance,
        resource_id=instance.provider_id if instance else "",
        fee_begin_at=begin_at,
        fee_end_at=begin_at + dt.timedelta(minutes=59, seconds=59),
        list_cost=Decimal(cost),
        cost=Decimal(cost),
        currency=currency,
    )
    bill_lines_changed.send(sender=BillLine, organization=line.organization, months=[line.month])
    return line

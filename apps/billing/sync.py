"""Bill and balance sync.

A month of bill lines is fetched in full, then replaced in one transaction: upserted by
(BillId, component, item), lines the cloud no longer reports for that month removed and the
month's instance-day rollup (``apps.billing.rollups``) summed again. A
worker killed mid-month therefore leaves the previous state of the month, never half of it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from django.db import transaction

from apps.billing import classify
from apps.billing.models import BalanceSnapshot, BillLine
from apps.billing.rollups import bill_days_refresh
from apps.cloud.models import CloudAccount, Instance, InstanceSource
from apps.cloud.projects import ProjectResolver
from apps.cloud.providers.tencent.client import TencentClient

logger = logging.getLogger(__name__)

# Bill times come without a zone, in Beijing time (UTC+8, no daylight saving).
BEIJING = timezone(timedelta(hours=8))
FEN = Decimal("0.01")


@dataclass(frozen=True)
class BillsResult:
    month: str
    lines: int
    total: Decimal
    charge_type_disagreements: tuple[str, ...] = ()
    """Instances whose latest usage line of the month says another charge type than the
    inventory's ``InstanceChargeType`` (logged; a conversion during the month is one cause)."""

    def __str__(self) -> str:
        return f"{self.month}: {self.lines:,} bill lines, {self.total.quantize(FEN):,}"


def _money(value: Any) -> Decimal:
    if value in (None, "", "-"):
        return Decimal(0)
    return Decimal(str(value))


def _optional_decimal(value: Any) -> Decimal | None:
    try:
        return Decimal(str(value)) if value not in (None, "", "-") else None
    except ArithmeticError:
        return None


def _beijing(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%d %H:%M:%S").replace(tzinfo=BEIJING)


def _optional_beijing(value: Any) -> datetime | None:
    try:
        return _beijing(value) if value else None
    except (TypeError, ValueError):
        return None


def _commitment_cost(component: dict[str, Any]) -> Decimal | None:
    """What the component would have cost without its RI / savings plan, when it had one."""
    for field in ("OriginalCostWithRI", "OriginalCostWithSP"):
        value = _optional_decimal(component.get(field))
        if value is not None and value != 0:
            return value
    return None


def bill_lines_from(raw: dict[str, Any], **common: Any) -> list[BillLine]:
    tags = {tag["TagKey"]: tag["TagValue"] for tag in raw.get("Tags") or []}
    # Line-level facts first: a spot line's disk component says nothing of spot by itself.
    charge_type = classify.charge_type_of(raw)
    charge_category = classify.charge_category_of(raw)
    lines = []
    for component in raw.get("ComponentSet") or []:
        lines.append(
            BillLine(
                bill_id=raw["BillId"],
                component_code=component.get("ComponentCode") or "",
                item_code=component.get("ItemCode") or "",
                month=raw.get("BillMonth") or raw["FeeBeginTime"][:7],
                resource_id=raw.get("ResourceId") or "",
                resource_name=raw.get("ResourceName") or "",
                product_name=raw.get("ProductCodeName") or "",
                component_name=component.get("ComponentCodeName") or "",
                item_name=component.get("ItemCodeName") or "",
                pay_mode_name=raw.get("PayModeName") or "",
                action_type=raw.get("ActionType") or "",
                action_type_name=raw.get("ActionTypeName") or "",
                region_name=raw.get("RegionName") or "",
                zone_name=raw.get("ZoneName") or "",
                fee_begin_at=_beijing(raw["FeeBeginTime"]),
                fee_end_at=_beijing(raw["FeeEndTime"]),
                list_cost=_money(component.get("Cost")),
                cost=_money(component.get("RealCost")),
                cash_paid=_money(component.get("CashPayAmount")),
                voucher_paid=_money(component.get("VoucherPayAmount")),
                incentive_paid=_money(component.get("IncentivePayAmount")),
                transfer_paid=_money(component.get("TransferPayAmount")),
                used_amount=_optional_decimal(component.get("UsedAmount")),
                used_unit=component.get("UsedAmountUnit") or "",
                time_span=_optional_decimal(component.get("TimeSpan")),
                time_unit=component.get("TimeUnitName") or "",
                tags=tags,
                charge_type=charge_type,
                charge_category=charge_category,
                component_class=classify.component_class_of(component),
                commitment=classify.commitment_of(component),
                cost_without_commitment=_commitment_cost(component),
                single_price=_optional_decimal(component.get("SinglePrice")),
                contract_price=_optional_decimal(component.get("ContractPrice")),
                price_unit=component.get("PriceUnit") or "",
                payer_uin=str(raw.get("PayerUin") or ""),
                owner_uin=str(raw.get("OwnerUin") or ""),
                pay_time=_optional_beijing(raw.get("PayTime")),
                **common,
            )
        )
    return lines


UPDATE_FIELDS = [
    f.name
    for f in BillLine._meta.concrete_fields
    if f.name
    not in {"id", "account", "bill_id", "component_code", "item_code", "organization", "created_at"}
]


def sync_bills(account: CloudAccount, client: TencentClient, month: str) -> BillsResult:
    """Mirror one bill month (``yyyy-mm``) of the account."""
    raw_lines = list(client.describe_bill_detail(month))
    organization = account.organization
    with transaction.atomic():
        resolver = ProjectResolver(organization)
        instances = {
            i.provider_id: i
            for i in Instance.objects.for_organization(organization).filter(account=account)
        }
        rows: list[BillLine] = []
        for raw in raw_lines:
            instance = instances.get(raw.get("ResourceId") or "")
            tags = {tag["TagKey"]: tag["TagValue"] for tag in raw.get("Tags") or []}
            # Bills carry only cost-allocation tags; the instance's own tags fill the gap.
            project = resolver.resolve(tags) or (instance.project if instance else None)
            rows.extend(
                bill_lines_from(
                    raw,
                    organization=organization,
                    account=account,
                    instance=instance,
                    project=project,
                )
            )
        disagreements = charge_type_disagreements(rows)
        if disagreements:
            logger.warning(
                "bills %s of account %s: the bill and the inventory disagree on the charge type"
                " of %d instance(s): %s",
                month,
                account.pk,
                len(disagreements),
                ", ".join(disagreements[:20]),
            )
        keys = {(r.bill_id, r.component_code, r.item_code) for r in rows}
        BillLine.objects.bulk_create(
            rows,
            batch_size=1000,
            update_conflicts=True,
            unique_fields=["account", "bill_id", "component_code", "item_code"],
            update_fields=UPDATE_FIELDS,
        )
        stale = [
            pk
            for pk, *key in BillLine.objects.filter(account=account, month=month).values_list(
                "pk", "bill_id", "component_code", "item_code"
            )
            if tuple(key) not in keys
        ]
        BillLine.objects.filter(pk__in=stale).delete()
        # The month's instance-day rollup follows its lines in the same transaction.
        bill_days_refresh(account=account, months=[month, *{r.month for r in rows}])
    return BillsResult(
        month=month,
        lines=len(rows),
        total=sum((r.cost for r in rows), Decimal(0)),
        charge_type_disagreements=tuple(disagreements),
    )


def charge_type_disagreements(rows: list[BillLine]) -> list[str]:
    """Resource ids of inventory instances whose latest usage line says another charge type.

    The bill is what the money was charged as, so it decides every figure; the inventory's
    ``InstanceChargeType`` is the cross-check. Only the latest usage line of each instance is
    compared: an instance converted from subscription to pay-as-you-go has older lines of the
    old type, rightly.
    """
    latest: dict[str, BillLine] = {}
    for row in rows:
        instance = row.instance
        if instance is None or row.charge_category != classify.USAGE or not row.charge_type:
            continue
        if instance.source != InstanceSource.INVENTORY:
            continue
        known = latest.get(instance.provider_id)
        if known is None or row.fee_begin_at > known.fee_begin_at:
            latest[instance.provider_id] = row
    return sorted(
        provider_id
        for provider_id, row in latest.items()
        if row.instance is not None and row.charge_type != row.instance.charge_type
    )


def sync_balance(account: CloudAccount, client: TencentClient, *, now: datetime) -> BalanceSnapshot:
    raw = client.describe_account_balance()

    def yuan(field: str) -> Decimal:
        return (Decimal(int(raw.get(field) or 0)) / 100).quantize(FEN)

    return BalanceSnapshot.objects.create(
        organization=account.organization,
        account=account,
        taken_at=now,
        available=yuan("RealBalance"),
        cash=yuan("CashAccountBalance"),
        frozen=yuan("FreezeAmount"),
        owed=yuan("OweAmount"),
        currency=account.currency,
    )

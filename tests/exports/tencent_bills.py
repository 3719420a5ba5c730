"""Bill lines shaped the way Tencent documents them, stored through the billing app's own parser.

DescribeBillDetail lines (tencent-api.md section 4, DOMAIN.md "How a GPU bill looks"): a GPU
instance billed per hour in several components (compute, GPU, system and data disks, public
bandwidth), each with SinglePrice, ContractPrice, PriceUnit, UsedAmount, TimeSpan, Cost and
RealCost; a spot hour (竞价实例小时结, an action code that does not say spot, the compute component's
InstanceType ``spot``); a subscription renewal covering a month; a refund booked in November of a
subscription bought in September; an SLA credit (调账); a reserved-instance purchase for a year and
the hours it pays for (component InstanceType ``RI`` with OriginalCostWithRI).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.sync import bill_lines_from
from apps.cloud.models import CloudAccount
from apps.cloud.services import cloud_account_create

PAYER = "100012345678"
OWNER = "100087654321"
Q8 = Decimal("0.00000001")
REGION, ZONE = "华南地区（广州）", "广州三区"


def money(value: Decimal) -> str:
    return f"{value.quantize(Q8, ROUND_HALF_UP):.8f}"


def component(
    name: str,
    code: str,
    item_name: str,
    *,
    single: str,
    contract: str,
    price_unit: str,
    amount: str = "1",
    amount_unit: str = "个",
    span: str = "3600",
    span_unit: str = "秒",
    **fields: Any,
) -> dict[str, Any]:
    """A BillDetailComponent: Cost = SinglePrice x amount x time, RealCost at ContractPrice."""
    hours = Decimal(span) / 3600 if span_unit == "秒" else Decimal(span)
    quantity = Decimal(amount) * hours
    real = Decimal(contract) * quantity
    return {
        "ComponentCodeName": name,
        "ComponentCode": code,
        "ItemCodeName": item_name,
        "ItemCode": f"sv_{code}",
        "SinglePrice": single,
        "ContractPrice": contract,
        "PriceUnit": price_unit,
        "UsedAmount": amount,
        "UsedAmountUnit": amount_unit,
        "TimeSpan": span,
        "TimeUnitName": span_unit,
        "Cost": money(Decimal(single) * quantity),
        "RealCost": money(real),
        "CashPayAmount": money(real),
        "VoucherPayAmount": "0",
        "IncentivePayAmount": "0",
        "TransferPayAmount": "0",
        "InstanceType": "",
        **fields,
    }


def hourly_components(*, spot: bool = False, ri: bool = False) -> list[dict[str, Any]]:
    """One hour of a GN7 instance: compute, GPU, system disk, data disk, public bandwidth."""
    kind = "spot" if spot else "RI" if ri else ""
    paid_compute, paid_gpu = ("0.39600000", "3.02400000") if spot else ("1.32000000", "10.08")
    extra: dict[str, Any] = {}
    compute_fields: dict[str, Any] = {"InstanceType": kind}
    gpu_fields: dict[str, Any] = {"InstanceType": kind}
    if ri:
        # The RI pays the runtime: RealCost 0, what it would have cost without it beside.
        compute_fields |= {"RealCost": "0", "CashPayAmount": "0", "OriginalCostWithRI": "1.32"}
        gpu_fields |= {"RealCost": "0", "CashPayAmount": "0", "OriginalCostWithRI": "10.08"}
    return [
        component(
            "运算组件", "v_cvm_compute", "运算组件-GPU计算型GN7-8核32G",
            single="1.65000000", contract=paid_compute, price_unit="元/小时", **compute_fields,
        ),
        component(
            "GPU组件", "v_cvm_gpu", "GPU-1*T4",
            single="12.60000000", contract=paid_gpu, price_unit="元/小时", **gpu_fields,
        ),
        component(
            "系统盘", "v_cvm_disk_system", "高性能云硬盘", single="0.00200000",
            contract="0.00200000", price_unit="元/GB/小时", amount="50", amount_unit="GB",
        ),
        component(
            "数据盘", "v_cvm_disk_data", "SSD云硬盘", single="0.00470000",
            contract="0.00470000", price_unit="元/GB/小时", amount="500", amount_unit="GB",
        ),
        component(
            "公网带宽", "v_cvm_bandwidth", "按带宽计费", single="0.06300000",
            contract="0.06300000", price_unit="元/Mbps/小时", amount="5", amount_unit="Mbps",
            **extra,
        ),
    ]  # fmt: skip


def line(
    bill_id: str,
    resource_id: str,
    action_name: str,
    begin: str,
    end: str,
    components: list[dict[str, Any]],
    *,
    pay_mode: str = "按量计费",
    month: str | None = None,
    pay_time: str | None = None,
    product: str = "云服务器CVM-GPU计算型GN7",
) -> dict[str, Any]:
    return {
        "BillId": bill_id,
        "ProductCodeName": product,
        "PayModeName": pay_mode,
        "RegionName": REGION,
        "ZoneName": ZONE,
        "ResourceId": resource_id,
        "ResourceName": f"name-{resource_id}",
        "ActionType": "deduct_h",  # a code that says nothing about the charge type
        "ActionTypeName": action_name,
        "FeeBeginTime": begin,
        "FeeEndTime": end,
        "PayTime": pay_time or end,
        "BillMonth": month or begin[:7],
        "PayerUin": PAYER,
        "OwnerUin": OWNER,
        "Tags": [{"TagKey": "team", "TagValue": "vision"}],
        "ComponentSet": components,
    }


def monthly(name: str, code: str, price: str, *, amount: str = "1") -> dict[str, Any]:
    unit = "GB" if "盘" in name else "个"
    per = "元/GB/月" if unit == "GB" else "元/个/月"
    return component(
        name, code, name, single=price, contract=price, price_unit=per, amount=amount,
        amount_unit=unit, span="1", span_unit="月",
    )  # fmt: skip


def documented_lines() -> list[dict[str, Any]]:
    """The raw lines of one account from September to November 2026 (Beijing time)."""
    refund = [
        component(
            "运算组件", "v_cvm_compute", "运算组件-GPU计算型GN7-8核32G", single="-950.40000000",
            contract="-950.40000000", price_unit="元/个/月", span="1", span_unit="月",
        ),
    ]  # fmt: skip
    credit = {
        "ComponentCodeName": "运算组件",
        "ComponentCode": "v_cvm_compute",
        "ItemCodeName": "SLA赔偿",
        "ItemCode": "sla_credit",
        "Cost": "-120.96000000",
        "RealCost": "-120.96000000",
        "CashPayAmount": "-120.96000000",
        "TimeSpan": "0",
        "TimeUnitName": "秒",
    }
    ri_purchase = component(
        "预留实例", "v_cvm_ri", "预留实例-GN7-1年-全预付", single="87600.00000000",
        contract="70080.00000000", price_unit="元/个/年", span="1", span_unit="年",
    )  # fmt: skip
    return [
        # Pay-as-you-go: two hours, five components each.
        line("b-payg-10", "ins-payg", "按量计费小时结", "2026-10-10 10:00:00",
             "2026-10-10 10:59:59", hourly_components()),
        line("b-payg-11", "ins-payg", "按量计费小时结", "2026-10-10 11:00:00",
             "2026-10-10 11:59:59", hourly_components()),
        # Spot: the transaction type and the compute component say so, the code does not.
        line("b-spot-10", "ins-spot", "竞价实例小时结", "2026-10-10 10:00:00",
             "2026-10-10 10:59:59", hourly_components(spot=True)),
        # Subscriptions: bought in September (refunded in November), renewed in October.
        line("b-pre-new", "ins-pre2", "包年包月新购", "2026-09-20 00:00:00",
             "2026-10-19 23:59:59", [monthly("运算组件", "v_cvm_compute", "950.40000000")],
             pay_mode="包年包月", pay_time="2026-09-20 00:00:00"),
        line("b-pre-renew", "ins-pre", "包年包月续费", "2026-10-05 00:00:00",
             "2026-11-04 23:59:59",
             [monthly("运算组件", "v_cvm_compute", "7260.00000000"),
              monthly("系统盘", "v_cvm_disk_system", "0.70000000", amount="50")],
             pay_mode="包年包月", pay_time="2026-10-05 00:00:00"),
        line("b-pre-refund", "ins-pre2", "包年包月退款", "2026-11-03 12:00:00",
             "2026-11-03 12:00:00", refund, pay_mode="包年包月"),
        # An SLA credit for an outage in October.
        line("b-credit", "ins-payg", "调账", "2026-10-12 00:00:00", "2026-10-12 23:59:59",
             [credit]),
        # A reserved instance for a year and an hour it pays for.
        line("b-ri", "ri-001", "预留实例新购", "2026-10-01 00:00:00", "2027-09-30 23:59:59",
             [ri_purchase], pay_mode="包年包月", product="预留实例",
             pay_time="2026-10-01 00:00:00"),
        line("b-ri-10", "ins-ri", "按量计费小时结", "2026-10-10 10:00:00",
             "2026-10-10 10:59:59", hourly_components(ri=True)),
    ]  # fmt: skip


def store_documented_bills(organization: Organization) -> tuple[CloudAccount, list[BillLine]]:
    account = cloud_account_create(
        organization=organization,
        name="Tencent production",
        secret_id="AKIDfocus",
        secret_key="focus-secret",
        regions=["ap-guangzhou"],
    )
    lines = [
        stored
        for raw in documented_lines()
        for stored in bill_lines_from(raw, organization=organization, account=account)
    ]
    BillLine.objects.bulk_create(lines)
    return account, lines

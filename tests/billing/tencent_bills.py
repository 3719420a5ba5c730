"""Bill lines shaped the way Tencent documents them, stored by the product's own bills sync.

A GPU instance's hourly pay-as-you-go line (``DescribeBillDetail``, 按量计费小时结) is one
``BillDetail`` per resource and hour whose ``ComponentSet`` holds one entry per part billed:
compute (CPU and memory), GPU, system disk, data disk and public bandwidth, each with its own
codes and names, ``SinglePrice`` (list) and ``ContractPrice`` (paid) per hour, ``UsedAmount``,
``TimeSpan``, ``Cost`` and ``RealCost``. An instance stopped with STOP_CHARGING bills only its
disks (and a reserved IP) for those hours. The raw dicts go through ``sync_bills`` (a client
that answers them), exactly as the cloud's would, so the product classifies them itself; the
tests read their own figures from the dicts, never from what the product stored.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any, cast

from apps.billing.sync import BEIJING, sync_bills
from apps.cloud.models import CloudAccount, Instance
from apps.cloud.providers.tencent.client import TencentClient

PAYG_HOURLY = "按量计费小时结"
SPOT_HOURLY = "竞价实例小时结"


@dataclasses.dataclass(frozen=True)
class Part:
    """One ``ComponentSet`` entry's identity and price per hour (yuan strings as Tencent's)."""

    code: str
    name: str
    item_code: str
    item_name: str
    contract_price: Decimal
    list_price: Decimal
    runtime: bool
    """What the test expects: it stops billing with STOP_CHARGING (compute, GPU, unknown)."""
    used: Decimal = Decimal(1)
    unit: str = "个"


def gn7_parts(family: str = "GN7", gpu_price: str = "13.80000000") -> tuple[Part, ...]:
    """A GN7.2XLARGE32 (1 x T4) with a 50 GB system disk, 500 GB data disk and 5 Mbps: the
    15.12 CNY/h runtime price of the issue (compute 1.32 + GPU 13.80), plus 0.3452 CNY/h of
    disks and bandwidth that keep billing when it is stopped."""
    return (
        Part("v_cvm_compute", "运算组件", f"sv_cvm_compute_{family.lower()}",
             f"运算组件-GPU计算型{family}-8核32G", Decimal("1.32000000"), Decimal("1.65000000"),
             runtime=True),
        Part("v_cvm_gpu", "GPU组件", f"sv_cvm_gpu_{family.lower()}", "GPU组件-NVIDIA T4-1颗",
             Decimal(gpu_price), Decimal("17.25000000"), runtime=True),
        Part("v_cvm_rootdisk", "系统盘", "sv_cvm_rootdisk_premium", "高性能云硬盘-50GB",
             Decimal("0.02520000"), Decimal("0.02800000"), runtime=False),
        Part("v_cvm_datadisk", "数据盘", "sv_cvm_datadisk_ssd", "SSD云硬盘-500GB",
             Decimal("0.32000000"), Decimal("0.40000000"), runtime=False),
        Part("v_cvm_bandwidth", "带宽", "sv_cvm_bandwidth_hour", "公网带宽-按小时带宽",
             Decimal("0.02000000"), Decimal("0.02500000"), runtime=False, used=Decimal(5),
             unit="Mbps"),
    )  # fmt: skip


#: A component code no rule knows (no name or code word of any class): priced as runtime.
MYSTERY = Part("v_cvm_accel_x", "加速组件", "sv_cvm_accel_x", "加速组件-X1", Decimal("0.75000000"),
               Decimal("0.75000000"), runtime=True)  # fmt: skip


def _yuan(amount: Decimal) -> str:
    return f"{amount:.8f}"


def _time(moment: dt.datetime) -> str:
    return moment.astimezone(BEIJING).strftime("%Y-%m-%d %H:%M:%S")


def hour_line(
    instance: Instance,
    hour: dt.datetime,
    parts: Sequence[Part],
    *,
    action_type_name: str = PAYG_HOURLY,
) -> dict[str, Any]:
    """One ``BillDetail`` of ``instance`` for the hour starting at ``hour``."""
    components = []
    for part in parts:
        cost = part.contract_price * part.used
        components.append(
            {
                "ComponentCode": part.code,
                "ComponentCodeName": part.name,
                "ItemCode": part.item_code,
                "ItemCodeName": part.item_name,
                "SinglePrice": _yuan(part.list_price),
                "ContractPrice": _yuan(part.contract_price),
                "PriceUnit": "元/小时",
                "UsedAmount": str(part.used),
                "UsedAmountUnit": part.unit,
                "TimeSpan": "1",
                "TimeUnitName": "小时",
                "Cost": _yuan(part.list_price * part.used),
                "Discount": "1",
                "RealCost": _yuan(cost),
                "CashPayAmount": _yuan(cost),
                "VoucherPayAmount": "0",
                "IncentivePayAmount": "0",
                "TransferPayAmount": "0",
                "InstanceType": "spot" if action_type_name == SPOT_HOURLY else "",
            }
        )
    begin = hour.astimezone(BEIJING)
    return {
        "BusinessCode": "p_cvm",
        "BusinessCodeName": "云服务器CVM",
        "ProductCodeName": "云服务器CVM-GPU计算型",
        "PayModeName": "按量计费",
        "PayMode": "postPay",
        "RegionName": "华东地区（上海）",
        "ZoneName": "上海二区",
        "ResourceId": instance.provider_id,
        "ResourceName": instance.name,
        "ActionType": "postpay_deduct_h",
        "ActionTypeName": action_type_name,
        "BillId": f"{instance.provider_id}-{begin:%Y%m%d%H}",
        "BillMonth": f"{begin:%Y-%m}",
        "FeeBeginTime": _time(hour),
        "FeeEndTime": _time(hour + dt.timedelta(minutes=59, seconds=59)),
        "PayerUin": "100000000001",
        "OwnerUin": "100000000001",
        "Tags": [],
        "ComponentSet": components,
    }


def hour_lines(
    instance: Instance,
    *,
    start: dt.datetime,
    hours: int,
    parts: Sequence[Part],
    stopped: set[int] | frozenset[int] = frozenset(),
) -> list[dict[str, Any]]:
    """``hours`` hourly lines from ``start``; the hours in ``stopped`` (indexes) were stopped
    with STOP_CHARGING: only the parts that keep billing (disks, bandwidth) are on them."""
    out = []
    for index in range(hours):
        billed = [p for p in parts if not p.runtime] if index in stopped else list(parts)
        if billed:
            out.append(hour_line(instance, start + dt.timedelta(hours=index), billed))
    return out


class Bills:
    """A client answering ``describe_bill_detail`` with the lines given, per bill month."""

    def __init__(self, lines: Sequence[dict[str, Any]]) -> None:
        self.lines = list(lines)

    def describe_bill_detail(self, month: str) -> Iterator[dict[str, Any]]:
        yield from (line for line in self.lines if line["BillMonth"] == month)

    def months(self) -> list[str]:
        return sorted({line["BillMonth"] for line in self.lines})


def store(account: CloudAccount, lines: Sequence[dict[str, Any]]) -> None:
    """Store the lines through the bills sync, month by month, as a sync of them would."""
    bills = Bills(lines)
    for month in bills.months():
        sync_bills(account, cast(TencentClient, bills), month)


SUBSCRIPTION_NEW = "包年包月新购"
SUBSCRIPTION_RENEWAL = "包年包月续费"
SUBSCRIPTION_REFUND = "包年包月退款"


def gn7_monthly_parts() -> tuple[Part, ...]:
    """The same GN7.2XLARGE32 bought by the month: compute 950.40 + GPU 5,040.00 a month
    (5,990.40 / 720 h = 8.32 CNY/h amortized), disks 248.40 a month."""
    return (
        Part("v_cvm_compute", "运算组件", "sv_cvm_compute_gn7", "运算组件-GPU计算型GN7-8核32G",
             Decimal("950.40000000"), Decimal("1188.00000000"), runtime=True),
        Part("v_cvm_gpu", "GPU组件", "sv_cvm_gpu_gn7", "GPU组件-NVIDIA T4-1颗",
             Decimal("5040.00000000"), Decimal("6300.00000000"), runtime=True),
        Part("v_cvm_rootdisk", "系统盘", "sv_cvm_rootdisk_premium", "高性能云硬盘-50GB",
             Decimal("18.00000000"), Decimal("20.00000000"), runtime=False),
        Part("v_cvm_datadisk", "数据盘", "sv_cvm_datadisk_ssd", "SSD云硬盘-500GB",
             Decimal("230.40000000"), Decimal("288.00000000"), runtime=False),
    )  # fmt: skip


def subscription_line(
    instance: Instance,
    begin: dt.datetime,
    end: dt.datetime,
    parts: Sequence[Part],
    *,
    action_type_name: str = SUBSCRIPTION_NEW,
    bill_id: str = "",
) -> dict[str, Any]:
    """One prepaid purchase, renewal or refund (negative) line covering ``[begin, end)``, a
    month a part (``contract_price`` per month), dated by Tencent to ``end``'s last second."""
    sign = -1 if action_type_name == SUBSCRIPTION_REFUND else 1
    line = hour_line(instance, begin, parts, action_type_name=action_type_name)
    for component in line["ComponentSet"]:
        for field in ("SinglePrice", "ContractPrice", "Cost", "RealCost", "CashPayAmount"):
            component[field] = _yuan(sign * Decimal(component[field]))
        component.update({"PriceUnit": "元/个/月", "TimeUnitName": "月", "InstanceType": ""})
    start = begin.astimezone(BEIJING)
    line.update(
        {
            "PayModeName": "包年包月",
            "PayMode": "prePay",
            "ActionType": "prepay_purchase",
            "BillId": bill_id or f"{instance.provider_id}-{action_type_name}-{start:%Y%m%d}",
            "FeeEndTime": _time(end - dt.timedelta(seconds=1)),
            "PayTime": _time(begin),
        }
    )
    return line

"""The parts of a CVM bill line (``BillDetailComponent``), named and coded the way Tencent does.

A GPU instance's bill line holds one component per part billed (DOMAIN.md, "How a GPU bill
looks"): compute (CPU and memory, ``运算组件``), the GPUs, the system disk, data disks and public
bandwidth. The codes and names follow Tencent's documented examples (``virtual_v_cvm_compute``
运算组件, ``v_cvm_rootdisk`` 系统盘, ``v_cvm_bandwidth`` 带宽; tencent-api.md section 4); the GPU
and data-disk codes follow the same pattern. The product must not know any of these codes: it
reads the names (apps/billing/classify.py).

``runtime`` parts (compute, GPU) bill only while the instance runs (or is stopped with
KEEP_CHARGING); the others bill while it exists, also stopped with STOP_CHARGING.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from .catalog import (
    BANDWIDTH_MBPS_HOURLY_CNY,
    BANDWIDTH_MBPS_MONTHLY_CNY,
    DATA_DISK_GB_HOURLY_CNY,
    DATA_DISK_GB_MONTHLY_CNY,
    DISK_HOURLY_CNY,
    DISK_MONTHLY_CNY,
    SYSTEM_DISK_GB,
    InstanceTypeSpec,
)

Q8 = Decimal("0.00000001")
ZERO = "0"
SPOT = "spot"
RI = "RI"


def money(value: Decimal) -> str:
    """Yuan as the bill APIs write it: a decimal string with 8 places."""
    return f"{value.quantize(Q8, ROUND_HALF_UP):.8f}"


def ratio(part: Decimal, whole: Decimal) -> str:
    """A discount (paid / list) as Tencent writes it: "1", "0.2", "0.97"."""
    if whole == 0:
        return "1"
    return f"{(part / whole).quantize(Q8, ROUND_HALF_UP).normalize():f}"


@dataclass(frozen=True)
class Part:
    """A kind of component: its ComponentCode, ComponentCodeName, and whether it is runtime."""

    code: str
    name: str
    runtime: bool


COMPUTE = Part("virtual_v_cvm_compute", "运算组件", runtime=True)
GPU = Part("v_cvm_gpu", "GPU", runtime=True)
ROOT_DISK = Part("v_cvm_rootdisk", "系统盘", runtime=False)
DATA_DISK = Part("v_cvm_datadisk", "数据盘", runtime=False)
BANDWIDTH = Part("v_cvm_bandwidth", "带宽", runtime=False)


@dataclass(frozen=True)
class Priced:
    """One part of one instance at one price: list (SinglePrice) and paid (ContractPrice) unit
    prices per ``amount`` (UsedAmount) per time unit."""

    part: Part
    item_code: str
    item_name: str
    single: Decimal
    contract: Decimal
    price_unit: str
    amount: int
    amount_unit: str
    instance_type: str = ""

    def with_price(self, contract: Decimal, instance_type: str) -> Priced:
        """The same part paid at another unit price (spot, a reserved instance)."""
        return Priced(
            self.part, self.item_code, self.item_name, self.single, contract,
            self.price_unit, self.amount, self.amount_unit, instance_type,
        )  # fmt: skip


@dataclass(frozen=True)
class Hardware:
    """What an instance has besides compute, GPUs and its system disk (0 = none)."""

    data_disk_gb: int = 0
    bandwidth_mbps: int = 0


def _gpu_model(spec: InstanceTypeSpec) -> str:
    return spec.gpu_type.split()[-1].lower()


def runtime_parts(spec: InstanceTypeSpec, monthly: bool) -> list[Priced]:
    """Compute and GPU at list price, per hour or per subscription month."""
    family = spec.family.lower()
    compute_item = (f"virtual_v_cvm_compute_{family}", f"运算组件-{spec.family_name}-{spec.cpu}核{spec.memory_gib}G")  # fmt: skip
    gpu_item = (f"sv_cvm_gpu_{_gpu_model(spec)}", f"GPU-{spec.gpu_count}*{spec.gpu_type}")
    cards = Decimal(spec.gpu_count)
    if monthly:
        gpu_list, gpu_paid = spec.gpu_monthly_list_cny, spec.gpu_monthly_discount_cny
        compute_list = spec.monthly_list_cny - gpu_list
        compute_paid = spec.monthly_discount_cny - gpu_paid
        per = "元/个/月"
    else:
        gpu_list = gpu_paid = spec.gpu_hourly_cny
        compute_list = compute_paid = spec.compute_hourly_cny
        per = "元/个/小时"
    return [
        Priced(COMPUTE, *compute_item, compute_list, compute_paid, per, 1, "个"),
        Priced(GPU, *gpu_item, gpu_list / cards, gpu_paid / cards, per, spec.gpu_count, "个"),
    ]


def spot_parts(spec: InstanceTypeSpec) -> list[Priced]:
    """Compute and GPU listed at the pay-as-you-go price, paid at the spot price."""
    compute, gpu = runtime_parts(spec, monthly=False)
    cards = Decimal(spec.gpu_count)
    return [
        compute.with_price(spec.spot_compute_hourly_cny, SPOT),
        gpu.with_price(spec.spot_gpu_hourly_cny / cards, SPOT),
    ]


def keeps_billing_parts(hardware: Hardware, monthly: bool) -> list[Priced]:
    """The system disk, and the data disk and bandwidth where the instance has them."""
    if monthly:
        disk, data, band, per = (
            DISK_MONTHLY_CNY / SYSTEM_DISK_GB, DATA_DISK_GB_MONTHLY_CNY,
            BANDWIDTH_MBPS_MONTHLY_CNY, "月",
        )  # fmt: skip
    else:
        disk, data, band, per = (
            DISK_HOURLY_CNY / SYSTEM_DISK_GB, DATA_DISK_GB_HOURLY_CNY,
            BANDWIDTH_MBPS_HOURLY_CNY, "小时",
        )  # fmt: skip
    parts = [
        Priced(
            ROOT_DISK,
            "sv_cvm_rootdisk_cbspremium",
            "高性能云系统盘",
            disk,
            disk,
            f"元/GB/{per}",
            SYSTEM_DISK_GB,
            "GB",
        ),
    ]
    if hardware.data_disk_gb:
        parts.append(
            Priced(
                DATA_DISK,
                "sv_cvm_datadisk_cbsssd",
                "SSD云数据盘",
                data,
                data,
                f"元/GB/{per}",
                hardware.data_disk_gb,
                "GB",
            )
        )
    if hardware.bandwidth_mbps:
        mode = "prepay" if monthly else "postpay"
        parts.append(
            Priced(
                BANDWIDTH,
                f"sv_cvm_bandwidth_{mode}",
                "带宽-按带宽计费",
                band,
                band,
                f"元/Mbps/{per}",
                hardware.bandwidth_mbps,
                "Mbps",
            )
        )
    return parts


def component(
    priced: Priced,
    time_span: Decimal,
    time_unit: str,
    span_text: str | None = None,
    voucher: Decimal = Decimal(0),
) -> tuple[dict[str, Any], Decimal]:
    """A BillDetailComponent dict and its RealCost (``ContractPrice x amount x time``).

    ``time_span`` is in the price's time unit (hours, months); ``span_text`` is what the
    TimeSpan field shows (hourly settlement shows seconds, as "3600" with unit 秒). ``voucher``
    is the part of the RealCost a voucher paid (the rest is cash).
    """
    quantity = Decimal(priced.amount) * time_span
    cost = (priced.single * quantity).quantize(Q8, ROUND_HALF_UP)
    real = (priced.contract * quantity).quantize(Q8, ROUND_HALF_UP)
    discount = ratio(priced.contract, priced.single)
    fields: dict[str, Any] = {
        "ComponentCodeName": priced.part.name,
        "ItemCodeName": priced.item_name,
        "SinglePrice": money(priced.single),
        "ContractPrice": money(priced.contract),
        "SpecifiedPrice": money(priced.single),
        "PriceUnit": priced.price_unit,
        "UsedAmount": str(priced.amount),
        "UsedAmountUnit": priced.amount_unit,
        "TimeSpan": span_text if span_text is not None else f"{time_span.normalize():f}",
        "TimeUnitName": time_unit,
        "Cost": money(cost),
        "Discount": discount,
        "ReduceType": "折扣",
        "RealCost": money(real),
        "VoucherPayAmount": money(voucher) if voucher else ZERO,
        "CashPayAmount": money(real - voucher),
        "IncentivePayAmount": ZERO,
        "TransferPayAmount": ZERO,
        "ItemCode": priced.item_code,
        "ComponentCode": priced.part.code,
        "InstanceType": priced.instance_type,
        "BlendedDiscount": discount,
    }
    if priced.instance_type == RI:
        # What the reserved instance saved: the cost without it, over the seconds it covered.
        fields["OriginalCostWithRI"] = money(cost)
        fields["RiTimeSpan"] = fields["TimeSpan"]
    return fields, real


def negated(fields: dict[str, Any]) -> dict[str, Any]:
    """The same component with every amount negative: a refund of it."""
    out = dict(fields)
    for key in ("SinglePrice", "ContractPrice", "SpecifiedPrice", "Cost", "RealCost",
                "CashPayAmount", "VoucherPayAmount"):  # fmt: skip
        if out.get(key) not in (None, ZERO):
            out[key] = money(-Decimal(out[key]))
    return out

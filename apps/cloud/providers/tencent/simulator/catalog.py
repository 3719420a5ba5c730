"""GPU instance types and their list prices in yuan.

Tencent publishes no machine-readable GPU price list, so the hourly figures below are plausible
placeholders (T4 ~5 yuan/h, V100 ~16 yuan/h per card, A100 ~28 yuan/h per card). What matters
for the product is that every bill line follows exactly from these numbers, which it does.

Tencent prices a GPU instance in parts (DOMAIN.md, "How a GPU bill looks"), and bills each part
as its own component: ``hourly_cny`` is the runtime price of the instance, split into the compute
part (CPU and memory, ``compute_hourly_cny``) and the GPU part (``gpu_hourly_cny``, the larger);
disks and public bandwidth are priced per GB and per Mbps below. Pay-as-you-go bills the parts
at list price (no discount), spot at ``SPOT_FACTOR`` of it (runtime parts only), a subscription
month at ``monthly_discount_cny`` for the runtime parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
YUAN = Decimal("1")

# A subscription month lists at 65 % of 720 pay-as-you-go hours, and the account gets a further
# 10 % off it; spot runs at 20 % of the pay-as-you-go price (the "up to 90 % off" rule, not maxed).
PREPAID_LIST_FACTOR = Decimal("0.65")
PREPAID_DISCOUNT_FACTOR = Decimal("0.90")
SPOT_FACTOR = Decimal("0.20")
# The GPU's share of an instance's runtime price: the cards cost far more than CPU and memory.
GPU_SHARE = Decimal("0.75")

# A one-year partial-upfront reserved instance: an upfront payment of this share of a year of
# pay-as-you-go hours, then the covered runtime parts at this share of their hourly list price.
RI_TERM_DAYS = 365
RI_UPFRONT_FACTOR = Decimal("0.30")
RI_HOURLY_FACTOR = Decimal("0.30")

# Every instance has a 100 GB premium cloud system disk. It is billed while the instance exists,
# also while it is stopped with STOP_CHARGING (only compute stops being charged then).
SYSTEM_DISK_GB = 100
DISK_HOURLY_CNY = Decimal("0.05")
DISK_MONTHLY_CNY = Decimal("35.00")
# Data disks (SSD cloud disks) and public bandwidth (billed by bandwidth), where an instance has
# them (see scenario.HARDWARE): per GB / per Mbps, hourly for pay-as-you-go, monthly for a
# subscription, and billed while the instance exists, stopped or not.
DATA_DISK_GB_HOURLY_CNY = Decimal("0.0014")
DATA_DISK_GB_MONTHLY_CNY = Decimal("0.80")
BANDWIDTH_MBPS_HOURLY_CNY = Decimal("0.06")
BANDWIDTH_MBPS_MONTHLY_CNY = Decimal("18.00")
# A subscription's disks and bandwidth get the account's 3 % off their monthly list price.
PREPAID_EXTRAS_DISCOUNT = Decimal("0.97")


@dataclass(frozen=True)
class InstanceTypeSpec:
    """One CVM instance type with its hardware and pay-as-you-go list price."""

    instance_type: str
    family: str
    family_name: str
    cpu: int
    memory_gib: int
    gpu_count: int
    gpu_type: str
    gpu_memory_gib: int
    gpu_idle_w: float
    gpu_tdp_w: float
    hourly_cny: Decimal

    @property
    def gpu_hourly_cny(self) -> Decimal:
        """The GPU part of the pay-as-you-go hourly price (the cards)."""
        return (self.hourly_cny * GPU_SHARE).quantize(CENT, ROUND_HALF_UP)

    @property
    def compute_hourly_cny(self) -> Decimal:
        """The compute part (CPU and memory) of the hourly price: the rest of it."""
        return self.hourly_cny - self.gpu_hourly_cny

    @property
    def spot_gpu_hourly_cny(self) -> Decimal:
        return (self.gpu_hourly_cny * SPOT_FACTOR).quantize(CENT, ROUND_HALF_UP)

    @property
    def spot_compute_hourly_cny(self) -> Decimal:
        return (self.compute_hourly_cny * SPOT_FACTOR).quantize(CENT, ROUND_HALF_UP)

    @property
    def spot_hourly_cny(self) -> Decimal:
        """Hourly spot price (of the runtime parts, each rounded to the fen)."""
        return self.spot_compute_hourly_cny + self.spot_gpu_hourly_cny

    @property
    def monthly_list_cny(self) -> Decimal:
        """Subscription list price for one month (OriginalPrice)."""
        return (self.hourly_cny * 720 * PREPAID_LIST_FACTOR).quantize(YUAN, ROUND_HALF_UP)

    @property
    def monthly_discount_cny(self) -> Decimal:
        """Subscription price actually paid for one month (DiscountPrice)."""
        return (self.monthly_list_cny * PREPAID_DISCOUNT_FACTOR).quantize(CENT, ROUND_HALF_UP)

    @property
    def gpu_monthly_list_cny(self) -> Decimal:
        """The GPU part of ``monthly_list_cny``."""
        return (self.gpu_hourly_cny * 720 * PREPAID_LIST_FACTOR).quantize(YUAN, ROUND_HALF_UP)

    @property
    def gpu_monthly_discount_cny(self) -> Decimal:
        """The GPU part of ``monthly_discount_cny``; the compute part is the rest of it."""
        return (self.gpu_monthly_list_cny * PREPAID_DISCOUNT_FACTOR).quantize(CENT, ROUND_HALF_UP)

    @property
    def gpu_memory_mb(self) -> int:
        """Per-card GPU memory in MB, the unit of the GpuMemUsed metric."""
        return self.gpu_memory_gib * 1024


def _t(
    name: str,
    family_name: str,
    cpu: int,
    mem: int,
    gpus: int,
    gpu: str,
    gpu_mem: int,
    idle_w: float,
    tdp_w: float,
    hourly: str,
) -> InstanceTypeSpec:
    return InstanceTypeSpec(
        instance_type=name,
        family=name.split(".")[0],
        family_name=family_name,
        cpu=cpu,
        memory_gib=mem,
        gpu_count=gpus,
        gpu_type=gpu,
        gpu_memory_gib=gpu_mem,
        gpu_idle_w=idle_w,
        gpu_tdp_w=tdp_w,
        hourly_cny=Decimal(hourly),
    )


_T4 = ("NVIDIA T4", 16, 10.0, 70.0)
_V100 = ("NVIDIA V100", 32, 40.0, 300.0)
_A100 = ("NVIDIA A100", 40, 55.0, 400.0)
_A10 = ("NVIDIA A10", 24, 20.0, 150.0)

INSTANCE_TYPES: dict[str, InstanceTypeSpec] = {
    spec.instance_type: spec
    for spec in (
        _t("GN7.2XLARGE32", "GPU计算型GN7", 8, 32, 1, *_T4, "5.20"),
        _t("GN7.5XLARGE80", "GPU计算型GN7", 20, 80, 1, *_T4, "7.75"),
        _t("GN7.8XLARGE128", "GPU计算型GN7", 32, 128, 2, *_T4, "13.60"),
        _t("GN10Xp.2XLARGE40", "GPU计算型GN10Xp", 10, 40, 1, *_V100, "15.80"),
        _t("GN10Xp.5XLARGE80", "GPU计算型GN10Xp", 20, 80, 2, *_V100, "31.60"),
        _t("GN10Xp.20XLARGE320", "GPU计算型GN10Xp", 80, 320, 8, *_V100, "126.40"),
        _t("GT4.4XLARGE96", "GPU计算型GT4", 16, 96, 1, *_A100, "28.50"),
        _t("GT4.8XLARGE192", "GPU计算型GT4", 32, 192, 2, *_A100, "57.00"),
        _t("GT4.41XLARGE948", "GPU计算型GT4", 164, 948, 8, *_A100, "228.00"),
        _t("PNV4.7XLARGE116", "GPU计算型PNV4", 28, 116, 1, *_A10, "9.90"),
        _t("PNV4.14XLARGE232", "GPU计算型PNV4", 56, 232, 2, *_A10, "19.80"),
        _t("GI3X.8XLARGE64", "GPU推理型GI3X", 32, 64, 1, *_T4, "6.40"),
        _t("GI3X.22XLARGE236", "GPU推理型GI3X", 88, 236, 4, *_T4, "21.60"),
    )
}

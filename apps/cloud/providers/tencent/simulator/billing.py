"""Bill lines of the fleet, derived exactly from the catalog prices and the running hours.

Rules (Beijing time throughout, as Tencent bills are):
- POSTPAID_BY_HOUR and SPOTPAID: one line per instance per clock hour in which it existed, with
  a compute component (``price x billed seconds / 3600``; billed = running, or stopped with
  KEEP_CHARGING) and a system-disk component (``existing seconds``; disks are charged also while
  stopped with STOP_CHARGING). Spot pays ``spot_hourly_cny`` for compute, full price for disk.
- PREPAID: one line at purchase and one at each monthly renewal, compute at the monthly
  discounted price plus the disk's monthly price.
- A line is published once the clock hour of its FeeBeginTime is over; it belongs to the bill
  month of its FeeBeginTime whatever PeriodType says.
- Amounts are 8-decimal strings; a line's cost is the sum of its components' RealCost.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from .catalog import DISK_HOURLY_CNY, DISK_MONTHLY_CNY, SYSTEM_DISK_GB
from .constants import (
    ACCOUNT_UIN,
    INITIAL_CASH_FEN,
    REGIONS,
    beijing_str,
    month_bounds,
    month_of,
    to_epoch,
)
from .fleet import HOUR, POSTPAID, PREPAID, SPOT, Fleet, Instance, add_months
from .fleet import LATE_ADJUSTMENTS as LATE_ADJUSTMENTS_SCENARIO

Q8 = Decimal("0.00000001")
FEN = Decimal("0.01")
ZERO = "0"

_ACTIONS = {
    POSTPAID: ("postpay_deduct_h", "按量计费小时结", "postPay", "按量计费"),
    SPOT: ("spotpay_deduct_h", "竞价实例小时结", "postPay", "按量计费"),
}
_ADJUSTMENT = ("adjustment", "调账", "postPay", "按量计费")
# Scenario ``late_adjustments``: (days after the month's end, Beijing hour, RealCost) of the
# adjustment lines a month gets once it is over, against the fleet's first instance.
LATE_ADJUSTMENTS = ((1, 10, Decimal("-8.80000000")), (4, 10, Decimal("-1.25000000")))
_PURCHASE = ("prepay_purchase", "包年包月新购", "prePay", "包年包月")
_RENEW = ("prepay_renew", "包年包月续费", "prePay", "包年包月")


def money(value: Decimal) -> str:
    """Yuan as the bill APIs write it: a decimal string with 8 places."""
    return f"{value.quantize(Q8, ROUND_HALF_UP):.8f}"


def _ratio(part: Decimal, whole: Decimal) -> str:
    if whole == 0:
        return "1"
    return f"{(part / whole).quantize(Q8, ROUND_HALF_UP).normalize():f}"


@dataclass(frozen=True)
class BillLine:
    """One DescribeBillDetail line plus the facts tests need without parsing it."""

    instance_id: str
    instance_index: int
    fee_begin: int
    total_cny: Decimal
    pay_mode: str  # prePay / postPay: a request filter, not a BillDetail field
    detail: dict[str, Any]


def _component(
    code: str,
    code_name: str,
    item_code: str,
    item_name: str,
    single: Decimal,
    contract: Decimal,
    price_unit: str,
    amount: str,
    amount_unit: str,
    time_span: Decimal,
    time_unit: str,
    spot: bool = False,
    span_text: str | None = None,
) -> tuple[dict[str, Any], Decimal]:
    """A BillDetailComponent dict and its RealCost (``contract x amount x time``).

    ``time_span`` is in the price's time unit (hours, months); ``span_text`` is what the
    TimeSpan field shows (hourly settlement shows seconds, as "3600" with unit 秒).
    """
    quantity = Decimal(amount) * time_span
    cost = (single * quantity).quantize(Q8, ROUND_HALF_UP)
    real = (contract * quantity).quantize(Q8, ROUND_HALF_UP)
    component = {
        "ComponentCodeName": code_name,
        "ItemCodeName": item_name,
        "SinglePrice": money(single),
        "ContractPrice": money(contract),
        "PriceUnit": price_unit,
        "UsedAmount": amount,
        "UsedAmountUnit": amount_unit,
        "TimeSpan": span_text if span_text is not None else f"{time_span.normalize():f}",
        "TimeUnitName": time_unit,
        "Cost": money(cost),
        "Discount": _ratio(contract, single),
        "ReduceType": "折扣",
        "RealCost": money(real),
        "VoucherPayAmount": ZERO,
        "CashPayAmount": money(real),
        "IncentivePayAmount": ZERO,
        "TransferPayAmount": ZERO,
        "ItemCode": item_code,
        "ComponentCode": code,
        "InstanceType": "spot" if spot else "",
        "BlendedDiscount": _ratio(contract, single),
    }
    return component, real


def _overlap_seconds(hours: np.ndarray, intervals: list[tuple[int, int]]) -> np.ndarray:
    """Seconds of each hour [h, h + 3600) covered by the (disjoint) intervals."""
    total = np.zeros(len(hours), dtype=np.int64)
    for a, b in intervals:
        total += np.clip(np.minimum(b, hours + HOUR) - np.maximum(a, hours), 0, None)
    return total


class BillBook:
    """Builds, caches and sums the bill lines of a fleet."""

    def __init__(self, fleet: Fleet, uin: str = ACCOUNT_UIN) -> None:
        self.fleet = fleet
        self.uin = uin
        self._cache: OrderedDict[tuple[str, int], list[BillLine]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def settled_until(now: datetime | int) -> int:
        """Lines whose fee hour ends at or before this moment are published."""
        moment = now if isinstance(now, int) else to_epoch(now)
        return moment // HOUR * HOUR

    def lines(self, month: str, now: datetime | int) -> list[BillLine]:
        """All published lines of a ``YYYY-MM`` bill month at ``now``, in API order."""
        settled = self.settled_until(now)
        key = (month, settled)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None:
            return cached
        start, end = month_bounds(month)
        lines: list[BillLine] = []
        for inst in self.fleet.all_instances:
            if inst.charge_type == PREPAID:
                lines.extend(self._prepaid_lines(inst, start, end, settled))
            else:
                lines.extend(self._hourly_lines(inst, start, end, settled))
        if LATE_ADJUSTMENTS_SCENARIO in self.fleet.scenarios:
            lines.extend(self._adjustment_lines(start, end, settled))
        lines.sort(key=lambda line: (line.fee_begin, line.instance_index))
        with self._lock:
            self._cache[key] = lines
            while len(self._cache) > 12:
                self._cache.popitem(last=False)
        return lines

    def _bill_id(self, inst: Instance, moment: int, action: str) -> str:
        digest = hashlib.sha256(
            f"{self.fleet.seed}:{inst.instance_id}:{moment}:{action}".encode()
        ).hexdigest()
        day = beijing_str(moment)[:10].replace("-", "")
        return f"{day}{int(digest[:16], 16) % 10**15:015d}"

    def _static_detail(self, inst: Instance, action: tuple[str, str, str, str]) -> dict[str, Any]:
        """The fields every line of one instance and action type shares."""
        region = REGIONS[inst.region]
        zone_name = region["Zones"][inst.zone][1]
        return {
            "BusinessCodeName": "云服务器CVM",
            "ProductCodeName": f"云服务器CVM-{inst.spec.family_name}",
            "PayModeName": action[3],
            "ProjectName": "默认项目",
            "RegionName": region["RegionName"],
            "ZoneName": zone_name,
            "ResourceId": inst.instance_id,
            "ResourceName": inst.name,
            "ActionTypeName": action[1],
            "PayerUin": self.uin,
            "OwnerUin": self.uin,
            "OperateUin": self.uin,
            "Tags": [{"TagKey": key, "TagValue": value} for key, value in inst.tags],
            "BusinessCode": "p_cvm",
            "ProductCode": f"sp_cvm_{inst.spec.family.lower()}",
            "ActionType": action[0],
            "RegionId": region["RegionId"],
            "ProjectId": 0,
            "PriceInfo": [],
            "RegionType": "0",
            "RegionTypeName": "中国大陆",
        }

    def _detail(
        self,
        inst: Instance,
        static: dict[str, Any],
        fee_begin: int,
        fee_end: int,
        pay_time: int,
        components: list[dict[str, Any]],
    ) -> dict[str, Any]:
        bill_id = self._bill_id(inst, fee_begin, static["ActionType"])
        begin = beijing_str(fee_begin)
        return {
            **static,
            "OrderId": bill_id,
            "BillId": bill_id,
            "Id": bill_id,
            "PayTime": beijing_str(pay_time),
            "FeeBeginTime": begin,
            "FeeEndTime": beijing_str(fee_end),
            "BillDay": begin[8:10],
            "BillMonth": begin[:7],
            "ComponentSet": components,
        }

    def _compute_names(self, inst: Instance) -> tuple[str, str]:
        spec = inst.spec
        return (
            f"sv_cvm_compute_{spec.family.lower()}",
            f"运算组件-{spec.family_name}-{spec.cpu}核{spec.memory_gib}G-"
            f"{spec.gpu_count}*{spec.gpu_type}",
        )

    def _hourly_lines(self, inst: Instance, start: int, end: int, settled: int) -> list[BillLine]:
        first = max(start, inst.created_at // HOUR * HOUR)
        last = min(end, settled, inst.end_of_life)
        if first >= last:
            return []
        hours = np.arange(first, last, HOUR, dtype=np.int64)
        hours = hours[hours + HOUR <= settled]
        compute = _overlap_seconds(hours, inst.compute_billed_intervals(first, end))
        exists = inst.existence_interval(first, end)
        disk = _overlap_seconds(hours, [exists] if exists else [])
        spec = inst.spec
        action = _ACTIONS[inst.charge_type]
        spot = inst.charge_type == SPOT
        unit_price = spec.spot_hourly_cny if spot else spec.hourly_cny
        item_code, item_name = self._compute_names(inst)
        disk_price = DISK_HOURLY_CNY / SYSTEM_DISK_GB
        static = self._static_detail(inst, action)
        # Almost every hour is a full one, so the component dicts repeat: build each distinct
        # (compute seconds, disk seconds) pair once and share it (it is never mutated).
        memo: dict[tuple[int, int], tuple[list[dict[str, Any]], Decimal]] = {}
        out = []
        for hour, compute_s, disk_s in zip(
            hours.tolist(), compute.tolist(), disk.tolist(), strict=True
        ):
            if disk_s <= 0:
                continue
            if (compute_s, disk_s) in memo:
                components, total = memo[(compute_s, disk_s)]
                detail = self._detail(inst, static, hour, hour + HOUR - 1, hour + HOUR, components)
                out.append(BillLine(inst.instance_id, inst.index, hour, total, action[2], detail))
                continue
            components, total = [], Decimal(0)
            if compute_s > 0:
                comp, real = _component(
                    "v_cvm_compute", "运算组件", item_code, item_name, spec.hourly_cny,
                    unit_price, "元/小时", "1", "个", Decimal(compute_s) / HOUR, "秒", spot,
                    str(compute_s),
                )  # fmt: skip
                components.append(comp)
                total += real
            comp, real = _component(
                "v_cvm_disk_system", "系统盘", "sv_cvm_disk_premium", "高性能云硬盘",
                disk_price, disk_price, "元/GB/小时", str(SYSTEM_DISK_GB), "GB",
                Decimal(disk_s) / HOUR, "秒", span_text=str(disk_s),
            )  # fmt: skip
            components.append(comp)
            total += real
            memo[(compute_s, disk_s)] = (components, total)
            detail = self._detail(inst, static, hour, hour + HOUR - 1, hour + HOUR, components)
            out.append(BillLine(inst.instance_id, inst.index, hour, total, action[2], detail))
        return out

    def _prepaid_lines(self, inst: Instance, start: int, end: int, settled: int) -> list[BillLine]:
        spec = inst.spec
        item_code, item_name = self._compute_names(inst)
        disk_month = DISK_MONTHLY_CNY / SYSTEM_DISK_GB
        out = []
        starts = inst.subscription_starts(until=end)
        for number, begin in enumerate(starts):
            if begin < start or begin // HOUR * HOUR + HOUR > settled:
                continue
            compute, compute_real = _component(
                "v_cvm_compute", "运算组件", item_code, item_name, spec.monthly_list_cny,
                spec.monthly_discount_cny, "元/个/月", "1", "个", Decimal(1), "月",
            )  # fmt: skip
            disk, disk_real = _component(
                "v_cvm_disk_system", "系统盘", "sv_cvm_disk_premium", "高性能云硬盘",
                disk_month, disk_month, "元/GB/月", str(SYSTEM_DISK_GB), "GB", Decimal(1), "月",
            )  # fmt: skip
            following = add_months(inst.created_at, number + 1)
            static = self._static_detail(inst, _PURCHASE if number == 0 else _RENEW)
            detail = self._detail(inst, static, begin, following - 1, begin, [compute, disk])
            out.append(
                BillLine(
                    inst.instance_id, inst.index, begin, compute_real + disk_real, "prePay", detail
                )
            )
        return out

    def _adjustment_lines(self, start: int, end: int, settled: int) -> list[BillLine]:
        """Adjustments (refunds) of the month [start, end), published after it ended: each
        belongs to the month (its FeeBeginTime is the month's last hour) but appears later."""
        inst = self.fleet.all_instances[0]
        static = self._static_detail(inst, _ADJUSTMENT)
        out = []
        for days_after, hour, amount in LATE_ADJUSTMENTS:
            published = end + days_after * 86400 + hour * HOUR
            if published > settled:
                continue
            component = {
                "ComponentCodeName": "运算组件",
                "ItemCodeName": "调账",
                "ComponentCode": "v_cvm_compute",
                "ItemCode": f"adjustment_{days_after}",
                "Cost": money(amount),
                "RealCost": money(amount),
                "CashPayAmount": money(amount),
                "VoucherPayAmount": ZERO,
                "IncentivePayAmount": ZERO,
                "TransferPayAmount": ZERO,
                "TimeSpan": "0",
                "TimeUnitName": "秒",
            }
            fee_begin = end - HOUR
            detail = self._detail(inst, static, fee_begin, end - 1, published, [component])
            detail["BillId"] = detail["OrderId"] = detail["Id"] = (
                f"{detail['BillId'][:-2]}{days_after:02d}"
            )
            out.append(BillLine(inst.instance_id, inst.index, fee_begin, amount, "postPay", detail))
        return out

    # Expected figures for tests of the sync pipeline -------------------------------------

    def expected_bill_total(self, instance_id: str, month: str, now: datetime | int) -> Decimal:
        """Sum of the RealCost strings of one instance's lines in a bill month, as published."""
        return sum(
            (line.total_cny for line in self.lines(month, now) if line.instance_id == instance_id),
            Decimal(0),
        )

    def expected_totals_by_instance(self, month: str, now: datetime | int) -> dict[str, Decimal]:
        """Instance id -> month total (instances without lines are absent)."""
        totals: dict[str, Decimal] = defaultdict(Decimal)
        for line in self.lines(month, now):
            totals[line.instance_id] += line.total_cny
        return dict(totals)

    def expected_totals_by_tag(
        self, month: str, now: datetime | int, tag_key: str = "project"
    ) -> dict[str | None, Decimal]:
        """Tag value (None = untagged, i.e. "Unallocated") -> month total."""
        totals: dict[str | None, Decimal] = defaultdict(Decimal)
        for line in self.lines(month, now):
            totals[self.fleet.get(line.instance_id).tag(tag_key)] += line.total_cny
        return dict(totals)

    def expected_month_total(self, month: str, now: datetime | int) -> Decimal:
        """Sum of every published line of a bill month."""
        return sum((line.total_cny for line in self.lines(month, now)), Decimal(0))

    def bill_months(self, now: datetime | int) -> list[str]:
        """Every bill month from the oldest instance's creation to ``now``."""
        moment = now if isinstance(now, int) else to_epoch(now)
        first = min(inst.created_at for inst in self.fleet.all_instances)
        months, cursor = [], first
        while month_of(cursor) <= month_of(moment):
            months.append(month_of(cursor))
            cursor = month_bounds(month_of(cursor))[1]
        return months

    def spent_fen(self, now: datetime | int) -> int:
        """Everything billed so far, in fen (rounded half-up from the exact yuan sum)."""
        spent = sum((self.expected_month_total(m, now) for m in self.bill_months(now)), Decimal(0))
        return int((spent / FEN).quantize(Decimal(1), ROUND_HALF_UP))

    def balance_fen(self, now: datetime | int) -> int:
        """Cash balance DescribeAccountBalance reports: the initial cash minus the bills."""
        return INITIAL_CASH_FEN - self.spent_fen(now)

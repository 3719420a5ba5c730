"""Bill lines of the fleet, derived exactly from the catalog prices and the running hours.

Rules (Beijing time throughout, as Tencent bills are; components: see ``components``):
- POSTPAID_BY_HOUR and SPOTPAID: one line per instance per clock hour in which it existed. Its
  runtime components (运算组件 compute, GPU) bill ``price x billed seconds / 3600`` (billed =
  running, or stopped with KEEP_CHARGING); the system disk, data disk and bandwidth bill the
  seconds it existed, also while stopped with STOP_CHARGING. Spot lines (竞价实例小时结, under the
  pay-as-you-go ActionType code) pay the spot price for the runtime parts, marked InstanceType
  ``spot``, and the full price for the rest.
- PREPAID: a purchase line (新购) at creation and a renewal line (续费) at each monthly renewal,
  each covering its month (FeeBeginTime to FeeEndTime), every part at its monthly price.
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

from . import components as parts
from . import events, scenario
from .components import ZERO, Priced, money
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
from .scenario import hardware_of

FEN = Decimal("0.01")

# (ActionType, ActionTypeName, PayMode filter, PayModeName). Spot hours are settled hourly under
# the pay-as-you-go code: only their name (竞价实例小时结) and their runtime components'
# InstanceType ``spot`` say spot; ActionType codes are no documented stable list.
_ACTIONS = {
    POSTPAID: ("postpay_deduct_h", "按量计费小时结", "postPay", "按量计费"),
    SPOT: ("postpay_deduct_h", "竞价实例小时结", "postPay", "按量计费"),
}
_ADJUSTMENT = ("adjustment", "调账", "postPay", "按量计费")
# Scenario ``late_adjustments``: (days after the month's end, Beijing hour, RealCost) of the
# adjustment lines a month gets once it is over, against the fleet's first instance.
LATE_ADJUSTMENTS = ((1, 10, Decimal("-8.80000000")), (4, 10, Decimal("-1.25000000")))
_PURCHASE = ("prepay_purchase", "包年包月新购", "prePay", "包年包月")
_RENEW = ("prepay_renew", "包年包月续费", "prePay", "包年包月")
_REFUND = ("prepay_refund", "包年包月退款", "prePay", "包年包月")


@dataclass(frozen=True)
class BillLine:
    """One DescribeBillDetail line plus the facts tests need without parsing it."""

    instance_id: str
    instance_index: int
    fee_begin: int
    total_cny: Decimal
    pay_mode: str  # prePay / postPay: a request filter, not a BillDetail field
    detail: dict[str, Any]


def _per_hour(priced: list[Priced]) -> Decimal:
    """What parts cost a full hour at the price paid."""
    return sum((p.contract * p.amount for p in priced), Decimal(0))


def _overlap_seconds(hours: np.ndarray, intervals: list[tuple[int, int]]) -> np.ndarray:
    """Seconds of each hour [h, h + 3600) covered by the (disjoint) intervals."""
    total = np.zeros(len(hours), dtype=np.int64)
    for a, b in intervals:
        total += np.clip(np.minimum(b, hours + HOUR) - np.maximum(a, hours), 0, None)
    return total


class BillBook:
    """Builds, caches and sums the bill lines of a fleet."""

    def __init__(self, fleet: Fleet, uin: str = ACCOUNT_UIN) -> None:
        scenario.check({inst.index: inst.charge_type for inst in fleet.all_instances})
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
        version = self.fleet.operations.version
        start, end = month_bounds(month)
        lines: list[BillLine] = []
        for inst in self.fleet.all_instances:
            if inst.charge_type == PREPAID:
                lines.extend(self._prepaid_lines(inst, start, end, settled))
            else:
                lines.extend(self._hourly_lines(inst, start, end, settled))
        lines.extend(events.event_lines(self, start, end, settled))
        if LATE_ADJUSTMENTS_SCENARIO in self.fleet.scenarios:
            lines.extend(self._adjustment_lines(start, end, settled))
        lines.sort(key=lambda line: (line.fee_begin, line.instance_index))
        with self._lock:
            # Kept only when no operation was recorded while the lines were built.
            if self.fleet.operations.version == version:
                self._cache[key] = lines
                while len(self._cache) > 12:
                    self._cache.popitem(last=False)
        return lines

    def forget(self) -> None:
        """Drop every cached month (an operation changed what some hours bill)."""
        with self._lock:
            self._cache.clear()

    def _bill_id(self, inst: Instance, moment: int, action: str) -> str:
        digest = hashlib.sha256(
            f"{self.fleet.seed}:{inst.instance_id}:{moment}:{action}".encode()
        ).hexdigest()
        day = beijing_str(moment)[:10].replace("-", "")
        return f"{day}{int(digest[:16], 16) % 10**15:015d}"

    def static_detail(self, inst: Instance, action: tuple[str, str, str, str]) -> dict[str, Any]:
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

    def line_detail(
        self,
        inst: Instance,
        static: dict[str, Any],
        fee_begin: int,
        fee_end: int,
        pay_time: int,
        components: list[dict[str, Any]],
        salt: str = "",
    ) -> dict[str, Any]:
        bill_id = self._bill_id(inst, fee_begin, static["ActionType"] + salt)
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

    def _hourly_components(
        self, runtime: list[Priced], keeps: list[Priced], runtime_s: int, exists_s: int
    ) -> tuple[list[dict[str, Any]], Decimal]:
        """The components of one hour: runtime parts for the billed running seconds, the
        others for the seconds the instance existed; and their total RealCost."""
        components, total = [], Decimal(0)
        for priced_parts, seconds in ((runtime, runtime_s), (keeps, exists_s)):
            if seconds <= 0:
                continue
            for priced in priced_parts:
                comp, real = parts.component(
                    priced, Decimal(seconds) / HOUR, "秒", span_text=str(seconds)
                )
                components.append(comp)
                total += real
        return components, total

    def _hourly_parts(self, inst: Instance) -> tuple[dict[bool, list[Priced]], list[Priced]]:
        """An hourly instance's runtime parts (by whether a reserved instance covers the
        hour) and the parts that keep billing while it is stopped."""
        if inst.charge_type == SPOT:
            runtime = parts.spot_parts(inst.spec)
        else:
            runtime = parts.runtime_parts(inst.spec, monthly=False)
        keeps = parts.keeps_billing_parts(hardware_of(inst.index), monthly=False)
        return {False: runtime, True: events.ri_parts(runtime, inst.spec)}, keeps

    def hourly_price(self, inst: Instance, hour: int) -> tuple[Decimal, Decimal]:
        """(runtime, keeps billing): the yuan a full running hour of a pay-as-you-go or spot
        instance is billed, at the price paid: its compute and GPU parts (at the RI rate in an
        hour its reserved instance covers), and its disks and bandwidth."""
        runtime_by_ri, keeps = self._hourly_parts(inst)
        ri_begin, ri_end = events.ri_window(self.fleet, inst) or (0, 0)
        runtime = runtime_by_ri[ri_begin <= hour < ri_end]
        return _per_hour(runtime), _per_hour(keeps)

    def _hourly_lines(self, inst: Instance, start: int, end: int, settled: int) -> list[BillLine]:
        first = max(start, inst.created_at // HOUR * HOUR)
        last = min(end, settled, inst.end_of_life)
        if first >= last:
            return []
        hours = np.arange(first, last, HOUR, dtype=np.int64)
        hours = hours[hours + HOUR <= settled]
        runtime_s = _overlap_seconds(hours, inst.compute_billed_intervals(first, end))
        exists = inst.existence_interval(first, end)
        exists_s = _overlap_seconds(hours, [exists] if exists else [])
        action = _ACTIONS[inst.charge_type]
        runtime_by_ri, keeps = self._hourly_parts(inst)
        # Hours a reserved instance covers pay its rate for the runtime parts.
        ri_begin, ri_end = events.ri_window(self.fleet, inst) or (0, 0)
        static = self.static_detail(inst, action)
        # Almost every hour is a full one, so the component dicts repeat: build each distinct
        # (runtime seconds, existing seconds, RI) once and share it (it is never mutated).
        memo: dict[tuple[int, int, bool], tuple[list[dict[str, Any]], Decimal]] = {}
        out = []
        for hour, run_s, exist_s in zip(
            hours.tolist(), runtime_s.tolist(), exists_s.tolist(), strict=True
        ):
            if exist_s <= 0:
                continue
            covered = ri_begin <= hour < ri_end
            key = (run_s, exist_s, covered)
            if key not in memo:
                memo[key] = self._hourly_components(runtime_by_ri[covered], keeps, run_s, exist_s)
            components, total = memo[key]
            detail = self.line_detail(inst, static, hour, hour + HOUR - 1, hour + HOUR, components)
            out.append(BillLine(inst.instance_id, inst.index, hour, total, action[2], detail))
        return out

    def _monthly_components(
        self, inst: Instance, voucher: Decimal = Decimal(0)
    ) -> tuple[list[dict[str, Any]], Decimal]:
        """The components of one subscription month: every part, at its monthly price.
        ``voucher`` pays the first components' RealCost, in order, until it is spent."""
        priced_parts = [
            *parts.runtime_parts(inst.spec, monthly=True),
            *parts.keeps_billing_parts(hardware_of(inst.index), monthly=True),
        ]
        components, total = [], Decimal(0)
        for priced in priced_parts:
            comp, real = parts.component(priced, Decimal(1), "月")
            if voucher > 0:
                paid = min(voucher, real)
                comp, real = parts.component(priced, Decimal(1), "月", voucher=paid)
                voucher -= paid
            components.append(comp)
            total += real
        return components, total

    def _prepaid_lines(self, inst: Instance, start: int, end: int, settled: int) -> list[BillLine]:
        """A purchase (新购) line at creation and a renewal (续费) line at each monthly renewal,
        each covering its month: FeeBeginTime to the second before the next renewal. The last
        renewal before the anchor may carry a scenario event (a voucher, a duplicate)."""
        out = []
        starts = inst.subscription_starts(until=end)
        last_renewal = len(inst.subscription_starts(until=self.fleet.anchor)) - 1
        for number, begin in enumerate(starts):
            if begin < start:
                continue
            following = add_months(inst.created_at, number + 1)
            events = self._renewal_events(inst) if number == last_renewal > 0 else []
            voucher = sum(
                (e.amount for e in events if e.kind == scenario.VOUCHER_RENEWAL), Decimal(0)
            )
            components, total = self._monthly_components(inst, voucher)
            static = self.static_detail(inst, _PURCHASE if number == 0 else _RENEW)
            if begin // HOUR * HOUR + HOUR <= settled:
                detail = self.line_detail(inst, static, begin, following - 1, begin, components)
                out.append(BillLine(inst.instance_id, inst.index, begin, total, "prePay", detail))
            for event in events:
                if event.kind == scenario.DUPLICATE_RENEWAL:
                    out.extend(self._duplicate_and_refund(inst, event, begin, following, settled))
        return out

    def _renewal_events(self, inst: Instance) -> list[scenario.BillEvent]:
        return [
            *scenario.events_of(inst.index, scenario.VOUCHER_RENEWAL),
            *scenario.events_of(inst.index, scenario.DUPLICATE_RENEWAL),
        ]

    def _duplicate_and_refund(
        self, inst: Instance, event: scenario.BillEvent, begin: int, following: int, settled: int
    ) -> list[BillLine]:
        """The same renewal charged again two hours later (the same month), and its refund
        (包年包月退款, every amount negative) ``delay_hours`` after the renewal; both cover the
        month they charge or refund, and appear once their PayTime's hour is over."""
        components, total = self._monthly_components(inst)
        out = []
        for action, pay_time, lines, amount in (
            (_RENEW, begin + 2 * HOUR, components, total),
            (
                _REFUND,
                begin + event.delay_hours * HOUR,
                [parts.negated(c) for c in components],
                -total,
            ),
        ):
            if pay_time // HOUR * HOUR + HOUR > settled:
                continue
            static = self.static_detail(inst, action)
            detail = self.line_detail(
                inst, static, begin, following - 1, pay_time, lines, salt="duplicate"
            )
            out.append(BillLine(inst.instance_id, inst.index, begin, amount, "prePay", detail))
        return out

    def _adjustment_lines(self, start: int, end: int, settled: int) -> list[BillLine]:
        """Adjustments (refunds) of the month [start, end), published after it ended: each
        belongs to the month (its FeeBeginTime is the month's last hour) but appears later."""
        inst = self.fleet.all_instances[0]
        static = self.static_detail(inst, _ADJUSTMENT)
        out = []
        for days_after, hour, amount in LATE_ADJUSTMENTS:
            published = end + days_after * 86400 + hour * HOUR
            if published > settled:
                continue
            component = {
                "ComponentCodeName": "运算组件",
                "ItemCodeName": "调账",
                "ComponentCode": parts.COMPUTE.code,
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
            detail = self.line_detail(inst, static, fee_begin, end - 1, published, [component])
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
        """Tag value (None = untagged, i.e. "Unallocated") -> month total, by the tags each
        line carries (an instance's tags; none on a reserved instance's purchase)."""
        totals: dict[str | None, Decimal] = defaultdict(Decimal)
        for line in self.lines(month, now):
            tags = {tag["TagKey"]: tag["TagValue"] for tag in line.detail["Tags"]}
            totals[tags.get(tag_key)] += line.total_cny
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

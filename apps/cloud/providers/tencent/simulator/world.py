"""The simulated cloud: fleet, metrics and bills on one clock, plus the expected figures.

Tests of the sync pipeline compare what they stored against these helpers, which compute
from the very same generators the API serves from (but never over HTTP, and with no limits).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from .billing import BillBook
from .constants import (
    MONITOR_DEFAULT_LAG_SECONDS,
    MONITOR_DEFAULT_MAX_INSTANCES,
    MONITOR_DEFAULT_MAX_POINTS,
    month_of,
    to_epoch,
    utc_now,
)
from .fleet import Fleet, Instance, day_anchor
from .metrics import MetricStore, Series, canonical_metric
from .operations import KEEP_CHARGING, Operations, Transition
from .power import start_instances, stop_instances

Moment = datetime | int | None


@dataclass
class MonitorSettings:
    """GetMonitorData limits; the real values are disputed between sources, so configurable."""

    max_instances: int = MONITOR_DEFAULT_MAX_INSTANCES
    max_points: int = MONITOR_DEFAULT_MAX_POINTS
    lag_seconds: int = MONITOR_DEFAULT_LAG_SECONDS


class SimulatedCloud:
    """A seeded fleet anchored at the UTC midnight of ``now()`` when it was created."""

    def __init__(
        self,
        seed: int = 1,
        now: Callable[[], datetime] = utc_now,
        anchor: datetime | None = None,
        monitor: MonitorSettings | None = None,
        scenarios: Collection[str] = (),
    ) -> None:
        self.seed = seed
        self.now = now
        self.anchor = day_anchor(anchor or now())
        self.fleet = Fleet(seed, self.anchor, scenarios)
        self.metrics = MetricStore(self.fleet)
        self.bills = BillBook(self.fleet)
        self.monitor = monitor or MonitorSettings()
        self.fleet.operations.subscribe(self._forget_from)

    def _forget_from(self, instance_id: str, moment: int) -> None:
        # An operation changed the instance's life from ``moment`` on: what the caches
        # computed from the seeded pattern for those days and months is stale.
        self.metrics.forget(self.fleet.get(instance_id), moment)
        self.bills.forget()

    def now_epoch(self, moment: Moment = None) -> int:
        """Unix seconds of ``moment``, or of the simulation clock when None."""
        if moment is None:
            return to_epoch(self.now())
        return moment if isinstance(moment, int) else to_epoch(moment)

    # Inventory ---------------------------------------------------------------------------

    def instances(self, now: Moment = None, region: str | None = None) -> list[Instance]:
        """What DescribeInstances lists at ``now`` (terminated instances excluded)."""
        return self.fleet.instances(self.now_epoch(now), region)

    # Operations (StopInstances / StartInstances) ----------------------------------------

    @property
    def operations(self) -> Operations:
        """The operations log and its knobs (stop/start seconds, sold-out zones)."""
        return self.fleet.operations

    def stop_instances(
        self,
        instance_ids: Sequence[str],
        *,
        stopped_mode: str = KEEP_CHARGING,
        stop_type: str = "SOFT",
        region: str | None = None,
        now: Moment = None,
        request_id: str | None = None,
        required_tag: tuple[str, str] | None = None,
    ) -> str:
        """StopInstances without HTTP (same rules, same errors as ApiError); the request id."""
        return stop_instances(
            self,
            instance_ids,
            region=region,
            stopped_mode=stopped_mode,
            stop_type=stop_type,
            now=self.now_epoch(now),
            request_id=request_id,
            required_tag=required_tag,
        )

    def start_instances(
        self,
        instance_ids: Sequence[str],
        *,
        region: str | None = None,
        now: Moment = None,
        request_id: str | None = None,
        required_tag: tuple[str, str] | None = None,
    ) -> str:
        """StartInstances without HTTP (same rules, same errors as ApiError); the request id."""
        return start_instances(
            self,
            instance_ids,
            region=region,
            now=self.now_epoch(now),
            request_id=request_id,
            required_tag=required_tag,
        )

    def state_at(self, instance_id: str, moment: Moment = None) -> str | None:
        """InstanceState at ``moment`` (the clock when None); None when it does not exist."""
        return self.fleet.get(instance_id).state_at(self.now_epoch(moment))

    def stop_charging_mode_at(self, instance_id: str, moment: Moment = None) -> str:
        """StopChargingMode at ``moment`` as DescribeInstances reports it."""
        return self.fleet.get(instance_id).stop_charging_mode_at(self.now_epoch(moment))

    def operations_of(self, instance_id: str) -> tuple[Transition, ...]:
        """Every transition the operations log holds for one instance, oldest first."""
        return self.operations.timeline(instance_id)

    # Metrics -----------------------------------------------------------------------------

    def metric_series(
        self,
        instance_id: str,
        metric: str,
        start: datetime | int,
        end: datetime | int,
        period: int = 60,
        now: Moment = None,
    ) -> Series:
        """Exactly the points GetMonitorData returns for this window at ``now``."""
        name = canonical_metric(metric)
        if name is None:
            raise KeyError(metric)
        published_until = self.now_epoch(now) - self.monitor.lag_seconds
        return self.metrics.series(
            self.fleet.get(instance_id),
            name,
            self.now_epoch(start),
            self.now_epoch(end),
            period,
            published_until,
        )

    def expected_point_count(
        self,
        instance_id: str,
        metric: str,
        start: datetime | int,
        end: datetime | int,
        period: int = 60,
        now: Moment = None,
    ) -> int:
        """Number of points GetMonitorData returns for one instance, metric and window."""
        return len(self.metric_series(instance_id, metric, start, end, period, now).timestamps)

    def expected_point_counts(
        self,
        start: datetime | int,
        end: datetime | int,
        period: int = 60,
        now: Moment = None,
        region: str | None = None,
    ) -> dict[str, int]:
        """Instance id -> points per metric in [start, end] for every instance, terminated ones
        included. All metrics of an instance share the same gaps, so one count serves them all.
        """
        return {
            inst.instance_id: self.expected_point_count(
                inst.instance_id, "GpuUtil", start, end, period, now
            )
            for inst in self.fleet.all_instances
            if region is None or inst.region == region
        }

    def expected_running_seconds(
        self, instance_id: str, start: datetime | int, end: datetime | int
    ) -> int:
        """Seconds the instance was RUNNING within [start, end)."""
        inst = self.fleet.get(instance_id)
        return sum(
            b - a for a, b in inst.running_intervals(self.now_epoch(start), self.now_epoch(end))
        )

    # Bills -------------------------------------------------------------------------------

    def current_month(self, now: Moment = None) -> str:
        """The Beijing bill month of ``now``."""
        return month_of(self.now_epoch(now))

    def bill_months(self, now: Moment = None) -> list[str]:
        """Every bill month with possible lines, oldest first."""
        return self.bills.bill_months(self.now_epoch(now))

    def expected_bill_total(self, instance_id: str, month: str, now: Moment = None) -> Decimal:
        """Exact sum (8 decimals) of one instance's RealCost strings in a bill month."""
        return self.bills.expected_bill_total(instance_id, month, self.now_epoch(now))

    def expected_totals_by_instance(self, month: str, now: Moment = None) -> dict[str, Decimal]:
        """Instance id -> exact bill total for a month."""
        return self.bills.expected_totals_by_instance(month, self.now_epoch(now))

    def expected_totals_by_project(
        self, month: str, now: Moment = None, tag_key: str = "project"
    ) -> dict[str | None, Decimal]:
        """Project tag value (None for untagged, i.e. "Unallocated") -> exact month total."""
        return self.bills.expected_totals_by_tag(month, self.now_epoch(now), tag_key)

    def expected_month_total(self, month: str, now: Moment = None) -> Decimal:
        """Exact total of every line of a bill month."""
        return self.bills.expected_month_total(month, self.now_epoch(now))

    def expected_hourly_price(
        self, instance_id: str, moment: Moment = None
    ) -> tuple[Decimal, Decimal]:
        """(runtime, keeps billing) yuan of a full running hour of a pay-as-you-go or spot
        instance at ``moment``, at the price paid: the sum of its runtime components'
        ContractPrice x UsedAmount (compute, GPU; the RI rate where a reserved instance covers
        the hour), and of the others (disks, bandwidth: billed also while stopped)."""
        hour = self.now_epoch(moment) // 3600 * 3600
        return self.bills.hourly_price(self.fleet.get(instance_id), hour)

    def expected_bill_line_count(self, month: str, now: Moment = None) -> int:
        """How many lines DescribeBillDetail pages through for a month."""
        return len(self.bills.lines(month, self.now_epoch(now)))

    def expected_balance_fen(self, now: Moment = None) -> int:
        """The cash balance DescribeAccountBalance reports, in fen."""
        return self.bills.balance_fen(self.now_epoch(now))

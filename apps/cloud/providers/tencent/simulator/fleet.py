"""The seeded GPU fleet: who exists, where, how it is charged, and when it runs.

The fleet's *structure* (36 roles: type, region, charge type, utilisation pattern, tags, special
life events) is fixed so that tests can rely on it; the seed picks instance ids, creation times
and the metric noise. All times hang off an ``anchor``: the UTC midnight of the day the
simulation started, so a server keeps one consistent history for its whole life.

Times inside the simulator are unix seconds (int); datetimes appear only at the edges.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

from .catalog import INSTANCE_TYPES, InstanceTypeSpec
from .constants import from_epoch, to_epoch
from .operations import NOT_APPLICABLE, STOPPED, Operations, Transition, intervals_where, merge

DAY = 86400
HOUR = 3600

POSTPAID = "POSTPAID_BY_HOUR"
PREPAID = "PREPAID"
SPOT = "SPOTPAID"

# Utilisation patterns (see DOMAIN.md "phase signatures").
TRAINING = "training"  # 30-90 % fluctuating, with 40-60 % evaluation stretches after training
DATA_BOUND = "data_bound"  # GPU < 20 %, CPU busy, GPU memory allocated
IDLE = "idle"  # GPU 0-5 %, CPU low
DAY_ONLY_STOPPED = "day_only_stopped"  # busy 09-19 Shanghai weekdays, stopped (STOP_CHARGING)
DAY_ONLY_IDLE = "day_only_idle"  # busy 09-19 Shanghai weekdays, running but idle otherwise
INFERENCE = "inference"  # steady around the clock with a mild daily wave
MEMORY_PRESSURE = "memory_pressure"  # GPU memory > 90 %
HOT = "hot"  # GPU temperature > 85 degC

PATTERNS = (
    TRAINING,
    DATA_BOUND,
    IDLE,
    DAY_ONLY_STOPPED,
    DAY_ONLY_IDLE,
    INFERENCE,
    MEMORY_PRESSURE,
    HOT,
)

# Life events.
NEW = "new"  # created about two days before the anchor
TERMINATED = "terminated"  # terminated about ten days before the anchor
KEEP_STOPPED = "keep_stopped"  # stopped five days before the anchor with KEEP_CHARGING

_V = "vision"
_N = "nlp"
_R = "recsys"
_A = "项目A"

# (zone, instance type, charge type, pattern, project tag, team tag, life event, name)
# A None tag means the key is absent; an instance with neither key is untagged.
_ROLES: tuple[tuple[str, str, str, str, str | None, str | None, str | None, str | None], ...] = (
    ("ap-guangzhou-3", "GN7.2XLARGE32", POSTPAID, TRAINING, _V, "research", None, None),
    ("ap-guangzhou-3", "GN7.2XLARGE32", POSTPAID, DATA_BOUND, _V, "research", None, None),
    ("ap-guangzhou-3", "GN7.5XLARGE80", POSTPAID, IDLE, _N, "research", KEEP_STOPPED, None),
    ("ap-guangzhou-3", "GN7.8XLARGE128", PREPAID, INFERENCE, _R, "inference", None, None),
    ("ap-guangzhou-4", "GN10Xp.2XLARGE40", POSTPAID, TRAINING, _N, "research", None, None),
    ("ap-guangzhou-4", "GN10Xp.5XLARGE80", POSTPAID, MEMORY_PRESSURE, _N, "research", None, None),
    ("ap-guangzhou-4", "GN10Xp.20XLARGE320", PREPAID, TRAINING, _N, "ml-platform", None, None),
    ("ap-guangzhou-4", "GT4.4XLARGE96", SPOT, TRAINING, _V, "research", None, None),
    ("ap-guangzhou-6", "GT4.8XLARGE192", POSTPAID, HOT, _A, "数据组", None, None),
    ("ap-guangzhou-6", "PNV4.7XLARGE116", POSTPAID, DAY_ONLY_STOPPED, _A, "数据组", None, None),
    ("ap-guangzhou-6", "PNV4.7XLARGE116", POSTPAID, DAY_ONLY_IDLE, _R, "inference", None, None),
    (
        "ap-guangzhou-3",
        "GI3X.8XLARGE64",
        PREPAID,
        INFERENCE,
        _R,
        "inference",
        None,
        "推理服务-gz-01",
    ),
    ("ap-guangzhou-3", "GI3X.8XLARGE64", POSTPAID, INFERENCE, _R, "inference", None, None),
    ("ap-guangzhou-4", "GN7.2XLARGE32", SPOT, DATA_BOUND, None, None, None, None),
    ("ap-guangzhou-4", "GN7.2XLARGE32", POSTPAID, IDLE, None, None, None, None),
    ("ap-guangzhou-6", "GN7.2XLARGE32", POSTPAID, TRAINING, _V, "research", NEW, None),
    ("ap-guangzhou-6", "GN10Xp.2XLARGE40", POSTPAID, TRAINING, _N, "research", TERMINATED, None),
    ("ap-guangzhou-6", "PNV4.14XLARGE232", POSTPAID, DAY_ONLY_STOPPED, _A, "数据组", None, None),
    ("ap-shanghai-2", "GN7.2XLARGE32", POSTPAID, INFERENCE, _R, "inference", None, None),
    ("ap-shanghai-2", "GN7.5XLARGE80", PREPAID, IDLE, _V, "research", None, None),
    ("ap-shanghai-2", "GN7.8XLARGE128", POSTPAID, DATA_BOUND, _N, "research", None, None),
    ("ap-shanghai-4", "GN10Xp.2XLARGE40", SPOT, TRAINING, _N, "research", None, None),
    ("ap-shanghai-4", "GN10Xp.5XLARGE80", POSTPAID, TRAINING, _V, "ml-platform", None, None),
    ("ap-shanghai-4", "GT4.4XLARGE96", POSTPAID, TRAINING, _A, "数据组", None, None),
    ("ap-shanghai-4", "GT4.4XLARGE96", PREPAID, MEMORY_PRESSURE, _A, "数据组", None, None),
    ("ap-shanghai-5", "GT4.41XLARGE948", POSTPAID, TRAINING, _N, "ml-platform", None, None),
    ("ap-shanghai-5", "PNV4.7XLARGE116", POSTPAID, DAY_ONLY_STOPPED, _R, "inference", None, None),
    ("ap-shanghai-5", "PNV4.7XLARGE116", POSTPAID, HOT, _V, "research", None, None),
    ("ap-shanghai-2", "GI3X.8XLARGE64", POSTPAID, INFERENCE, _R, "inference", None, None),
    ("ap-shanghai-2", "GI3X.22XLARGE236", PREPAID, INFERENCE, _R, "inference", None, None),
    ("ap-shanghai-5", "GI3X.8XLARGE64", POSTPAID, IDLE, None, None, None, None),
    ("ap-shanghai-5", "GN7.2XLARGE32", POSTPAID, DAY_ONLY_IDLE, None, "inference", None, None),
    ("ap-shanghai-4", "GN7.2XLARGE32", SPOT, DATA_BOUND, _V, "research", None, None),
    ("ap-shanghai-5", "GN10Xp.20XLARGE320", POSTPAID, DATA_BOUND, _N, "ml-platform", None, None),
    ("ap-shanghai-2", "GN7.5XLARGE80", POSTPAID, TRAINING, None, "research", None, None),
    ("ap-shanghai-4", "PNV4.14XLARGE232", POSTPAID, INFERENCE, _A, None, None, None),
)

_ID_ALPHABET = np.array(list("0123456789abcdefghijklmnopqrstuvwxyz"))

# Scenarios: optional extra instances. Each draws from its own random stream and is appended
# after the 36 roles, so the rest of the fleet (ids, times, metrics, bills) is the same with or
# without it.
#
# An idle pay-as-you-go instance that ran about three days and was terminated about five days
# before the anchor: an account connected after that never sees it in DescribeInstances, only
# in its bills (and Cloud Monitor, which keeps its metrics for ~30 days).
GONE_BEFORE_CONNECT = "gone_before_connect"
# Bills of a month keep changing after it ends: adjustment lines of the month are published on
# its 2nd and 5th day after (see BillBook). Adds no instance.
LATE_ADJUSTMENTS = "late_adjustments"
SCENARIOS = frozenset({GONE_BEFORE_CONNECT, LATE_ADJUSTMENTS})
_SCENARIO_ROLES = {
    GONE_BEFORE_CONNECT: (
        "ap-guangzhou-3", "GN7.2XLARGE32", POSTPAID, IDLE, _V, "research", TERMINATED,
        "gn7-idle-gone",
    ),
}  # fmt: skip


@dataclass(frozen=True)
class Instance:
    """One simulated CVM instance and its whole life (times are unix seconds)."""

    index: int
    instance_id: str
    name: str
    region: str
    zone: str
    spec: InstanceTypeSpec
    charge_type: str
    pattern: str
    tags: tuple[tuple[str, str], ...]
    created_at: int
    terminated_at: int | None = None
    # KEEP_CHARGING stop that is never undone: compute keeps being billed, no metrics.
    stopped_at: int | None = None
    uuid: str = ""
    private_ip: str = ""
    extra: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    # The world's operations log (StopInstances/StartInstances), shared by the whole fleet:
    # from an instance's first operation on, its timeline there overrides the seeded pattern.
    operations: Operations | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def day_only(self) -> bool:
        """Runs only 09:00-19:00 Asia/Shanghai on weekdays; stopped with STOP_CHARGING otherwise."""
        return self.pattern == DAY_ONLY_STOPPED

    @property
    def end_of_life(self) -> float:
        """Termination time, or +inf for a live instance."""
        return float("inf") if self.terminated_at is None else self.terminated_at

    def tag(self, key: str) -> str | None:
        """Value of a tag key, None if absent."""
        return dict(self.tags).get(key)

    def exists_at(self, moment: int) -> bool:
        """Whether the instance exists (created, not yet terminated) at a moment."""
        return self.created_at <= moment < self.end_of_life

    def _seeded_running_intervals(self, start: int, end: int) -> list[tuple[int, int]]:
        """Half-open [a, b) intervals inside [start, end) during which the instance runs."""
        lo = max(start, self.created_at)
        hi = int(min(end, self.end_of_life, self.stopped_at or float("inf")))
        if lo >= hi:
            return []
        if not self.day_only:
            return [(lo, hi)]
        intervals = []
        # 09:00-19:00 Beijing is 01:00-11:00 UTC on the same calendar date, so the UTC weekday
        # is the Shanghai weekday too. 1970-01-01 was a Thursday (weekday 3).
        for day in range(lo // DAY, (hi - 1) // DAY + 1):
            if (day + 3) % 7 >= 5:
                continue
            a = max(lo, day * DAY + 1 * HOUR)
            b = min(hi, day * DAY + 11 * HOUR)
            if a < b:
                intervals.append((a, b))
        return intervals

    def _seeded_compute_billed_intervals(self, start: int, end: int) -> list[tuple[int, int]]:
        """Intervals during which compute is charged: running, or stopped with KEEP_CHARGING."""
        if self.stopped_at is None:
            return self._seeded_running_intervals(start, end)
        lo = max(start, self.created_at)
        hi = int(min(end, self.end_of_life))
        return [(lo, hi)] if lo < hi else []

    def _timeline(self) -> tuple[Transition, ...]:
        return () if self.operations is None else self.operations.timeline(self.instance_id)

    def _with_timeline(
        self,
        seeded: list[tuple[int, int]],
        timeline: tuple[Transition, ...],
        start: int,
        end: int,
        keep: Callable[[Transition], bool],
    ) -> list[tuple[int, int]]:
        lo = max(start, timeline[0].at, self.created_at)
        hi = int(min(end, self.end_of_life))
        return merge(seeded + intervals_where(timeline, lo, hi, keep))

    def running_intervals(self, start: int, end: int) -> list[tuple[int, int]]:
        """Half-open [a, b) intervals inside [start, end) during which the instance runs (and
        reports metrics). After an operation: every state but STOPPED (operations.py)."""
        timeline = self._timeline()
        if not timeline:
            return self._seeded_running_intervals(start, end)
        seeded = self._seeded_running_intervals(start, min(end, timeline[0].at))
        return self._with_timeline(seeded, timeline, start, end, lambda t: t.powered)

    def compute_billed_intervals(self, start: int, end: int) -> list[tuple[int, int]]:
        """Intervals during which compute is charged: running, or stopped with KEEP_CHARGING."""
        timeline = self._timeline()
        if not timeline:
            return self._seeded_compute_billed_intervals(start, end)
        seeded = self._seeded_compute_billed_intervals(start, min(end, timeline[0].at))
        return self._with_timeline(seeded, timeline, start, end, lambda t: t.runtime_billed)

    def latest_transition(self, moment: int) -> Transition | None:
        """The operation transition in force at ``moment``; None before any operation."""
        return None if self.operations is None else self.operations.latest(self.instance_id, moment)

    def existence_interval(self, start: int, end: int) -> tuple[int, int] | None:
        """The part of [start, end) during which the instance exists (its disk is billed)."""
        lo = max(start, self.created_at)
        hi = int(min(end, self.end_of_life))
        return (lo, hi) if lo < hi else None

    def is_running(self, moment: int) -> bool:
        """Whether the instance is RUNNING at a moment."""
        return bool(self.running_intervals(moment, moment + 1))

    def state_at(self, moment: int) -> str | None:
        """InstanceState at a moment, None when the instance does not exist then."""
        if not self.exists_at(moment):
            return None
        latest = self.latest_transition(moment)
        if latest is not None:
            return latest.state
        return "RUNNING" if self.is_running(moment) else "STOPPED"

    def stop_charging_mode_at(self, moment: int) -> str:
        """StopChargingMode as DescribeInstances reports it."""
        if self.state_at(moment) != STOPPED:
            return NOT_APPLICABLE
        latest = self.latest_transition(moment)
        if latest is not None:
            return latest.stopped_mode
        return "STOP_CHARGING" if self.day_only else "KEEP_CHARGING"

    def subscription_starts(self, until: float) -> list[int]:
        """Purchase and monthly renewal times of a PREPAID instance before ``until``."""
        if self.charge_type != PREPAID:
            return []
        starts: list[int] = []
        k = 0
        while True:
            moment = add_months(self.created_at, k)
            if moment >= min(until, self.end_of_life):
                return starts
            starts.append(moment)
            k += 1


def add_months(seconds: int, months: int) -> int:
    """Same wall-clock time ``months`` later (UTC), clamping the day to the month's length."""
    moment = from_epoch(seconds)
    total = moment.month - 1 + months
    year, month = moment.year + total // 12, total % 12 + 1
    next_first = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    day = min(moment.day, (next_first - timedelta(days=1)).day)
    return to_epoch(moment.replace(year=year, month=month, day=day))


def day_anchor(moment: datetime) -> int:
    """UTC midnight at or before a moment, as unix seconds."""
    return to_epoch(moment) // DAY * DAY


class Fleet:
    """The deterministic fleet for one seed and anchor."""

    def __init__(self, seed: int, anchor: int, scenarios: Collection[str] = ()) -> None:
        unknown = set(scenarios) - SCENARIOS
        if unknown:
            raise ValueError(f"unknown simulator scenario(s): {', '.join(sorted(unknown))}")
        self.seed = seed
        self.anchor = anchor
        self.operations = Operations()
        self.scenarios = frozenset(scenarios)
        rng = np.random.default_rng([seed, 7919])
        used: set[str] = set()
        instances = []
        roles = [(role, rng) for role in _ROLES] + [
            (_SCENARIO_ROLES[name], np.random.default_rng([seed, 7919, number]))
            for number, name in enumerate(sorted(self.scenarios & set(_SCENARIO_ROLES)), start=1)
        ]
        for index, (role, rng) in enumerate(roles):
            zone, type_name, charge, pattern, project, team, event, name = role
            while True:
                instance_id = "ins-" + "".join(rng.choice(_ID_ALPHABET, 8))
                if instance_id not in used:
                    used.add(instance_id)
                    break
            created = anchor - int(rng.integers(36, 75)) * DAY + int(rng.integers(0, DAY))
            terminated = stopped = None
            if event == NEW:
                created = anchor - 2 * DAY + int(rng.integers(2 * HOUR, 6 * HOUR))
            elif event == TERMINATED and index >= len(_ROLES):
                created = anchor - 8 * DAY + int(rng.integers(2 * HOUR, 6 * HOUR))
                terminated = anchor - 5 * DAY + int(rng.integers(2 * HOUR, 10 * HOUR))
            elif event == TERMINATED:
                terminated = anchor - 10 * DAY + int(rng.integers(2 * HOUR, 10 * HOUR))
            elif event == KEEP_STOPPED:
                stopped = anchor - 5 * DAY + int(rng.integers(2 * HOUR, 10 * HOUR))
            tags = tuple((k, v) for k, v in (("project", project), ("team", team)) if v)
            region = zone.rsplit("-", 1)[0]
            instances.append(
                Instance(
                    index=index,
                    instance_id=instance_id,
                    name=name
                    or f"{type_name.split('.')[0].lower()}-{pattern.replace('_', '-')}-{index:02d}",
                    region=region,
                    zone=zone,
                    spec=INSTANCE_TYPES[type_name],
                    charge_type=charge,
                    pattern=pattern,
                    tags=tags,
                    created_at=created,
                    terminated_at=terminated,
                    stopped_at=stopped,
                    uuid=str(uuid.UUID(bytes=rng.bytes(16), version=4)),
                    private_ip=f"10.{1 + index // 200}.{index % 200}.{int(rng.integers(2, 250))}",
                    operations=self.operations,
                )
            )
        self.all_instances: list[Instance] = instances
        self.by_id: dict[str, Instance] = {inst.instance_id: inst for inst in instances}
        self.regions: tuple[str, ...] = tuple(sorted({inst.region for inst in instances}))

    def instances(self, now: datetime | int, region: str | None = None) -> list[Instance]:
        """Instances DescribeInstances lists at ``now`` (created, not terminated), fleet order."""
        moment = now if isinstance(now, int) else to_epoch(now)
        return [
            inst
            for inst in self.all_instances
            if inst.exists_at(moment) and (region is None or inst.region == region)
        ]

    def get(self, instance_id: str) -> Instance:
        """The instance with this id, terminated ones included; KeyError if unknown."""
        return self.by_id[instance_id]

    def with_pattern(self, pattern: str) -> list[Instance]:
        """All instances (terminated ones included) with one utilisation pattern."""
        return [inst for inst in self.all_instances if inst.pattern == pattern]

    def find(self, **criteria: object) -> list[Instance]:
        """Instances whose attributes equal all given values, e.g. ``find(charge_type=SPOT)``."""
        return [
            inst
            for inst in self.all_instances
            if all(getattr(inst, key) == value for key, value in criteria.items())
        ]

    def project_of(self, instance_id: str, tag_key: str = "project") -> str | None:
        """The project tag value of an instance (None when untagged)."""
        return self.by_id[instance_id].tag(tag_key)

    def __iter__(self) -> Iterator[Instance]:
        return iter(self.all_instances)

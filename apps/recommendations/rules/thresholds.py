"""Every threshold of every rule, in one overridable dataclass.

An organization overrides single keys (stored as JSON in ``RecommendationSettings``);
``with_overrides`` refuses unknown keys, wrong types and contradictions, naming the key.
``describe_thresholds`` lists every threshold with its rule, type, default and override, so a
settings page renders them without knowing them; their labels and help sentences are words,
rendered per language at the edge (``apps.recommendations.wording``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

#: The rules that have their own lookback (``<rule>_lookback_days``); "subscription" covers
#: both commitments (monthly subscription and the reserved-instance voucher).
LOOKBACK_RULES: tuple[str, ...] = (
    "idle",
    "schedule",
    "downshift",
    "subscription",
    "spot",
    "downsize",
    "upsize",
    "pipeline",
    "thermal",
)


class ThresholdError(ValueError):
    """A threshold refused, with its name apart so an API can put the reason beside the field."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason


#: Thresholds that are shares of something (0 to 1); every other number is at least 0.
SHARE_THRESHOLDS: tuple[str, ...] = (
    "idle_min_share",
    "schedule_min_coverage",
    "schedule_stopped_coverage_max",
    "upsize_min_share",
    "pipeline_min_share",
    "thermal_min_share",
)
#: Every lookback, the general one and a rule's own, is this many days (inclusive).
LOOKBACK_DAYS_RANGE = (1, 93)


@dataclasses.dataclass(frozen=True)
class RuleThresholds:
    # How far a rule looks back, unless its own ``<rule>_lookback_days`` says otherwise;
    # minimum evidence is counted in observed days within the rule's lookback.
    lookback_days: int = 14
    days_per_month: int = 30

    # Each rule's lookback in days; None: ``lookback_days``. (A rule with another lookback
    # than the rest costs one more read of the fleet's evidence over that span.)
    idle_lookback_days: int | None = None
    schedule_lookback_days: int | None = None
    downshift_lookback_days: int | None = None
    subscription_lookback_days: int | None = None
    spot_lookback_days: int | None = None
    downsize_lookback_days: int | None = None
    upsize_lookback_days: int | None = None
    pipeline_lookback_days: int | None = None
    thermal_lookback_days: int | None = None

    # Stop idle: an hour is idle when its p95 GPU utilization is at most this.
    idle_gpu_util_p95_max_pct: float = 5.0
    # Share of observed hours that must be idle for "idle around the clock".
    idle_min_share: float = 0.95
    idle_min_evidence_days: float = 3.0
    # An idle hour holding at least this much GPU memory is "idle-held" (notebook, hung job).
    idle_held_gpu_mem_min_pct: float = 10.0

    # Day/night schedule: an hour-of-week cell is "off" when observed at least this share of
    # the time with p95 under the threshold, or (stopped) observed at most the stopped share.
    schedule_p95_max_pct: float = 15.0
    schedule_min_coverage: float = 0.5
    schedule_stopped_coverage_max: float = 0.05
    schedule_min_run_hours: int = 6
    schedule_min_evidence_days: float = 10.0

    # Night downshift: night p95 between the idle and this level, on a multi-card type.
    downshift_p95_max_pct: float = 30.0
    downshift_min_run_hours: int = 6
    # The smaller type must run the night load at most this hot.
    downshift_target_load_max_pct: float = 70.0

    # Subscription: the instance must be up this much more than the break-even uptime.
    subscription_min_evidence_days: float = 7.0
    subscription_uptime_margin: float = 0.05

    # Spot only for work marked interruption-tolerant (tag key=value, case-insensitive).
    spot_tags: tuple[str, ...] = (
        "interruptible=true",
        "workload=hpo",
        "workload=hyperparameter-search",
        "checkpointed=true",
    )
    spot_min_evidence_days: float = 3.0

    # Downsize: p95 utilization and peak memory both low over the lookback.
    downsize_gpu_util_p95_max_pct: float = 30.0
    downsize_gpu_mem_peak_max_pct: float = 50.0
    downsize_target_load_max_pct: float = 70.0
    downsize_min_evidence_days: float = 7.0

    # Upsize: GPU memory over this in at least the share of observed hours, utilization high.
    upsize_gpu_mem_min_pct: float = 90.0
    upsize_min_share: float = 0.5
    upsize_gpu_util_min_pct: float = 50.0
    upsize_min_evidence_days: float = 3.0

    # Fix the data pipeline: data-bound share of the analysed running minutes.
    pipeline_min_share: float = 0.3
    pipeline_min_evidence_days: float = 3.0

    # Thermal: hours with a p95 GPU temperature above this, as a share of observed hours.
    thermal_temp_min_c: float = 85.0
    thermal_min_share: float = 0.25
    thermal_min_evidence_days: float = 1.0

    # Automation (apps.automation) never stops a busy instance: one whose GPU utilization or
    # GPU memory used, averaged over its last 15 minutes, is above these.
    automation_busy_gpu_util_pct: float = 20.0
    automation_busy_gpu_mem_pct: float = 10.0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
                raise ThresholdError(field.name, "must not be negative")
        for name in SHARE_THRESHOLDS:
            if getattr(self, name) > 1:
                raise ThresholdError(name, "is a share, at most 1")
        low, high = LOOKBACK_DAYS_RANGE
        if not low <= self.lookback_days <= high:
            raise ThresholdError("lookback_days", f"between {low} and {high}")
        for rule in LOOKBACK_RULES:
            own = getattr(self, f"{rule}_lookback_days")
            if own is not None and not low <= own <= high:
                raise ThresholdError(f"{rule}_lookback_days", f"between {low} and {high}")
        if self.idle_gpu_util_p95_max_pct >= self.schedule_p95_max_pct:
            raise ThresholdError("idle_gpu_util_p95_max_pct", "must be under schedule_p95_max_pct")
        if self.schedule_stopped_coverage_max >= self.schedule_min_coverage:
            raise ThresholdError(
                "schedule_stopped_coverage_max", "must be under schedule_min_coverage"
            )

    def with_overrides(self, overrides: Mapping[str, Any]) -> RuleThresholds:
        """These thresholds with some keys replaced; ThresholdError naming a bad key."""
        fields = {field.name: field for field in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in fields:
                raise ThresholdError(key, "unknown threshold")
            current = getattr(self, key)
            if key.endswith("lookback_days"):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ThresholdError(key, "expected an integer")
                changes[key] = value
            elif isinstance(current, tuple):
                if not isinstance(value, (list, tuple)) or not all(
                    isinstance(item, str) for item in value
                ):
                    raise ThresholdError(key, "expected a list of strings")
                changes[key] = tuple(value)
            elif isinstance(current, int) and not isinstance(current, bool):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ThresholdError(key, "expected an integer")
                changes[key] = value
            else:
                # JSON parses 1e400 as infinity, which a JSON column cannot store.
                if (
                    isinstance(value, bool)
                    or not isinstance(value, (int, float))
                    or not math.isfinite(value)
                ):
                    raise ThresholdError(key, "expected a number")
                changes[key] = float(value)
        return dataclasses.replace(self, **changes)

    def lookback_for(self, rule: str) -> int:
        """The lookback of one of ``LOOKBACK_RULES``, in days."""
        own: int | None = getattr(self, f"{rule}_lookback_days")
        return self.lookback_days if own is None else own

    def lookbacks(self) -> list[int]:
        """The distinct lookbacks the rules use (one read of the evidence each)."""
        return sorted({self.lookback_for(rule) for rule in LOOKBACK_RULES})


DEFAULT_RULE_THRESHOLDS = RuleThresholds()

#: One plain sentence per threshold: what it means, in the words of the comments above. The
#: settings page and the API show it beside the field; a test keeps it in step with the fields.
#: The groups of the settings page: each rule, and "general" for what all of them share.
THRESHOLD_RULES: tuple[str, ...] = ("general", *LOOKBACK_RULES)

#: A field's annotation (a string, under ``from __future__ import annotations``) -> its type as
#: the API names it.
_TYPES = {"int": "int", "float": "float", "int | None": "nullable_int", "tuple[str, ...]": "tags"}
THRESHOLD_TYPES: tuple[str, ...] = tuple(_TYPES.values())


@dataclasses.dataclass(frozen=True)
class ThresholdLimit:
    """The values one threshold may take on its own, as ``RuleThresholds`` checks them (the
    API's schema states them): its type (one of THRESHOLD_TYPES) and, for a number, the bounds
    (inclusive; None: none). How thresholds must agree with each other is not in it."""

    type: str
    low: float | None
    high: float | None


def threshold_limit(name: str) -> ThresholdLimit:
    field = next(field for field in dataclasses.fields(RuleThresholds) if field.name == name)
    kind = _TYPES[str(field.type)]
    if kind == "tags":
        return ThresholdLimit(kind, None, None)
    if name.endswith("lookback_days"):
        return ThresholdLimit(kind, *LOOKBACK_DAYS_RANGE)
    return ThresholdLimit(kind, 0, 1 if name in SHARE_THRESHOLDS else None)


@dataclasses.dataclass(frozen=True)
class ThresholdDescription:
    """One threshold as a settings form shows it; ``value`` is the override (None: none)."""

    name: str
    rule: str
    type: str
    default: Any
    value: Any


def describe_thresholds(overrides: Mapping[str, Any]) -> list[ThresholdDescription]:
    """Every field of ``RuleThresholds`` in declaration order, with ``overrides``' value if any.

    The rule is the name's first word when it is one of ``LOOKBACK_RULES``, else "general";
    tuples are given as lists, as JSON has them.
    """

    def plain(value: Any) -> Any:
        return list(value) if isinstance(value, tuple) else value

    out = []
    for field in dataclasses.fields(RuleThresholds):
        prefix = field.name.split("_", 1)[0]
        out.append(
            ThresholdDescription(
                name=field.name,
                rule=prefix if prefix in LOOKBACK_RULES else "general",
                type=_TYPES[str(field.type)],
                default=plain(getattr(DEFAULT_RULE_THRESHOLDS, field.name)),
                value=plain(overrides.get(field.name)),
            )
        )
    return out

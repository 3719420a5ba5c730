"""GPU Ledger's recommendation rules: PURE (no Django, no I/O, no clock).

Engine outputs, hourly metric summaries, bills and the price catalog of one instance come in as
an :class:`InstanceEvidence`; priced :class:`Finding` objects come out. One module per kind;
every threshold is in :class:`RuleThresholds`. :func:`evaluate` applies them all in the order
that keeps findings from contradicting each other: an instance idle around the clock gets
"stop idle" and nothing about schedules, sizes or commitments.
"""

from __future__ import annotations

from collections.abc import Mapping

from .commitment import RESERVED_INSTANCE, SUBSCRIPTION, commitment
from .downshift import DOWNSHIFT, night_downshift
from .idle import IDLE_HELD, STOP_IDLE, stop_idle
from .operations import PIPELINE, SPOT, THERMAL, data_pipeline, spot, thermal
from .schedule import SCHEDULE, schedule
from .sizing import DOWNSIZE, UPSIZE, downsize, upsize
from .thresholds import (
    DEFAULT_RULE_THRESHOLDS,
    LOOKBACK_RULES,
    THRESHOLD_RULES,
    THRESHOLD_TYPES,
    RuleThresholds,
    ThresholdDescription,
    ThresholdError,
    describe_thresholds,
)
from .throughput import BERT_BASE_SAMPLES_PER_S, samples_per_second
from .types import (
    PRICE_FROM_BILLS,
    PRICE_FROM_CATALOG,
    Confidence,
    Finding,
    InstanceEvidence,
    Profile,
    ReservedPrice,
    Risk,
    Saving,
    TypeOffer,
)

KINDS: tuple[tuple[str, str], ...] = (
    (STOP_IDLE, "Stop idle"),
    (IDLE_HELD, "Idle, GPU memory held"),
    (SCHEDULE, "Day/night schedule"),
    (DOWNSHIFT, "Night downshift"),
    (SUBSCRIPTION, "Switch to monthly subscription"),
    (RESERVED_INSTANCE, "Reserved-instance voucher"),
    (SPOT, "Move to spot"),
    (DOWNSIZE, "Downsize"),
    (UPSIZE, "Upsize (memory pressure)"),
    (PIPELINE, "Fix the data pipeline"),
    (THERMAL, "Thermal alert"),
)


def evaluate(
    evidence: InstanceEvidence,
    thresholds: RuleThresholds = DEFAULT_RULE_THRESHOLDS,
    windows: Mapping[int, InstanceEvidence] | None = None,
) -> list[Finding]:
    """Every finding for one instance, in ``KINDS`` order.

    ``evidence`` spans ``thresholds.lookback_days``; ``windows`` holds the same instance's
    evidence over the other lookbacks its rules use (days -> evidence), each rule reading the
    one of its own lookback.
    """
    spans = {**(windows or {}), thresholds.lookback_days: evidence}

    def over(rule: str) -> InstanceEvidence:
        days = thresholds.lookback_for(rule)
        if days not in spans:
            raise ValueError(f"{rule}_lookback_days: no evidence over {days} days given")
        return spans[days]

    idle = stop_idle(over("idle"), thresholds)
    hot = thermal(over("thermal"), thresholds)
    if idle:
        # Idle around the clock: stopping it makes schedules, sizes and commitments moot.
        return idle + hot
    out = schedule(over("schedule"), thresholds)
    saving_schedule = any(f.saving.monthly_amount > 0 for f in out)
    if not out:
        out += night_downshift(over("downshift"), thresholds)
    if not saving_schedule:
        # A schedule changes the uptime a commitment is priced on: it comes first.
        out += commitment(over("subscription"), thresholds)
    out += spot(over("spot"), thresholds)
    out += downsize(over("downsize"), thresholds)
    out += upsize(over("upsize"), thresholds)
    out += data_pipeline(over("pipeline"), thresholds)
    out += hot
    return out


__all__ = [
    "BERT_BASE_SAMPLES_PER_S",
    "DEFAULT_RULE_THRESHOLDS",
    "KINDS",
    "LOOKBACK_RULES",
    "PRICE_FROM_BILLS",
    "PRICE_FROM_CATALOG",
    "THRESHOLD_RULES",
    "THRESHOLD_TYPES",
    "Confidence",
    "Finding",
    "InstanceEvidence",
    "Profile",
    "ReservedPrice",
    "Risk",
    "RuleThresholds",
    "Saving",
    "ThresholdDescription",
    "ThresholdError",
    "TypeOffer",
    "describe_thresholds",
    "evaluate",
    "samples_per_second",
]

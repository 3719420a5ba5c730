"""GPU Ledger's recommendation rules: PURE (no Django, no I/O, no clock).

Engine outputs, hourly metric summaries, bills and the price catalog of one instance come in as
an :class:`InstanceEvidence`; priced :class:`Finding` objects come out. One module per kind;
every threshold is in :class:`RuleThresholds`. :func:`evaluate` applies them all in the order
that keeps findings from contradicting each other: an instance idle around the clock gets
"stop idle" and nothing about schedules, sizes or commitments. :func:`evaluate_groups` then weighs
a project's alike instances together (fewer of them at night), over the whole fleet's findings.
:func:`billable_only` then drops what the bill cannot show (stopping an instance that is
already stopped without charges), and :func:`plan_instances` last splits each instance's
findings into its plan (priced in sequence, never more than it costs) and alternatives.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from .commitment import RESERVED_INSTANCE, SUBSCRIPTION, commitment
from .common import stopped_for_good, stopped_unbilled
from .downshift import DOWNSHIFT, night_downshift
from .fewer import FEWER_INSTANCES, fewer_at_night, group_key
from .idle import IDLE_HELD, STOP_IDLE, stop_idle, stopped_subscription
from .operations import PIPELINE, SPOT, THERMAL, data_pipeline, spot, thermal
from .plans import ALTERNATIVE, PLAN, ROLES, plan_instances
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
    BilledComponent,
    Confidence,
    Finding,
    InstanceEvidence,
    PaidWhileWaiting,
    Profile,
    ReservedPrice,
    Risk,
    Saving,
    Text,
    TypeOffer,
    UpsizeFigures,
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

    idle = stop_idle(over("idle"), thresholds) or stopped_subscription(over("idle"), thresholds)
    hot = thermal(over("thermal"), thresholds)
    if idle:
        # Idle around the clock: stopping it makes schedules, sizes and commitments moot.
        return idle + hot
    out = schedule(over("schedule"), thresholds)
    saving_schedule = any(f.saving is not None and f.saving.monthly_amount > 0 for f in out)
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


def evaluate_groups(
    fleet: Sequence[InstanceEvidence],
    findings: Sequence[Finding],
    thresholds: RuleThresholds = DEFAULT_RULE_THRESHOLDS,
) -> list[Finding]:
    """``findings`` (every instance's, from :func:`evaluate`) with the project-level ones added.

    ``fleet`` is the evidence over the downshift lookback. Instances of one project, region and
    type are weighed together for fewer of them at night, leaving out those already told to stop
    (idle) or to follow a schedule. Where a group gets that finding it comes first, as a
    schedule does in :func:`evaluate`: its instances' own night downshifts (sized on the load
    each carries today, not on the night load they will share) and the commitments of the ones
    it stops (priced on an uptime it changes) are dropped.
    """
    stopping = {STOP_IDLE, IDLE_HELD, SCHEDULE}
    taken = {f.instance_id for f in findings if f.kind in stopping and f.instance_id is not None}
    groups: dict[tuple[int, str, str], list[InstanceEvidence]] = defaultdict(list)
    for ev in fleet:
        key = group_key(ev)
        if key is not None and ev.instance_id not in taken:
            groups[key].append(ev)
    added: list[Finding] = []
    replaced: set[int] = set()
    stopped: set[int] = set()
    for key in sorted(groups):
        members = groups[key]
        if len(members) < 2:
            continue
        for finding in fewer_at_night(members, thresholds):
            ids = {ev.provider_id: ev.instance_id for ev in members}
            stop = {ids[pid] for pid in finding.action["stop_instances"]}
            replaced |= stop | {ids[pid] for pid in finding.action["keep_instances"]}
            stopped |= stop
            added.append(finding)
    commitments = {SUBSCRIPTION, RESERVED_INSTANCE}
    kept = [
        f
        for f in findings
        if not (f.kind == DOWNSHIFT and f.instance_id in replaced)
        and not (f.kind in commitments and f.instance_id in stopped)
    ]
    return kept + added


#: Kinds whose saving is stopping the instance's runtime billing now.
_STOPPING = frozenset({STOP_IDLE, IDLE_HELD})


def billable_only(fleet: Sequence[InstanceEvidence], findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` less the stop and schedule findings of instances the bill cannot change:
    pay-as-you-go ones stopped with STOP_CHARGING (they bill no runtime now, so there is no
    stop saving to promise; a row already stored for one is resolved by the run, as any
    finding that is no longer found), and their schedules once they are stopped for good
    (``stopped_for_good``: not a day-only instance read during its night off).

    Applied after :func:`evaluate` and :func:`evaluate_groups`, not inside them: the other
    findings, and which instances a schedule keeps out of a group, stay as they were.
    """
    unbilled = {ev.instance_id for ev in fleet if stopped_unbilled(ev)}
    for_good = {ev.instance_id for ev in fleet if stopped_for_good(ev)}
    return [
        f
        for f in findings
        if not (f.kind in _STOPPING and f.instance_id in unbilled)
        and not (f.kind == SCHEDULE and f.instance_id in for_good)
    ]


__all__ = [
    "ALTERNATIVE",
    "BERT_BASE_SAMPLES_PER_S",
    "DEFAULT_RULE_THRESHOLDS",
    "FEWER_INSTANCES",
    "KINDS",
    "LOOKBACK_RULES",
    "PLAN",
    "PRICE_FROM_BILLS",
    "PRICE_FROM_CATALOG",
    "ROLES",
    "THRESHOLD_RULES",
    "THRESHOLD_TYPES",
    "BilledComponent",
    "Confidence",
    "Finding",
    "InstanceEvidence",
    "PaidWhileWaiting",
    "Profile",
    "ReservedPrice",
    "Risk",
    "RuleThresholds",
    "Saving",
    "Text",
    "ThresholdDescription",
    "ThresholdError",
    "TypeOffer",
    "UpsizeFigures",
    "billable_only",
    "describe_thresholds",
    "evaluate",
    "evaluate_groups",
    "fewer_at_night",
    "plan_instances",
    "samples_per_second",
]

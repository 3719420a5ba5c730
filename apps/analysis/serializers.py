"""Input validation and output shapes of the analysis endpoints.

Query parameters go through strict serializers like bodies do, so a typo (``?strat=``) or a bad
date is a 400 naming the parameter, never a silently ignored filter. Money is a decimal string
(two places) with the currency beside it.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.utils.dateparse import parse_date, parse_datetime
from rest_framework import serializers

from apps.analysis.engine import Evidence, Phase, missing_metrics, unseparated_phases
from apps.analysis.engine.thresholds import THRESHOLD_NAMES, threshold_bound
from apps.analysis.fleet_waste import FleetWaste
from apps.analysis.models import phase_key
from apps.analysis.no_data import REASON_CHOICES, REASONS, NoDataReason
from apps.analysis.pricing import PhaseFigures
from apps.analysis.selectors import MergedSegment
from apps.api.serializers import StrictSerializer
from apps.billing.selectors import UnallocatedReason
from apps.core.timegrid import floor_hour, floor_minute


def parse_moment(value: str, tz: str, *, field: str) -> dt.datetime:
    """An ISO 8601 date (local midnight in ``tz``) or datetime (naive = ``tz``) as aware UTC."""
    text = value.strip()
    moment: dt.datetime | None
    try:
        moment = parse_datetime(text)
        if moment is None:
            day = parse_date(text)
            moment = dt.datetime(day.year, day.month, day.day) if day else None
    except ValueError:
        moment = None
    if moment is None:
        raise serializers.ValidationError(
            {
                field: [
                    "Expected an ISO 8601 date or date-time, e.g. 2026-11-01 or 2026-11-01T08:00Z."
                ]
            }
        )
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo(tz))
    return floor_minute(moment.astimezone(dt.UTC))


class PeriodQuerySerializer(StrictSerializer):
    """``?start=&end=``: defaults to the ``default_days`` before the current hour."""

    start = serializers.CharField(required=False)
    end = serializers.CharField(required=False)

    def __init__(self, *args: Any, tz: str, now: dt.datetime, default_days: int, max_days: int,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(*args, **kwargs)
        self.tz, self.now = tz, now
        self.default_days, self.max_days = default_days, max_days

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        end = (
            parse_moment(attrs["end"], self.tz, field="end")
            if "end" in attrs
            else floor_hour(self.now)
        )
        start = (
            parse_moment(attrs["start"], self.tz, field="start")
            if "start" in attrs
            else end - dt.timedelta(days=self.default_days)
        )
        if end <= start:
            raise serializers.ValidationError({"end": ["Must be after start."]})
        if end - start > dt.timedelta(days=self.max_days):
            raise serializers.ValidationError(
                {"start": [f"The period may be at most {self.max_days} days."]}
            )
        return {**attrs, "start": start, "end": end}


class SummaryQuerySerializer(PeriodQuerySerializer):
    group_by = serializers.ChoiceField(choices=["fleet", "project"], required=False)


def _thresholds_schema() -> dict[str, Any]:
    """What ``PhaseThresholds.with_overrides`` takes, key by key; whether the overrides agree
    with each other (a minimum below its maximum, ...) no schema can say."""
    properties: dict[str, Any] = {}
    for name in THRESHOLD_NAMES:
        bound = threshold_bound(name)
        schema: dict[str, Any] = {
            "type": "integer" if bound.whole else "number",
            "minimum": bound.low,
            "nullable": True,
        }
        if bound.low_excluded:
            schema["exclusiveMinimum"] = True
        if bound.high is not None:
            schema["maximum"] = bound.high
        properties[name] = schema
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "description": "Threshold name -> its override; null drops the override (back to "
        "the default). The overrides merged with the stored ones must agree with each other.",
    }


class ThresholdsField(serializers.DictField):
    """A JSON object of threshold name -> number (or null to drop an override)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.JSONField(allow_null=True), **kwargs)

    def request_schema(self) -> dict[str, Any]:
        # Requests only: a stored override of an older release may be outside today's bounds.
        return _thresholds_schema()


class AnalysisSettingsSerializer(StrictSerializer):
    """``thresholds``: the overrides (PATCH merges; null drops one); the rest is read-only."""

    thresholds = ThresholdsField()
    effective = serializers.DictField(
        child=serializers.FloatField(),
        read_only=True,
        help_text="Threshold name -> the value in force (the override, else the default).",
    )
    defaults = serializers.DictField(
        child=serializers.FloatField(), read_only=True, help_text="Threshold name -> default."
    )
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True)


def money(amount: Decimal | None) -> str | None:
    return None if amount is None else f"{amount:.2f}"


def phase_figures_json(
    by_phase: dict[Phase, PhaseFigures], *, priced: bool
) -> dict[str, dict[str, Any]]:
    return {
        phase_key(phase): {
            "minutes": figures.minutes,
            "gpu_hours": str(figures.gpu_hours),
            "cost": money(figures.cost) if priced else None,
        }
        for phase, figures in sorted(by_phase.items())
    }


def waste_totals_json(fleet: FleetWaste, currency: str) -> dict[str, Any]:
    """Sum of several instances' figures: per phase, total, idle and data-bound money.

    Money of unpriced instances is left out of the sums (and counted in ``cost_sources``).
    """
    by_phase = fleet.phase_sums()
    sources: dict[str, int] = {"bills": 0, "list_price": 0, "unpriced": 0}
    for source in fleet.cost_sources:
        sources[source] += 1
    return {
        "instance_count": len(fleet),
        "currency": currency,
        "gpu_hours": str(sum((f.gpu_hours for f in by_phase.values()), Decimal(0))),
        "cost": money(fleet.total_cost()),
        "idle_cost": money(by_phase[Phase.IDLE].cost),
        "data_bound_cost": money(by_phase[Phase.DATA_PROCESSING].cost),
        "wasted_cost": money(by_phase[Phase.IDLE].cost + by_phase[Phase.DATA_PROCESSING].cost),
        "unknown_cost": money(by_phase[Phase.UNKNOWN].cost),
        "phases": phase_figures_json(by_phase, priced=True),
        "cost_sources": sources,
    }


def no_data_json(
    by_reason: dict[NoDataReason, PhaseFigures], *, priced: bool = True
) -> list[dict[str, Any]]:
    """The ``unknown`` figures split by why the minutes have no phase, every reason listed."""
    return [
        {
            "reason": reason.value,
            "minutes": by_reason[reason].minutes,
            "gpu_hours": str(by_reason[reason].gpu_hours),
            "cost": money(by_reason[reason].cost) if priced else None,
        }
        for reason in REASONS
    ]


def unallocated_by_reason_json(
    fleet: FleetWaste, *, reasons: dict[int, UnallocatedReason], currency: str
) -> list[dict[str, Any]]:
    """The Unallocated group's figures split by why each instance has no project; every reason
    is listed (zeros when none applies) and the parts add up to the group."""
    return [
        {
            "reason": reason.value,
            "reason_label": reason.label,
            **waste_totals_json(
                fleet.subset(
                    [
                        row
                        for row, instance_id in enumerate(fleet.instance_ids)
                        if reasons.get(instance_id) == reason
                    ]
                ),
                currency,
            ),
        }
        for reason in UnallocatedReason
    ]


# Response shapes, for the OpenAPI schema (the views build the dictionaries themselves).


class PhaseFiguresSerializer(serializers.Serializer):
    minutes = serializers.IntegerField()
    gpu_hours = serializers.CharField(help_text="Decimal string.")
    cost = serializers.CharField(allow_null=True, help_text="Decimal string; null if unpriced.")


class WasteTotalsSerializer(serializers.Serializer):
    instance_count = serializers.IntegerField()
    currency = serializers.CharField()
    gpu_hours = serializers.CharField()
    cost = serializers.CharField()
    idle_cost = serializers.CharField()
    data_bound_cost = serializers.CharField()
    wasted_cost = serializers.CharField()
    unknown_cost = serializers.CharField()
    phases = serializers.DictField(child=PhaseFiguresSerializer())
    cost_sources = serializers.DictField(child=serializers.IntegerField())


class NoDataSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(
        choices=REASON_CHOICES,
        help_text="no_metrics: running (billed) but no GPU utilization sample; stopped: not "
        "running and not billed; not_analysed: samples exist but the analysis has not run "
        "over them yet (it catches up hourly).",
    )
    minutes = serializers.IntegerField()
    gpu_hours = serializers.CharField(help_text="Decimal string.")
    cost = serializers.CharField(allow_null=True, help_text="Decimal string; null if unpriced.")


NO_DATA_HELP = (
    "The unknown phase ('No data') split by reason, every reason listed; the parts add up to "
    "the unknown phase's minutes, GPU-hours and money."
)


class SummaryTotalsSerializer(WasteTotalsSerializer):
    no_data = NoDataSerializer(many=True, help_text=NO_DATA_HELP)


class UnallocatedReasonWasteSerializer(WasteTotalsSerializer):
    reason = serializers.ChoiceField(
        choices=UnallocatedReason.choices,
        help_text="no_tag: no project tag key; empty_value: the key with an empty value; "
        "no_rule: a value no project takes.",
    )
    reason_label = serializers.CharField()


class ProjectWasteSerializer(SummaryTotalsSerializer):
    project_id = serializers.IntegerField(allow_null=True)
    project_name = serializers.CharField()
    unallocated_by_reason = UnallocatedReasonWasteSerializer(
        many=True,
        allow_null=True,
        help_text="Only in the Unallocated group (null in a project's): its figures split by "
        "why the instances have no project; the parts add up to the group.",
    )


class AnalysisSummarySerializer(serializers.Serializer):
    start = serializers.DateTimeField()
    end = serializers.DateTimeField()
    group_by = serializers.ChoiceField(choices=["fleet", "project"])
    currency = serializers.CharField()
    totals = SummaryTotalsSerializer()
    groups = ProjectWasteSerializer(
        many=True, required=False, help_text="Only with group_by=project."
    )


def segment_json(segment: MergedSegment) -> dict[str, Any]:
    """One phase segment as served, with what its evidence could not tell apart.

    ``missing_metrics`` are the classifier inputs absent from most of the segment's minutes;
    ``unseparated_phases`` the pairs of phases they leave apart by weaker means only (e.g.
    ``["idle", "data_processing"]`` without CPU). Both are empty for an unknown segment,
    which has no phase to doubt.
    """
    known = segment.phase != Phase.UNKNOWN
    return {
        "phase": phase_key(segment.phase),
        "start_at": segment.start_at,
        "end_at": segment.end_at,
        "minutes": segment.minutes,
        "mean_gpu_util_pct": segment.mean_gpu_util_pct,
        "missing_metrics": list(missing_metrics(segment.evidence)) if known else [],
        "unseparated_phases": [
            [phase_key(a), phase_key(b)] for a, b in unseparated_phases(segment.evidence)
        ],
    }


def evidence_summary_json(segments: list[MergedSegment]) -> dict[str, Any]:
    """What the period's phases rest on: minutes with all three metrics, and the unseparated
    phase pairs with the minutes they concern."""
    full_minutes = 0
    unseparated: dict[tuple[Phase, Phase], int] = {}
    for segment in segments:
        if segment.phase == Phase.UNKNOWN:
            continue
        if segment.evidence == Evidence.FULL:
            full_minutes += segment.minutes
        for pair in unseparated_phases(segment.evidence):
            unseparated[pair] = unseparated.get(pair, 0) + segment.minutes
    return {
        "full_evidence_minutes": full_minutes,
        "unseparated_phases": [
            {"phases": [phase_key(a), phase_key(b)], "minutes": minutes}
            for (a, b), minutes in sorted(unseparated.items())
        ],
    }


# Output shapes of an instance's phases and profile. The views build the figures and pass them
# through these serializers, so the schema states every field the answer carries.

PHASE_CHOICES = [phase_key(phase) for phase in Phase]
COST_SOURCE_CHOICES = ["bills", "list_price", "unpriced"]


class SegmentSerializer(serializers.Serializer):
    phase = serializers.ChoiceField(choices=PHASE_CHOICES)
    start_at = serializers.DateTimeField()
    end_at = serializers.DateTimeField(help_text="Exclusive.")
    minutes = serializers.IntegerField()
    mean_gpu_util_pct = serializers.FloatField(allow_null=True)
    missing_metrics = serializers.ListField(
        child=serializers.CharField(),
        help_text="Classifier inputs absent from most of the segment's minutes.",
    )
    unseparated_phases = serializers.ListField(
        child=serializers.ListField(child=serializers.ChoiceField(choices=PHASE_CHOICES)),
        help_text="Pairs of phases the segment's metrics could not tell apart.",
    )


class UnseparatedMinutesSerializer(serializers.Serializer):
    phases = serializers.ListField(child=serializers.ChoiceField(choices=PHASE_CHOICES))
    minutes = serializers.IntegerField()


class EvidenceSummarySerializer(serializers.Serializer):
    full_evidence_minutes = serializers.IntegerField(
        help_text="Classified minutes that had GPU utilization, CPU and GPU memory."
    )
    unseparated_phases = UnseparatedMinutesSerializer(many=True)


class InstancePhasesSerializer(serializers.Serializer):
    instance_id = serializers.IntegerField()
    start = serializers.DateTimeField()
    end = serializers.DateTimeField(help_text="Exclusive.")
    currency = serializers.CharField()
    cost_source = serializers.ChoiceField(
        choices=COST_SOURCE_CHOICES,
        help_text="bills: the bill lines' real cost; list_price: the catalog price; unpriced: "
        "neither is known (money fields are null).",
    )
    cost = serializers.CharField(allow_null=True, help_text="Decimal string; null if unpriced.")
    idle_cost = serializers.CharField(allow_null=True)
    data_bound_cost = serializers.CharField(allow_null=True)
    totals = serializers.DictField(
        child=PhaseFiguresSerializer(), help_text="Phase key -> minutes, GPU-hours and money."
    )
    no_data = NoDataSerializer(many=True, help_text=NO_DATA_HELP)
    evidence = EvidenceSummarySerializer()
    segments = SegmentSerializer(many=True)


class OffWindowRunSerializer(serializers.Serializer):
    start_weekday = serializers.IntegerField(min_value=0, max_value=6, help_text="0 = Monday.")
    start_hour = serializers.IntegerField(min_value=0, max_value=23)
    end_weekday = serializers.IntegerField(min_value=0, max_value=6)
    end_hour = serializers.IntegerField(min_value=0, max_value=23)
    hours = serializers.IntegerField()
    # A declared field leaves the class body (DRF's metaclass), so Field.label is not shadowed.
    label = serializers.CharField()  # type: ignore[assignment]


class OffWindowSerializer(serializers.Serializer):
    runs = OffWindowRunSerializer(many=True)
    weekly_hours = serializers.IntegerField()
    longest_run_hours = serializers.IntegerField()
    supporting_weeks = serializers.IntegerField()
    observed_weeks = serializers.IntegerField()
    p95_max_pct = serializers.FloatField()
    text = serializers.CharField()
    description = serializers.CharField()


class LowAroundTheClockSerializer(serializers.Serializer):
    observed_hours = serializers.IntegerField()
    supporting_weeks = serializers.IntegerField()
    observed_weeks = serializers.IntegerField()
    p95_max_pct = serializers.FloatField()
    text = serializers.CharField()
    description = serializers.CharField()


def _week_matrix(help_text: str) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(allow_null=True)),
        allow_null=True,
        help_text=help_text,
    )


class InstanceProfileSerializer(serializers.Serializer):
    instance_id = serializers.IntegerField()
    analysed = serializers.BooleanField(help_text="False until the first hourly analysis.")
    tz = serializers.CharField(help_text="The IANA time zone of the matrices' local hours.")
    start_at = serializers.DateTimeField(allow_null=True)
    end_at = serializers.DateTimeField(allow_null=True)
    computed_at = serializers.DateTimeField(allow_null=True)
    median_pct = _week_matrix("7 x 24 (Monday first, local hours); null cells had no data.")
    p95_pct = _week_matrix("7 x 24, like median_pct.")
    coverage = _week_matrix("7 x 24 share (0-1) of each cell's minutes that were observed.")
    off_window = OffWindowSerializer(allow_null=True)
    low_around_the_clock = LowAroundTheClockSerializer(
        allow_null=True,
        help_text="Idle in every observed hour: a finding of its own, never a week-long window.",
    )

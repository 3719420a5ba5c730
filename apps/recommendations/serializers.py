"""Input validation and typed output shapes of the recommendation endpoints.

Every output field is declared, so the OpenAPI schema describes the whole answer (no bare
objects): a kind's evidence figures are a list of name/value pairs, its action a fixed shape.
Money is a decimal string with the currency beside it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.accounts.models import Currency
from apps.api.parameters import INT64_MAX
from apps.api.serializers import StatedCharField, StrictSerializer
from apps.core.weekruns import WeekRun
from apps.recommendations import messages
from apps.recommendations.messages.events import event_reason
from apps.recommendations.models import Recommendation, RecommendationEvent, Status
from apps.recommendations.rules import (
    KINDS,
    ROLES,
    THRESHOLD_RULES,
    THRESHOLD_TYPES,
    RuleThresholds,
)
from apps.recommendations.rules.thresholds import threshold_limit
from apps.recommendations.rules.types import NEXT_IN_FAMILY, NO_LARGER_TYPE
from apps.recommendations.rules.weekly import run_text
from apps.recommendations.selectors import ORDERINGS

ACTIONS = ("accept", "dismiss", "snooze", "reopen")
UPSIZE_REASONS = (NEXT_IN_FAMILY, NO_LARGER_TYPE)
# What a project-level finding does to each of its instances.
MEMBER_ROLES = ("stop", "keep")

# The cloud's instance id (Tencent's ``ins-`` and 8 characters; any length it may grow to).
CLOUD_INSTANCE_ID_PATTERN = r"^ins-[A-Za-z0-9]{1,60}$"
_INTERNAL_ID_PATTERN = r"^[0-9]{1,19}$"


class InstanceRefField(serializers.CharField):
    """``?instance=``: the internal id (an integer) or the cloud's ``ins-`` id.

    An integer comes back as an ``int`` (bounded like any id, so never an overflow), a cloud id
    as the ``str``; either matches only the request's organization's instances, so another
    organization's id matches nothing, as an unknown one does.
    """

    def to_internal_value(self, data: Any) -> int | str:  # type: ignore[override]
        text = super().to_internal_value(data)
        if re.fullmatch(CLOUD_INSTANCE_ID_PATTERN, text):
            return text
        if re.fullmatch(_INTERNAL_ID_PATTERN, text) and 1 <= int(text) <= INT64_MAX:
            return int(text)
        raise serializers.ValidationError(
            f"An instance id from 1 to {INT64_MAX}, or a cloud instance id (ins-...)."
        )


class ListQuerySerializer(StrictSerializer):
    """``?kind=&status=&project=&instance=&min_saving=&ordering=`` (kind and status repeatable)."""

    kind = serializers.ListField(child=serializers.ChoiceField(choices=KINDS), required=False)
    status = serializers.ListField(
        child=serializers.ChoiceField(choices=Status.choices), required=False
    )
    project = serializers.IntegerField(required=False, min_value=1)
    role = serializers.ChoiceField(choices=ROLES, required=False)
    instance = InstanceRefField(required=False)
    min_saving = serializers.DecimalField(max_digits=16, decimal_places=2, required=False)
    ordering = serializers.ChoiceField(choices=sorted(ORDERINGS), required=False)
    page = serializers.IntegerField(required=False, min_value=1)
    page_size = serializers.IntegerField(required=False, min_value=1)


class ActionInputSerializer(StrictSerializer):
    action = serializers.ChoiceField(choices=ACTIONS)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    until = serializers.DateTimeField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["action"] == "snooze" and "until" not in attrs:
            raise serializers.ValidationError({"until": ["Required to snooze."]})
        if attrs["action"] == "dismiss" and not attrs.get("reason", "").strip():
            raise serializers.ValidationError({"reason": ["Say why it is dismissed."]})
        return attrs


class SavingSerializer(serializers.Serializer):
    monthly_amount = serializers.DecimalField(max_digits=16, decimal_places=2)
    currency = serializers.CharField()
    formula = serializers.CharField(help_text="How the amount was computed, with the figures.")
    price_source = serializers.CharField(help_text="bills, catalog or none.")


class PaidWhileWaitingSerializer(serializers.Serializer):
    """What the GPU's waiting for data costs a month: its own figure, never a saving."""

    monthly_amount = serializers.DecimalField(
        max_digits=16,
        decimal_places=2,
        allow_null=True,
        help_text="Money a month paid while the GPU waits; null when no price is known.",
    )
    gpu_hours_per_month = serializers.DecimalField(
        max_digits=12, decimal_places=1, help_text="GPU-hours a month spent waiting for data."
    )
    currency = serializers.CharField()
    formula = serializers.CharField(help_text="How both figures were computed, with the figures.")
    price_source = serializers.CharField(help_text="bills, catalog or none.")


class UpsizeSerializer(serializers.Serializer):
    """An upsize's own figures: what the same work costs more, and the work each type buys."""

    reason = serializers.ChoiceField(
        choices=UPSIZE_REASONS,
        help_text="next_in_family: target_type is the family's next larger type; "
        "no_larger_type: the zone's catalog has none (the memory pressure stands).",
    )
    target_type = serializers.CharField(allow_null=True)
    monthly_extra_cost = serializers.DecimalField(
        max_digits=16,
        decimal_places=2,
        allow_null=True,
        help_text="What the same month's work costs more on the target; never negative "
        "(0.00 when it costs less: the saving says by how much). Null without a target or "
        "a price.",
    )
    current_samples_per_currency_unit = serializers.DecimalField(
        max_digits=20,
        decimal_places=1,
        allow_null=True,
        help_text="BERT-base training samples one unit of the currency buys now (per yuan "
        "for CNY).",
    )
    target_samples_per_currency_unit = serializers.DecimalField(
        max_digits=20, decimal_places=1, allow_null=True, help_text="The same on the target."
    )
    currency = serializers.CharField()
    formula = serializers.CharField(help_text="How the figures were computed, with the figures.")


class ConfidenceSerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=["high", "medium", "low"])
    evidence_days = serializers.FloatField(help_text="Days of observed minutes.")
    coverage_pct = serializers.FloatField(help_text="Observed minutes / minutes it existed.")


class RiskSerializer(serializers.Serializer):
    level = serializers.IntegerField(min_value=0, max_value=4)
    reason = serializers.CharField()


class ChartRangeSerializer(serializers.Serializer):
    start = serializers.DateTimeField()
    end = serializers.DateTimeField()


class FigureSerializer(serializers.Serializer):
    name = serializers.CharField()
    value = serializers.CharField()


class EvidenceSerializer(serializers.Serializer):
    chart = serializers.CharField(help_text="Which chart shows it: metrics, profile, phases, cost.")
    chart_range = ChartRangeSerializer(
        allow_null=True, help_text="The range the chart shows; null when none was recorded."
    )
    figures = FigureSerializer(many=True)


class WindowRunSerializer(serializers.Serializer):
    start_weekday = serializers.IntegerField(help_text="0 = Monday")
    start_hour = serializers.IntegerField()
    end_weekday = serializers.IntegerField()
    end_hour = serializers.IntegerField()
    hours = serializers.IntegerField()
    # A field named like DRF's Field.label attribute; the stubs type that attribute as text.
    label = serializers.CharField()  # type: ignore[assignment]


class WindowSerializer(serializers.Serializer):
    tz = serializers.CharField()
    weekly_hours = serializers.IntegerField(required=False)
    runs = WindowRunSerializer(many=True)


class ActionSerializer(serializers.Serializer):
    steps = serializers.ListField(child=serializers.CharField())
    commands = serializers.ListField(child=serializers.CharField())
    cron = serializers.ListField(child=serializers.CharField())
    window = WindowSerializer(allow_null=True)
    stopped_mode = serializers.CharField(allow_null=True)
    still_billed_when_stopped = serializers.ListField(child=serializers.CharField())


class EventSerializer(serializers.ModelSerializer):
    actor = serializers.SerializerMethodField()
    reason = serializers.SerializerMethodField(
        help_text="Why: GPU Ledger's own reasons in the reader's language, a person's as written."
    )

    class Meta:
        model = RecommendationEvent
        fields = ["at", "actor", "from_status", "to_status", "reason"]

    def get_actor(self, event: RecommendationEvent) -> str | None:
        return event.actor.email if event.actor else None

    def get_reason(self, event: RecommendationEvent) -> str:
        return event_reason(event.reason)


class RealisedSerializer(serializers.Serializer):
    """The realised saving and every figure it is computed from (to recompute it by hand)."""

    before_start = serializers.DateTimeField()
    before_end = serializers.DateTimeField(help_text="When it was accepted.")
    weeks_before = serializers.FloatField(help_text="Weeks of bills before (at most 4).")
    cost_before = serializers.DecimalField(
        max_digits=16, decimal_places=2, help_text="Billed in [before_start, before_end)."
    )
    weekly_cost_before = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    after_start = serializers.DateTimeField()
    after_end = serializers.DateTimeField(help_text="The latest bill synced (or now).")
    instances = serializers.ListField(
        child=serializers.CharField(),
        help_text="Whose bills are counted: the target instance, or the instances a "
        "project-wide recommendation stops.",
    )
    weeks_after = serializers.FloatField()
    cost_after = serializers.DecimalField(
        max_digits=16,
        decimal_places=2,
        allow_null=True,
        help_text="Billed in [after_start, after_end).",
    )
    weekly_cost_after = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    weekly_saving = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    monthly_saving_realised = serializers.DecimalField(
        max_digits=16, decimal_places=2, allow_null=True
    )
    monthly_saving_promised = serializers.DecimalField(
        max_digits=16,
        decimal_places=2,
        allow_null=True,
        help_text="Null where the recommendation promised no saving (the data pipeline).",
    )
    currency = serializers.CharField()


def _flatten(prefix: str, value: Any, out: list[dict[str, str]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), item, out)
    elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        # Rows of figures (a plan's steps): each under its position, from 1.
        for index, item in enumerate(value, start=1):
            _flatten(f"{prefix}.{index}", item, out)
    elif isinstance(value, list):
        out.append({"name": prefix, "value": ", ".join(str(item) for item in value)})
    else:
        out.append({"name": prefix, "value": str(value)})


class RecommendationMemberSerializer(serializers.Serializer):
    """One instance a project-level finding is about (fewer instances at night)."""

    instance = serializers.IntegerField(help_text="The instance's id in GPU Ledger.")
    cloud_instance_id = serializers.CharField(help_text="The cloud's instance id (ins-...).")
    name = serializers.CharField(allow_blank=True)
    role = serializers.ChoiceField(
        choices=MEMBER_ROLES, help_text="stop: the finding stops it; keep: it keeps serving."
    )
    monthly_share = serializers.DecimalField(
        max_digits=16,
        decimal_places=2,
        help_text="Its part of the monthly saving, in the saving's currency; the members' "
        "shares sum to the saving exactly (0.00 for the ones kept).",
    )


def _members(row: Recommendation) -> list[dict[str, Any]]:
    # Written by the rule at each run; a project-level row stored before the rule wrote them
    # has none until the next run rewrites it.
    members = row.action.get("members") if isinstance(row.action, dict) else None
    return [
        {
            "instance": member["instance_id"],
            "cloud_instance_id": member["provider_id"],
            "name": member.get("name", ""),
            "role": member["role"],
            "monthly_share": member["monthly_share"],
        }
        for member in members or []
    ]


def _formula(row: Recommendation) -> str:
    """How the row's money was computed, in the reader's language (the column is English)."""
    return messages.render_json(row.words.get("formula"), row.saving_formula)


def _window(window: Any) -> Any:
    """A schedule's window with each run's label in the reader's language, from its numbers."""
    if not isinstance(window, dict) or not isinstance(window.get("runs"), list):
        return window
    runs = []
    for run in window["runs"]:
        try:
            said = run_text(WeekRun(run["start_weekday"], run["start_hour"], run["hours"]))
            runs.append({**run, "label": messages.render(said)})
        except (KeyError, TypeError, IndexError):
            runs.append(run)
    return {**window, "runs": runs}


class RecommendationSerializer(serializers.ModelSerializer):
    """One recommendation as lists show it."""

    kind_label = serializers.SerializerMethodField()
    role = serializers.ChoiceField(
        choices=ROLES,
        read_only=True,
        help_text="plan: part of its instance's plan (priced after the plan's earlier steps; "
        "totals add these up); alternative: excludes or overlaps the plan, its own figure.",
    )
    target = serializers.SerializerMethodField()
    cloud_instance_id = serializers.SerializerMethodField(
        help_text="The cloud's id (ins-...) of the instance; null for a project-level finding."
    )
    instance_name = serializers.SerializerMethodField()
    members = serializers.SerializerMethodField(
        help_text="The instances a project-level finding stops or keeps, with each one's "
        "share of the saving; empty for an instance's own finding."
    )
    project_name = serializers.SerializerMethodField()
    saving = serializers.SerializerMethodField(
        help_text="Null where the finding saves nothing the bill shows (thermal, the data "
        "pipeline): never a zero or negative saving."
    )
    paid_while_waiting = serializers.SerializerMethodField(
        help_text="The data pipeline's money and GPU-hours spent waiting, apart from savings "
        "(never in a total); null for every other kind."
    )
    upsize = serializers.SerializerMethodField(
        help_text="An upsize's typed figures (extra cost, work per currency unit, reason); "
        "null for every other kind."
    )
    confidence = serializers.SerializerMethodField()
    risk = serializers.SerializerMethodField()

    class Meta:
        model = Recommendation
        fields = [
            "id",
            "kind",
            "kind_label",
            "role",
            "status",
            "status_reason",
            "snoozed_until",
            "target",
            "instance",
            "cloud_instance_id",
            "instance_name",
            "members",
            "project",
            "project_name",
            "title",
            "explanation",
            "saving",
            "paid_while_waiting",
            "upsize",
            "confidence",
            "risk",
            "first_seen_at",
            "last_seen_at",
            "accepted_at",
            "resolved_at",
        ]
        read_only_fields = fields

    def get_kind_label(self, row: Recommendation) -> str:
        return messages.kind_label(row.kind)

    def to_representation(self, instance: Recommendation) -> dict[str, Any]:
        data = super().to_representation(instance)
        # The rules' words in the reader's language (the stored columns are English).
        data["title"] = messages.render_json(instance.words.get("title"), instance.title)
        data["explanation"] = messages.render_json(
            instance.words.get("explanation"), instance.explanation
        )
        return data

    def get_target(self, row: Recommendation) -> str:
        return "instance" if row.instance_id else "project"

    def get_cloud_instance_id(self, row: Recommendation) -> str | None:
        return row.instance.provider_id if row.instance is not None else None

    @extend_schema_field(RecommendationMemberSerializer(many=True))
    def get_members(self, row: Recommendation) -> Any:
        return RecommendationMemberSerializer(_members(row), many=True).data

    def get_instance_name(self, row: Recommendation) -> str | None:
        if row.instance is None:
            return None
        return row.instance.name or row.instance.provider_id

    def get_project_name(self, row: Recommendation) -> str | None:
        return row.project.name if row.project else None

    @extend_schema_field(SavingSerializer(allow_null=True))
    def get_saving(self, row: Recommendation) -> Any:
        if row.monthly_saving is None:
            return None
        return SavingSerializer(
            {
                "monthly_amount": row.monthly_saving,
                "currency": row.currency,
                "formula": _formula(row),
                "price_source": row.price_source,
            }
        ).data

    @extend_schema_field(PaidWhileWaitingSerializer(allow_null=True))
    def get_paid_while_waiting(self, row: Recommendation) -> Any:
        if row.gpu_hours_waiting_per_month is None:
            return None
        return PaidWhileWaitingSerializer(
            {
                "monthly_amount": row.monthly_paid_while_waiting,
                "gpu_hours_per_month": row.gpu_hours_waiting_per_month,
                "currency": row.currency,
                "formula": _formula(row),
                "price_source": row.price_source,
            }
        ).data

    @extend_schema_field(UpsizeSerializer(allow_null=True))
    def get_upsize(self, row: Recommendation) -> Any:
        if not row.upsize_reason:
            return None
        return UpsizeSerializer(
            {
                "reason": row.upsize_reason,
                "target_type": row.parameters.get("to"),
                "monthly_extra_cost": row.monthly_extra_cost,
                "current_samples_per_currency_unit": row.current_samples_per_currency_unit,
                "target_samples_per_currency_unit": row.target_samples_per_currency_unit,
                "currency": row.currency,
                "formula": _formula(row),
            }
        ).data

    @extend_schema_field(ConfidenceSerializer)
    def get_confidence(self, row: Recommendation) -> Any:
        return ConfidenceSerializer(
            {
                "level": row.confidence,
                "evidence_days": row.evidence_days,
                "coverage_pct": row.coverage_pct,
            }
        ).data

    @extend_schema_field(RiskSerializer)
    def get_risk(self, row: Recommendation) -> Any:
        reason = messages.render_json(row.words.get("risk"), row.risk_reason)
        return RiskSerializer({"level": row.risk_level, "reason": reason}).data


class RecommendationDetailSerializer(RecommendationSerializer):
    """One recommendation with its evidence, action, history and realised saving."""

    parameters = serializers.SerializerMethodField()
    evidence = serializers.SerializerMethodField()
    action = serializers.SerializerMethodField()
    history = EventSerializer(source="events", many=True, read_only=True)
    realised = serializers.SerializerMethodField()

    class Meta(RecommendationSerializer.Meta):
        fields = [
            *RecommendationSerializer.Meta.fields,
            "parameters",
            "evidence",
            "action",
            "history",
            "realised",
        ]
        read_only_fields = fields

    @extend_schema_field(FigureSerializer(many=True))
    def get_parameters(self, row: Recommendation) -> Any:
        out: list[dict[str, str]] = []
        _flatten("", row.parameters, out)
        return out

    @extend_schema_field(EvidenceSerializer)
    def get_evidence(self, row: Recommendation) -> Any:
        evidence = dict(row.evidence)
        chart = str(evidence.pop("chart", "metrics"))
        # Every rule records its chart's range; a row written otherwise (by hand, or by an
        # older rule) has none, which the API says as null rather than failing.
        chart_range = evidence.pop("chart_range", None)
        if not (isinstance(chart_range, dict) and {"start", "end"} <= chart_range.keys()):
            chart_range = None
        if "when_stopped" in evidence:
            evidence["when_stopped"] = messages.render_json(
                row.words.get("when_stopped"), str(evidence["when_stopped"])
            )
        figures: list[dict[str, str]] = []
        _flatten("", evidence, figures)
        return EvidenceSerializer(
            {"chart": chart, "chart_range": chart_range, "figures": figures}
        ).data

    @extend_schema_field(ActionSerializer)
    def get_action(self, row: Recommendation) -> Any:
        action = row.action
        return ActionSerializer(
            {
                "steps": messages.render_list_json(row.words.get("steps"), action.get("steps", [])),
                "commands": action.get("commands", []),
                "cron": action.get("cron", []),
                "window": _window(action.get("window")),
                "stopped_mode": action.get("stopped_mode"),
                "still_billed_when_stopped": messages.render_list_json(
                    row.words.get("still_billed_when_stopped"),
                    action.get("still_billed_when_stopped", []),
                ),
            }
        ).data

    @extend_schema_field(RealisedSerializer(allow_null=True))
    def get_realised(self, row: Recommendation) -> Any:
        realised = self.context.get("realised")
        return RealisedSerializer(realised).data if realised is not None else None


class TotalSerializer(serializers.Serializer):
    key = serializers.CharField(allow_null=True, help_text="The kind, or the project id.")
    label = serializers.CharField()  # type: ignore[assignment]
    count = serializers.IntegerField(
        help_text="Every row, alternatives and rows without a saving included."
    )
    monthly_saving = serializers.DecimalField(
        max_digits=16,
        decimal_places=2,
        allow_null=True,
        help_text="The plan rows' savings (an alternative's money is not added up); null when "
        "none of them has one (thermal).",
    )
    currency = serializers.CharField()
    alternatives = serializers.IntegerField(help_text="Of count, the alternatives.")


class TotalsSerializer(serializers.Serializer):
    by_kind = TotalSerializer(many=True)
    by_project = TotalSerializer(many=True)


@extend_schema_field(
    {
        "oneOf": [{"type": "number"}, {"type": "array", "items": {"type": "string"}}],
        "nullable": True,
    }
)
class ThresholdValueField(serializers.JSONField):
    """A threshold's value: a number, a list of tags (``spot_tags``), or null."""


_SCHEMA_TYPES = {"int": "integer", "nullable_int": "integer", "float": "number"}


def _rule_threshold_schema(name: str) -> dict[str, Any]:
    limit = threshold_limit(name)
    if limit.type == "tags":
        return {"type": "array", "items": {"type": "string"}, "nullable": True}
    schema: dict[str, Any] = {"type": _SCHEMA_TYPES[limit.type], "nullable": True}
    if limit.low is not None:
        schema["minimum"] = limit.low
    if limit.high is not None:
        schema["maximum"] = limit.high
    return schema


class RuleThresholdsField(serializers.DictField):
    """Threshold name -> override (null drops it); ``RuleThresholds.with_overrides`` checks
    them in the service, and the request schema states each name with its type and bounds."""

    def request_schema(self) -> dict[str, Any]:
        # Requests only: a stored override of a threshold that no longer exists is still
        # served (and can be dropped), so the answer's schema keeps any name.
        return {
            "type": "object",
            "properties": {
                field.name: _rule_threshold_schema(field.name)
                for field in dataclasses.fields(RuleThresholds)
            },
            "additionalProperties": False,
        }


class ThresholdFieldSerializer(serializers.Serializer):
    """One field of ``RuleThresholds``, described for a settings form."""

    name = serializers.CharField()
    rule = serializers.ChoiceField(choices=THRESHOLD_RULES, help_text="The rule it belongs to.")
    type = serializers.ChoiceField(
        choices=THRESHOLD_TYPES,
        help_text="nullable_int: an integer or null (null: the general lookback); "
        "tags: a list of key=value strings.",
    )
    default = ThresholdValueField()
    value = ThresholdValueField(help_text="The organization's override; null: the default.")
    label = serializers.CharField(help_text="Its name in words, in the reader's language.")  # type: ignore[assignment]
    help = serializers.CharField(help_text="What it means, in the reader's language.")


# A plain decimal (no sign, exponent, NaN or Infinity, which Decimal() would also read); that
# it is above zero the schema says with a "not" and parse_reserved_prices checks.
HOURLY_PATTERN = r"^[0-9]{1,10}(\.[0-9]{1,8})?$"


def _validate_hourly(value: str) -> None:
    if not re.fullmatch(HOURLY_PATTERN, value):
        raise serializers.ValidationError(
            'Must be a plain decimal number, e.g. "2.5" (at most 8 digits after the point).'
        )


class ReservedPriceSerializer(StrictSerializer):
    """One reserved-instance price the organization entered (not in the CVM price APIs)."""

    region = serializers.CharField(max_length=64)
    instance_type = serializers.CharField(max_length=64)
    hourly = StatedCharField(
        schema={"pattern": HOURLY_PATTERN, "not": {"pattern": "^[0.]*$"}},
        max_length=32,
        trim_whitespace=False,
        validators=[_validate_hourly],
        help_text="Effective price per hour: a positive decimal string, at most 10 digits "
        "before the point and 8 after it.",
    )
    term_years = serializers.IntegerField(default=1, min_value=1, max_value=3)
    currency = serializers.ChoiceField(
        choices=Currency.choices, required=False, help_text="Default: the organization's."
    )


class SettingsSerializer(StrictSerializer):
    """An organization's threshold overrides and reserved-instance prices; owners and admins
    PATCH them (a refused threshold is a 400 on ``thresholds.<name>``). ``fields`` describes
    every threshold so a client renders a form without knowing them."""

    thresholds = RuleThresholdsField(
        child=ThresholdValueField(allow_null=True),
        required=False,
        help_text="Threshold name -> override; in a PATCH, null drops one.",
    )
    reserved_prices = ReservedPriceSerializer(many=True, required=False)
    # Serializer.fields is DRF's own attribute, but the metaclass takes a declared field out of
    # the class before that matters: the name is the API's, and it works.
    fields = ThresholdFieldSerializer(  # type: ignore[assignment]
        many=True,
        read_only=True,
        help_text="Every threshold with its rule, type, default, override and help.",
    )

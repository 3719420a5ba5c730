"""The automation API's shapes (snake_case; codes, with their words in the reader's language)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from apps.api.serializers import StrictSerializer
from apps.automation import reasons
from apps.automation.models import ActionKind, ActionStatus, AutomationAction, PlanStatus
from apps.automation.wording import reason_text

UNAVAILABLE_CHOICES = [*reasons.UNAVAILABLE]
ACTION_REASON_CHOICES = ["", *reasons.ACTION_REASONS]


class UserRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    email = serializers.EmailField()
    name = serializers.CharField()


class PlanSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.ChoiceField(choices=PlanStatus.choices)
    skip_dates = serializers.ListField(child=serializers.DateField())
    grace_hours = serializers.IntegerField()
    memory_held_confirmed = serializers.BooleanField()
    told_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    created_by = UserRefSerializer(allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)


class NextActionSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    kind = serializers.ChoiceField(choices=ActionKind.choices)
    instance_id = serializers.IntegerField()
    instance_name = serializers.CharField()


class WeekSerializer(serializers.Serializer):
    week_start = serializers.DateField()
    promised = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    realised = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    currency = serializers.CharField()
    stopped_hours = serializers.IntegerField()


class AutomationSerializer(serializers.Serializer):
    available = serializers.BooleanField()
    unavailable_reason = serializers.ChoiceField(choices=UNAVAILABLE_CHOICES, allow_null=True)
    unavailable_reason_text = serializers.CharField(allow_null=True)
    plan = PlanSerializer(allow_null=True)
    next_actions = NextActionSerializer(many=True)
    weeks = WeekSerializer(many=True)


class PlanCreateSerializer(StrictSerializer):
    skip_dates = serializers.ListField(
        child=serializers.DateField(), required=False, max_length=400
    )
    grace_hours = serializers.IntegerField(required=False, min_value=0, max_value=24 * 14)
    memory_held_confirmed = serializers.BooleanField(required=False, default=False)


class PlanUpdateSerializer(StrictSerializer):
    status = serializers.ChoiceField(choices=[PlanStatus.ACTIVE, PlanStatus.PAUSED], required=False)
    skip_dates = serializers.ListField(
        child=serializers.DateField(), required=False, max_length=400
    )


class AutomationActionSerializer(serializers.ModelSerializer):
    recommendation = serializers.IntegerField(source="plan.recommendation_id", read_only=True)
    instance_name = serializers.SerializerMethodField()
    instance_provider_id = serializers.CharField(source="instance.provider_id", read_only=True)
    reason = serializers.ChoiceField(choices=ACTION_REASON_CHOICES, read_only=True)
    reason_text = serializers.SerializerMethodField()
    status = serializers.ChoiceField(choices=ActionStatus.choices, read_only=True)
    kind = serializers.ChoiceField(choices=ActionKind.choices, read_only=True)

    class Meta:
        model = AutomationAction
        fields = [
            "id",
            "plan",
            "recommendation",
            "instance",
            "instance_name",
            "instance_provider_id",
            "kind",
            "due_at",
            "status",
            "attempts",
            "next_attempt_at",
            "request_id",
            "reason",
            "reason_params",
            "reason_text",
            "sent_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_instance_name(self, row: AutomationAction) -> str:
        return row.instance.name or row.instance.provider_id

    def get_reason_text(self, row: AutomationAction) -> str:
        return reason_text(row.reason) if row.reason else ""


class ActionsQuerySerializer(serializers.Serializer):
    recommendation = serializers.IntegerField(required=False, min_value=1)


class AutomationSettingsSerializer(StrictSerializer):
    # Not a docstring (it would be the schema's description of the response too): in a PATCH
    # (partial), a ``paused`` left out is kept, so an empty body changes nothing.
    paused = serializers.BooleanField()


def plan_body(plan: Any) -> dict[str, Any]:
    user = plan.created_by
    return {
        "id": plan.pk,
        "kind": plan.kind,
        "status": plan.status,
        "skip_dates": plan.skip_dates,
        "grace_hours": plan.grace_hours,
        "memory_held_confirmed": plan.memory_held_confirmed,
        "told_at": plan.told_at,
        "created_at": plan.created_at,
        "created_by": (
            {"id": user.pk, "email": user.email, "name": user.name} if user is not None else None
        ),
        "ended_at": plan.ended_at,
    }

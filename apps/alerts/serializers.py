"""Typed serializers of the alerts API (drf-spectacular describes every field from these)."""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils import timezone, translation
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.accounts.models import Currency, Membership
from apps.alerts.models import (
    AlertDelivery,
    AlertEvent,
    AlertKind,
    AlertRecipient,
    Budget,
    DeliveryStatus,
    Severity,
    ThresholdRule,
)
from apps.alerts.selectors import FORECAST_METHOD, budget_status, month_of
from apps.alerts.tencent_policy import alarm_policy_command, alarm_policy_request
from apps.alerts.wording import forecast_method, localized_wording, rule_name
from apps.api.serializers import StrictModelSerializer, StrictSerializer
from apps.cloud.models import Project


class _OrganizationProjects:
    """Scopes the ``project`` field to the request's organization: another one's is a 400."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        view = self.context.get("view")  # type: ignore[attr-defined]
        field = self.fields.get("project")  # type: ignore[attr-defined]
        if field is not None and not field.read_only:
            # The schema generator builds serializers with no signed-in person behind the view.
            in_request = view is not None and not getattr(view, "swagger_fake_view", False)
            field.queryset = (
                Project.objects.for_organization(view.tenant.organization)
                if in_request
                else Project.objects.none()
            )


class ThresholdCrossedSerializer(serializers.Serializer):
    threshold_pct = serializers.IntegerField()
    basis = serializers.ChoiceField(choices=["actual", "forecast"])


class _ForecastMethodField(serializers.CharField):
    """The forecast's method in the reader's language (the status carries costs' English)."""

    def to_representation(self, value: Any) -> str:
        return forecast_method(str(value))


class BudgetStatusSerializer(serializers.Serializer):
    month = serializers.CharField(help_text="The bill month, yyyy-mm (Beijing time).")
    spent = serializers.DecimalField(
        max_digits=20,
        decimal_places=2,
        help_text="Amortized cost of the bill month so far, today included.",
    )
    spent_before_today = serializers.DecimalField(
        max_digits=20, decimal_places=2, help_text="Amortized cost of the month's complete days."
    )
    daily_average = serializers.DecimalField(
        max_digits=20,
        decimal_places=2,
        help_text="Cost of the last 7 complete days without purchases / 7.",
    )
    days_left = serializers.DecimalField(
        max_digits=8, decimal_places=4, help_text="Days of the month from today on, inclusive."
    )
    known_purchases = serializers.DecimalField(
        max_digits=20,
        decimal_places=2,
        help_text="Purchases and refunds already billed, amortized over the days left.",
    )
    forecast = serializers.DecimalField(
        max_digits=20, decimal_places=2, help_text=f"Forecast to month end: {FORECAST_METHOD}."
    )
    percent_used = serializers.DecimalField(max_digits=10, decimal_places=1)
    forecast_pct = serializers.DecimalField(max_digits=10, decimal_places=1)
    thresholds_crossed = ThresholdCrossedSerializer(many=True)
    forecast_method = _ForecastMethodField()


def _thresholds_field() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=1000),
        max_length=10,
        required=False,
        help_text="Percentages of the amount that alert once a month each (default 50, 80, 100).",
    )


class BudgetSerializer(_OrganizationProjects, StrictModelSerializer):
    project = serializers.PrimaryKeyRelatedField(
        queryset=Project.objects.none(),
        allow_null=True,
        required=False,
        help_text="Empty: the whole organization.",
    )
    scope = serializers.SerializerMethodField()
    amount = serializers.DecimalField(max_digits=16, decimal_places=2, min_value=0)
    currency = serializers.ChoiceField(
        choices=Currency.choices, required=False, help_text="Default: the organization's."
    )
    actual_thresholds_pct = _thresholds_field()
    forecast_thresholds_pct = _thresholds_field()
    status = serializers.SerializerMethodField()

    class Meta:
        model = Budget
        fields = [
            "id",
            "name",
            "scope",
            "project",
            "amount",
            "currency",
            "actual_thresholds_pct",
            "forecast_thresholds_pct",
            "status",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "scope", "status", "created_at", "updated_at"]

    def get_scope(self, budget: Budget) -> str:
        return "project" if budget.project_id else "organization"

    @extend_schema_field(BudgetStatusSerializer)
    def get_status(self, budget: Budget) -> dict[str, Any]:
        status = (self.context.get("statuses") or {}).get(budget.pk)
        if status is None:
            month = self.context.get("month") or month_of(budget.organization, timezone.now())
            status = budget_status(budget, month)
        return BudgetStatusSerializer(status).data


# Years 2000-2099: no cloud bill is older, and the month after 9999-12 is no date at all
# (``month_bounds`` would fail on year 0 or 9999 with a server error).
MONTH_PATTERN = r"^20\d{2}-(0[1-9]|1[0-2])$"


class BudgetQuerySerializer(StrictSerializer):
    month = serializers.RegexField(
        MONTH_PATTERN, required=False, help_text="yyyy-mm (2000-2099); default: this month."
    )
    # The list's pagination (the paginator reads them; named here so they are not "unknown").
    page = serializers.IntegerField(required=False, min_value=1)
    page_size = serializers.IntegerField(required=False, min_value=1)


class AlarmPolicySerializer(serializers.Serializer):
    command = serializers.CharField(help_text="The tccli command line, quoted for a shell.")
    request = serializers.JSONField(help_text="The CreateAlarmPolicy request parameters.")


class ThresholdRuleSerializer(_OrganizationProjects, StrictModelSerializer):
    project = serializers.PrimaryKeyRelatedField(
        queryset=Project.objects.none(),
        allow_null=True,
        required=False,
        help_text="Empty: every running instance of the organization.",
    )
    tencent_alarm_policy = serializers.SerializerMethodField()

    class Meta:
        model = ThresholdRule
        fields = [
            "id",
            "name",
            "metric",
            "comparison",
            "threshold",
            "duration_minutes",
            "project",
            "enabled",
            "tencent_alarm_policy",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "tencent_alarm_policy", "created_at", "updated_at"]

    def validate_name(self, value: str) -> str:
        # The form sends back the name it showed: a default rule's name in the reader's language
        # keeps the default's own, so that the rule still reads in every language.
        if isinstance(self.instance, ThresholdRule) and value == rule_name(self.instance.name):
            return self.instance.name
        return value

    def to_representation(self, instance: ThresholdRule) -> dict[str, Any]:
        data = super().to_representation(instance)
        # A default rule's name in the reader's language (wording.rule_name).
        data["name"] = rule_name(data["name"])
        return data

    @extend_schema_field(AlarmPolicySerializer)
    def get_tencent_alarm_policy(self, rule: ThresholdRule) -> dict[str, Any]:
        return {"command": alarm_policy_command(rule), "request": alarm_policy_request(rule)}


class AlertDeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = AlertDelivery
        fields = ["channel", "address", "status", "attempts", "error", "sent_at"]


class AlertEventSerializer(serializers.ModelSerializer):
    deliveries = AlertDeliverySerializer(many=True, read_only=True)
    evidence = serializers.JSONField(help_text="The figures behind the message.")
    project_name = serializers.CharField(
        source="project.name", default=None, allow_null=True, read_only=True
    )
    instance_name = serializers.CharField(
        source="instance.name", default=None, allow_null=True, read_only=True
    )
    instance_provider_id = serializers.CharField(
        source="instance.provider_id",
        default=None,
        allow_null=True,
        read_only=True,
        help_text="e.g. ins-9bxebleo",
    )
    imported = serializers.BooleanField(
        read_only=True,
        help_text="About history a backfill imported: sent to nobody, reported by `summary`.",
    )
    summary: serializers.PrimaryKeyRelatedField[AlertEvent] = serializers.PrimaryKeyRelatedField(
        read_only=True,
        allow_null=True,
        help_text="The alert (kind history) that reported this imported one, if any.",
    )

    def to_representation(self, instance: AlertEvent) -> dict:
        data = super().to_representation(instance)
        if not translation.get_language().startswith("en"):
            # The stored words are English (the history, the webhook); a reader of another
            # language reads them rendered again from the figures (``wording``).
            data["title"], data["message"] = localized_wording(instance)
        return data

    class Meta:
        model = AlertEvent
        fields = [
            "id",
            "kind",
            "severity",
            "title",
            "message",
            "budget",
            "rule",
            "project",
            "project_name",
            "instance",
            "instance_name",
            "instance_provider_id",
            "evidence",
            "started_at",
            "resolved_at",
            "recovery_of",
            "imported",
            "summary",
            "deliveries",
        ]


class AlertQuerySerializer(StrictSerializer):
    kind = serializers.ListField(
        child=serializers.ChoiceField(choices=AlertKind.choices), required=False
    )
    severity = serializers.ListField(
        child=serializers.ChoiceField(choices=Severity.choices), required=False
    )
    project = serializers.IntegerField(required=False, min_value=1)
    instance = serializers.IntegerField(required=False, min_value=1)
    budget = serializers.IntegerField(required=False, min_value=1)
    open = serializers.BooleanField(required=False, help_text="Only threshold alerts still open.")
    delivery_status = serializers.ChoiceField(
        choices=DeliveryStatus.choices,
        required=False,
        help_text="Alerts with a delivery in this state (failed: a bad address, a dead webhook).",
    )
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)
    page = serializers.IntegerField(required=False, min_value=1)
    page_size = serializers.IntegerField(required=False, min_value=1)


class AlertRecipientSerializer(_OrganizationProjects, StrictModelSerializer):
    project = serializers.PrimaryKeyRelatedField(
        queryset=Project.objects.none(),
        allow_null=True,
        required=False,
        help_text="Empty: alerts of every project.",
    )
    email = serializers.EmailField(
        write_only=True, required=False, help_text="A member to tell (instead of a role)."
    )
    user_email = serializers.SerializerMethodField()

    # validate() below, stated for the schema (apps/api/schema.py): a role, or a member's e-mail.
    request_schema_extra: ClassVar[dict[str, Any]] = {
        "oneOf": [
            {
                "required": ["role"],
                "properties": {"role": {"minLength": 1}},
                "not": {"required": ["email"]},
            },
            {"required": ["email"], "properties": {"role": {"maxLength": 0}}},
        ]
    }

    class Meta:
        model = AlertRecipient
        fields = ["id", "role", "email", "user_email", "project", "created_at"]
        read_only_fields = ["id", "user_email", "created_at"]

    def get_user_email(self, row: AlertRecipient) -> str | None:
        return row.user.email if row.user_id and row.user is not None else None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        role, email = attrs.get("role", ""), attrs.pop("email", None)
        if bool(role) == bool(email):
            raise serializers.ValidationError({"role": ["Give either a role or an email."]})
        if email:
            view = self.context["view"]
            membership = (
                Membership.objects.for_organization(view.tenant.organization)
                .filter(user__email__iexact=email)
                .select_related("user")
                .first()
            )
            if membership is None:
                raise serializers.ValidationError({"email": ["Not a member of this organization."]})
            attrs["user"] = membership.user
        return attrs


class AlertSettingsSerializer(StrictSerializer):
    webhook_url = serializers.URLField(allow_blank=True, required=False)
    webhook_secret = serializers.CharField(
        write_only=True,
        required=False,
        min_length=16,
        max_length=200,
        help_text="HMAC-SHA256 key for the X-GPU-Ledger-Signature header; write-only.",
    )
    webhook_secret_set = serializers.BooleanField(read_only=True)
    webhook_enabled = serializers.BooleanField(required=False)
    anomaly_k = serializers.FloatField(required=False, min_value=0, max_value=100)
    anomaly_min_amount = serializers.DecimalField(
        max_digits=12, decimal_places=2, required=False, min_value=0
    )
    anomaly_min_idle_gpu_hours = serializers.FloatField(required=False, min_value=0)
    anomaly_mad_floor_pct = serializers.FloatField(
        required=False,
        min_value=0,
        max_value=100,
        help_text="The MAD used is at least this percentage of the baseline's median.",
    )
    anomaly_mad_floor_amount = serializers.DecimalField(
        max_digits=12,
        decimal_places=2,
        required=False,
        min_value=0,
        help_text="The spend MAD used is at least this much (organization currency).",
    )
    anomaly_mad_floor_idle_gpu_hours = serializers.FloatField(
        required=False, min_value=0, help_text="The idle GPU-hours MAD used is at least this."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        settings = self.context.get("settings")
        enabled = attrs.get("webhook_enabled", getattr(settings, "webhook_enabled", False))
        url = attrs.get("webhook_url", getattr(settings, "webhook_url", ""))
        has_secret = "webhook_secret" in attrs or bool(
            getattr(settings, "webhook_secret_encrypted", "")
        )
        if enabled and not url:
            raise serializers.ValidationError({"webhook_url": ["Needed to enable the webhook."]})
        if enabled and not has_secret:
            raise serializers.ValidationError(
                {"webhook_secret": ["Needed to enable the webhook (it signs each message)."]}
            )
        return attrs

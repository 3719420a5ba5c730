"""Typed serializers of the digests API (drf-spectacular describes every field from them)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.serializers import LocalTimeField, StrictModelSerializer
from apps.cloud.models import Project
from apps.digests.models import DigestDelivery, DigestSubscription, Holiday


class DigestDeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = DigestDelivery
        fields = [
            "id",
            "period_start",
            "period_end",
            "scheduled_for",
            "recipient",
            "status",
            "attempts",
            "sent_at",
            "message_id",
            "error",
        ]
        read_only_fields = fields


class DigestSubscriptionSerializer(StrictModelSerializer):
    """A person's own digest. ``projects`` empty: the whole organization."""

    projects = serializers.PrimaryKeyRelatedField(
        many=True, queryset=Project.objects.none(), required=False
    )
    send_time = LocalTimeField(
        required=False,
        help_text="When it is sent: a time of day (HH:MM[:SS]) in effective_timezone.",
    )
    effective_timezone = serializers.CharField(read_only=True)
    last_delivery = serializers.SerializerMethodField()

    class Meta:
        model = DigestSubscription
        fields = [
            "id",
            "frequency",
            "weekday",
            "day_of_month",
            "send_time",
            "timezone",
            "effective_timezone",
            "projects",
            "workdays_only",
            "is_active",
            "next_send_at",
            "unsubscribed_at",
            "last_delivery",
        ]
        read_only_fields = ["id", "next_send_at", "unsubscribed_at", "effective_timezone"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        organization = self.context.get("organization")
        # Only the organization's projects can be chosen: another's id is "does not exist".
        field = self.fields["projects"]
        field.child_relation.queryset = (  # type: ignore[attr-defined]
            Project.objects.for_organization(organization)
            if organization
            else Project.objects.none()
        )

    @extend_schema_field(DigestDeliverySerializer(allow_null=True))
    def get_last_delivery(self, subscription: DigestSubscription) -> dict[str, Any] | None:
        # Permanent failures (a bad address) show here, in the person's settings. Listed
        # subscriptions come with their recent deliveries (see ``subscriptions_of``).
        recent = getattr(subscription, "recent_deliveries", None)
        if recent is not None:
            delivery = recent[0] if recent else None
        else:
            delivery = subscription.deliveries.order_by("-period_start", "-id").first()
        return DigestDeliverySerializer(delivery).data if delivery else None


class DigestPreviewSerializer(serializers.Serializer):
    subject = serializers.CharField()
    html = serializers.CharField()
    text = serializers.CharField()
    period_start = serializers.DateTimeField()
    period_end = serializers.DateTimeField()
    images = serializers.DictField(
        child=serializers.CharField(), help_text="Content-ID -> PNG as a data: URL."
    )


class HolidaySerializer(StrictModelSerializer):
    class Meta:
        model = Holiday
        fields = ["id", "date", "name"]
        read_only_fields = ["id"]


class UnsubscribeSerializer(serializers.Serializer):
    unsubscribed = serializers.BooleanField()

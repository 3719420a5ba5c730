"""Operators see each digest's deliveries (Message-ID or error) and can find a subscriber."""

from django.contrib import admin

from apps.digests.models import DigestDelivery, DigestSubscription, Holiday


@admin.register(DigestSubscription)
class DigestSubscriptionAdmin(admin.ModelAdmin):
    list_display = ["user", "organization", "frequency", "timezone", "is_active", "next_send_at"]
    list_filter = ["frequency", "is_active"]
    search_fields = ["user__email", "organization__name"]


@admin.register(DigestDelivery)
class DigestDeliveryAdmin(admin.ModelAdmin):
    list_display = ["recipient", "period_start", "status", "attempts", "sent_at", "message_id"]
    list_filter = ["status"]
    search_fields = ["recipient", "message_id"]
    readonly_fields = [field.name for field in DigestDelivery._meta.fields]


@admin.register(Holiday)
class HolidayAdmin(admin.ModelAdmin):
    list_display = ["date", "name", "organization"]

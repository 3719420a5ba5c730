from django.contrib import admin

from apps.automation.models import AutomationAction, AutomationPlan, AutomationSettings


@admin.register(AutomationSettings)
class AutomationSettingsAdmin(admin.ModelAdmin):
    list_display = ["organization", "paused", "updated_at"]


@admin.register(AutomationPlan)
class AutomationPlanAdmin(admin.ModelAdmin):
    list_display = ["id", "organization", "recommendation", "kind", "status", "created_at"]
    list_filter = ["status", "kind"]


@admin.register(AutomationAction)
class AutomationActionAdmin(admin.ModelAdmin):
    list_display = ["id", "plan", "instance", "kind", "due_at", "status", "reason", "attempts"]
    list_filter = ["status", "kind"]
    readonly_fields = ["client_token", "request_id"]

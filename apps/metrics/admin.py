"""Read-only admin views of the rollups (raw days are bytes, not something to edit by hand)."""

from django.contrib import admin

from apps.metrics.models import InstanceDayRollup, InstanceHourRollup, ProjectDayRollup


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(InstanceHourRollup)
class InstanceHourRollupAdmin(ReadOnlyAdmin):
    list_display = ["instance", "hour_start", "gpu_util_pct_avg", "gpu_util_pct_p95", "gpu_hours"]
    list_filter = ["organization"]
    date_hierarchy = "hour_start"
    raw_id_fields = ["instance", "organization"]


@admin.register(InstanceDayRollup)
class InstanceDayRollupAdmin(ReadOnlyAdmin):
    list_display = ["instance", "day", "gpu_util_pct_avg", "gpu_util_pct_p95", "gpu_hours"]
    list_filter = ["organization"]
    date_hierarchy = "day"
    raw_id_fields = ["instance", "organization", "project"]


@admin.register(ProjectDayRollup)
class ProjectDayRollupAdmin(ReadOnlyAdmin):
    list_display = ["project", "day", "instance_count", "gpu_hours", "gpu_util_pct_avg"]
    list_filter = ["organization"]
    date_hierarchy = "day"
    raw_id_fields = ["project", "organization"]

"""Admin views of the analysis: settings are editable, results are read-only (recomputable)."""

from django.contrib import admin

from apps.analysis.models import AnalysisSettings, AnalysisState, InstanceProfile


@admin.register(AnalysisSettings)
class AnalysisSettingsAdmin(admin.ModelAdmin):
    list_display = ["organization", "updated_at"]
    raw_id_fields = ["organization"]


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(InstanceProfile)
class InstanceProfileAdmin(ReadOnlyAdmin):
    list_display = ["instance", "tz", "has_off_window", "off_window_weekly_hours", "computed_at"]
    list_filter = ["organization", "has_off_window"]
    raw_id_fields = ["instance", "organization"]


@admin.register(AnalysisState)
class AnalysisStateAdmin(ReadOnlyAdmin):
    list_display = ["instance", "analysed_until", "data_checked_at"]
    raw_id_fields = ["instance"]

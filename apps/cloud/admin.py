from django.contrib import admin

from apps.cloud.models import CloudAccount, Instance, Project, SyncState


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "organization", "created_at"]
    search_fields = ["name"]


@admin.register(Instance)
class InstanceAdmin(admin.ModelAdmin):
    list_display = [
        "provider_id",
        "name",
        "organization",
        "instance_type",
        "charge_type",
        "state",
        "project",
    ]
    list_filter = ["charge_type", "state", "region"]
    search_fields = ["provider_id", "name"]


class SyncStateInline(admin.TabularInline):
    model = SyncState
    extra = 0
    readonly_fields = [
        "kind",
        "next_run_at",
        "leased_until",
        "last_started_at",
        "last_success_at",
        "last_error",
    ]
    exclude = ["progress"]


@admin.register(CloudAccount)
class CloudAccountAdmin(admin.ModelAdmin):
    list_display = ["name", "organization", "site", "status", "created_at"]
    list_filter = ["status", "site"]
    # The encrypted SecretKey never appears here: it is changed through the API only.
    exclude = ["secret_key_encrypted"]
    readonly_fields = ["status", "last_error", "last_error_at"]
    inlines = [SyncStateInline]

from django.contrib import admin

from apps.cloud.models import Instance, Project


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "organization", "created_at"]
    search_fields = ["name"]


@admin.register(Instance)
class InstanceAdmin(admin.ModelAdmin):
    list_display = ["provider_id", "name", "organization", "instance_type", "charge_type", "state", "project"]
    list_filter = ["charge_type", "state", "region"]
    search_fields = ["provider_id", "name"]

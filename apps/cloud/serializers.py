"""API representations of cloud inventory. The SecretKey is write-only, never returned."""

from __future__ import annotations

from rest_framework import serializers

from apps.api.serializers import StrictModelSerializer
from apps.cloud.models import CloudAccount, Instance, Project, ProjectTagKey, SyncState


class SyncStateSerializer(serializers.ModelSerializer):
    class Meta:
        model = SyncState
        fields = ["kind", "last_success_at", "next_run_at", "last_error"]


class CloudAccountSerializer(StrictModelSerializer):
    secret_key = serializers.CharField(
        write_only=True, trim_whitespace=False, style={"input_type": "password"}
    )
    regions = serializers.ListField(child=serializers.CharField(), allow_empty=False)
    sync = SyncStateSerializer(source="sync_states", many=True, read_only=True)

    class Meta:
        model = CloudAccount
        fields = [
            "id",
            "name",
            "provider",
            "secret_id",
            "secret_key",
            "regions",
            "site",
            "endpoint",
            "endpoint_scheme",
            "currency",
            "status",
            "last_error",
            "last_error_at",
            "sync",
            "created_at",
        ]
        read_only_fields = [
            "id",
            "provider",
            "currency",
            "status",
            "last_error",
            "last_error_at",
            "sync",
            "created_at",
        ]
        extra_kwargs = {"secret_key": {"write_only": True}}

    def get_fields(self) -> dict:
        fields = super().get_fields()
        if self.instance is not None and not isinstance(self.instance, list):
            # Updating: the key is optional (omitted means "keep the stored one").
            fields["secret_key"].required = False
        return fields


class ProjectSerializer(StrictModelSerializer):
    tag_values = serializers.ListField(child=serializers.CharField(max_length=255), required=False)

    class Meta:
        model = Project
        fields = ["id", "name", "slug", "tag_values"]
        read_only_fields = ["id", "slug"]


class ProjectTagKeySerializer(StrictModelSerializer):
    class Meta:
        model = ProjectTagKey
        fields = ["id", "key", "position"]
        read_only_fields = ["id"]


class InstanceSerializer(serializers.ModelSerializer):
    project: serializers.SlugRelatedField[Project] = serializers.SlugRelatedField(
        slug_field="name", read_only=True
    )

    class Meta:
        model = Instance
        fields = [
            "id",
            "provider_id",
            "name",
            "region",
            "zone",
            "instance_type",
            "gpu_model",
            "gpu_count",
            "gpu_memory_gb",
            "cpu_cores",
            "memory_gb",
            "charge_type",
            "state",
            "tags",
            "project",
            "launched_at",
            "expires_at",
            "terminated_at",
        ]

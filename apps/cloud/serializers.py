"""API representations of cloud inventory. The SecretKey is write-only, never returned."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.serializers import StatedCharField, StrictModelSerializer, StrictSerializer
from apps.cloud.models import (
    ENDPOINT_PATTERN,
    CloudAccount,
    Instance,
    Project,
    ProjectTagKey,
    SyncState,
    validate_endpoint,
)
from apps.cloud.regions import REGIONS
from apps.cloud.sync.progress import run_progress

# What the services check (apps/cloud/services.py, apps/cloud/models.py), stated for the schema.
_NO_SPACES = r"^\S+$"  # _validate_secret: "Must not contain spaces."


def _secret_field(**kwargs: Any) -> StatedCharField:
    return StatedCharField(schema={"pattern": _NO_SPACES}, trim_whitespace=False, **kwargs)


def _regions_field() -> serializers.ListField:
    # The model's validator names the unknown ones; the schema lists the known ones.
    region = StatedCharField(schema={"enum": sorted(REGIONS)})
    return serializers.ListField(child=region, allow_empty=False)


def _endpoint_field(**kwargs: Any) -> StatedCharField:
    return StatedCharField(
        schema={"pattern": ENDPOINT_PATTERN},
        max_length=260,
        required=False,
        allow_blank=True,
        trim_whitespace=False,  # "a:1\n" is refused, as the pattern says, not trimmed
        validators=[validate_endpoint],
        help_text="host:port that every service is sent to instead of *.tencentcloudapi.com; "
        "it must not resolve to a loopback, private, link-local or metadata address.",
        **kwargs,
    )


class SyncRunSerializer(serializers.Serializer):
    """The last (or current) run of one kind of sync, saved every few seconds while it runs."""

    state = serializers.ChoiceField(
        choices=["running", "retrying", "done", "failed"],
        help_text="retrying: stopped by a transient cloud error, the worker tries again soon.",
    )
    done = serializers.IntegerField(help_text="Units done (metrics: GetMonitorData requests).")
    planned = serializers.IntegerField(
        allow_null=True, help_text="Units planned; null while unknown (the bar is indeterminate)."
    )
    started_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    summary = serializers.CharField(help_text="What the run did, or why it failed.")


class SyncStateSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = SyncState
        fields = ["kind", "last_success_at", "next_run_at", "last_error", "progress"]

    @extend_schema_field(SyncRunSerializer(allow_null=True))
    def get_progress(self, state: SyncState) -> dict[str, Any] | None:
        return run_progress(state)


class ConnectionTestSerializer(StrictSerializer):
    """The connection fields of the cloud-account form (``name`` is accepted and ignored, so
    the form can send what it has)."""

    name = serializers.CharField(max_length=100, required=False)
    secret_id = _secret_field(max_length=128)
    secret_key = _secret_field(style={"input_type": "password"})
    regions = _regions_field()
    site = serializers.ChoiceField(
        choices=CloudAccount.Site.choices, default=CloudAccount.Site.CHINA
    )
    endpoint = _endpoint_field(default="")
    endpoint_scheme = serializers.ChoiceField(
        choices=CloudAccount.Scheme.choices, default=CloudAccount.Scheme.HTTPS
    )


class ConnectionTestResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    code = serializers.CharField(help_text="Tencent Cloud's error code; empty when ok.")
    message = serializers.CharField()
    checked = serializers.ListField(
        child=serializers.CharField(), help_text="The API calls that were made, in order."
    )


class WriteCredentialSerializer(StrictSerializer):
    """A write key for automation; tested with StopInstances/StartInstances before saving."""

    secret_id = _secret_field(max_length=128)
    secret_key = _secret_field(write_only=True, style={"input_type": "password"})
    automation_tag = serializers.CharField(
        max_length=255,
        required=False,
        allow_blank=True,
        help_text="key=value: the tag the key's CAM policy is limited to (qcs:resource_tag).",
    )


class CloudAccountSerializer(StrictModelSerializer):
    secret_id = _secret_field(max_length=128)
    secret_key = _secret_field(write_only=True, style={"input_type": "password"})
    regions = _regions_field()
    endpoint = _endpoint_field()
    sync = SyncStateSerializer(source="sync_states", many=True, read_only=True)
    has_write_credential = serializers.BooleanField(
        read_only=True, help_text="Whether a write key (StopInstances/StartInstances) is stored."
    )
    write_secret_id = serializers.CharField(
        read_only=True,
        help_text="SecretId of the write key; blank without one. Its SecretKey is never returned.",
    )
    automation_enabled = serializers.BooleanField(
        required=False,
        help_text="Whether GPU Ledger may carry out accepted recommendations on this account. "
        "Turning it on needs a write key (400, code read_only_credential, otherwise).",
    )
    automation_tag = serializers.CharField(
        read_only=True,
        help_text="key=value: the tag the write key's CAM policy limits it to; blank for none.",
    )

    class Meta:
        model = CloudAccount
        fields = [
            "id",
            "name",
            "provider",
            "secret_id",
            "secret_key",
            "has_write_credential",
            "write_secret_id",
            "automation_enabled",
            "automation_tag",
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


# Django's validate_unicode_slug is ^[-\w]+\Z with Python's Unicode \w: letters and digits of
# any script and "_". drf-spectacular stated it as ^[-\w]+$, which JSON Schema (ECMA 262)
# reads as ASCII-only, so a project named from a tag like "项目a" broke the schema. Unicode
# property escapes (\p{L}) are no cure: validators differ on them (schemathesis narrows \p{L}
# to Latin letters). So the pattern agrees with the validator exactly on ASCII (letters,
# digits, "_" and "-" only) and admits any non-space character beyond it: every slug the model
# accepts matches (tests/api/test_contract.py checks both halves).
UNICODE_SLUG_PATTERN = r"^[^\s\x00-\x2c\x2e\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]+$"


@extend_schema_field({"type": "string", "pattern": UNICODE_SLUG_PATTERN})
class UnicodeSlugField(serializers.CharField):
    """A unicode slug (read as is); the schema's pattern matches the model's validator."""


class ProjectSerializer(StrictModelSerializer):
    tag_values = serializers.ListField(child=serializers.CharField(max_length=255), required=False)
    slug = UnicodeSlugField(read_only=True)

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
        slug_field="name",
        read_only=True,
        allow_null=True,
        help_text="The project's name; null while the instance is unallocated.",
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

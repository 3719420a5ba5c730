"""The ingest batch's shape and bounds. Every value a card lacks is null (or absent), never 0."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils.dateparse import parse_datetime
from rest_framework import serializers

from apps.api.serializers import StrictSerializer
from apps.metrics.agent.models import WorkCounterSource

# A minute's batch of an 8-card instance sampled every 10 s is 48 samples; a backlog is
# sent batch by batch. The bounds keep one request's work (and its transaction) small.
MAX_SAMPLES = 2_000
MAX_COUNTERS = 2_000
MAX_PROCESSES = 256
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_GPU_INDEX = 63
# An agent's clock may run a little ahead of ours; further ahead is a broken clock.
MAX_CLOCK_AHEAD = dt.timedelta(minutes=10)


class AwareDateTimeField(serializers.DateTimeField):
    """ISO 8601 with a zone (``Z`` or ``+08:00``): a point's time is its identity, so it is
    never guessed in some local zone."""

    def to_internal_value(self, value: Any) -> dt.datetime:
        parsed = parse_datetime(value) if isinstance(value, str) else None
        if parsed is None or parsed.tzinfo is None:
            self.fail("invalid", format="ISO 8601 with a time zone, e.g. 2026-12-02T08:00:10Z")
        return super().to_internal_value(value)


def _measure(
    min_value: float | None = None, max_value: float | None = None
) -> serializers.FloatField:
    return serializers.FloatField(
        required=False, allow_null=True, default=None, min_value=min_value, max_value=max_value
    )


class ProcessSerializer(StrictSerializer):
    pid = serializers.IntegerField(min_value=0, max_value=2**31 - 1)
    used_mem_mb = serializers.IntegerField(
        min_value=0, allow_null=True, required=False, default=None
    )


class GpuSampleSerializer(StrictSerializer):
    """One card at one moment, as the agent read it from nvidia-smi."""

    index = serializers.IntegerField(min_value=0, max_value=MAX_GPU_INDEX)
    sampled_at = AwareDateTimeField()
    uuid = serializers.CharField(max_length=64, required=False, allow_null=True, allow_blank=True)
    name = serializers.CharField(max_length=64, required=False, allow_null=True, allow_blank=True)
    util_pct = _measure(min_value=0, max_value=100)
    mem_used_mb = _measure(min_value=0)
    mem_total_mb = _measure(min_value=0)
    power_w = _measure(min_value=0)
    power_limit_w = _measure(min_value=0)
    sm_clock_mhz = _measure(min_value=0)
    throttle_reasons = serializers.IntegerField(
        min_value=0, max_value=2**63 - 1, required=False, allow_null=True, default=None
    )
    temp_c = _measure(min_value=-50, max_value=150)
    processes: serializers.ListSerializer = serializers.ListSerializer(
        child=ProcessSerializer(),
        required=False,
        allow_null=True,
        default=None,
        max_length=MAX_PROCESSES,
    )


class WorkCounterSerializer(StrictSerializer):
    """A cumulative counter: never lower than its value at an earlier time."""

    # (Field.source is an attribute of every field; a declared field of this name is fine.)
    source = serializers.ChoiceField(choices=WorkCounterSource.choices)  # type: ignore[assignment]
    name = serializers.RegexField(r"^[a-z][a-z0-9_]{0,47}$", max_length=48)
    sampled_at = AwareDateTimeField()
    value = serializers.FloatField(min_value=0)


class IngestBatchSerializer(StrictSerializer):
    instance_id = serializers.RegexField(
        r"^ins-[a-z0-9]{1,60}$", max_length=64, help_text="The Tencent CVM id, ins-..."
    )
    agent_version = serializers.CharField(max_length=32, required=False, allow_blank=True)
    samples: serializers.ListSerializer = serializers.ListSerializer(
        child=GpuSampleSerializer(), required=False, default=list, max_length=MAX_SAMPLES
    )
    counters: serializers.ListSerializer = serializers.ListSerializer(
        child=WorkCounterSerializer(), required=False, default=list, max_length=MAX_COUNTERS
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        now = self.context["now"]
        oldest = now - dt.timedelta(days=self.context["retention_days"])
        errors: dict[str, list[str]] = {}
        for kind, key_fields in (("samples", ("index",)), ("counters", ("source", "name"))):
            first_of: dict[tuple[Any, ...], int] = {}
            for position, point in enumerate(attrs[kind]):
                where = f"{kind}[{position}]"
                if not oldest <= point["sampled_at"] <= now + MAX_CLOCK_AHEAD:
                    errors[f"{where}.sampled_at"] = [
                        f"{point['sampled_at'].isoformat()} is outside what is stored "
                        f"(the last {self.context['retention_days']} days, up to now)."
                    ]
                key = (*(point[f] for f in key_fields), point["sampled_at"])
                if key in first_of:
                    errors[where] = [f"The same point as {kind}[{first_of[key]}]."]
                first_of.setdefault(key, position)
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


def flat_errors(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """Nested serializer errors as one list per field path, e.g. ``samples[3].util_pct``."""
    if isinstance(detail, str):
        return {prefix: [str(detail)]}
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            # A list's errors come keyed by the position of each bad item.
            if isinstance(key, int) or str(key).isdigit():
                path = f"{prefix}[{key}]"
            else:
                path = key if not prefix else f"{prefix}.{key}"
            if key == "non_field_errors":
                path = prefix or key
            flat.update(flat_errors(value, path))
        return flat
    if isinstance(detail, list) and any(isinstance(item, (dict, list)) for item in detail):
        flat = {}
        for position, item in enumerate(detail):
            flat.update(flat_errors(item, f"{prefix}[{position}]"))
        return flat
    return {prefix: [str(message) for message in detail]} if detail else {}

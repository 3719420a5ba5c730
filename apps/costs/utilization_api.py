"""``GET /api/v1/utilization`` and ``GET /api/v1/instances/{id}/timeseries``.

``instances/{id}/phases`` (the analysis app) already serves an instance's phase segments and
per-phase money; the time series here serves what it does not: the utilization curve itself.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.analysis.models import PHASE_KEYS, phase_key
from apps.analysis.serializers import (
    NO_DATA_HELP,
    NoDataSerializer,
    PeriodQuerySerializer,
    no_data_json,
)
from apps.api.conditional import ConditionalGetMixin
from apps.api.serializers import StrictSerializer
from apps.api.views import OrganizationAPIView
from apps.cloud.models import Instance
from apps.core.timegrid import floor_hour
from apps.costs import selectors, utilization
from apps.costs.serializers import project_id_of

MAX_UTILIZATION_DAYS = 93
UNALLOCATED = "Unallocated"
RESOLUTIONS = ("auto", "minute", "hour", "day")


class UtilizationQuerySerializer(StrictSerializer):
    start = serializers.DateField(required=False, help_text="First local day; default: 7 days ago.")
    end = serializers.DateField(
        required=False, help_text="Last local day, inclusive; default: today."
    )
    scope = serializers.ChoiceField(choices=list(utilization.SCOPES), required=False)
    project = serializers.CharField(
        required=False, help_text="Only this project's instances (slug)."
    )

    def __init__(self, *args: Any, today: dt.date | None = None, **kwargs: Any) -> None:
        # ``today`` is optional only so that the schema generator can instantiate it.
        super().__init__(*args, **kwargs)
        self.today = today or timezone.now().date()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        end = attrs.get("end", self.today)
        start = attrs.get("start", end - dt.timedelta(days=6))
        if end < start:
            raise serializers.ValidationError({"end": ["Must not be before start."]})
        if (end - start).days + 1 > MAX_UTILIZATION_DAYS:
            raise serializers.ValidationError(
                {"end": [f"The period may be at most {MAX_UTILIZATION_DAYS} days."]}
            )
        return {**attrs, "start": start, "end": end}


class PhaseUsageSerializer(serializers.Serializer):
    phase = serializers.ChoiceField(choices=list(PHASE_KEYS))
    minutes = serializers.IntegerField()
    gpu_hours = serializers.CharField(help_text="Decimal string.")
    cost = serializers.CharField(help_text="Decimal string (cents).")


class UsageSerializer(serializers.Serializer):
    key = serializers.CharField(
        allow_null=True,
        help_text="project: slug (null: unallocated); instance: id; fleet: null.",
    )
    label = serializers.CharField()  # type: ignore[assignment]
    instance_count = serializers.IntegerField()
    gpu_hours = serializers.FloatField(help_text="Cards x hours with a utilization point.")
    gpu_busy_hours = serializers.FloatField()
    gpu_util_avg_pct = serializers.FloatField(
        allow_null=True, help_text="gpu_busy_hours / gpu_hours x 100 (card-weighted)."
    )
    gpu_util_p95_pct = serializers.FloatField(
        allow_null=True, help_text="95th percentile of the instance-hours' mean utilization."
    )
    cost = serializers.CharField(help_text="Billed (or list-priced) money, decimal string.")
    currency = serializers.CharField()
    phases = PhaseUsageSerializer(many=True)
    no_data = NoDataSerializer(many=True, help_text=NO_DATA_HELP)


class UtilizationSerializer(serializers.Serializer):
    start = serializers.DateField()
    end = serializers.DateField()
    scope = serializers.ChoiceField(choices=list(utilization.SCOPES))
    total = UsageSerializer()
    groups = UsageSerializer(many=True, help_text="One per project or instance; empty for fleet.")


def _usage_json(item: utilization.Usage, key: str | None, label: str) -> dict[str, Any]:
    return {
        "key": key,
        "label": label,
        "instance_count": len(item.instance_ids),
        "gpu_hours": item.gpu_hours,
        "gpu_busy_hours": item.gpu_busy_hours,
        "gpu_util_avg_pct": item.gpu_util_avg_pct,
        "gpu_util_p95_pct": item.gpu_util_p95_pct,
        "cost": f"{item.cost:.2f}",
        "currency": item.currency,
        "phases": [
            {
                "phase": phase_key(phase),
                "minutes": figures.minutes,
                "gpu_hours": str(figures.gpu_hours),
                "cost": f"{figures.cost:.2f}",
            }
            for phase, figures in sorted(item.by_phase.items())
        ],
        "no_data": no_data_json(item.no_data),
    }


class UtilizationView(ConditionalGetMixin, OrganizationAPIView):
    """GPU-hours, mean and p95 utilization, and GPU-hours and money per phase."""

    @extend_schema(
        parameters=[UtilizationQuerySerializer],
        responses={200: UtilizationSerializer, 400: OpenApiResponse(description="Bad parameter.")},
    )
    def get(self, request: Request) -> Response:
        organization = self.tenant.organization
        tz = zoneinfo.ZoneInfo(organization.timezone)
        query = UtilizationQuerySerializer(
            data=request.query_params.dict(), today=timezone.now().astimezone(tz).date()
        )
        query.is_valid(raise_exception=True)
        params = query.validated_data
        project_id = project_id_of(organization, params.get("project"))
        scope = params.get("scope", "fleet")
        start = dt.datetime.combine(params["start"], dt.time(), tzinfo=tz)
        end = dt.datetime.combine(params["end"] + dt.timedelta(days=1), dt.time(), tzinfo=tz)
        total, groups = utilization.usage(
            organization=organization, scope=scope, start=start, end=end, project_id=project_id
        )
        projects, names = selectors.usage_group_labels(organization, scope, [g.key for g in groups])

        def group_json(item: utilization.Usage) -> dict[str, Any]:
            if scope == "project":
                key = projects.get(item.key or 0)
                label = names.get(item.key or 0, UNALLOCATED)
            else:
                key, label = str(item.key), names.get(item.key or 0, str(item.key))
            return _usage_json(item, key, label)

        return Response(
            {
                "start": params["start"],
                "end": params["end"],
                "scope": scope,
                "total": _usage_json(total, None, "Fleet"),
                "groups": [group_json(g) for g in groups],
            }
        )


class TimeseriesQuerySerializer(PeriodQuerySerializer):
    resolution = serializers.ChoiceField(choices=list(RESOLUTIONS), required=False)


class TimeseriesPointSerializer(serializers.Serializer):
    t = serializers.DateTimeField(help_text="Start of the minute, hour or UTC day.")
    gpu_util_pct = serializers.FloatField(allow_null=True, help_text="Value or average.")
    gpu_util_p95_pct = serializers.FloatField(allow_null=True, help_text="null at minutes.")
    gpu_util_max_pct = serializers.FloatField(allow_null=True, help_text="null at minutes.")
    gpu_mem_used_pct = serializers.FloatField(allow_null=True)
    cpu_util_pct = serializers.FloatField(allow_null=True)
    gpu_temp_c = serializers.FloatField(
        allow_null=True,
        help_text="GPU temperature in °C, mean of the cards (average at hours, days).",
    )
    observed_minutes = serializers.IntegerField(help_text="Minutes with a GPU utilization point.")


class TimeseriesSerializer(serializers.Serializer):
    instance_id = serializers.IntegerField()
    start = serializers.DateTimeField()
    end = serializers.DateTimeField()
    resolution = serializers.ChoiceField(choices=["minute", "hour", "day"])
    max_points = serializers.IntegerField()
    points = TimeseriesPointSerializer(many=True, help_text="Only where something was observed.")


class InstanceTimeseriesView(ConditionalGetMixin, OrganizationAPIView):
    """One instance's utilization curve at 1-minute, hourly or daily resolution."""

    @extend_schema(
        parameters=[
            OpenApiParameter("start", str, description="ISO date or date-time; default: 24 h ago"),
            OpenApiParameter("end", str, description="ISO date or date-time, exclusive"),
            OpenApiParameter(
                "resolution",
                str,
                enum=list(RESOLUTIONS),
                description=f"auto (default): the finest with at most {utilization.MAX_POINTS} "
                "points (minute up to 25 h, hour up to 62 days, else day).",
            ),
        ],
        responses={
            200: TimeseriesSerializer,
            400: OpenApiResponse(description="Bad parameter."),
            404: OpenApiResponse(description="No such instance in the organization."),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        organization = self.tenant.organization
        instance = get_object_or_404(Instance.objects.for_organization(organization), pk=pk)
        query = TimeseriesQuerySerializer(
            data=request.query_params.dict(),
            tz=organization.timezone,
            now=timezone.now(),
            default_days=1,
            max_days=3 * 366,
        )
        query.is_valid(raise_exception=True)
        start, end = query.validated_data["start"], query.validated_data["end"]
        resolution = query.validated_data.get("resolution", "auto")
        if resolution == "auto":
            resolution = utilization.resolution_for(start, end)
        elif utilization.point_count(start, end, resolution) > utilization.MAX_POINTS:
            raise serializers.ValidationError(
                {
                    "resolution": [
                        f"{resolution} over this range is more than {utilization.MAX_POINTS} "
                        "points: choose a coarser one or a shorter range."
                    ]
                }
            )
        if resolution == "hour":
            start = floor_hour(start)
        return Response(
            {
                "instance_id": instance.pk,
                "start": start,
                "end": end,
                "resolution": resolution,
                "max_points": utilization.MAX_POINTS,
                "points": utilization.timeseries(
                    instance=instance, start=start, end=end, resolution=resolution
                ),
            }
        )


class HourOfWeekQuerySerializer(UtilizationQuerySerializer):
    scope = None  # type: ignore[assignment]  # The fleet or one project: no grouping.


class HourOfWeekCellSerializer(serializers.Serializer):
    weekday = serializers.IntegerField(min_value=0, max_value=6, help_text="0 = Monday.")
    hour = serializers.IntegerField(
        min_value=0, max_value=23, help_text="Local hour (the organization's timezone)."
    )
    instance_hours = serializers.IntegerField(help_text="Hourly rollups summed in this cell.")
    gpu_hours = serializers.FloatField(help_text="Cards x hours with a utilization point.")
    gpu_busy_hours = serializers.FloatField()
    gpu_util_avg_pct = serializers.FloatField(
        allow_null=True, help_text="gpu_busy_hours / gpu_hours x 100; null without GPU-hours."
    )


class HourOfWeekSerializer(serializers.Serializer):
    start = serializers.DateField()
    end = serializers.DateField()
    timezone = serializers.CharField()
    project = serializers.CharField(allow_null=True, help_text="The project's slug, or null.")
    cells = HourOfWeekCellSerializer(
        many=True, help_text="Only cells with a rollup; Monday 00:00 first (at most 7 x 24)."
    )


class HourOfWeekView(ConditionalGetMixin, OrganizationAPIView):
    """GPU-hours and card-weighted utilization per local weekday and hour (a 7 x 24 heatmap)."""

    @extend_schema(
        parameters=[HourOfWeekQuerySerializer],
        responses={200: HourOfWeekSerializer, 400: OpenApiResponse(description="Bad parameter.")},
    )
    def get(self, request: Request) -> Response:
        organization = self.tenant.organization
        tz = zoneinfo.ZoneInfo(organization.timezone)
        query = HourOfWeekQuerySerializer(
            data=request.query_params.dict(), today=timezone.now().astimezone(tz).date()
        )
        query.is_valid(raise_exception=True)
        params = query.validated_data
        project_id = project_id_of(organization, params.get("project"))
        cells = utilization.hour_of_week(
            organization=organization,
            start=dt.datetime.combine(params["start"], dt.time(), tzinfo=tz),
            end=dt.datetime.combine(params["end"] + dt.timedelta(days=1), dt.time(), tzinfo=tz),
            project_id=project_id,
        )
        body = {
            "start": params["start"],
            "end": params["end"],
            "timezone": organization.timezone,
            "project": params.get("project"),
            "cells": [
                {
                    "weekday": cell.weekday,
                    "hour": cell.hour,
                    "instance_hours": cell.instance_hours,
                    "gpu_hours": cell.gpu_hours,
                    "gpu_busy_hours": cell.gpu_busy_hours,
                    "gpu_util_avg_pct": cell.gpu_util_avg_pct,
                }
                for cell in cells
            ],
        }
        return Response(HourOfWeekSerializer(body).data)

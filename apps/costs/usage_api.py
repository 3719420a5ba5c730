"""``GET /api/v1/usage/instances`` and ``GET /api/v1/usage/projects``: the dashboard's tables.

Thin adapters over ``apps.costs.usage``: the query string is validated strictly (a 400 names
the parameter), the rows come from the rollups, and the answer is shaped as the output
serializers below document it. Budgets are not joined here (costs may not import alerts): the
front-end reads ``/budgets`` beside this.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from decimal import Decimal
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.api.conditional import ConditionalGetMixin
from apps.api.pagination import PageNumberPagination
from apps.api.serializers import StrictSerializer
from apps.api.views import OrganizationAPIView
from apps.cloud.models import ChargeType
from apps.costs import usage
from apps.costs.bases import DEFAULT_BASIS
from apps.costs.serializers import MoneyField, basis_field, money, project_id_of

UNALLOCATED = "Unallocated"
_TAG = re.compile(r"^([^\s:,=]{1,127}):(.{1,255})$")
_PAGINATION = {"page", "page_size"}


class UsagePeriodSerializer(StrictSerializer):
    start = serializers.DateField(
        required=False, help_text=f"First local day; default: {usage.DEFAULT_DAYS - 1} days ago."
    )
    end = serializers.DateField(
        required=False, help_text="Last local day, inclusive; default: today (local)."
    )
    basis = basis_field(default=DEFAULT_BASIS)

    def __init__(self, *args: Any, today: dt.date | None = None, **kwargs: Any) -> None:
        # ``today`` is optional only so that the schema generator can instantiate it.
        super().__init__(*args, **kwargs)
        self.today = today or timezone.now().date()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        end = attrs.get("end", self.today)
        start = attrs.get("start", end - dt.timedelta(days=usage.DEFAULT_DAYS - 1))
        if end < start:
            raise serializers.ValidationError({"end": ["Must not be before start."]})
        if (end - start).days + 1 > usage.MAX_DAYS:
            raise serializers.ValidationError(
                {"end": [f"The period may be at most {usage.MAX_DAYS} days."]}
            )
        return {**attrs, "start": start, "end": end}


_ORDERING_CHOICES = [f"{sign}{name}" for name in usage.ORDERINGS for sign in ("", "-")]


class InstanceUsageQuerySerializer(UsagePeriodSerializer):
    project = serializers.CharField(required=False, help_text="Project slug.")
    tag = serializers.CharField(required=False, help_text="key:value, e.g. team:research.")
    instance_type = serializers.CharField(required=False)
    gpu_model = serializers.CharField(required=False)
    charge_type = serializers.ChoiceField(choices=ChargeType.values, required=False)
    state = serializers.CharField(required=False, help_text="e.g. RUNNING, STOPPED, TERMINATED.")
    region = serializers.CharField(required=False)
    util_min = serializers.FloatField(
        required=False, min_value=0, max_value=100, help_text="Lowest GPU util avg (%)."
    )
    util_max = serializers.FloatField(
        required=False, min_value=0, max_value=100, help_text="Highest GPU util avg (%)."
    )
    search = serializers.CharField(
        required=False, max_length=200, help_text="Part of the name or provider id."
    )
    ordering = serializers.ChoiceField(
        choices=_ORDERING_CHOICES,
        required=False,
        help_text="cost, waste, util or name; a leading - sorts descending. Default: -cost.",
    )

    def validate_tag(self, value: str) -> str:
        if not _TAG.match(value):
            raise serializers.ValidationError("Expected key:value.")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        low, high = attrs.get("util_min"), attrs.get("util_max")
        if low is not None and high is not None and high < low:
            raise serializers.ValidationError({"util_max": ["Must not be below util_min."]})
        return attrs


class ProjectRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class InstanceUsageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    provider_id = serializers.CharField()
    name = serializers.CharField()
    project = ProjectRefSerializer(allow_null=True)
    instance_type = serializers.CharField()
    gpu_model = serializers.CharField()
    gpu_count = serializers.FloatField()
    charge_type = serializers.CharField()
    state = serializers.CharField()
    region = serializers.CharField()
    tags = serializers.DictField(child=serializers.CharField())
    cost = MoneyField(help_text="Cost (RealCost) of the range on its basis, from the daily rollup.")
    waste = MoneyField(
        allow_null=True,
        help_text="Money of the idle phase (null for an instance without GPUs).",
    )
    gpu_util_avg_pct = serializers.FloatField(
        allow_null=True, help_text="Card-weighted mean GPU utilization (null: no data)."
    )
    gpu_hours = serializers.FloatField(help_text="Cards x hours with a utilization point.")
    util_daily = serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        help_text="GPU util avg per local day of `days` (null: no data that day).",
    )


class FacetsSerializer(serializers.Serializer):
    instance_type = serializers.ListField(child=serializers.CharField())
    gpu_model = serializers.ListField(child=serializers.CharField())
    charge_type = serializers.ListField(child=serializers.CharField())
    state = serializers.ListField(child=serializers.CharField())
    region = serializers.ListField(child=serializers.CharField())


class InstanceUsagePageSerializer(serializers.Serializer):
    basis = basis_field()
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    start = serializers.DateField()
    end = serializers.DateField()
    timezone = serializers.CharField()
    currency = serializers.CharField()
    ordering = serializers.CharField()
    days = serializers.ListField(child=serializers.DateField(), help_text="The range's days.")
    facets = FacetsSerializer(help_text="Values the filters offer (the organization's).")
    results = InstanceUsageSerializer(many=True)


def _today(tz: str) -> dt.date:
    return timezone.now().astimezone(zoneinfo.ZoneInfo(tz)).date()


def _period(attrs: dict[str, Any], tz: str) -> usage.Period:
    return usage.Period(
        start=attrs["start"],
        end=attrs["end"],
        tz=zoneinfo.ZoneInfo(tz),
        basis=attrs.get("basis", DEFAULT_BASIS),
    )


class InstanceUsageView(ConditionalGetMixin, OrganizationAPIView):
    """One row per instance of the range: cost, waste, GPU utilization and its daily line."""

    pagination_class = PageNumberPagination

    @extend_schema(
        parameters=[
            InstanceUsageQuerySerializer,
            OpenApiParameter(
                "page", {"type": "integer", "minimum": 1, "maximum": 10**9}, description="Page."
            ),
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1, "maximum": PageNumberPagination.max_page_size},
                description=f"Rows a page (default {PageNumberPagination.page_size}).",
            ),
        ],
        responses={
            200: InstanceUsagePageSerializer,
            400: OpenApiResponse(description="A parameter is invalid; the body names it."),
        },
    )
    def get(self, request: Request) -> Response:
        organization = self.tenant.organization
        params = {k: v for k, v in request.query_params.dict().items() if k not in _PAGINATION}
        query = InstanceUsageQuerySerializer(data=params, today=_today(organization.timezone))
        query.is_valid(raise_exception=True)
        attrs = query.validated_data
        project_id = project_id_of(organization, attrs.get("project"))
        tag = None
        if "tag" in attrs:
            key, value = attrs["tag"].split(":", 1)
            tag = (key, value)
        filters = usage.InstanceFilters(
            project_id=project_id,
            tag=tag,
            instance_type=attrs.get("instance_type"),
            gpu_model=attrs.get("gpu_model"),
            charge_type=attrs.get("charge_type"),
            state=attrs.get("state"),
            region=attrs.get("region"),
            util_min=attrs.get("util_min"),
            util_max=attrs.get("util_max"),
            search=attrs.get("search"),
        )
        ordering = attrs.get("ordering", "-cost")
        period = _period(attrs, organization.timezone)
        paginator = PageNumberPagination()
        rows: list[usage.InstanceRow]
        if ordering.lstrip("-") == "waste":
            every = usage.waste_ordered_rows(
                organization=organization,
                period=period,
                currency=organization.currency,
                filters=filters,
                ordering=ordering,
            )
            rows = paginator.paginate_queryset(every, request, view=self) or []
        else:
            instances = usage.sql_ordered(
                usage.filtered_instances(organization, period, organization.currency, filters),
                ordering,
            )
            page_of = paginator.paginate_queryset(instances, request, view=self) or []
            rows = usage.rows_for(organization, period, organization.currency, list(page_of))
        page = rows
        days = period.days
        response = paginator.get_paginated_response([_instance_json(row, days) for row in page])
        response.data = {
            "basis": period.basis,
            "count": response.data["count"],
            "next": response.data["next"],
            "previous": response.data["previous"],
            "start": period.start,
            "end": period.end,
            "timezone": organization.timezone,
            "currency": organization.currency,
            "ordering": ordering,
            "days": days,
            "facets": usage.facets(organization),
            "results": response.data["results"],
        }
        return response


def _instance_json(row: usage.InstanceRow, days: list[dt.date]) -> dict[str, Any]:
    i = row.instance
    return {
        "id": i.pk,
        "provider_id": i.provider_id,
        "name": i.name,
        "project": {"slug": i.project.slug, "name": i.project.name} if i.project else None,
        "instance_type": i.instance_type,
        "gpu_model": i.gpu_model,
        "gpu_count": i.gpu_count,
        "charge_type": i.charge_type,
        "state": i.state,
        "region": i.region,
        "tags": {str(k): str(v) for k, v in (i.tags or {}).items()},
        "cost": money(row.cost),
        "waste": None if row.waste is None else money(row.waste),
        "gpu_util_avg_pct": row.util_avg_pct,
        "gpu_hours": round(row.util.gpu_hours, 4),
        "util_daily": row.util.sparkline(days),
    }


class ProjectUsageSerializer(serializers.Serializer):
    slug = serializers.CharField(allow_null=True, help_text="null: the Unallocated row.")
    name = serializers.CharField()
    cost = MoneyField(help_text="Cost (on the basis) of the lines allocated to the project.")
    cost_daily = serializers.ListField(
        child=MoneyField(), help_text="Cost per local day of `days`."
    )
    gpu_hours = serializers.FloatField(help_text="Cards x hours with a utilization point.")
    gpu_util_avg_pct = serializers.FloatField(allow_null=True)
    waste = MoneyField(help_text="Money of the idle phase of the project's instances.")
    instance_count = serializers.IntegerField(help_text="GPU instances that existed in range.")


class ProjectUsageListSerializer(serializers.Serializer):
    basis = basis_field()
    start = serializers.DateField()
    end = serializers.DateField()
    timezone = serializers.CharField()
    currency = serializers.CharField()
    days = serializers.ListField(child=serializers.DateField())
    results = ProjectUsageSerializer(
        many=True, help_text="Projects by spend, then the Unallocated row (slug null)."
    )


class ProjectUsageView(ConditionalGetMixin, OrganizationAPIView):
    """Per project (and Unallocated): spend and its daily line, GPU-hours, util and waste."""

    @extend_schema(
        parameters=[UsagePeriodSerializer],
        responses={
            200: ProjectUsageListSerializer,
            400: OpenApiResponse(description="A parameter is invalid; the body names it."),
        },
    )
    def get(self, request: Request) -> Response:
        organization = self.tenant.organization
        query = UsagePeriodSerializer(
            data=request.query_params.dict(), today=_today(organization.timezone)
        )
        query.is_valid(raise_exception=True)
        period = _period(query.validated_data, organization.timezone)
        rows = usage.project_rows(
            organization=organization, period=period, currency=organization.currency
        )
        days = period.days
        return Response(
            {
                "basis": period.basis,
                "start": period.start,
                "end": period.end,
                "timezone": organization.timezone,
                "currency": organization.currency,
                "days": days,
                "results": [
                    {
                        "slug": row.project.slug if row.project else None,
                        "name": row.project.name if row.project else UNALLOCATED,
                        "cost": money(row.cost),
                        "cost_daily": [money(row.daily_cost.get(day, Decimal(0))) for day in days],
                        "gpu_hours": round(row.util.gpu_hours, 4),
                        "gpu_util_avg_pct": row.util.avg_pct,
                        "waste": money(row.waste),
                        "instance_count": row.instance_count,
                    }
                    for row in rows
                ],
            }
        )

"""Analysis endpoints: an instance's phases and profile, fleet/project summaries, settings.

Instance endpoints live under ``instances/<pk>/`` beside the cloud app's InstanceViewSet; they
look the instance up among the organization's instances first, so another organization's
instance is a 404 before anything is computed. Reads go through ``selectors``, writes through
``services``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.roles import MANAGER_ROLES
from apps.analysis import fleet_pricing, pricing, selectors, services, waste_days
from apps.analysis.fleet_waste import FleetWaste
from apps.analysis.no_data import NoData, no_data
from apps.analysis.serializers import (
    AnalysisSettingsSerializer,
    AnalysisSummarySerializer,
    InstancePhasesSerializer,
    InstanceProfileSerializer,
    PeriodQuerySerializer,
    SummaryQuerySerializer,
    evidence_summary_json,
    money,
    no_data_json,
    phase_figures_json,
    segment_json,
    unallocated_by_reason_json,
    waste_totals_json,
)
from apps.api.conditional import ConditionalGetMixin
from apps.api.views import OrganizationAPIView
from apps.cloud.models import Instance

UNALLOCATED = "Unallocated"
_PERIOD_PARAMS = [
    OpenApiParameter("start", str, description="ISO date or date-time (naive = org timezone)"),
    OpenApiParameter("end", str, description="ISO date or date-time, exclusive"),
]


class AnalysisAPIView(OrganizationAPIView):
    """What the analysis endpoints share: the instance of the URL and the period asked for."""

    def instance(self, pk: int) -> Instance:
        instances = selectors.organization_instances(organization=self.tenant.organization)
        return get_object_or_404(instances, pk=pk)

    def period(
        self, serializer_class: type[PeriodQuerySerializer], default_days: int, max_days: int
    ) -> dict[str, Any]:
        serializer = serializer_class(
            data=self.request.query_params.dict(),
            tz=self.tenant.organization.timezone,
            now=timezone.now(),
            default_days=default_days,
            max_days=max_days,
        )
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data


class InstancePhasesView(ConditionalGetMixin, AnalysisAPIView):
    """Phase segments of one instance and its GPU-hours and money per phase."""

    @extend_schema(parameters=_PERIOD_PARAMS, responses=InstancePhasesSerializer)
    def get(self, request: Request, pk: int) -> Response:
        instance = self.instance(pk)
        period = self.period(PeriodQuerySerializer, default_days=1, max_days=31)
        start, end = period["start"], period["end"]
        organization = self.tenant.organization
        (figures,) = pricing.instances_waste(
            instances=[instance], start=start, end=end, currency=organization.currency
        )
        priced = figures.cost_source != pricing.SOURCE_UNPRICED
        reasons = no_data(
            fleet=FleetWaste.of_items([figures]),
            start=start,
            end=end,
            states={instance.pk: instance.state},
        )
        segments = selectors.instance_segments(instance_id=instance.pk, start=start, end=end)
        return Response(
            InstancePhasesSerializer(
                {
                    "instance_id": instance.pk,
                    "start": start,
                    "end": end,
                    "currency": figures.currency,
                    "cost_source": figures.cost_source,
                    "cost": money(figures.total_cost) if priced else None,
                    "idle_cost": money(figures.idle_cost) if priced else None,
                    "data_bound_cost": money(figures.data_bound_cost) if priced else None,
                    "totals": phase_figures_json(figures.by_phase, priced=priced),
                    "no_data": no_data_json(reasons.sums(), priced=priced),
                    "evidence": evidence_summary_json(segments),
                    "segments": [segment_json(s) for s in segments],
                }
            ).data
        )


class InstanceProfileView(ConditionalGetMixin, AnalysisAPIView):
    """Hour-of-week profile (7 x 24, Monday first, local hours) and the off window, if any."""

    @extend_schema(responses=InstanceProfileSerializer)
    def get(self, request: Request, pk: int) -> Response:
        instance = self.instance(pk)
        profile = selectors.instance_profile(instance.pk)
        if profile is None:
            # Analysed hourly: a new instance simply has no profile yet; that is not an error.
            return Response(
                InstanceProfileSerializer(
                    {
                        "instance_id": instance.pk,
                        "analysed": False,
                        "tz": self.tenant.organization.timezone,
                        "start_at": None,
                        "end_at": None,
                        "computed_at": None,
                        "median_pct": None,
                        "p95_pct": None,
                        "coverage": None,
                        "off_window": None,
                        "low_around_the_clock": None,
                    }
                ).data
            )
        return Response(
            InstanceProfileSerializer(
                {
                    "instance_id": instance.pk,
                    "analysed": True,
                    "tz": profile.tz,
                    "start_at": profile.start_at,
                    "end_at": profile.end_at,
                    "computed_at": profile.computed_at,
                    "median_pct": profile.median_pct,
                    "p95_pct": profile.p95_pct,
                    "coverage": profile.coverage,
                    "off_window": profile.off_window,
                    # Idle in every observed hour: a finding of its own, never a week-long window.
                    "low_around_the_clock": profile.low_around_the_clock_detail,
                }
            ).data
        )


class AnalysisSummaryView(ConditionalGetMixin, AnalysisAPIView):
    """GPU-hours and money per phase for the fleet or per project (``Unallocated`` included)."""

    @extend_schema(
        parameters=[*_PERIOD_PARAMS, OpenApiParameter("group_by", str, enum=["fleet", "project"])],
        responses=AnalysisSummarySerializer,
    )
    def get(self, request: Request) -> Response:
        period = self.period(SummaryQuerySerializer, default_days=7, max_days=93)
        start, end = period["start"], period["end"]
        group_by = period.get("group_by", "fleet")
        organization = self.tenant.organization
        # Whole UTC days from the per-day sums the analysis keeps (waste_days); any other
        # period from the hourly phase minutes it stored, not per-minute labels rebuilt for the
        # whole fleet (the same figures; see fleet_pricing).
        rolled = waste_days.rolled_fleet(
            organization_id=organization.pk, start=start, end=end, currency=organization.currency
        )
        if rolled is not None:
            instances, fleet = rolled.instances, rolled.fleet
        else:
            instances = selectors.gpu_instance_rows_in_period(
                organization=organization, start=start, end=end
            )
            fleet = fleet_pricing.fleet_waste(
                instances=instances, start=start, end=end, currency=organization.currency
            )
        reasons = no_data(
            fleet=fleet, start=start, end=end, states={row.pk: row.state for row in instances}
        )
        body: dict[str, Any] = {
            "start": start,
            "end": end,
            "group_by": group_by,
            "currency": organization.currency,
            "totals": {
                **waste_totals_json(fleet, organization.currency),
                "no_data": no_data_json(reasons.sums()),
            },
        }
        if group_by == "project":
            body["groups"] = self._by_project(instances, fleet, reasons, organization.currency)
        return Response(body)

    def _by_project(
        self,
        instances: list[selectors.InstanceRow],
        fleet: FleetWaste,
        reasons: NoData,
        currency: str,
    ) -> list[dict]:
        organization = self.tenant.organization
        names = selectors.project_names(organization=organization)
        rows: dict[int | None, list[int]] = {}
        for row, project_id in enumerate(fleet.project_ids):
            rows.setdefault(project_id, []).append(row)
        ordered = sorted(rows, key=lambda p: (p is None, names.get(p, "") if p else ""))
        groups = []
        for project_id in ordered:
            group = fleet.subset(rows[project_id])
            groups.append(
                {
                    "project_id": project_id,
                    "project_name": names.get(project_id, UNALLOCATED)
                    if project_id
                    else UNALLOCATED,
                    **waste_totals_json(group, currency),
                    "no_data": no_data_json(reasons.sums(rows[project_id])),
                    "unallocated_by_reason": None
                    if project_id
                    else unallocated_by_reason_json(
                        group,
                        reasons=selectors.unallocated_reasons(
                            organization=organization, instances=instances
                        ),
                        currency=currency,
                    ),
                }
            )
        return groups


class AnalysisSettingsView(AnalysisAPIView):
    """The organization's threshold overrides; owners and admins change them."""

    write_roles = MANAGER_ROLES

    def _body(self) -> dict[str, Any]:
        row = selectors.analysis_settings_get(self.tenant.organization)
        try:
            effective = selectors.thresholds_as_dict(row.phase_thresholds())
        except ValueError:
            effective = selectors.default_thresholds()
        updated_at: dt.datetime | None = row.updated_at if row.pk else None
        return {
            "thresholds": row.thresholds,
            "effective": effective,
            "defaults": selectors.default_thresholds(),
            "updated_at": updated_at,
        }

    @extend_schema(responses=AnalysisSettingsSerializer)
    def get(self, request: Request) -> Response:
        return Response(self._body())

    @extend_schema(request=AnalysisSettingsSerializer, responses=AnalysisSettingsSerializer)
    def patch(self, request: Request) -> Response:
        # Partial, as PATCH is: a body without ``thresholds`` changes nothing.
        serializer = AnalysisSettingsSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        if "thresholds" in serializer.validated_data:
            services.analysis_settings_update(
                organization=self.tenant.organization,
                thresholds=serializer.validated_data["thresholds"],
            )
        return Response(self._body())

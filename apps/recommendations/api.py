"""Recommendation endpoints: list, detail, actions, totals and the organization's settings.

Reads go through ``selectors``, decisions through ``services``. Lists are scoped to the
request's organization first, so another organization's recommendation is a 404. Acting
(accept, dismiss, snooze, reopen) needs an editor role: viewers and finance get 403.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins
from rest_framework.decorators import action

# DRF's, not Django's: a malformed id ("null,null") is a 404, not a ValueError.
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.models import User
from apps.accounts.roles import MANAGER_ROLES
from apps.api.parameters import INT64_MAX
from apps.api.views import OrganizationAPIView
from apps.api.viewsets import OrganizationScopedViewSet
from apps.recommendations import selectors, services
from apps.recommendations.models import Recommendation, Status
from apps.recommendations.rules import KINDS, ROLES, describe_thresholds
from apps.recommendations.selectors import ORDERINGS
from apps.recommendations.serializers import (
    CLOUD_INSTANCE_ID_PATTERN,
    ActionInputSerializer,
    ListQuerySerializer,
    RecommendationDetailSerializer,
    RecommendationSerializer,
    SettingsSerializer,
    TotalsSerializer,
)
from apps.recommendations.wording import threshold_help, threshold_label

# The schema states what ListQuerySerializer accepts, so a client (or schemathesis) knows the
# valid kinds, statuses, orderings and number formats before it is told so by a 400.
_FILTERS = [
    OpenApiParameter("kind", str, many=True, enum=list(KINDS), description="Repeatable."),
    OpenApiParameter(
        "status",
        str,
        many=True,
        enum=list(Status.values),
        description="Repeatable; default: not resolved.",
    ),
    OpenApiParameter("project", {"type": "integer", "minimum": 1}),
    OpenApiParameter(
        "role",
        str,
        enum=[role for role, _label in ROLES],
        description="plan: the rows an instance's plan is made of (what totals add up); "
        "alternative: the ones that exclude or overlap it. Default: both.",
    ),
    OpenApiParameter(
        "instance",
        {
            "oneOf": [
                {"type": "integer", "minimum": 1, "maximum": INT64_MAX},
                {"type": "string", "pattern": CLOUD_INSTANCE_ID_PATTERN},
            ]
        },
        description="The instance's id in GPU Ledger, or the cloud's (ins-...).",
    ),
    OpenApiParameter(
        "min_saving",
        str,
        pattern=r"^-?\d{1,14}(\.\d{1,2})?$",
        description="Minimum monthly saving (decimal, at most 2 places).",
    ),
    OpenApiParameter("ordering", str, enum=sorted(ORDERINGS), description="Default: -saving."),
]


class RecommendationViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, OrganizationScopedViewSet
):
    queryset = Recommendation.objects.all()
    serializer_class = RecommendationSerializer

    def _filters(self) -> dict[str, Any]:
        params = self.request.query_params
        data: dict[str, Any] = {
            key: params.get(key) for key in params if key not in ("kind", "status")
        }
        for key in ("kind", "status"):
            if key in params:
                data[key] = params.getlist(key)
        serializer = ListQuerySerializer(data=data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def _filtered(self) -> QuerySet[Recommendation]:
        filters = self._filters()
        return selectors.recommendations_list(
            organization=self.tenant.organization,
            kinds=filters.get("kind"),
            statuses=filters.get("status"),
            project_id=filters.get("project"),
            role=filters.get("role"),
            instance_id=filters.get("instance"),
            min_saving=filters.get("min_saving"),
            ordering=filters.get("ordering", "-saving"),
        )

    def get_queryset(self) -> QuerySet:
        if self.action == "list":
            return self._filtered()
        return (
            super()
            .get_queryset()
            .select_related("instance", "project")
            .prefetch_related("events__actor")
        )

    @extend_schema(parameters=_FILTERS)
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(responses=RecommendationDetailSerializer)
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        row = self.get_object()
        realised = selectors.realised_saving(row, now=timezone.now())
        context = {
            **self.get_serializer_context(),
            "realised": dataclasses.asdict(realised) if realised else None,
        }
        return Response(RecommendationDetailSerializer(row, context=context).data)

    @extend_schema(request=ActionInputSerializer, responses=RecommendationDetailSerializer)
    @action(detail=True, methods=["post"], url_path="actions")
    def act(self, request: Request, pk: str | None = None) -> Response:
        """accept, dismiss (with a reason), snooze (until a future time) or reopen."""
        row = get_object_or_404(super().get_queryset(), pk=pk)
        serializer = ActionInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        actor = request.user if isinstance(request.user, User) else None
        now = timezone.now()
        reason = data.get("reason", "")
        verb = data["action"]
        if verb == "accept":
            services.recommendation_accept(recommendation=row, actor=actor, now=now, reason=reason)
        elif verb == "dismiss":
            services.recommendation_dismiss(recommendation=row, actor=actor, now=now, reason=reason)
        elif verb == "snooze":
            services.recommendation_snooze(
                recommendation=row, actor=actor, now=now, until=data["until"], reason=reason
            )
        else:
            services.recommendation_reopen(recommendation=row, actor=actor, now=now, reason=reason)
        return self.retrieve(request, pk=pk)

    @extend_schema(parameters=_FILTERS, responses=TotalsSerializer)
    @action(detail=False, methods=["get"])
    def totals(self, request: Request) -> Response:
        by_kind, by_project = selectors.recommendations_totals(rows=self._filtered())
        return Response(
            TotalsSerializer(
                {
                    "by_kind": [dataclasses.asdict(t) for t in by_kind],
                    "by_project": [dataclasses.asdict(t) for t in by_project],
                }
            ).data
        )


class RecommendationSettingsView(OrganizationAPIView):
    """Threshold overrides and reserved-instance prices; owners and admins change them."""

    write_roles = MANAGER_ROLES

    def _body(self) -> dict[str, Any]:
        row = selectors.recommendation_settings_get(self.tenant.organization)
        body = {
            "thresholds": row.thresholds,
            "reserved_prices": row.reserved_prices,
            "fields": [
                {
                    **dataclasses.asdict(f),
                    "label": threshold_label(f.name),
                    "help": threshold_help(f.name),
                }
                for f in describe_thresholds(row.thresholds or {})
            ],
        }
        return SettingsSerializer(body).data

    @extend_schema(responses=SettingsSerializer)
    def get(self, request: Request) -> Response:
        return Response(self._body())

    @extend_schema(request=SettingsSerializer, responses=SettingsSerializer)
    def patch(self, request: Request) -> Response:
        serializer = SettingsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.recommendation_settings_update(
            organization=self.tenant.organization,
            thresholds=serializer.validated_data.get("thresholds"),
            reserved_prices=serializer.validated_data.get("reserved_prices"),
        )
        return Response(self._body())

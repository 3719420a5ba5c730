"""Automation endpoints: a recommendation's automation (read by every member; created, paused,
resumed and ended by owners and admins), the history of actions, and the organization's switch.

Thin: reads through ``selectors``, writes through ``services``; another organization's
recommendation is a 404. A refusal a person can act on is a 400 whose ``error.code`` is the
reason (``read_only_credential``, ``automation_disabled``, ``not_accepted``, ...).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, mixins, status
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.models import User
from apps.accounts.roles import MANAGER_ROLES
from apps.api.views import OrganizationAPIView
from apps.api.viewsets import OrganizationScopedViewSet
from apps.automation import selectors, services
from apps.automation.models import AutomationAction, PlanStatus
from apps.automation.reasons import NO_PLAN
from apps.automation.selectors import AutomationRefused
from apps.automation.serializers import (
    ActionsQuerySerializer,
    AutomationActionSerializer,
    AutomationSerializer,
    AutomationSettingsSerializer,
    PlanCreateSerializer,
    PlanUpdateSerializer,
    plan_body,
)
from apps.automation.wording import reason_text
from apps.recommendations.models import Recommendation


class Refused(exceptions.APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "refused"

    def __init__(self, code: str) -> None:
        super().__init__(detail=reason_text(code), code=code)


class RecommendationAutomationView(OrganizationAPIView):
    """GET: whether the recommendation can be automated (or why not), its plan, the next
    actions and each week's promised and realised saving. POST creates the plan, PATCH pauses,
    resumes or changes its holidays, DELETE ends it (owners and admins)."""

    write_roles = MANAGER_ROLES

    def _recommendation(self, pk: int) -> Recommendation:
        rows = Recommendation.objects.for_organization(self.tenant.organization).select_related(
            "instance__account", "organization"
        )
        return get_object_or_404(rows, pk=pk)

    def _body(self, recommendation: Recommendation) -> dict[str, Any]:
        now = timezone.now()
        reason = selectors.unavailable_reason(recommendation)
        plan = selectors.live_plan(recommendation)
        shown = plan if plan is not None and plan.status != PlanStatus.ENDED else None
        return AutomationSerializer(
            {
                "available": not reason,
                "unavailable_reason": reason or None,
                "unavailable_reason_text": reason_text(reason) if reason else None,
                "plan": plan_body(plan) if plan is not None else None,
                "next_actions": [
                    vars(a) for a in selectors.next_actions(recommendation, shown, now=now)
                ]
                if plan is None or shown is not None
                else [],
                "weeks": [vars(w) for w in selectors.plan_weeks(plan, now=now)]
                if plan is not None
                else [],
            }
        ).data

    def _actor(self) -> User | None:
        return self.request.user if isinstance(self.request.user, User) else None

    @extend_schema(responses=AutomationSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(self._body(self._recommendation(pk)))

    @extend_schema(request=PlanCreateSerializer, responses={201: AutomationSerializer})
    def post(self, request: Request, pk: int) -> Response:
        recommendation = self._recommendation(pk)
        serializer = PlanCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            services.automation_plan_create(
                recommendation=recommendation,
                actor=self._actor(),
                now=timezone.now(),
                skip_dates=data.get("skip_dates", []),
                grace_hours=data.get("grace_hours"),
                memory_held_confirmed=data.get("memory_held_confirmed", False),
            )
        except AutomationRefused as refused:
            raise Refused(refused.code) from None
        recommendation.refresh_from_db()
        return Response(self._body(recommendation), status=status.HTTP_201_CREATED)

    def _plan(self, recommendation: Recommendation) -> Any:
        plan = selectors.live_plan(recommendation)
        if plan is None or plan.status == PlanStatus.ENDED:
            raise Refused(NO_PLAN)
        return plan

    @extend_schema(request=PlanUpdateSerializer, responses=AutomationSerializer)
    def patch(self, request: Request, pk: int) -> Response:
        recommendation = self._recommendation(pk)
        serializer = PlanUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            services.automation_plan_update(
                plan=self._plan(recommendation),
                actor=self._actor(),
                now=timezone.now(),
                status=data.get("status"),
                skip_dates=data.get("skip_dates"),
            )
        except AutomationRefused as refused:
            raise Refused(refused.code) from None
        return Response(self._body(recommendation))

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        recommendation = self._recommendation(pk)
        services.automation_plan_end(
            plan=self._plan(recommendation), actor=self._actor(), now=timezone.now()
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class AutomationActionViewSet(mixins.ListModelMixin, OrganizationScopedViewSet):
    """The history of automation's actions, newest first; ``?recommendation=<id>`` narrows it
    to one recommendation's."""

    queryset = AutomationAction.objects.all()
    serializer_class = AutomationActionSerializer

    def get_queryset(self) -> QuerySet:
        query = ActionsQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return selectors.actions_list(
            self.tenant.organization, query.validated_data.get("recommendation")
        )

    @extend_schema(
        parameters=[OpenApiParameter("recommendation", {"type": "integer", "minimum": 1})]
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)


class AutomationSettingsView(OrganizationAPIView):
    """The organization's one switch: ``paused`` stops all automation at once."""

    write_roles = MANAGER_ROLES

    @extend_schema(responses=AutomationSettingsSerializer)
    def get(self, request: Request) -> Response:
        row = selectors.automation_settings(self.tenant.organization)
        return Response(AutomationSettingsSerializer({"paused": row.paused}).data)

    @extend_schema(request=AutomationSettingsSerializer, responses=AutomationSettingsSerializer)
    def patch(self, request: Request) -> Response:
        """Turn the switch (owners and admins); answers with the settings. A ``paused`` left
        out is kept: an empty body changes nothing."""
        organization = self.tenant.organization
        serializer = AutomationSettingsSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        if "paused" in serializer.validated_data:
            row = services.automation_settings_update(
                organization=organization, paused=serializer.validated_data["paused"]
            )
        else:
            row = selectors.automation_settings(organization)
        return Response(AutomationSettingsSerializer({"paused": row.paused}).data)

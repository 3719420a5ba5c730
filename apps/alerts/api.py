"""Alerts endpoints: budgets, threshold rules, recipients, settings, and the alert history.

Owners and admins change budgets, rules, recipients and settings; every member reads them.
Everything is scoped to the request's organization first, so another organization's row is a
404 and another organization's project, given in a body, is a 400.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from apps.accounts.roles import MANAGER_ROLES
from apps.alerts import selectors, services
from apps.alerts.models import (
    AlertEvent,
    AlertKind,
    AlertRecipient,
    Budget,
    DeliveryStatus,
    Severity,
    ThresholdRule,
)
from apps.alerts.serializers import (
    MONTH_PATTERN,
    AlertEventSerializer,
    AlertQuerySerializer,
    AlertRecipientSerializer,
    AlertSettingsSerializer,
    BudgetQuerySerializer,
    BudgetSerializer,
    ThresholdRuleSerializer,
)
from apps.api.views import OrganizationAPIView
from apps.api.viewsets import OrganizationScopedViewSet

_CRUD = ["get", "post", "patch", "delete", "head", "options"]


_MONTH_PARAMETER = OpenApiParameter(
    "month", str, description="yyyy-mm; default: this month.", pattern=MONTH_PATTERN
)


class BudgetViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    OrganizationScopedViewSet,
):
    """Monthly budgets with their status: spent so far, forecast, thresholds crossed."""

    queryset = Budget.objects.select_related("organization", "project").order_by("name", "id")
    serializer_class = BudgetSerializer
    write_roles = MANAGER_ROLES
    http_method_names = _CRUD

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        if self.request is not None and self.request.method == "GET":
            query = BudgetQuerySerializer(data=self.request.query_params.dict())
            query.is_valid(raise_exception=True)
            context["month"] = query.validated_data.get("month")
        return context

    @extend_schema(parameters=[_MONTH_PARAMETER])
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # The page's statuses in one pass (two queries per currency), not one per budget.
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        assert page is not None, "the API always paginates"
        context = self.get_serializer_context()
        month = context["month"] or selectors.month_of(self.tenant.organization, timezone.now())
        context["statuses"] = {
            status.budget.pk: status for status in selectors.budget_statuses_of(page, month)
        }
        serializer = self.get_serializer_class()(page, many=True, context=context)
        return self.get_paginated_response(serializer.data)

    @extend_schema(parameters=[_MONTH_PARAMETER])
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().retrieve(request, *args, **kwargs)

    def perform_create(self, serializer: BaseSerializer[Budget]) -> None:
        serializer.instance = services.budget_create(
            organization=self.tenant.organization, **serializer.validated_data
        )

    def perform_update(self, serializer: BaseSerializer[Budget]) -> None:
        assert serializer.instance is not None, "an update always has its instance"
        serializer.instance = services.budget_update(
            budget=serializer.instance, **serializer.validated_data
        )

    def perform_destroy(self, instance: Budget) -> None:
        services.budget_delete(budget=instance)


class ThresholdRuleViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    OrganizationScopedViewSet,
):
    """Metric threshold rules, each with the matching Tencent Cloud Monitor alarm policy."""

    queryset = ThresholdRule.objects.order_by("name", "id")
    serializer_class = ThresholdRuleSerializer
    write_roles = MANAGER_ROLES
    http_method_names = _CRUD

    def get_queryset(self) -> QuerySet:
        if getattr(self, "swagger_fake_view", False):  # the schema generator: no one signed in
            return ThresholdRule.objects.none()
        # The defaults appear the first time anyone looks (or the evaluation runs).
        services.threshold_rules_ensure_defaults(self.tenant.organization)
        return super().get_queryset()

    def perform_create(self, serializer: BaseSerializer[ThresholdRule]) -> None:
        serializer.instance = services.threshold_rule_save(
            rule=ThresholdRule(organization=self.tenant.organization, **serializer.validated_data)
        )

    def perform_update(self, serializer: BaseSerializer[ThresholdRule]) -> None:
        assert serializer.instance is not None, "an update always has its instance"
        rule = serializer.instance
        for key, value in serializer.validated_data.items():
            setattr(rule, key, value)
        serializer.instance = services.threshold_rule_save(rule=rule)

    def perform_destroy(self, instance: ThresholdRule) -> None:
        services.threshold_rule_delete(rule=instance)


class AlertRecipientViewSet(
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    OrganizationScopedViewSet,
):
    """Who is told: members by role or by name, for one project or all. None: owners and
    admins."""

    queryset = AlertRecipient.objects.select_related("user").order_by("id")
    serializer_class = AlertRecipientSerializer
    write_roles = MANAGER_ROLES

    def perform_create(self, serializer: BaseSerializer[AlertRecipient]) -> None:
        serializer.instance = services.alert_recipient_create(
            organization=self.tenant.organization, **serializer.validated_data
        )

    def perform_destroy(self, instance: AlertRecipient) -> None:
        services.alert_recipient_delete(recipient=instance)


# Each filter's schema states what AlertQuerySerializer accepts (choices, positive ids, RFC 3339
# times), so a client generated from the schema cannot build a query the API then refuses.
_ID = {"type": "integer", "minimum": 1}
_ALERT_FILTERS = [
    OpenApiParameter(
        "kind", str, many=True, enum=list(AlertKind.values), description="Repeatable."
    ),
    OpenApiParameter(
        "severity", str, many=True, enum=list(Severity.values), description="Repeatable."
    ),
    OpenApiParameter("project", _ID),
    OpenApiParameter("instance", _ID),
    OpenApiParameter("budget", _ID),
    OpenApiParameter("open", bool, description="Threshold alerts still open (or not)."),
    OpenApiParameter("since", OpenApiTypes.DATETIME, description="ISO time: started at or after."),
    OpenApiParameter("until", OpenApiTypes.DATETIME, description="ISO time: started before."),
    OpenApiParameter(
        "delivery_status",
        str,
        enum=list(DeliveryStatus.values),
        description="Alerts with a delivery in this state.",
    ),
]


class AlertViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, OrganizationScopedViewSet):
    """The alert history, newest first, with each alert's deliveries."""

    queryset = AlertEvent.objects.all()
    serializer_class = AlertEventSerializer

    def get_queryset(self) -> QuerySet:
        # The budget, rule and recovered alert name what a reader's own language renders.
        rows = (
            super()
            .get_queryset()
            .select_related("project", "instance", "budget", "rule", "recovery_of")
        )
        rows = rows.prefetch_related("deliveries")
        if self.action != "list":
            return rows
        params = self.request.query_params
        data: dict[str, Any] = {k: params.get(k) for k in params if k not in ("kind", "severity")}
        for key in ("kind", "severity"):
            if key in params:
                data[key] = params.getlist(key)
        query = AlertQuerySerializer(data=data)
        query.is_valid(raise_exception=True)
        return selectors.alert_events_filter(rows, **query.validated_data)

    @extend_schema(parameters=_ALERT_FILTERS)
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)


class AlertSettingsView(OrganizationAPIView):
    """The webhook (URL, write-only secret, on/off) and the anomaly sensitivity."""

    write_roles = MANAGER_ROLES

    def _body(self) -> dict[str, Any]:
        row = services.alert_settings_get(self.tenant.organization)
        return {
            "webhook_url": row.webhook_url,
            "webhook_secret_set": bool(row.webhook_secret_encrypted),
            "webhook_enabled": row.webhook_enabled,
            "anomaly_k": row.anomaly_k,
            "anomaly_min_amount": row.anomaly_min_amount,
            "anomaly_min_idle_gpu_hours": row.anomaly_min_idle_gpu_hours,
            "anomaly_mad_floor_pct": row.anomaly_mad_floor_pct,
            "anomaly_mad_floor_amount": row.anomaly_mad_floor_amount,
            "anomaly_mad_floor_idle_gpu_hours": row.anomaly_mad_floor_idle_gpu_hours,
        }

    @extend_schema(responses=AlertSettingsSerializer)
    def get(self, request: Request) -> Response:
        return Response(AlertSettingsSerializer(self._body()).data)

    @extend_schema(request=AlertSettingsSerializer, responses=AlertSettingsSerializer)
    def patch(self, request: Request) -> Response:
        organization = self.tenant.organization
        serializer = AlertSettingsSerializer(
            data=request.data, context={"settings": services.alert_settings_get(organization)}
        )
        serializer.is_valid(raise_exception=True)
        services.alert_settings_update(organization=organization, **serializer.validated_data)
        return Response(AlertSettingsSerializer(self._body()).data)

"""``/api/v1/audit-log``: the organization's audit log, newest first; owners and admins only.

Read-only: the API has no way to add, change or delete an entry (POST, PUT, PATCH and DELETE
are 405). Any other role, and every API key, gets a 404, as for another organization's entry.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.audit import selectors
from apps.accounts.audit.actions import ACTIONS
from apps.accounts.audit.models import AuditEntry
from apps.accounts.audit.serializers import AuditEntrySerializer, AuditQuerySerializer
from apps.accounts.models import Language
from apps.api.permissions import IsOrganizationManagerElseNotFound
from apps.api.viewsets import OrganizationScopedViewSet

_FILTERS = [
    OpenApiParameter("action", str, many=True, enum=list(ACTIONS), description="Repeatable."),
    OpenApiParameter(
        "actor",
        {"type": "string", "maxLength": 254},
        description="Part of the actor's e-mail address or API key name (case-insensitive).",
    ),
    OpenApiParameter("since", OpenApiTypes.DATETIME, description="ISO time: at or after."),
    OpenApiParameter("until", OpenApiTypes.DATETIME, description="ISO time: before."),
]


def request_language() -> str:
    """The language the API middleware chose for this request (``apps.api.language``)."""
    return Language.ZH_HANS if translation.get_language() == Language.ZH_HANS else Language.EN


class AuditEntryViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, OrganizationScopedViewSet
):
    """Security-relevant actions: sign-ins, members, invitations, keys, cloud credentials,
    exports, settings. Who (a person or an API key), what, when (UTC), from where."""

    queryset = AuditEntry.objects.all()
    serializer_class = AuditEntrySerializer
    permission_classes = [IsOrganizationManagerElseNotFound]

    def get_queryset(self) -> QuerySet:
        rows = AuditEntry.objects.for_organization(self.tenant.organization)
        if self.action != "list":
            return rows
        params = self.request.query_params
        data: dict[str, Any] = {key: params.get(key) for key in params if key != "action"}
        if "action" in params:
            data["action"] = params.getlist("action")
        query = AuditQuerySerializer(data=data)
        query.is_valid(raise_exception=True)
        return selectors.audit_entries_filter(rows, **query.validated_data)

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "language": request_language()}

    @extend_schema(parameters=_FILTERS)
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

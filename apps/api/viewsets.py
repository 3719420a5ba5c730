"""The base of every organization-scoped endpoint (netbox style: thin viewsets, shared tenancy)."""

from __future__ import annotations

from django.db.models import QuerySet
from rest_framework import viewsets

from apps.api.permissions import IsOrganizationMember
from apps.api.tenancy import Tenant, member_tenant
from apps.core.models import OrganizationQuerySet


class OrganizationScopedViewSet(viewsets.GenericViewSet):
    """Filters ``queryset`` to the request's organization; other organizations' rows are 404s."""

    permission_classes = [IsOrganizationMember]
    # Narrower than DRF's "queryset or manager": subclasses set an organization-scoped queryset.
    queryset: OrganizationQuerySet | None

    @property
    def tenant(self) -> Tenant:
        return member_tenant(self.request)

    def get_queryset(self) -> QuerySet:
        assert self.queryset is not None, f"{type(self).__name__} must set queryset"
        return self.queryset.for_organization(self.tenant.organization)

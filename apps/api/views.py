"""The base of every organization-scoped endpoint that is not a model viewset.

Model endpoints use ``OrganizationScopedViewSet`` (apps/api/viewsets.py); an endpoint that
computes its answer (a summary, a report, a settings document) derives from
``OrganizationAPIView``. Both resolve the tenant the same way, so a request for another
organization's data is a 404 in either.
"""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.views import APIView

from apps.api.permissions import IsOrganizationMember
from apps.api.tenancy import Tenant, resolve_tenant


class OrganizationTenantMixin:
    """Members (or API keys) of the request's organization only; ``tenant`` says which.

    A ``write_roles`` attribute restricts unsafe methods to those roles (default: the editor
    roles, see ``IsOrganizationMember``).
    """

    permission_classes = [IsOrganizationMember]
    request: Request

    @property
    def tenant(self) -> Tenant:
        tenant = resolve_tenant(self.request)
        assert tenant is not None, "IsOrganizationMember guarantees a tenant"
        return tenant


class OrganizationAPIView(OrganizationTenantMixin, APIView):
    """An endpoint acting for the request's organization, computed rather than a model's rows.

    Reads and writes go through the owning app's selectors and services, given
    ``self.tenant.organization``.
    """

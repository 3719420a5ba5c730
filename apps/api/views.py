"""The base of every organization-scoped endpoint that is not a model viewset.

Model endpoints use ``OrganizationScopedViewSet`` (apps/api/viewsets.py); an endpoint that
computes its answer (a summary, a report, a settings document) derives from
``OrganizationAPIView``. Both resolve the tenant the same way, so a request for another
organization's data is a 404 in either.
"""

from __future__ import annotations

from rest_framework.views import APIView

from apps.api.permissions import IsOrganizationMember
from apps.api.tenancy import Tenant, member_tenant


class OrganizationAPIView(APIView):
    """An endpoint acting for the request's organization, computed rather than a model's rows.

    Only members of the organization (or its API keys) get in; ``tenant`` says which
    organization and role. A ``write_roles`` attribute restricts unsafe methods to those roles
    (default: the editor roles, see ``IsOrganizationMember``). Reads and writes go through the
    owning app's selectors and services, given ``self.tenant.organization``.
    """

    permission_classes = [IsOrganizationMember]

    @property
    def tenant(self) -> Tenant:
        return member_tenant(self.request)

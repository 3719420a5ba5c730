"""The base of every organization-scoped endpoint that is not a model viewset; the API's answers
to requests no view takes (unknown paths, failed CSRF checks).

Model endpoints use ``OrganizationScopedViewSet`` (apps/api/viewsets.py); an endpoint that
computes its answer (a summary, a report, a settings document) derives from
``OrganizationAPIView``. Both resolve the tenant the same way, so a request for another
organization's data is a 404 in either.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.csrf import csrf_failure as django_csrf_failure
from rest_framework.views import APIView

from apps.api.exceptions import error_body
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


def api_not_found(request: HttpRequest, *args: object, **kwargs: object) -> JsonResponse:
    """Any /api/ path no route matches (e.g. ``/api/v1/members/abc``): 404 in the error shape,
    not Django's HTML page, so a client parses one format whatever it sends."""
    return JsonResponse(
        error_body("not_found", f"No such endpoint or object: {request.path}"), status=404
    )


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a JSON 403 in the error shape for the API, Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            error_body(
                "csrf_failed",
                f"CSRF check failed ({reason}). Browser sessions send the token of the page "
                '(<meta name="csrf-token">) or of GET /api/v1/auth/csrf in X-CSRFToken; tools '
                "use an API key (Authorization: Bearer) instead.",
            ),
            status=403,
        )
    return django_csrf_failure(request, reason=reason)

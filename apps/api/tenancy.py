"""Which organization a request acts for, and with which role.

- An API key acts for its own organization, with the role its scope allows.
- A session acts for the organization named in ``X-Organization`` (a slug), else the one
  stored in the session by the organization switcher, else the user's first organization.
An organization the caller does not belong to is "not found", never "forbidden".
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404
from rest_framework.request import Request

from apps.accounts.models import ApiKey, ApiKeyScope, Organization, User
from apps.accounts.roles import Role
from apps.accounts.selectors import memberships_for_user

SESSION_KEY = "organization_id"
HEADER = "HTTP_X_ORGANIZATION"


@dataclass(frozen=True)
class Tenant:
    organization: Organization
    role: str
    api_key: ApiKey | None = None


def resolve_tenant(request: Request) -> Tenant | None:
    """The request's organization and role, or None for a user without any organization."""
    cached = getattr(request, "_tenant", None)
    if cached is not None:
        return cached
    tenant = _resolve(request)
    request._tenant = tenant  # type: ignore[attr-defined]
    return tenant


def _resolve(request: Request) -> Tenant | None:
    if isinstance(request.auth, ApiKey):
        # A write key edits domain data like a team lead; it never manages people or keys.
        # An ingest key has no role at all (authentication lets it reach ingest only).
        roles: dict[str, str] = {ApiKeyScope.WRITE: Role.LEAD, ApiKeyScope.READ: Role.VIEWER}
        role = roles.get(request.auth.scope, "")
        return Tenant(organization=request.auth.organization, role=role, api_key=request.auth)
    memberships = list(memberships_for_user(session_user(request)))
    if not memberships:
        return None
    wanted_slug = request.META.get(HEADER)
    if wanted_slug:
        for membership in memberships:
            if membership.organization.slug == wanted_slug:
                return Tenant(organization=membership.organization, role=membership.role)
        raise Http404("No such organization.")
    wanted_id = request.session.get(SESSION_KEY)
    chosen = next((m for m in memberships if m.organization_id == wanted_id), memberships[0])
    return Tenant(organization=chosen.organization, role=chosen.role)


def session_user(request: Request) -> User:
    """The person behind a request that is neither anonymous nor made with an API key.

    Callers are behind ``IsSignedInPerson`` (or have handled the API-key case); the check only
    narrows ``request.user`` (typed as any user, anonymous or not) for the type checker.
    """
    user = request.user
    assert isinstance(user, User), f"a signed-in person was expected, not {user!r}"
    return user


def member_tenant(request: Request) -> Tenant:
    """The tenant of a request that ``IsOrganizationMember`` let in (so it has one)."""
    tenant = resolve_tenant(request)
    assert tenant is not None, "IsOrganizationMember guarantees a tenant"
    return tenant

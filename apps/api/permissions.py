"""Permissions: membership for every request, roles for writes."""

from __future__ import annotations

from typing import Any

from rest_framework import permissions
from rest_framework.exceptions import NotFound
from rest_framework.request import Request

from apps.accounts.models import ApiKey, ApiKeyScope
from apps.accounts.roles import EDITOR_ROLES, MANAGER_ROLES
from apps.api.tenancy import resolve_tenant


class IsOrganizationMember(permissions.BasePermission):
    """Reads need membership; writes need one of the view's ``write_roles``.

    Views that manage people or keys set ``write_roles = MANAGER_ROLES``; the default lets
    owners, admins and team leads (and write-scoped API keys) change domain data.
    """

    message = "You do not have permission to change this."

    def has_permission(self, request: Request, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        tenant = resolve_tenant(request)
        if tenant is None:
            self.message = "You are not a member of any organization yet."
            return False
        if request.method in permissions.SAFE_METHODS:
            return True
        write_roles = getattr(view, "write_roles", EDITOR_ROLES)
        return tenant.role in write_roles


class IsSignedInPerson(permissions.BasePermission):
    """A person signed in with a session (not an API key): for account-level endpoints."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated and request.user.pk is not None)


class IsOrganizationManagerElseNotFound(permissions.BasePermission):
    """Only owners and admins may see the endpoint at all (the audit log): any other member,
    and every API key (no key has a manager's role), gets a 404, as if it did not exist.

    Writes are let through to the view, which has none: 405 for a manager."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        tenant = resolve_tenant(request)
        if tenant is None:
            self.message = "You are not a member of any organization yet."
            return False
        if tenant.role not in MANAGER_ROLES:
            raise NotFound()
        return True


class IsIngestKey(permissions.BasePermission):
    """Only an ingest-scoped API key: people and read/write keys do not send agent samples
    (a mistyped key in an agent's config must fail loudly, not ingest as a finance tool)."""

    message = "Send agent samples with an ingest-scoped API key (Authorization: Bearer)."

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, ApiKey) and request.auth.scope == ApiKeyScope.INGEST

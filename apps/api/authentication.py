"""API authentication: bearer API keys for tools, the session (with CSRF) for the browser."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from apps.accounts.models import ApiKey, ApiKeyScope
from apps.accounts.services import api_key_authenticate


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """``Authorization: Bearer glk_...``; the request acts for the key's organization.

    ``request.user`` is the key's creator (for audit fields) and ``request.auth`` the ApiKey;
    the organization and the allowed methods come from the key, not from the user.
    """

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiKey] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        parts = header.split()
        if parts[0].lower() != self.keyword.lower():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                "Malformed Authorization header: use 'Bearer <api key>'."
            )
        api_key = api_key_authenticate(parts[1])
        if api_key is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        # An ingest key sits on hundreds of GPU machines: it may send samples and nothing
        # else. Checked here, before any view or permission runs, so that no endpoint
        # (present or future, whatever its permissions) can forget it.
        view = (request.parser_context or {}).get("view")
        if api_key.scope == ApiKeyScope.INGEST and not getattr(view, "accepts_ingest_keys", False):
            raise exceptions.PermissionDenied(
                "This API key is for the agent's ingest endpoint only; it can read nothing."
            )
        return _ApiKeyUser(api_key), api_key

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (with this challenge) rather than 403 to anonymous requests.
        return self.keyword


class _ApiKeyUser:
    """The principal of an API-key request: authenticated, but not a person with a session."""

    is_authenticated = True
    is_anonymous = False
    is_active = True
    is_staff = False

    def __init__(self, api_key: ApiKey) -> None:
        self.api_key = api_key
        self.pk = self.id = None
        self.email = f"api-key:{api_key.prefix}"

    def __str__(self) -> str:
        return self.email

    def get_username(self) -> str:
        # What Django's auth signals and their receivers (axes) ask of any user.
        return self.email


class CsrfSessionAuthentication(authentication.SessionAuthentication):
    """Django's session, with CSRF enforced on unsafe methods (DRF's default behaviour)."""

"""The Content-Security-Policy header on every response (Django 5.2 has no CSP of its own).

The policy is ``settings.CONTENT_SECURITY_POLICY`` (directive -> sources, see config/settings.py
for why each one is what it is). It goes on every response, HTML or not: the SPA's index.html,
the admin, the API docs, the unsubscribe page, and JSON too (a browser that were made to render
an API answer as a page would run nothing from it either). A view that sets its own header
keeps it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from django.conf import settings
from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"


def policy_header(policy: Mapping[str, Sequence[str]]) -> str:
    """``{"default-src": ["'self'"], ...}`` as the header's value: ``default-src 'self'; ...``."""
    return "; ".join(" ".join([directive, *sources]) for directive, sources in policy.items())


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.header = policy_header(settings.CONTENT_SECURITY_POLICY)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.header and HEADER not in response.headers:
            response.headers[HEADER] = self.header
        return response

"""Per-client rate limits: each API key, each signed-in person, each anonymous address.

A finance script with a runaway loop spends its own key's budget, not its organization's
nor anyone else's. Over the limit the answer is 429 in the error shape with ``Retry-After``
(seconds), which DRF sets from the throttle's wait. The counters live in the shared cache
(Redis in production), so every gunicorn worker counts against the same budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from apps.accounts.models import ApiKey
from apps.core.clientip import client_address

if TYPE_CHECKING:
    # rest_framework.views imports the throttles (via api_settings): not at run time.
    from rest_framework.views import APIView


def client_ident(request: Request, fallback: str) -> str:
    """Who is counted: the API key, else the person, else the client address (``fallback``)."""
    if isinstance(request.auth, ApiKey):
        return f"key:{request.auth.pk}"
    user = request.user
    if user is not None and user.is_authenticated and user.pk is not None:
        return f"user:{user.pk}"
    return f"ip:{fallback}"


class AddressRateThrottle(SimpleRateThrottle):
    """A throttle whose address is ``client_address`` (trusted proxies only), never DRF's own
    reading of ``X-Forwarded-For``, which believes whatever the client sends."""

    # Set by SimpleRateThrottle from the rate (its stubs do not declare them).
    num_requests: int | None
    duration: int | None

    def get_ident(self, request: Request) -> str:
        return client_address(request)

    def wait(self) -> float:
        """Seconds until this client may send again: when the request that filled the window
        leaves it. (DRF's own estimate paces the rest of the window, and has no answer, so the
        429 no ``Retry-After``, once more requests were counted than the rate now allows.)"""
        allowed, duration = self.num_requests or 0, float(self.duration or 0)
        if 0 < allowed <= len(self.history):
            oldest_counted = self.history[allowed - 1]
            return max(1.0, duration - (self.now - oldest_counted))
        return max(1.0, duration)


class ClientRateThrottle(AddressRateThrottle):
    """``API_RATE_LIMIT`` (e.g. ``1200/min``) per API key, person or anonymous address."""

    scope = "api"

    def get_rate(self) -> str:
        # Read per request, so a test or an operator can change it without a restart.
        return settings.API_RATE_LIMIT

    def allow_request(self, request: Request, view: APIView) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: APIView) -> str:
        ident = client_ident(request, fallback=self.get_ident(request))
        return self.cache_format % {"scope": self.scope, "ident": ident}


class IngestRateThrottle(ClientRateThrottle):
    """``INGEST_RATE_LIMIT`` per ingest key: one key serves a whole fleet of agents (each
    sends a batch a minute), so its budget is the fleet's, counted apart from the API's."""

    scope = "ingest"

    def get_rate(self) -> str:
        return settings.INGEST_RATE_LIMIT

"""Who is acting and from where: the request being served, for ``audit_record``.

The services that record an audit entry are called from views, tasks, management commands
and tests. Passing the request's person, API key, address and browser down through every
service's signature would touch each caller for a concern none of them has; instead this
middleware keeps the request being served in a context variable (one per thread or task, so
concurrent requests never see each other's) for the services to read when they record. Code
that runs outside a request (a beat task, a command) records as GPU Ledger itself.

DRF authenticates in the view, after this middleware: it sets ``user`` and ``auth`` on the
underlying ``HttpRequest`` too, so by the time a service records, an API key's request
carries its key.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

_current_request: ContextVar[HttpRequest | None] = ContextVar("audit_request", default=None)


def current_request() -> HttpRequest | None:
    """The request being served in this thread or task, if any."""
    return _current_request.get()


@contextlib.contextmanager
def serving(request: HttpRequest | None) -> Iterator[None]:
    """Make ``request`` the one being served for the duration of the block."""
    token = _current_request.set(request)
    try:
        yield
    finally:
        _current_request.reset(token)


class AuditContextMiddleware:
    """Keeps the request being served for ``audit_record`` (after AuthenticationMiddleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with serving(request):
            return self.get_response(request)

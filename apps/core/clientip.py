"""The client address of a request: the one function every rate limit and the audit log use.

A minimal version (the socket's peer, ``REMOTE_ADDR``); the trusted-proxy rules of issue 20
(``X-Forwarded-For`` read only from configured proxies) replace its body, not its signature.
"""

from __future__ import annotations

from typing import Any


def client_address(request: Any) -> str:
    """The address the request came from (a Django ``HttpRequest`` or a DRF ``Request``)."""
    return str(request.META.get("REMOTE_ADDR", "") or "")

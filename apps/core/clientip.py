"""The client address of a request: the one function every rate limit and the audit log use.

``X-Forwarded-For`` is a header anyone can set, so it is read only when the request came
from a proxy the operator named:

- ``TRUSTED_PROXIES`` (CIDR blocks): the socket's peer must be in one of them; the header is
  then read from the right, skipping addresses in those blocks, and the first one outside
  them is the client (a proxy chain of trusted hops, whatever its length).
- ``TRUSTED_PROXY_COUNT`` (N): exactly N proxies stand in front of the server, each appending
  the address it saw; the client is the N-th address from the right. A header shorter than
  that did not pass through every proxy, so it is not believed.

With neither (the default) the socket's peer (``REMOTE_ADDR``) is the client. A forged or
malformed entry never replaces the peer: only a well-formed IP address does.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

from django.conf import settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(blocks: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(block, strict=False) for block in blocks)


def _ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(value.strip())
    except ValueError:
        return None
    # An IPv4 client seen through an IPv6 socket reads as ::ffff:a.b.c.d.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _trusted(value: str, networks: tuple[Network, ...]) -> bool:
    address = _ip(value)
    return address is not None and any(address in network for network in networks)


def _forwarded_client(peer: str, hops: list[str]) -> str | None:
    """The client named by the proxies' ``X-Forwarded-For`` entries, or None to use the peer."""
    blocks = tuple(getattr(settings, "TRUSTED_PROXIES", ()) or ())
    if blocks:
        networks = _networks(blocks)
        if not _trusted(peer, networks):
            return None
        for hop in reversed(hops):
            if not _trusted(hop, networks):
                return hop
        return hops[0] if hops else None
    count = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0)
    if count <= 0 or len(hops) < count:
        return None
    return hops[-count]


def client_address(request: Any) -> str:
    """The address the request came from (a Django ``HttpRequest`` or a DRF ``Request``)."""
    meta = request.META
    peer = str(meta.get("REMOTE_ADDR", "") or "")
    header = str(meta.get("HTTP_X_FORWARDED_FOR", "") or "")
    hops = [hop.strip() for hop in header.split(",") if hop.strip()]
    client = _forwarded_client(peer, hops) if hops else None
    address = _ip(client) if client is not None else None
    return str(address) if address is not None else peer

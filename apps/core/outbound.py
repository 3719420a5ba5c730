"""Outbound requests a tenant can aim: only to public addresses (SSRF).

A cloud account's endpoint override and an alert webhook URL are typed by an organization's
admin, and the server then connects there: aimed at ``127.0.0.1:6379``, ``10.0.0.5`` or the
cloud's metadata service (``169.254.169.254``, ``fd00:ec2::254``), they would make GPU Ledger
reach inside its own network for the tenant. So every such connection goes only to an address
that is public *after DNS resolution*: not loopback, private, link-local, carrier-grade NAT
(``100.64.0.0/10``), multicast, reserved, unspecified or a metadata address, IPv4 hidden in
IPv6 (mapped, 6to4, Teredo, NAT64) included.

The check is made twice: when the value is saved or tested (``outbound_check``: a clear 400
naming the field) and when the connection is opened. The second resolves the name once,
checks every address, and connects to that checked address itself (``create_connection``,
``guarded_urlopen`` for urllib, ``guard_requests_session`` for requests), so a name that
answers differently a moment later (DNS rebinding) still cannot reach a private address.

``OUTBOUND_ALLOWED_HOSTS`` (an operator setting: ``host`` or ``host:port`` entries) lets named
hosts through whatever they resolve to: the demo's own simulator (``127.0.0.1:<port>``), an
internal webhook receiver the operator trusts. Nothing a tenant sets can widen it.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import urllib.request
from collections.abc import Callable
from typing import Any

from django.conf import settings
from requests import Session
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
CARRIER_GRADE_NAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")


class OutboundRefused(ValueError):
    """A connection to an address that outbound requests may not reach."""


def address_refusal(address: Address) -> str | None:
    """Why ``address`` may not be reached (a few words), or None when it is public."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address.teredo is not None:
            embedded = address.teredo[1]
        if embedded is None and address in NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            reason = address_refusal(embedded)
            if reason is not None:
                return reason
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if isinstance(address, ipaddress.IPv4Address) and address in CARRIER_GRADE_NAT:
        return "a carrier-grade NAT address"
    if address.is_private:
        return "a private address"
    if address.is_multicast or address.is_reserved or not address.is_global:
        return "not a public address"
    return None


def host_allowed(host: str, port: int | None) -> bool:
    """Whether the operator allows ``host`` (at ``port``) whatever it resolves to."""
    name = host.strip().strip("[]").rstrip(".").lower()
    names = {name, f"{name}:{port}", f"[{name}]:{port}"}
    allowed = {entry.strip().lower() for entry in settings.OUTBOUND_ALLOWED_HOSTS}
    return bool(names & allowed)


def _refused(host: str, address: str, reason: str) -> OutboundRefused:
    shown = host if host == address else f"{host} ({address})"
    return OutboundRefused(
        f"{shown} is {reason}: GPU Ledger connects only to public addresses. An operator can "
        "allow a named host with OUTBOUND_ALLOWED_HOSTS."
    )


def resolved_addresses(host: str, port: int) -> list[tuple[Any, ...]]:
    """``getaddrinfo``'s answers for ``host``, each checked; raises ``OutboundRefused`` when any
    of them may not be reached (a name that also points inside is refused as a whole)."""
    infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    for *_, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        reason = address_refusal(address)
        if reason is not None:
            raise _refused(host, str(address), reason)
    return infos


def outbound_check(host: str, port: int) -> None:
    """Refuse (``OutboundRefused``) a host:port an outbound request may not reach. A name that
    does not resolve (yet) passes: the connection checks again when it is made."""
    if host_allowed(host, port):
        return
    try:
        resolved_addresses(host, port)
    except socket.gaierror:
        return


def create_connection(
    address: tuple[str, int],
    timeout: float | object = socket._GLOBAL_DEFAULT_TIMEOUT,  # type: ignore[attr-defined]
    source_address: tuple[str, int] | None = None,
) -> socket.socket:
    """``socket.create_connection`` to a checked address of ``address``'s host."""
    host, port = address
    if host_allowed(host, port):
        return socket.create_connection(address, timeout, source_address)  # type: ignore[arg-type]
    error: OSError | None = None
    for family, kind, proto, _, sockaddr in resolved_addresses(host, port):
        sock = socket.socket(family, kind, proto)
        try:
            if timeout is not socket._GLOBAL_DEFAULT_TIMEOUT:  # type: ignore[attr-defined]
                sock.settimeout(timeout)  # type: ignore[arg-type]
            if source_address is not None:
                sock.bind(source_address)
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            error = exc
            sock.close()
    raise error or OSError(f"{host}: no address to connect to")


# --- urllib (alert webhooks) ----------------------------------------------------------------


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = create_connection


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = create_connection


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_HTTPConnection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_HTTPSConnection, req, context=self._context)  # type: ignore[attr-defined]


_OPENER = urllib.request.build_opener(_HTTPHandler, _HTTPSHandler)


def guarded_urlopen(request: urllib.request.Request, timeout: float) -> Any:
    """``urllib.request.urlopen`` whose every connection (redirects too) is checked."""
    return _OPENER.open(request, timeout=timeout)


# --- requests (the Tencent Cloud SDK) -------------------------------------------------------


def _pinned_conn(
    connection: HTTPConnection, new_conn: Callable[[], socket.socket]
) -> socket.socket:
    """Open ``connection``'s socket to a checked address (TLS still names the host)."""
    host, port = connection._dns_host, int(connection.port or 0)
    if host_allowed(host, port):
        return new_conn()
    sockaddr = resolved_addresses(host, port)[0][4]
    connection._dns_host = str(sockaddr[0])
    try:
        return new_conn()
    finally:
        connection._dns_host = host


class _GuardedHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        return _pinned_conn(self, super()._new_conn)


class _GuardedHTTPSConnection(HTTPSConnection):
    def _new_conn(self) -> socket.socket:
        return _pinned_conn(self, super()._new_conn)


class _GuardedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _GuardedHTTPConnection


class _GuardedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection


class GuardedAdapter(HTTPAdapter):
    """A requests adapter whose connections go only to checked addresses."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _GuardedHTTPPool,
            "https": _GuardedHTTPSPool,
        }


def guard_requests_session(session: Session) -> None:
    adapter = GuardedAdapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)

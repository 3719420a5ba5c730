"""Outbound requests a tenant can aim reach only public addresses, after DNS resolution."""

from __future__ import annotations

import ipaddress
import urllib.request
from collections.abc import Iterator

import pytest
import requests
from django.conf import LazySettings

from apps.core.outbound import (
    OutboundRefused,
    address_refusal,
    guard_requests_session,
    guarded_urlopen,
    outbound_check,
)
from tests.recording_server import Recorder, recording_server


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "::1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata (IPv4)
        "169.254.0.23",  # Tencent Cloud's metadata service: link-local
        "fd00:ec2::254",  # AWS metadata (IPv6)
        "fe80::1",
        "100.64.0.1",  # carrier-grade NAT
        "0.0.0.0",
        "::",
        "224.0.0.1",
        "::ffff:127.0.0.1",  # IPv4-mapped
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    ],
)
def test_inside_addresses_are_refused(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", ["1.1.1.1", "119.28.28.28", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None


def test_a_name_is_checked_by_what_it_resolves_to() -> None:
    with pytest.raises(OutboundRefused, match=r"localhost \(127\.0\.0\.1\) is a loopback"):
        outbound_check("localhost", 80)


def test_an_operator_allows_a_named_host_and_port(settings: LazySettings) -> None:
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1:8900", "hooks.internal"]
    outbound_check("127.0.0.1", 8900)
    outbound_check("hooks.internal", 443)
    with pytest.raises(OutboundRefused):
        outbound_check("127.0.0.1", 8901)


@pytest.fixture
def internal_server() -> Iterator[tuple[type[Recorder], int]]:
    with recording_server() as server:
        yield server


def test_the_connection_itself_refuses_an_inside_address(
    internal_server: tuple[type[Recorder], int], settings: LazySettings
) -> None:
    # As when a name resolved to a public address when saved, and to this one now.
    handler, port = internal_server
    with pytest.raises(OutboundRefused):
        guarded_urlopen(urllib.request.Request(f"http://localhost:{port}/internal"), timeout=5)
    session = requests.Session()
    guard_requests_session(session)
    with pytest.raises(OutboundRefused):
        session.get(f"http://localhost:{port}/internal", timeout=5)
    assert handler.received == []

    settings.OUTBOUND_ALLOWED_HOSTS = [f"localhost:{port}"]
    with guarded_urlopen(urllib.request.Request(f"http://localhost:{port}/a"), timeout=5) as r:
        assert r.status == 204
    assert session.get(f"http://localhost:{port}/b", timeout=5).status_code == 204
    assert handler.received == ["/a", "/b"]

"""Client addresses: X-Forwarded-For is believed only from the proxies the operator names."""

from __future__ import annotations

import pytest
from django.conf import LazySettings
from django.test import RequestFactory

from apps.core.clientip import client_address


def _address(peer: str, forwarded: str | None = None) -> str:
    request = RequestFactory().get("/", REMOTE_ADDR=peer)
    if forwarded is not None:
        request.META["HTTP_X_FORWARDED_FOR"] = forwarded
    return client_address(request)


def test_by_default_the_header_is_ignored() -> None:
    assert _address("198.51.100.9", "1.2.3.4") == "198.51.100.9"
    assert _address("198.51.100.9") == "198.51.100.9"


def test_a_proxy_count_takes_the_address_that_many_hops_from_the_right(
    settings: LazySettings,
) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    # The client prepends a forged entry; the one proxy appends what it saw.
    assert _address("10.0.0.2", "6.6.6.6, 203.0.113.5") == "203.0.113.5"
    settings.TRUSTED_PROXY_COUNT = 2
    assert _address("10.0.0.2", "6.6.6.6, 203.0.113.5, 10.0.0.1") == "203.0.113.5"
    # Fewer entries than proxies: it did not pass through them all, so the peer it is.
    assert _address("10.0.0.2", "203.0.113.5") == "10.0.0.2"


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        ("10.1.2.3", "6.6.6.6, 203.0.113.5", "203.0.113.5"),
        ("10.1.2.3", "6.6.6.6, 203.0.113.5, 10.9.9.9", "203.0.113.5"),
        # Not from a trusted proxy: the header is anyone's.
        ("198.51.100.9", "203.0.113.5", "198.51.100.9"),
        # A malformed entry never replaces the peer.
        ("10.1.2.3", "not-an-address", "10.1.2.3"),
        ("::ffff:10.1.2.3", "2001:db8::7", "2001:db8::7"),
    ],
)
def test_trusted_blocks_skip_their_own_hops(
    settings: LazySettings, peer: str, forwarded: str, expected: str
) -> None:
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert _address(peer, forwarded) == expected

"""Credential stuffing: sign-ins are limited per account as well as per (e-mail, address).

Many source addresses guessing at one account lock the account itself, for a back-off that
doubles with each lock-out in a row; the account's owner gets a notice; the right password
from yet another address is refused until the back-off is over. Every 429 says when to come
back (``Retry-After``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import LazySettings
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Organization, SignInThrottle, User
from tests.accounts.audit_log import audit_entries

pytestmark = pytest.mark.django_db


class Browser:
    """One source address with its CSRF token, as a script driving a browser would have."""

    def __init__(self, address: str) -> None:
        self.client = APIClient(enforce_csrf_checks=True, REMOTE_ADDR=address)
        self.token = self.client.get("/api/v1/auth/csrf").json()["csrfToken"]

    def sign_in(self, email: str, password: str) -> Any:
        return self.client.post(
            "/api/v1/auth/login",
            {"email": email, "password": password},
            format="json",
            HTTP_X_CSRFTOKEN=self.token,
        )


def _stuff(email: str, addresses: int = 40, guesses: int = 4) -> list[Any]:
    """``guesses`` wrong passwords from each of ``addresses`` source addresses: below the
    per-(e-mail, address) limit of 5 at every one of them."""
    responses = []
    for n in range(addresses):
        browser = Browser(f"198.51.{n // 250}.{n % 250 + 1}")
        responses += [browser.sign_in(email, f"Guess-{n}-{g}!") for g in range(guesses)]
    return responses


@pytest.fixture
def small_limit(settings: LazySettings) -> None:
    # Each checked password costs an Argon2 hash: the tests of the back-off's shape lock after
    # 4 guesses (from 1 address, below axes' 5) instead of 20.
    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 4


def _expire(email: str) -> None:
    """The back-off is over (as it would be after waiting it out)."""
    SignInThrottle.objects.filter(email=email).update(
        locked_until=timezone.now() - dt.timedelta(seconds=1)
    )


def test_many_addresses_against_one_account_lock_the_account(
    alice: User,
    acme: Organization,
    alice_client: APIClient,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        responses = _stuff("alice@acme.test")

    statuses = [r.status_code for r in responses]
    # Only the first LOGIN_ACCOUNT_FAILURE_LIMIT (20) guesses had their password checked.
    assert statuses[:19] == [400] * 19
    assert set(statuses[19:]) == {429}
    for refused in responses[19:]:
        assert refused.json()["error"]["code"] == "locked_out"
        assert 1 <= int(refused["Retry-After"]) <= 60

    # The right password, from an address that never guessed, is refused too...
    right = Browser("203.0.113.99").sign_in("alice@acme.test", "alice-pass-123")
    assert right.status_code == 429
    assert int(right["Retry-After"]) >= 1
    # ...until the back-off is over.
    _expire("alice@acme.test")
    assert Browser("203.0.113.100").sign_in("alice@acme.test", "alice-pass-123").status_code == 200
    # A sign-in that got through forgets the failures.
    assert not SignInThrottle.objects.filter(email="alice@acme.test").exists()

    # One notice to the account's address, for the one lock-out.
    assert [m.to for m in mail.outbox] == [["alice@acme.test"]]
    notice = mail.outbox[0]
    assert notice.subject == "Sign-in to your GPU Ledger account is locked for a while"
    assert "20 wrong passwords" in str(notice.body)
    assert "alice-pass-123" not in str(notice.body)

    locked = audit_entries(alice_client, action="sign_in.locked_out")
    assert [entry["details"] for entry in locked] == [
        {"email": "alice@acme.test", "scope": "account", "failures": 20, "seconds": 60}
    ]
    # The refused attempts are in the log as failures refused by the lock-out.
    refused = [
        entry
        for entry in audit_entries(alice_client, action="sign_in.failed")
        if entry["details"].get("locked_out")
    ]
    assert len(refused) == 160 - 20 + 1


def test_the_back_off_doubles_with_each_lock_out_in_a_row(alice: User, small_limit: None) -> None:
    _stuff("alice@acme.test", addresses=1)
    backoffs = []
    for _ in range(4):
        row = SignInThrottle.objects.get(email="alice@acme.test")
        assert row.locked_until is not None
        backoffs.append((row.locked_until - row.last_failure_at).total_seconds())
        _expire("alice@acme.test")
        # After a lock-out, the next wrong password locks again, for twice as long.
        assert Browser("192.0.2.1").sign_in("alice@acme.test", "nope-nope").status_code == 429
    row = SignInThrottle.objects.get(email="alice@acme.test")
    assert row.locked_until is not None
    backoffs.append((row.locked_until - row.last_failure_at).total_seconds())

    assert backoffs == [60, 120, 240, 480, 960]


def test_the_back_off_stops_at_its_maximum(
    alice: User, small_limit: None, settings: LazySettings
) -> None:
    settings.LOGIN_BACKOFF_MAX_SECONDS = 150
    _stuff("alice@acme.test", addresses=1)
    for _ in range(3):
        _expire("alice@acme.test")
        Browser("192.0.2.1").sign_in("alice@acme.test", "nope-nope")
    row = SignInThrottle.objects.get(email="alice@acme.test")
    assert row.locked_until is not None
    assert (row.locked_until - row.last_failure_at).total_seconds() == 150


def test_an_unknown_address_is_locked_the_same_and_mails_nobody(
    small_limit: None, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        statuses = [r.status_code for r in _stuff("nobody@nowhere.test", addresses=2)]

    # The answers do not tell whether the address has an account.
    assert statuses == [400] * 3 + [429] * 5
    assert mail.outbox == []


def test_the_notice_is_written_in_the_accounts_language(
    alice: User, small_limit: None, django_capture_on_commit_callbacks: Callable
) -> None:
    alice.language = "zh-hans"
    alice.save(update_fields=["language"])
    with django_capture_on_commit_callbacks(execute=True):
        _stuff("alice@acme.test", addresses=1)

    (notice,) = mail.outbox
    assert notice.subject == "您的 GPU Ledger 账号暂时被锁定登录"
    assert "4 次错误密码" in str(notice.body)


def test_the_lock_out_of_one_address_says_when_to_come_back(alice: User) -> None:
    browser = Browser("203.0.113.7")
    statuses = [browser.sign_in("alice@acme.test", "wrong").status_code for _ in range(5)]
    refused = browser.sign_in("alice@acme.test", "alice-pass-123")

    assert statuses == [400] * 4 + [429]
    assert refused.status_code == 429
    # django-axes' cool-off (15 minutes), restarted by each refused attempt.
    assert refused["Retry-After"] == "900"


def test_a_throttled_api_request_says_when_to_come_back(
    alice_client: APIClient, settings: LazySettings
) -> None:
    settings.API_RATE_LIMIT = "2/min"
    responses = [alice_client.get("/api/v1/me") for _ in range(3)]

    assert [r.status_code for r in responses] == [200, 200, 429]
    assert 1 <= int(responses[2]["Retry-After"]) <= 60


def test_a_throttle_lowered_below_what_was_spent_still_says_when(
    alice_client: APIClient, settings: LazySettings
) -> None:
    # DRF's own estimate has no answer once more requests were counted than the new rate
    # allows (it returns None, and the 429 went out without Retry-After).
    settings.API_RATE_LIMIT = "5/min"
    for _ in range(4):
        alice_client.get("/api/v1/me")
    settings.API_RATE_LIMIT = "2/min"
    refused = alice_client.get("/api/v1/me")

    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60


def test_a_rotating_forwarded_for_header_does_not_reset_the_address_limit(alice: User) -> None:
    # No trusted proxy is configured: X-Forwarded-For is anyone's to set, and axes counts the
    # socket's address (apps.core.clientip), whatever the header says.
    browser = Browser("203.0.113.8")
    statuses = [
        browser.client.post(
            "/api/v1/auth/login",
            {"email": "alice@acme.test", "password": "wrong"},
            format="json",
            HTTP_X_CSRFTOKEN=browser.token,
            HTTP_X_FORWARDED_FOR=f"198.51.100.{n}",
        ).status_code
        for n in range(6)
    ]
    assert statuses == [400] * 4 + [429] * 2

"""Self-service sign-up: account + organization, e-mailed signed link, sign-in only after it."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import LazySettings
from django.core import mail, signing
from rest_framework.test import APIClient

from apps.accounts.models import Membership, User
from apps.accounts.verification import SALT, verification_token_make

pytestmark = pytest.mark.django_db

SIGNUP = {
    "email": "Dana@Example.test",
    "password": "correct-horse-battery-9",
    "name": "Dana",
    "organization_name": "Dana's Lab",
}


def csrf_client() -> tuple[APIClient, str]:
    # Sign-ups are throttled per client IP in the shared cache: a fresh address per client
    # keeps tests (and parallel workers) from counting against each other.
    address = ".".join(str(random.randint(1, 254)) for _ in range(3))
    client = APIClient(enforce_csrf_checks=True, REMOTE_ADDR=f"10.{address}")
    token = client.get("/api/v1/auth/csrf").json()["csrfToken"]
    return client, token


def post(client: APIClient, token: str, path: str, data: dict[str, Any]) -> Any:
    return client.post(path, data, format="json", HTTP_X_CSRFTOKEN=token)


def signup(client: APIClient, token: str, **overrides: str) -> Any:
    return post(client, token, "/api/v1/auth/signup", {**SIGNUP, **overrides})


def link_token(message: mail.EmailMessage) -> str:
    match = re.search(r"/verify-email\?token=(\S+)", str(message.body))
    assert match, message.body
    return match.group(1)


def sign_in(client: APIClient, token: str, password: str = SIGNUP["password"]) -> Any:
    return post(
        client, token, "/api/v1/auth/login", {"email": "dana@example.test", "password": password}
    )


def test_it_creates_the_person_and_their_organization_and_mails_a_link(
    django_capture_on_commit_callbacks: Callable, settings: LazySettings
) -> None:
    settings.PUBLIC_URL = "https://ledger.example"
    client, token = csrf_client()
    with django_capture_on_commit_callbacks(execute=True):
        response = signup(client, token)

    assert response.status_code == 201, response.content
    assert response.json()["email"] == "dana@example.test"
    user = User.objects.get(email="dana@example.test")
    assert user.email_verification_pending
    assert user.check_password(SIGNUP["password"])
    membership = Membership.objects.select_related("organization").get(user=user)
    assert (membership.role, membership.organization.name) == ("owner", "Dana's Lab")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["dana@example.test"]
    assert message.subject == "Confirm your e-mail address for GPU Ledger"
    assert "created Dana's Lab" in message.body
    assert "https://ledger.example/verify-email?token=" in message.body


def test_it_refuses_sign_in_until_the_link_is_opened_and_says_why(
    django_capture_on_commit_callbacks: Callable,
) -> None:
    client, token = csrf_client()
    with django_capture_on_commit_callbacks(execute=True):
        signup(client, token)

    response = sign_in(client, token)

    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "email_not_verified"
    assert "dana@example.test" in error["message"]
    assert client.get("/api/v1/me").status_code in (401, 403)


def test_it_verifies_by_the_link_signs_in_and_then_allows_password_sign_in(
    django_capture_on_commit_callbacks: Callable,
) -> None:
    client, token = csrf_client()
    with django_capture_on_commit_callbacks(execute=True):
        signup(client, token)

    response = post(
        client, token, "/api/v1/auth/verify-email", {"token": link_token(mail.outbox[0])}
    )

    assert response.status_code == 200, response.content
    assert response.json()["organization"]["name"] == "Dana's Lab"
    assert response.json()["organization"]["role"] == "owner"
    assert client.get("/api/v1/me").json()["email"] == "dana@example.test"
    assert not User.objects.get(email="dana@example.test").email_verification_pending
    other, other_token = csrf_client()
    assert sign_in(other, other_token).status_code == 200


def test_it_refuses_a_link_used_twice(django_capture_on_commit_callbacks: Callable) -> None:
    client, token = csrf_client()
    with django_capture_on_commit_callbacks(execute=True):
        signup(client, token)
    link = link_token(mail.outbox[0])
    post(client, token, "/api/v1/auth/verify-email", {"token": link})

    again, again_token = csrf_client()
    response = post(again, again_token, "/api/v1/auth/verify-email", {"token": link})

    assert response.status_code == 400
    assert "token" in response.json()["error"]["fields"]
    assert again.get("/api/v1/me").status_code in (401, 403)


def test_it_refuses_an_expired_or_tampered_link(
    django_capture_on_commit_callbacks: Callable, settings: LazySettings
) -> None:
    client, token = csrf_client()
    with django_capture_on_commit_callbacks(execute=True):
        signup(client, token)
    user = User.objects.get(email="dana@example.test")
    link = link_token(mail.outbox[0])

    tampered = post(client, token, "/api/v1/auth/verify-email", {"token": link[:-2] + "xx"})
    settings.EMAIL_VERIFICATION_VALID_HOURS = 0
    expired = post(client, token, "/api/v1/auth/verify-email", {"token": link})

    assert tampered.status_code == 400
    assert tampered.json()["error"]["fields"]["token"] == ["This link is not valid."]
    assert expired.status_code == 400
    assert "expired" in expired.json()["error"]["message"]
    user.refresh_from_db()
    assert user.email_verification_pending


def test_it_refuses_a_link_issued_for_another_address(alice: User) -> None:
    alice.email_verification_pending = True
    alice.save()
    token_for_old_address = verification_token_make(alice)
    alice.email = "alice@new.test"
    alice.save()
    client, token = csrf_client()

    response = post(client, token, "/api/v1/auth/verify-email", {"token": token_for_old_address})

    assert response.status_code == 400
    assert signing.loads(token_for_old_address, salt=SALT)["email"] == "alice@acme.test"


def test_it_names_the_email_field_when_the_address_is_taken(alice: User) -> None:
    client, token = csrf_client()

    response = signup(client, token, email="ALICE@acme.test")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["email"]
    assert User.objects.filter(email="alice@acme.test").count() == 1


@pytest.mark.parametrize(
    ("password", "expected"),
    [
        ("short1!", "too short"),
        ("password123", "too common"),
        ("8427319056412", "entirely numeric"),
        ("dana@example.test", "too similar"),
    ],
)
def test_it_names_the_password_field_when_django_rejects_the_password(
    password: str, expected: str
) -> None:
    client, token = csrf_client()

    response = signup(client, token, password=password)

    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == ["password"]
    assert expected in " ".join(fields["password"])
    assert not User.objects.filter(email="dana@example.test").exists()


def test_it_names_a_taken_email_and_a_weak_password_together(alice: User) -> None:
    client, token = csrf_client()

    response = signup(client, token, email=alice.email, password="12345678")

    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"email", "password"}


def test_it_names_an_unknown_timezone_and_creates_nothing() -> None:
    client, token = csrf_client()

    response = signup(client, token, timezone="Mars/Olympus_Mons")

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["timezone"]
    assert not User.objects.exists()
    assert not Membership.objects.exists()


def test_it_names_missing_fields() -> None:
    client, token = csrf_client()

    response = post(client, token, "/api/v1/auth/signup", {"email": "x@example.test"})

    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"password", "name", "organization_name"}


def test_it_rejects_a_sign_up_without_csrf_token() -> None:
    response = APIClient(enforce_csrf_checks=True).post(
        "/api/v1/auth/signup", SIGNUP, format="json"
    )
    assert response.status_code == 403
    assert not User.objects.exists()


def test_it_rate_limits_sign_ups_per_client(settings: LazySettings) -> None:
    settings.SIGNUP_RATE_LIMIT = "2/hour"
    client, token = csrf_client()
    first = signup(client, token, email="one@example.test")
    second = signup(client, token, email="two@example.test")

    third = signup(client, token, email="three@example.test")
    elsewhere, elsewhere_token = csrf_client()
    other_client = signup(elsewhere, elsewhere_token, email="four@example.test")

    assert (first.status_code, second.status_code) == (201, 201)
    assert third.status_code == 429
    assert third.json()["error"]["code"] == "throttled"
    assert not User.objects.filter(email="three@example.test").exists()
    assert other_client.status_code == 201


def test_it_resends_the_link_only_to_an_address_waiting_for_one(
    alice: User, django_capture_on_commit_callbacks: Callable
) -> None:
    client, token = csrf_client()
    with django_capture_on_commit_callbacks(execute=True):
        signup(client, token)
        waiting = post(
            client, token, "/api/v1/auth/verify-email/resend", {"email": "dana@example.test"}
        )
        confirmed = post(client, token, "/api/v1/auth/verify-email/resend", {"email": alice.email})

    assert (waiting.status_code, confirmed.status_code) == (202, 202)
    assert [m.to for m in mail.outbox] == [["dana@example.test"], ["dana@example.test"]]


def test_it_sends_no_link_to_an_address_confirmed_meanwhile(alice: User) -> None:
    from apps.accounts.tasks import send_verification_email

    assert send_verification_email(alice.pk) is False
    alice.email_verification_pending = True
    alice.save()
    assert send_verification_email(alice.pk) is True
    assert [m.to for m in mail.outbox] == [[alice.email]]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/auth/signup", None),
        ("/api/v1/auth/verify-email/resend", {"email": "dana@example.test"}),
    ],
)
def test_a_rotating_forwarded_for_header_does_not_reset_the_limit(
    settings: LazySettings, path: str, body: dict[str, str] | None
) -> None:
    # No trusted proxy is configured (the default): X-Forwarded-For is anyone's to set.
    settings.SIGNUP_RATE_LIMIT = "3/hour"
    client, token = csrf_client()
    statuses = []
    for n in range(6):
        data = body or {**SIGNUP, "email": f"user{n}@example.test"}
        response = client.post(
            path,
            data,
            format="json",
            HTTP_X_CSRFTOKEN=token,
            HTTP_X_FORWARDED_FOR=f"198.51.100.{n}",
        )
        statuses.append(response.status_code)
    assert statuses[3:] == [429, 429, 429]
    assert statuses[:3] == [201 if body is None else 202] * 3


def test_it_says_why_a_link_is_refused_in_the_readers_language() -> None:
    client, token = csrf_client()
    answer = client.post(
        "/api/v1/auth/verify-email",
        {"token": "not-a-link"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
        HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9",
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["fields"]["token"] == ["此链接无效。"]

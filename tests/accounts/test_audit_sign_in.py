"""Sign-ins, failed sign-ins (known and unknown e-mail), lock-outs and sign-outs in the audit log."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import AuditEntry, Membership, Organization, User
from apps.accounts.roles import Role
from tests.accounts.audit_log import audit_entries, one_entry

pytestmark = pytest.mark.django_db

BROWSER = "Mozilla/5.0 (X11; Linux x86_64) " + "x" * 400


def _sign_in(email: str, password: str) -> tuple[APIClient, int]:
    client = APIClient(enforce_csrf_checks=True, HTTP_USER_AGENT=BROWSER)
    token = client.get("/api/v1/auth/csrf").json()["csrfToken"]
    response = client.post(
        "/api/v1/auth/login",
        {"email": email, "password": password},
        format="json",
        HTTP_X_CSRFTOKEN=token,
        REMOTE_ADDR="203.0.113.7",
    )
    return client, response.status_code


def test_it_records_a_sign_in_with_the_address_and_the_browser(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    _, status = _sign_in("alice@acme.test", "alice-pass-123")
    assert status == 200

    entry = audit_entries(alice_client, action="sign_in.succeeded")[0]
    assert entry["actor"] == {"type": "user", "id": alice.pk, "display": "alice@acme.test"}
    assert entry["target"] == {"type": "user", "id": str(alice.pk), "label": "alice@acme.test"}
    assert entry["client_address"] == "203.0.113.7"
    # Truncated: enough to tell browsers apart, not a place to store kilobytes.
    assert entry["user_agent"] == BROWSER[:256]
    assert entry["action_label"] == "Signed in"


def test_it_records_a_failed_sign_in_without_the_password(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    _, status = _sign_in("alice@acme.test", "Wrong-Guess-77")
    assert status == 400

    entry = one_entry(alice_client, "sign_in.failed")
    assert entry["actor"] == {"type": "anonymous", "id": None, "display": "alice@acme.test"}
    assert entry["target"]["label"] == "alice@acme.test"
    assert entry["details"] == {"email": "alice@acme.test", "reason": "refused"}
    assert entry["client_address"] == "203.0.113.7"
    assert "Wrong-Guess-77" not in str(list(AuditEntry.objects.values()))


def test_it_keeps_a_sign_in_at_an_unknown_address_out_of_every_organization(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    _, status = _sign_in("nobody@nowhere.test", "Secret-Guess-1")
    assert status == 400

    assert audit_entries(alice_client, action="sign_in.failed") == []
    stored = AuditEntry.objects.get(action="sign_in.failed")
    assert stored.organization_id is None
    assert stored.details == {"email": "nobody@nowhere.test", "reason": "unknown_email"}
    assert "Secret-Guess-1" not in str(list(AuditEntry.objects.values()))


def test_it_records_a_lock_out_in_every_organization_of_the_account(
    alice: User, acme: Organization, globex: Organization, bob: User, alice_client: APIClient
) -> None:
    Membership.objects.create(organization=globex, user=alice, role=Role.VIEWER)
    for _ in range(5):
        _sign_in("alice@acme.test", "wrong")
    _, status = _sign_in("alice@acme.test", "alice-pass-123")
    assert status == 429

    locked = audit_entries(alice_client, action="sign_in.locked_out")
    assert locked, "the fifth failure locks the account out"
    assert locked[-1]["details"] == {"email": "alice@acme.test"}
    assert locked[-1]["client_address"] == "203.0.113.7"
    failures = audit_entries(alice_client, action="sign_in.failed")
    assert len(failures) == 6
    # The attempt with the right password, refused while locked out, says so.
    assert failures[0]["details"]["locked_out"] is True
    # Globex's owners see what happened to their member too.
    bob_client = APIClient()
    bob_client.force_login(bob)
    assert len(audit_entries(bob_client, action="sign_in.locked_out")) == len(locked)


def test_it_records_a_sign_out(alice: User, acme: Organization, alice_client: APIClient) -> None:
    client, _ = _sign_in("alice@acme.test", "alice-pass-123")
    token = client.get("/api/v1/auth/csrf").json()["csrfToken"]
    assert client.post("/api/v1/auth/logout", HTTP_X_CSRFTOKEN=token).status_code == 204

    entry = one_entry(alice_client, "sign_out")
    assert entry["actor"]["display"] == "alice@acme.test"

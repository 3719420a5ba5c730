"""The write credential and the automation switch of a cloud account, through the API."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection
from django.utils import translation
from rest_framework.test import APIClient

from apps.accounts.audit.models import AuditEntry
from apps.accounts.models import Membership, Organization, User
from apps.accounts.roles import Role
from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.simulator import (
    READ_ONLY_SECRET_ID,
    READ_ONLY_SECRET_KEY,
    WRITE_SECRET_ID,
    WRITE_SECRET_KEY,
    SimulatorServer,
)
from apps.cloud.services import cloud_account_write_client
from tests.cloud.conftest import connect

pytestmark = pytest.mark.django_db

READ_ONLY_MESSAGE = (
    "This account has only a read-only credential: add a write credential "
    "(StopInstances/StartInstances) before turning automation on."
)


def url(account: CloudAccount, tail: str = "") -> str:
    return f"/api/v1/cloud-accounts/{account.pk}{tail}"


def write_key(**overrides: str) -> dict[str, str]:
    return {"secret_id": WRITE_SECRET_ID, "secret_key": WRITE_SECRET_KEY, **overrides}


@pytest.fixture
def account(acme: Organization, simulator: SimulatorServer) -> CloudAccount:
    return connect(acme, simulator)


def test_it_tests_a_write_key_then_stores_it_encrypted(
    alice_client: APIClient, account: CloudAccount, simulator: SimulatorServer
) -> None:
    response = alice_client.put(
        url(account, "/write-credential"), write_key(automation_tag="team=research"), format="json"
    )

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["has_write_credential"] is True
    assert body["write_secret_id"] == WRITE_SECRET_ID
    assert body["automation_tag"] == "team=research"
    assert WRITE_SECRET_KEY not in response.content.decode()
    probes = simulator.requests(instance_id="ins-00000000")
    assert [(r.action, r.outcome) for r in probes] == [
        ("StopInstances", "InvalidInstanceId.NotFound"),
        ("StartInstances", "InvalidInstanceId.NotFound"),
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT write_secret_key_encrypted FROM cloud_cloudaccount WHERE id = %s", [account.pk]
        )
        stored = cursor.fetchone()[0]
    assert stored
    assert WRITE_SECRET_KEY not in stored
    account.refresh_from_db()
    assert cloud_account_write_client(account).config.secret_key == WRITE_SECRET_KEY


def test_it_refuses_a_read_only_key_and_saves_nothing(
    alice_client: APIClient, account: CloudAccount
) -> None:
    response = alice_client.put(
        url(account, "/write-credential"),
        {"secret_id": READ_ONLY_SECRET_ID, "secret_key": READ_ONLY_SECRET_KEY},
        format="json",
    )

    assert response.status_code == 400
    message = response.json()["error"]["fields"]["secret_id"][0]
    assert "may not call StopInstances (CAM permission cvm:StopInstances)" in message
    assert "nothing was saved" in message
    account.refresh_from_db()
    assert (account.write_secret_id, account.write_secret_key_encrypted) == ("", "")
    assert not AuditEntry.objects.filter(details__write_credential__isnull=False).exists()


def test_it_refuses_a_key_cloud_rejects_and_a_test_that_cannot_run(
    alice_client: APIClient, account: CloudAccount, simulator: SimulatorServer
) -> None:
    wrong = alice_client.put(
        url(account, "/write-credential"), write_key(secret_key="y" * 32), format="json"
    )
    assert wrong.status_code == 400
    assert "AuthFailure" in wrong.json()["error"]["fields"]["secret_id"][0]

    simulator.faults.configure(internal_error_every=1, actions={"StopInstances"})
    down = alice_client.put(url(account, "/write-credential"), write_key(), format="json")
    assert down.status_code == 400
    assert "could not be tested" in down.json()["error"]["fields"]["secret_id"][0]
    account.refresh_from_db()
    assert not account.has_write_credential


def test_it_turns_automation_on_only_with_a_write_key(
    alice_client: APIClient, account: CloudAccount
) -> None:
    refused = alice_client.patch(url(account), {"automation_enabled": True}, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"] == {
        "code": "read_only_credential",
        "message": READ_ONLY_MESSAGE,
        "fields": {},
    }
    account.refresh_from_db()
    assert account.automation_enabled is False

    alice_client.put(url(account, "/write-credential"), write_key(), format="json")
    enabled = alice_client.patch(url(account), {"automation_enabled": True}, format="json")
    assert enabled.status_code == 200
    assert enabled.json()["automation_enabled"] is True

    removed = alice_client.delete(url(account, "/write-credential"))
    assert removed.status_code == 200
    assert (removed.json()["has_write_credential"], removed.json()["automation_enabled"]) == (
        False,
        False,
    )


def test_it_explains_the_read_only_refusal_in_chinese(
    alice_client: APIClient, account: CloudAccount
) -> None:
    response = alice_client.patch(
        url(account),
        {"automation_enabled": True},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 400
    with translation.override("zh-hans"):
        assert response.json()["error"]["message"] == translation.gettext(READ_ONLY_MESSAGE)
    assert "只读" in response.json()["error"]["message"]


def test_it_records_every_change_in_the_audit_log(
    alice_client: APIClient, alice: User, account: CloudAccount
) -> None:
    alice_client.put(url(account, "/write-credential"), write_key(), format="json")
    alice_client.patch(url(account), {"automation_enabled": True}, format="json")
    alice_client.delete(url(account, "/write-credential"))

    entries = AuditEntry.objects.filter(target_id=str(account.pk)).order_by("at", "id")
    details = [(e.action, e.details) for e in entries if e.actor_user_id == alice.pk]
    assert details == [
        (
            "cloud_account.credentials_changed",
            {
                "write_credential": "added",
                "write_secret_id": WRITE_SECRET_ID,
                "automation_tag": "",
                "secrets_changed": ["write_secret_key"],
            },
        ),
        (
            "cloud_account.updated",
            {"changes": {"automation_enabled": {"old": False, "new": True}}},
        ),
        (
            "cloud_account.credentials_changed",
            {
                "write_credential": "removed",
                "changes": {"automation_enabled": {"old": True, "new": False}},
            },
        ),
    ]
    assert WRITE_SECRET_KEY not in str([e.details for e in entries])


@pytest.mark.parametrize("role", [Role.VIEWER, Role.FINANCE, Role.LEAD])
def test_it_lets_only_owners_and_admins_change_the_write_key_or_automation(
    role: Role,
    acme: Organization,
    account: CloudAccount,
    client_for: Callable[[User], APIClient],
) -> None:
    member = User.objects.create_user(email=f"{role}@acme.test", password="pw-123456789")
    Membership.objects.create(organization=acme, user=member, role=role)
    client = client_for(member)

    assert (
        client.put(url(account, "/write-credential"), write_key(), format="json").status_code == 403
    )
    assert client.delete(url(account, "/write-credential")).status_code == 403
    assert (
        client.patch(url(account), {"automation_enabled": False}, format="json").status_code == 403
    )
    assert client.get(url(account)).json()["has_write_credential"] is False


def test_it_lets_an_admin_add_the_write_key(
    acme: Organization, account: CloudAccount, client_for: Callable[[User], APIClient]
) -> None:
    admin = User.objects.create_user(email="admin@acme.test", password="pw-123456789")
    Membership.objects.create(organization=acme, user=admin, role=Role.ADMIN)
    response = client_for(admin).put(url(account, "/write-credential"), write_key(), format="json")
    assert response.status_code == 200


def test_it_hides_another_organizations_account(
    bob_client: APIClient, globex: Organization, account: CloudAccount
) -> None:
    assert (
        bob_client.put(url(account, "/write-credential"), write_key(), format="json").status_code
        == 404
    )
    assert bob_client.delete(url(account, "/write-credential")).status_code == 404
    assert (
        bob_client.patch(url(account), {"automation_enabled": True}, format="json").status_code
        == 404
    )


def test_it_refuses_a_full_put_of_the_account(
    alice_client: APIClient, account: CloudAccount
) -> None:
    assert alice_client.put(url(account), {"name": "x"}, format="json").status_code == 405

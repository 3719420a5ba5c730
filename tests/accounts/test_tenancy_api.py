"""Roles and API keys of the account endpoints.

A viewer cannot write; a read-only key cannot write; a revoked key gets 401. That no endpoint
shows or changes another organization's objects is tests/api/test_cross_organization.py.
"""

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from apps.accounts import services
from apps.accounts.models import ApiKey, Membership, Organization, User

pytestmark = pytest.mark.django_db


def test_it_lists_only_own_organizations(alice_client: APIClient) -> None:
    names = [o["name"] for o in alice_client.get("/api/v1/organizations").json()["results"]]
    assert names == ["Acme"]


WRITES = [
    ("post", "/api/v1/invitations", {"email": "new@acme.test", "role": "viewer"}),
    ("post", "/api/v1/api-keys", {"name": "k", "scope": "read"}),
]


@pytest.mark.parametrize(("method", "url", "payload"), WRITES)
def test_it_forbids_a_viewer_to_write(
    charlie_client: APIClient, method: str, url: str, payload: dict
) -> None:
    response = getattr(charlie_client, method)(url, payload, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"


def test_it_forbids_a_viewer_to_change_roles_or_the_organization(
    charlie_client: APIClient, acme: Organization, alice: User
) -> None:
    alice_membership = Membership.objects.get(organization=acme, user=alice)
    assert (
        charlie_client.patch(
            f"/api/v1/members/{alice_membership.pk}", {"role": "viewer"}, format="json"
        ).status_code
        == 403
    )
    assert charlie_client.delete(f"/api/v1/members/{alice_membership.pk}").status_code == 403
    assert (
        charlie_client.patch(
            f"/api/v1/organizations/{acme.pk}", {"name": "x"}, format="json"
        ).status_code
        == 403
    )
    assert Organization.objects.get(pk=acme.pk).name == "Acme"


@pytest.mark.parametrize(("method", "url", "payload"), WRITES)
@pytest.mark.parametrize("scope", ["read", "write", "ingest"])
def test_it_forbids_api_keys_to_manage_people_and_keys(
    key_client: Callable, acme: Organization, method: str, url: str, payload: dict, scope: str
) -> None:
    client, _ = key_client(acme, scope)
    assert getattr(client, method)(url, payload, format="json").status_code == 403


def test_it_lets_a_read_only_key_read_its_organization_only(
    key_client: Callable, acme: Organization, globex: Organization, bob: User
) -> None:
    client, _ = key_client(acme, "read")
    assert client.get("/api/v1/members").status_code == 200
    assert [o["name"] for o in client.get("/api/v1/organizations").json()["results"]] == ["Acme"]
    bob_membership = Membership.objects.get(organization=globex, user=bob)
    assert client.get(f"/api/v1/members/{bob_membership.pk}").status_code == 404
    assert (
        client.patch(f"/api/v1/organizations/{acme.pk}", {"name": "x"}, format="json").status_code
        == 403
    )


def test_it_rejects_a_revoked_key_with_401(key_client: Callable, acme: Organization) -> None:
    client, api_key = key_client(acme, "read")
    assert client.get("/api/v1/members").status_code == 200
    services.api_key_revoke(api_key=api_key)
    response = client.get("/api/v1/members")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


def test_it_rejects_an_unknown_key_with_401() -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer glk_deadbeef_notakey")
    assert client.get("/api/v1/members").status_code == 401


def test_it_records_when_a_key_was_last_used(key_client: Callable, acme: Organization) -> None:
    client, api_key = key_client(acme, "read")
    assert api_key.last_used_at is None
    client.get("/api/v1/members")
    assert ApiKey.objects.get(pk=api_key.pk).last_used_at is not None

from collections.abc import Callable

import pytest
from django.core import mail
from rest_framework.test import APIClient

from apps.accounts.models import ApiKey, Invitation, Membership, Organization, User

pytestmark = pytest.mark.django_db


def test_it_shows_an_api_key_once_and_stores_only_its_hash(
    alice_client: APIClient, acme: Organization
) -> None:
    response = alice_client.post(
        "/api/v1/api-keys", {"name": "finance export", "scope": "read"}, format="json"
    )
    assert response.status_code == 201
    raw = response.json()["key"]
    assert raw.startswith("glk_")
    stored = ApiKey.objects.get(pk=response.json()["id"])
    assert raw not in (stored.key_hash, stored.prefix)
    listed = alice_client.get("/api/v1/api-keys").json()["results"]
    assert "key" not in listed[0]
    assert raw not in str(listed)

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get("/api/v1/members").status_code == 200


def test_it_revokes_a_key_but_keeps_it_listed(
    alice_client: APIClient, key_client: Callable, acme: Organization
) -> None:
    client, api_key = key_client(acme, "write")
    assert alice_client.delete(f"/api/v1/api-keys/{api_key.pk}").status_code == 204
    listed = alice_client.get("/api/v1/api-keys").json()["results"]
    assert listed[0]["revoked_at"] is not None
    assert client.get("/api/v1/members").status_code == 401


def test_it_invites_by_email_and_the_invitee_joins_with_the_role(
    alice_client: APIClient, acme: Organization, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            "/api/v1/invitations", {"email": "Dana@Acme.test", "role": "finance"}, format="json"
        )
    assert response.status_code == 201, response.content
    assert response.json()["email"] == "dana@acme.test"
    assert len(mail.outbox) == 1
    body = mail.outbox[0].body
    token = body.split("token=")[1].split()[0]

    invitee = APIClient()
    response = invitee.post(
        "/api/v1/invitations/accept", {"token": token, "password": "a-long-pass-9"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["organization"] == {
        **response.json()["organization"],
        "name": "Acme",
        "role": "finance",
    }
    assert Membership.objects.get(user__email="dana@acme.test").role == "finance"
    again = APIClient().post(
        "/api/v1/invitations/accept", {"token": token, "password": "x"}, format="json"
    )
    assert again.status_code == 400


def test_it_refuses_to_invite_an_existing_member(alice_client: APIClient, charlie: User) -> None:
    response = alice_client.post(
        "/api/v1/invitations", {"email": charlie.email, "role": "viewer"}, format="json"
    )
    assert response.status_code == 400
    assert "email" in response.json()["error"]["fields"]


def test_it_sends_an_invitation_only_once(acme: Organization, alice: User) -> None:
    from apps.accounts import services
    from apps.accounts.tasks import send_invitation_email

    invitation = services.invitation_create(
        organization=acme, email="e@acme.test", role="viewer", invited_by=alice
    )
    assert send_invitation_email(invitation.pk, "tok") is True
    assert send_invitation_email(invitation.pk, "tok") is False
    assert len(mail.outbox) == 1
    assert Invitation.objects.get(pk=invitation.pk).sent_at is not None


def test_it_keeps_at_least_one_owner(
    alice_client: APIClient, acme: Organization, alice: User
) -> None:
    membership = Membership.objects.get(organization=acme, user=alice)
    response = alice_client.patch(
        f"/api/v1/members/{membership.pk}", {"role": "admin"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "role": ["An organization needs at least one owner."]
    }
    assert alice_client.delete(f"/api/v1/members/{membership.pk}").status_code == 400
    assert Membership.objects.get(pk=membership.pk).role == "owner"


def test_it_changes_a_members_role(
    alice_client: APIClient, acme: Organization, charlie: User
) -> None:
    membership = Membership.objects.get(organization=acme, user=charlie)
    response = alice_client.patch(
        f"/api/v1/members/{membership.pk}", {"role": "lead"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["role"] == "lead"


def test_it_creates_an_organization_owned_by_its_creator(alice_client: APIClient) -> None:
    response = alice_client.post(
        "/api/v1/organizations", {"name": "New Lab", "timezone": "Europe/Berlin"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["role"] == "owner"
    assert response.json()["slug"] == "new-lab"


def test_it_rejects_an_unknown_timezone(alice_client: APIClient, acme: Organization) -> None:
    response = alice_client.patch(
        f"/api/v1/organizations/{acme.pk}", {"timezone": "Mars/Olympus"}, format="json"
    )
    assert response.status_code == 400
    assert "timezone" in response.json()["error"]["fields"]


def test_it_pins_the_member_list_query_count(
    alice_client: APIClient, acme: Organization, django_assert_max_num_queries
) -> None:
    for n in range(20):
        Membership.objects.create(
            organization=acme,
            user=User.objects.create_user(email=f"u{n}@acme.test", password=None),
            role="viewer",
        )
    with django_assert_max_num_queries(6):
        response = alice_client.get("/api/v1/members?page_size=100")
    assert response.json()["count"] == 22

"""Every audited action, one test per family, as Alice (Acme's owner) reads it in the log.

Each test makes the change through the API, as a person does, then reads
``GET /api/v1/audit-log``: who, what, which object, what changed (old and new), and never a
secret's value.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import pytest
from django.conf import LazySettings
from rest_framework.test import APIClient

from apps.accounts.models import ApiKey, AuditEntry, Invitation, Membership, Organization, User
from apps.cloud.models import Project
from apps.digests.tokens import unsubscribe_token_make
from tests.accounts.audit_log import audit_entries, one_entry

pytestmark = pytest.mark.django_db

ALICE = {"type": "user", "id": None, "display": "alice@acme.test"}


def _by_alice(entry: dict, alice: User) -> None:
    assert entry["actor"] == {**ALICE, "id": alice.pk}


def test_it_records_role_changes_and_removals_of_members(
    alice: User, charlie: User, acme: Organization, alice_client: APIClient
) -> None:
    membership = Membership.objects.get(organization=acme, user=charlie)
    url = f"/api/v1/members/{membership.pk}"
    assert alice_client.patch(url, {"role": "admin"}, format="json").status_code == 200
    assert alice_client.delete(url).status_code == 204

    changed = one_entry(alice_client, "member.role_changed")
    _by_alice(changed, alice)
    assert changed["target"] == {
        "type": "membership",
        "id": str(membership.pk),
        "label": "charlie@acme.test",
    }
    assert changed["details"] == {"changes": {"role": {"old": "viewer", "new": "admin"}}}
    assert changed["action_label"] == "Changed a member's role"
    removed = one_entry(alice_client, "member.removed")
    assert removed["details"] == {"email": "charlie@acme.test", "role": "admin"}


def test_it_records_invitations_created_accepted_and_revoked(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    created = alice_client.post(
        "/api/v1/invitations", {"email": "Dana@Acme.test", "role": "finance"}, format="json"
    )
    assert created.status_code == 201, created.content
    # The e-mail (and its token) is sent after commit; make the token as the service would.
    invitation = Invitation.objects.get(pk=created.json()["id"])
    token = "invitation-token-for-dana"
    Invitation.objects.filter(pk=invitation.pk).update(
        token_hash=hashlib.sha256(token.encode()).hexdigest()
    )
    dana = APIClient()
    accepted = dana.post(
        "/api/v1/invitations/accept",
        {"token": token, "name": "Dana", "password": "dana-Pass-4821"},
        format="json",
    )
    assert accepted.status_code == 200, accepted.content
    other = alice_client.post(
        "/api/v1/invitations", {"email": "eve@acme.test", "role": "viewer"}, format="json"
    ).json()
    assert alice_client.delete(f"/api/v1/invitations/{other['id']}").status_code == 204

    sent = audit_entries(alice_client, action="invitation.created")
    assert [entry["details"] for entry in sent] == [
        {"email": "eve@acme.test", "role": "viewer"},
        {"email": "dana@acme.test", "role": "finance"},
    ]
    _by_alice(sent[0], alice)
    dana_user = User.objects.get(email="dana@acme.test")
    took = one_entry(alice_client, "invitation.accepted")
    assert took["actor"] == {"type": "user", "id": dana_user.pk, "display": "dana@acme.test"}
    assert took["target"]["label"] == "dana@acme.test"
    joined = one_entry(alice_client, "member.joined")
    assert joined["details"] == {"email": "dana@acme.test", "role": "finance"}
    revoked = one_entry(alice_client, "invitation.revoked")
    assert revoked["target"] == {
        "type": "invitation",
        "id": str(other["id"]),
        "label": "eve@acme.test",
    }


def test_it_records_api_keys_created_and_revoked_never_the_key(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    created = alice_client.post(
        "/api/v1/api-keys", {"name": "finance export", "scope": "read"}, format="json"
    ).json()
    assert alice_client.post(f"/api/v1/api-keys/{created['id']}/revoke").status_code == 200
    # Revoking twice changes nothing, and records nothing more.
    assert alice_client.delete(f"/api/v1/api-keys/{created['id']}").status_code == 204

    made = one_entry(alice_client, "api_key.created")
    _by_alice(made, alice)
    prefix = created["prefix"]
    assert made["target"] == {
        "type": "api_key",
        "id": str(created["id"]),
        "label": f"finance export (glk_{prefix}…)",
    }
    assert made["details"] == {"name": "finance export", "scope": "read", "prefix": prefix}
    assert one_entry(alice_client, "api_key.revoked")["target"]["id"] == str(created["id"])
    assert created["key"] not in json.dumps(list(AuditEntry.objects.values()), default=str)


def test_it_records_what_an_api_key_did_as_that_key(
    acme: Organization,
    alice_client: APIClient,
    key_client: Callable[..., tuple[APIClient, ApiKey]],
) -> None:
    project = Project.objects.create(organization=acme, name="nlp", slug="nlp", tag_values=["nlp"])
    client, key = key_client(acme, "write")
    response = client.patch(f"/api/v1/projects/{project.pk}", {"name": "NLP"}, format="json")
    assert response.status_code == 200, response.content

    entry = one_entry(alice_client, "project.updated")
    assert entry["actor"] == {
        "type": "api_key",
        "id": key.pk,
        "display": f"write key (glk_{key.prefix}…)",
    }
    assert entry["details"] == {"changes": {"name": {"old": "nlp", "new": "NLP"}}}


def test_it_records_organizations_created_and_their_settings_changed(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    created = alice_client.post(
        "/api/v1/organizations", {"name": "Acme Labs", "timezone": "Europe/Berlin"}, format="json"
    )
    assert created.status_code == 201, created.content
    response = alice_client.patch(
        f"/api/v1/organizations/{acme.pk}",
        {"name": "Acme Corp", "timezone": "Asia/Tokyo"},
        format="json",
    )
    assert response.status_code == 200, response.content

    entry = one_entry(alice_client, "organization.updated")
    _by_alice(entry, alice)
    assert entry["details"] == {
        "changes": {
            "name": {"old": "Acme", "new": "Acme Corp"},
            "timezone": {"old": "Asia/Shanghai", "new": "Asia/Tokyo"},
        }
    }
    # The new organization's log is its own: Acme's shows only Acme's creation.
    assert [
        entry["details"]["name"]
        for entry in audit_entries(alice_client, action="organization.created")
    ] == ["Acme"]
    response = alice_client.get(
        "/api/v1/audit-log",
        {"action": "organization.created"},
        HTTP_X_ORGANIZATION=created.json()["slug"],
    )
    assert [entry["details"] for entry in response.json()["results"]] == [
        {"name": "Acme Labs", "timezone": "Europe/Berlin", "currency": "CNY"}
    ]


def test_it_records_cloud_credentials_and_endpoints_never_the_secret(
    alice: User, acme: Organization, alice_client: APIClient, settings: LazySettings
) -> None:
    # An endpoint on 127.0.0.1 is refused unless the operator allows it (apps.core.outbound).
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1:8900"]
    created = alice_client.post(
        "/api/v1/cloud-accounts",
        {
            "name": "Training cloud",
            "secret_id": "AKIDaudit0000000000000000000000001",
            "secret_key": "first-secret-key-never-logged-0001",
            "regions": ["ap-guangzhou"],
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    url = f"/api/v1/cloud-accounts/{created.json()['id']}"
    assert (
        alice_client.patch(
            url, {"secret_key": "second-secret-key-never-logged-002"}, format="json"
        ).status_code
        == 200
    )
    assert (
        alice_client.patch(
            url, {"endpoint": "127.0.0.1:8900", "endpoint_scheme": "http"}, format="json"
        ).status_code
        == 200
    )
    assert alice_client.patch(url, {"name": "Research cloud"}, format="json").status_code == 200

    connected = one_entry(alice_client, "cloud_account.created")
    _by_alice(connected, alice)
    assert connected["target"]["type"] == "cloud_account"
    assert connected["details"]["secret_id"] == "AKIDaudit0000000000000000000000001"
    assert one_entry(alice_client, "cloud_account.credentials_changed")["details"] == {
        "secrets_changed": ["secret_key"]
    }
    assert one_entry(alice_client, "cloud_account.endpoint_changed")["details"] == {
        "changes": {
            "endpoint": {"old": "", "new": "127.0.0.1:8900"},
            "endpoint_scheme": {"old": "https", "new": "http"},
        }
    }
    assert one_entry(alice_client, "cloud_account.updated")["details"] == {
        "changes": {"name": {"old": "Training cloud", "new": "Research cloud"}}
    }
    stored = json.dumps(list(AuditEntry.objects.values()), default=str)
    assert "never-logged" not in stored


def test_it_records_who_downloaded_which_export_of_what_period(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    period = {"start": "2026-11-01", "end": "2026-11-08"}
    assert alice_client.get("/api/v1/exports/costs.csv", period).status_code == 200
    assert alice_client.get("/api/v1/exports/focus.csv", period).status_code == 200
    assert alice_client.get("/api/v1/exports/focus", period).status_code == 200

    downloads = audit_entries(alice_client, action="export.downloaded")
    assert [entry["target"]["label"] for entry in downloads] == [
        "focus",
        "focus.csv",
        "costs.csv",
    ]
    _by_alice(downloads[0], alice)
    # The period in UTC: midnight in Shanghai (Acme's timezone) is 16:00 the day before.
    assert downloads[2]["details"] == {
        "export": "costs.csv",
        "start": "2026-10-31T16:00:00+00:00",
        "end": "2026-11-07T16:00:00+00:00",
    }


def test_it_records_threshold_settings_with_old_and_new_values(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    url = "/api/v1/analysis/settings"
    patch = {"thresholds": {"idle_gpu_util_max_pct": 8}}
    assert alice_client.patch(url, patch, format="json").status_code == 200
    reset = {"thresholds": {"idle_gpu_util_max_pct": None}}
    assert alice_client.patch(url, reset, format="json").status_code == 200
    recommendations = {"thresholds": {"idle_min_share": 0.5}}
    response = alice_client.patch(
        "/api/v1/recommendations/settings", recommendations, format="json"
    )
    assert response.status_code == 200, response.content

    phases = audit_entries(alice_client, action="analysis_settings.updated")
    assert [entry["details"] for entry in phases] == [
        {"changes": {"idle_gpu_util_max_pct": {"old": 8, "new": None}}},
        {"changes": {"idle_gpu_util_max_pct": {"old": None, "new": 8}}},
    ]
    _by_alice(phases[0], alice)
    assert one_entry(alice_client, "recommendation_settings.updated")["details"] == {
        "changes": {"idle_min_share": {"old": None, "new": 0.5}}
    }


def test_it_records_alert_settings_rules_and_recipients_never_the_webhook_secret(
    alice: User, charlie: User, acme: Organization, alice_client: APIClient
) -> None:
    saved = alice_client.patch(
        "/api/v1/alerts/settings",
        {
            "webhook_url": "https://hooks.acme.test/a",
            "webhook_enabled": True,
            "webhook_secret": "webhook-secret-never-logged",
        },
        format="json",
    )
    assert saved.status_code == 200, saved.content
    rule = alice_client.post(
        "/api/v1/alert-rules",
        {"name": "mem", "metric": "gpu_mem_used_pct", "comparison": "above", "threshold": 92.5},
        format="json",
    ).json()
    assert (
        alice_client.patch(
            f"/api/v1/alert-rules/{rule['id']}", {"threshold": 95}, format="json"
        ).status_code
        == 200
    )
    assert alice_client.delete(f"/api/v1/alert-rules/{rule['id']}").status_code == 204
    recipient = alice_client.post(
        "/api/v1/alert-recipients", {"email": charlie.email}, format="json"
    )
    assert recipient.status_code == 201, recipient.content
    assert (
        alice_client.delete(f"/api/v1/alert-recipients/{recipient.json()['id']}").status_code == 204
    )

    settings = one_entry(alice_client, "alert_settings.updated")
    _by_alice(settings, alice)
    assert settings["details"] == {
        "changes": {
            "webhook_url": {"old": "", "new": "https://hooks.acme.test/a"},
            "webhook_enabled": {"old": False, "new": True},
        },
        "secrets_changed": ["webhook_secret"],
    }
    assert one_entry(alice_client, "alert_rule.created")["details"]["values"]["threshold"] == 92.5
    assert one_entry(alice_client, "alert_rule.updated")["details"] == {
        "changes": {"threshold": {"old": 92.5, "new": 95.0}}
    }
    assert one_entry(alice_client, "alert_rule.deleted")["target"]["label"] == "mem"
    added = one_entry(alice_client, "alert_recipient.created")
    assert added["target"]["label"] == "charlie@acme.test"
    assert one_entry(alice_client, "alert_recipient.deleted")["target"] == added["target"]
    assert "never-logged" not in json.dumps(list(AuditEntry.objects.values()), default=str)


def test_it_records_budgets_created_changed_and_deleted(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    created = alice_client.post(
        "/api/v1/budgets", {"name": "Fleet", "amount": "2000.00"}, format="json"
    ).json()
    url = f"/api/v1/budgets/{created['id']}"
    changed = alice_client.patch(
        url, {"amount": "2500.00", "actual_thresholds_pct": [80]}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert alice_client.delete(url).status_code == 204

    made = one_entry(alice_client, "budget.created")
    _by_alice(made, alice)
    assert made["target"] == {"type": "budget", "id": str(created["id"]), "label": "Fleet"}
    assert made["details"]["values"]["amount"] == "2000.00"
    assert one_entry(alice_client, "budget.updated")["details"] == {
        "changes": {
            "amount": {"old": "2000.00", "new": "2500.00"},
            "actual_thresholds_pct": {"old": [50, 80, 100], "new": [80]},
        }
    }
    assert one_entry(alice_client, "budget.deleted")["details"]["values"]["amount"] == "2500.00"


def test_it_records_digest_schedules_and_holidays(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    url = "/api/v1/digest-subscriptions"
    created = alice_client.post(url, {"frequency": "daily"}, format="json").json()
    changed = alice_client.patch(f"{url}/{created['id']}", {"send_time": "07:30:00"}, format="json")
    assert changed.status_code == 200, changed.content
    token = unsubscribe_token_make(created["id"])
    assert APIClient().post(f"/api/v1/digests/unsubscribe?token={token}").status_code == 200
    assert alice_client.delete(f"{url}/{created['id']}").status_code == 204
    holiday = alice_client.post(
        "/api/v1/holidays", {"date": "2026-12-25", "name": "Christmas"}, format="json"
    ).json()
    assert (
        alice_client.patch(
            f"/api/v1/holidays/{holiday['id']}", {"name": "Xmas"}, format="json"
        ).status_code
        == 200
    )
    assert alice_client.delete(f"/api/v1/holidays/{holiday['id']}").status_code == 204

    subscribed = one_entry(alice_client, "digest_subscription.created")
    _by_alice(subscribed, alice)
    assert subscribed["details"]["values"]["frequency"] == "daily"
    assert one_entry(alice_client, "digest_subscription.updated")["details"] == {
        "changes": {"send_time": {"old": "09:00:00", "new": "07:30:00"}}
    }
    # The link is the credential: nobody is signed in.
    unsubscribed = one_entry(alice_client, "digest_subscription.unsubscribed")
    assert unsubscribed["actor"]["type"] == "anonymous"
    assert unsubscribed["target"]["label"] == "alice@acme.test"
    assert one_entry(alice_client, "digest_subscription.deleted")["target"]["id"] == str(
        created["id"]
    )
    assert one_entry(alice_client, "holiday.created")["details"] == {
        "values": {"date": "2026-12-25", "name": "Christmas"}
    }
    assert one_entry(alice_client, "holiday.updated")["details"] == {
        "changes": {"name": {"old": "Christmas", "new": "Xmas"}}
    }
    assert one_entry(alice_client, "holiday.deleted")["target"]["label"] == "2026-12-25"


def test_it_records_projects_and_their_tag_rules(
    alice: User, acme: Organization, alice_client: APIClient
) -> None:
    project = Project.objects.create(organization=acme, name="nlp", slug="nlp", tag_values=["nlp"])
    response = alice_client.patch(
        f"/api/v1/projects/{project.pk}", {"tag_values": ["nlp", "nlp-v2"]}, format="json"
    )
    assert response.status_code == 200, response.content
    key = alice_client.post("/api/v1/project-tag-keys", {"key": "team"}, format="json").json()
    assert alice_client.delete(f"/api/v1/project-tag-keys/{key['id']}").status_code == 204

    changed = one_entry(alice_client, "project.updated")
    _by_alice(changed, alice)
    assert changed["target"] == {"type": "project", "id": str(project.pk), "label": "nlp"}
    assert changed["details"] == {
        "changes": {"tag_values": {"old": ["nlp"], "new": ["nlp", "nlp-v2"]}}
    }
    assert one_entry(alice_client, "project_tag_key.created")["details"] == {
        "key": "team",
        "position": 0,
    }
    assert one_entry(alice_client, "project_tag_key.deleted")["target"]["label"] == "team"


def test_it_names_every_action_in_both_languages(
    alice_client: APIClient, acme: Organization
) -> None:
    from apps.accounts.audit.actions import ACTIONS

    assert all(
        label.en and label.zh_hans and label.en != label.zh_hans for label in ACTIONS.values()
    )
    chinese = alice_client.get(
        "/api/v1/audit-log", {"action": "sign_in.succeeded"}, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9"
    ).json()["results"]
    assert chinese[0]["action_label"] == "登录成功"

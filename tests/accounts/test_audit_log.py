"""The audit log itself: who may read it, its filters and pages, and that it is append-only."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.audit import actions
from apps.accounts.audit.models import AuditLogAppendOnly
from apps.accounts.audit.services import audit_record
from apps.accounts.models import ApiKey, AuditEntry, Membership, Organization, User
from apps.accounts.roles import Role
from apps.accounts.tasks import purge_audit_log
from tests.accounts.audit_log import audit_entries

pytestmark = pytest.mark.django_db

URL = "/api/v1/audit-log"


def _entry(organization: Organization, action: str = actions.BUDGET_CREATED, **fields: object):
    fields.setdefault("target_type", "budget")
    return audit_record(organization=organization, action=action, **fields)  # type: ignore[arg-type]


def _member(organization: Organization, email: str, role: str) -> APIClient:
    user = User.objects.create_user(email=email, password="member-pass-123")
    Membership.objects.create(organization=organization, user=user, role=role)
    client = APIClient()
    client.force_login(user)
    return client


def test_it_shows_owners_and_admins_their_organizations_entries_newest_first(
    acme: Organization, globex: Organization, alice_client: APIClient
) -> None:
    older = _entry(acme, target_label="first")
    newer = _entry(acme, target_label="second")
    theirs = _entry(globex, target_label="globex's")
    admin = _member(acme, "ada@acme.test", Role.ADMIN)

    for client in (alice_client, admin):
        ids = [entry["id"] for entry in audit_entries(client, action="budget.created")]
        assert ids == [newer.pk, older.pk]
        assert client.get(f"{URL}/{older.pk}").json()["target"]["label"] == "first"
        # Another organization's entry is not found, never forbidden.
        assert client.get(f"{URL}/{theirs.pk}").status_code == 404


@pytest.mark.parametrize("role", [Role.LEAD, Role.FINANCE, Role.VIEWER])
def test_it_is_not_found_for_every_other_role(
    acme: Organization, role: str, alice_client: APIClient
) -> None:
    entry = _entry(acme)
    client = _member(acme, f"{role}@acme.test", role)
    for url in (URL, f"{URL}/{entry.pk}"):
        response = client.get(url)
        assert response.status_code == 404, (url, response.content)
        assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("scope", ["read", "write"])
def test_it_is_not_found_for_every_api_key(
    acme: Organization, scope: str, key_client: Callable[..., tuple[APIClient, ApiKey]]
) -> None:
    entry = _entry(acme)
    client, _ = key_client(acme, scope)
    assert client.get(URL).status_code == 404
    assert client.get(f"{URL}/{entry.pk}").status_code == 404


def test_it_needs_a_sign_in(acme: Organization) -> None:
    assert APIClient().get(URL).status_code in (401, 403)


def test_it_cannot_add_change_or_delete_an_entry_through_the_api(
    acme: Organization, alice_client: APIClient
) -> None:
    entry = _entry(acme, target_label="kept")
    before = list(AuditEntry.objects.values())
    detail = f"{URL}/{entry.pk}"
    attempts = [
        alice_client.post(URL, {"action": "budget.created"}, format="json"),
        alice_client.put(detail, {"target_label": "changed"}, format="json"),
        alice_client.patch(detail, {"target_label": "changed"}, format="json"),
        alice_client.delete(detail),
        alice_client.delete(URL),
    ]
    assert [response.status_code for response in attempts] == [405] * 5
    assert list(AuditEntry.objects.values()) == before


def test_it_refuses_to_change_or_delete_an_entry_through_the_orm(acme: Organization) -> None:
    entry = _entry(acme, target_label="kept")
    entry.target_label = "changed"
    with pytest.raises(AuditLogAppendOnly):
        entry.save()
    with pytest.raises(AuditLogAppendOnly):
        entry.delete()
    with pytest.raises(AuditLogAppendOnly):
        AuditEntry.objects.filter(pk=entry.pk).update(target_label="changed")
    with pytest.raises(AuditLogAppendOnly):
        AuditEntry.objects.filter(pk=entry.pk).delete()
    with pytest.raises(AuditLogAppendOnly):
        AuditEntry.objects.bulk_update([entry], ["target_label"])
    # Deleting the organization (an operator in the admin site) leaves its log as it was.
    acme.delete()
    assert AuditEntry.objects.get(pk=entry.pk).target_label == "kept"


def _raw(*statements: tuple[str, list[Any]]) -> None:
    """Run SQL in a transaction of its own (a savepoint), as any code with a cursor could."""
    with transaction.atomic(), connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)


def test_it_refuses_raw_sql_updates_and_deletes_on_postgresql(acme: Organization) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the append-only trigger is PostgreSQL's (SQLite has the ORM's refusals)")
    entry = _entry(acme, target_label="kept")
    update = ("UPDATE accounts_auditentry SET target_label = 'changed' WHERE id = %s", [entry.pk])
    delete = ("DELETE FROM accounts_auditentry WHERE id = %s", [entry.pk])
    with pytest.raises(DatabaseError, match="append-only"):
        _raw(update)
    with pytest.raises(DatabaseError, match="append-only"):
        _raw(delete)
    # Naming a cut-off lets only older rows go: the purge's setting is no master key.
    cutoff = (timezone.now() - dt.timedelta(days=1)).isoformat()
    purge_setting = ("SELECT set_config('gpu_ledger.audit_purge_before', %s, true)", [cutoff])
    with pytest.raises(DatabaseError, match="append-only"):
        _raw(purge_setting, delete)
    assert AuditEntry.objects.get(pk=entry.pk).target_label == "kept"


def test_it_purges_entries_older_than_the_retention_and_keeps_the_rest(
    acme: Organization, alice_client: APIClient
) -> None:
    now = timezone.now()
    old = AuditEntry.objects.create(
        organization=acme, action=actions.BUDGET_CREATED, actor_type="system",
        at=now - dt.timedelta(days=366),
    )  # fmt: skip
    kept = AuditEntry.objects.create(
        organization=acme, action=actions.BUDGET_CREATED, actor_type="system",
        at=now - dt.timedelta(days=364),
    )  # fmt: skip

    assert purge_audit_log.delay().get() == 1
    ids = {entry["id"] for entry in audit_entries(alice_client, action="budget.created")}
    assert ids == {kept.pk}
    assert old.pk not in set(AuditEntry.objects.values_list("pk", flat=True))
    # Running it again purges nothing more; a shorter retention purges more.
    assert purge_audit_log.delay().get() == 0
    with override_settings(AUDIT_RETENTION_DAYS=30):
        assert purge_audit_log.delay().get() == 1


def test_it_runs_the_purge_from_the_one_beat_schedule() -> None:
    from workers.schedule import BEAT_SCHEDULE

    entry = BEAT_SCHEDULE["accounts.purge-audit-log"]
    assert entry["task"] == "accounts.purge_audit_log"
    assert entry["schedule"] == dt.timedelta(hours=24)


def test_it_filters_by_action_actor_and_time(
    acme: Organization, alice: User, charlie: User, alice_client: APIClient
) -> None:
    base = timezone.now() - dt.timedelta(hours=3)
    by_alice = AuditEntry.objects.create(
        organization=acme, action=actions.BUDGET_CREATED, actor_type="user", actor_user=alice,
        actor_display=alice.email, at=base,
    )  # fmt: skip
    by_charlie = AuditEntry.objects.create(
        organization=acme, action=actions.BUDGET_DELETED, actor_type="user", actor_user=charlie,
        actor_display=charlie.email, at=base + dt.timedelta(hours=1),
    )  # fmt: skip

    def ids(**params: Any) -> list[int]:
        return [
            entry["id"]
            for entry in audit_entries(alice_client, **params)
            if entry["id"] in {by_alice.pk, by_charlie.pk}
        ]

    assert ids(action=["budget.created", "budget.deleted"]) == [by_charlie.pk, by_alice.pk]
    assert ids(action="budget.deleted") == [by_charlie.pk]
    assert ids(actor="CHARLIE") == [by_charlie.pk]
    middle = (base + dt.timedelta(minutes=30)).isoformat()
    assert ids(since=middle) == [by_charlie.pk]
    assert ids(until=middle) == [by_alice.pk]
    assert ids(since=base.isoformat(), until=(base + dt.timedelta(hours=1)).isoformat()) == [
        by_alice.pk
    ]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"action": "budget.exploded"}, "action"),
        ({"since": "yesterday"}, "since"),
        ({"until": "2026-13-01T00:00:00Z"}, "until"),
        ({"colour": "red"}, "colour"),
        ({"page_size": "0"}, "page_size"),
    ],
)
def test_it_answers_a_bad_filter_with_400_naming_it(
    acme: Organization, alice_client: APIClient, params: dict, field: str
) -> None:
    response = alice_client.get(URL, params)
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"]


def test_it_pages_the_log(acme: Organization, alice_client: APIClient) -> None:
    made = [_entry(acme, target_label=f"b{n}") for n in range(3)]
    first = alice_client.get(URL, {"action": "budget.created", "page_size": "2"}).json()
    assert first["count"] == 3
    assert [entry["id"] for entry in first["results"]] == [made[2].pk, made[1].pk]
    second = alice_client.get(first["next"]).json()
    assert [entry["id"] for entry in second["results"]] == [made[0].pk]

"""No write of the API is open to a viewer or a read-only API key (see roles.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import ApiKey, Organization, User
from apps.api.permissions import IsOrganizationManagerElseNotFound, IsOrganizationMember
from tests.api.cross_organization import schema_operations
from tests.api.globex_world import GlobexWorld, globex_world
from tests.api.roles import (
    READ_KEY,
    VIEWER,
    coverage_violations,
    manager_only_read_violations,
    role_violations,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def acme_world(acme: Organization, alice: User) -> GlobexWorld:
    # Acme's own objects: a missing role check cannot hide behind a 404.
    return globex_world(acme, alice)


@pytest.fixture
def clients(
    charlie_client: APIClient,
    key_client: Callable[..., tuple[APIClient, ApiKey]],
    acme: Organization,
) -> dict[str, APIClient]:
    read_client, _ = key_client(acme, "read")
    return {VIEWER: charlie_client, READ_KEY: read_client}


def test_it_has_an_entry_for_every_write_of_the_schema() -> None:
    assert [str(v) for v in coverage_violations(schema_operations())] == []


def test_it_reports_a_write_without_an_entry() -> None:
    operations = {**schema_operations(), "/api/v1/unprobed/{id}": ["get", "patch"]}
    assert [str(v)[:33] for v in coverage_violations(operations)] == [
        "PATCH /api/v1/unprobed/{id}: no e"
    ]


def test_it_answers_every_write_of_a_viewer_or_a_read_only_key_with_403(
    clients: dict[str, APIClient], acme_world: GlobexWorld
) -> None:
    assert [str(v) for v in role_violations(clients, acme_world)] == []


def test_it_reports_every_write_once_roles_stop_being_checked(
    clients: dict[str, APIClient], acme_world: GlobexWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Proves the check can fail: without the role check, organization-scoped writes get in."""
    monkeypatch.setattr(IsOrganizationMember, "has_permission", lambda self, request, view: True)

    reported = {(v.method, v.path) for v in role_violations(clients, acme_world)}

    assert {
        ("post", "/api/v1/cloud-accounts"),
        ("patch", "/api/v1/projects/{id}"),
        ("delete", "/api/v1/project-tag-keys/{id}"),
        ("post", "/api/v1/recommendations/{id}/actions"),
        ("patch", "/api/v1/analysis/settings"),
        ("post", "/api/v1/api-keys"),
    } <= reported


def test_it_answers_the_manager_only_reads_of_every_other_principal_with_404(
    clients: dict[str, APIClient],
    acme_world: GlobexWorld,
    acme: Organization,
    key_client: Callable[..., tuple[APIClient, ApiKey]],
) -> None:
    write_client, _ = key_client(acme, "write")
    everyone = {**clients, "write key": write_client}
    assert [str(v) for v in manager_only_read_violations(everyone, acme_world)] == []


def test_it_reports_a_manager_only_read_once_its_role_check_is_gone(
    clients: dict[str, APIClient], acme_world: GlobexWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Proves the check can fail: without the managers-only permission, viewers read the log."""
    monkeypatch.setattr(
        IsOrganizationManagerElseNotFound, "has_permission", lambda self, request, view: True
    )
    reported = {(v.path, v.problem) for v in manager_only_read_violations(clients, acme_world)}
    assert ("/api/v1/audit-log", "as viewer: 200, not 404") in reported
    assert ("/api/v1/audit-log/{id}", "as read-only key: 200, not 404") in reported

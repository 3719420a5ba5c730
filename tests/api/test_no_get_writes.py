"""No GET writes: every GET of the OpenAPI schema answers without writing a row.

Derived data (the cost rollup, the analysis's rollups) is written when its inputs change, never
by a read. The test runs every GET operation of the schema as a member of a seeded organization
(one row of every organization-scoped model, ``globex_world``) whose timezone has just changed
(the change a rollup in local days must follow), with a database wrapper that fails any
INSERT, UPDATE or DELETE. The one table a GET may write is the audit log: an export records who
downloaded what, by design.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from apps.accounts import services as accounts_services
from apps.accounts.models import AuditEntry, Organization, User
from tests.api.cross_organization import PROBES, schema_operations
from tests.api.globex_world import GlobexWorld, globex_world

pytestmark = pytest.mark.django_db

_WRITE = re.compile(
    r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+"?([\w.]+)"?',
    re.IGNORECASE,
)
ALLOWED_TABLES = frozenset({AuditEntry._meta.db_table})


class WriteOnGet(Exception):
    """A GET tried to write (raised before the statement runs)."""


class WriteGuard:
    """An ``execute_wrapper`` that fails every write but to ``ALLOWED_TABLES``."""

    def __init__(self) -> None:
        self.tables: list[str] = []

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        found = _WRITE.match(sql)
        if found and found.group(1) not in ALLOWED_TABLES:
            self.tables.append(found.group(1))
            raise WriteOnGet(f"writes {found.group(1)}: {sql[:120]}")
        return execute(sql, params, many, context)


@pytest.fixture
def world(acme: Organization, alice: User) -> GlobexWorld:
    return globex_world(acme, alice)


def _get_urls(world: GlobexWorld) -> Iterator[tuple[str, str, dict[str, str]]]:
    for path, methods in sorted(schema_operations().items()):
        if "get" not in methods:
            continue
        probe = PROBES.get(path)
        url = path
        if "{id}" in path:
            assert probe is not None, path
            url = path.replace("{id}", str(world[probe.target].pk))
        yield path, url, dict(probe.query) if probe else {}


def _writes_of_every_get(client: APIClient, world: GlobexWorld) -> dict[str, str]:
    """Schema path -> what its GET tried to write (or its 5xx answer)."""
    guard = WriteGuard()
    problems: dict[str, str] = {}
    with connection.execute_wrapper(guard):
        for path, url, query in _get_urls(world):
            before = len(guard.tables)
            try:
                response = client.get(url, query)
                if hasattr(response, "streaming_content"):
                    # A streamed export reads (and could write) as it is consumed.
                    b"".join(response.streaming_content)
            except WriteOnGet:
                pass
            else:
                if response.status_code >= 500:
                    problems[path] = f"answered {response.status_code}"
            # The API answers an unexpected error with a 500 of its own: the guard knows why.
            if len(guard.tables) > before:
                problems[path] = f"writes {sorted(set(guard.tables[before:]))}"
    return problems


def test_no_get_of_the_schema_writes(alice_client: APIClient, world: GlobexWorld) -> None:
    # The organization moves to another timezone: its cost rollup in local days must follow
    # at the change, not at the next read.
    accounts_services.organization_update(organization=world.organization, timezone="UTC")

    assert _writes_of_every_get(alice_client, world) == {}


def test_the_guard_fails_a_write_and_lets_the_audit_log_through(
    alice_client: APIClient, world: GlobexWorld
) -> None:
    guard = WriteGuard()
    with connection.execute_wrapper(guard), connection.cursor() as cursor:
        with pytest.raises(WriteOnGet, match="cloud_project"):
            cursor.execute("UPDATE cloud_project SET name = name WHERE id = %s", [0])
        cursor.execute(f"DELETE FROM {AuditEntry._meta.db_table} WHERE id = %s", [0])
    assert guard.tables == ["cloud_project"]

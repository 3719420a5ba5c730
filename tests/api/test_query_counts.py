"""Every list endpoint answers in a pinned number of queries, whatever the number of rows.

Each list of the OpenAPI schema (a GET without ``{id}`` answering a page of ``results``) is
read once with Acme's one row of everything (tests/api/globex_world.py) and once after three
more rows of what it lists, each with its related rows (project, sync states, events, ...).
The count must not grow with the rows (no N+1) and must stay within the pin. A list without a
pin fails, so a new list endpoint gets one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from contextlib import AbstractContextManager
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from apps.accounts import services as accounts_services
from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import audit_record
from apps.accounts.models import Invitation, Membership, Organization, User
from apps.accounts.roles import Role
from apps.alerts.models import AlertEvent, AlertRecipient, Budget, ThresholdRule
from apps.automation.models import ActionKind, AutomationAction, AutomationPlan, PlanKind
from apps.billing.models import BillLine
from apps.cloud.models import Instance, Project, ProjectTagKey
from apps.cloud.services import cloud_account_create
from apps.digests.models import DigestSubscription, Holiday
from apps.recommendations.models import Recommendation
from tests.api.globex_world import MIDNIGHT, GlobexWorld, globex_world

pytestmark = pytest.mark.django_db

MORE = 3


def _organizations(world: GlobexWorld, user: User, i: int) -> None:
    accounts_services.organization_create(name=f"Extra {i}", owner=user)


def _members(world: GlobexWorld, user: User, i: int) -> None:
    person = User.objects.create_user(email=f"m{i}@acme.test", password="x-pass-123456")
    Membership.objects.create(organization=world.organization, user=person, role=Role.VIEWER)


def _invitations(world: GlobexWorld, user: User, i: int) -> None:
    Invitation.objects.create(
        organization=world.organization,
        email=f"i{i}@acme.test",
        token_hash=f"{i}" * 64,
        invited_by=user,
        expires_at=MIDNIGHT + dt.timedelta(days=3650),
    )


def _api_keys(world: GlobexWorld, user: User, i: int) -> None:
    accounts_services.api_key_create(
        organization=world.organization, name=f"k{i}", scope="read", created_by=user
    )


def _cloud_accounts(world: GlobexWorld, user: User, i: int) -> None:
    cloud_account_create(
        organization=world.organization,
        name=f"extra {i}",
        secret_id=f"AKIDextra{i:027d}",
        secret_key="extra-secret-key-000000000000000000",
        regions=["ap-shanghai"],
    )


def _projects(world: GlobexWorld, user: User, i: int) -> Project:
    return Project.objects.create(organization=world.organization, name=f"p{i}", slug=f"p{i}")


def _tag_keys(world: GlobexWorld, user: User, i: int) -> None:
    ProjectTagKey.objects.create(organization=world.organization, key=f"k{i}", position=i + 1)


def _instances(world: GlobexWorld, user: User, i: int) -> Instance:
    return Instance.objects.create(
        organization=world.organization,
        account=world["cloud_account"],
        provider_id=f"ins-extra{i}",
        name=f"extra-{i}",
        region="ap-shanghai",
        instance_type="GN7.2XLARGE32",
        gpu_count=1,
        project=_projects(world, user, 100 + i),
    )


def _recommendations(world: GlobexWorld, user: User, i: int) -> Recommendation:
    instance = _instances(world, user, 200 + i)
    return Recommendation.objects.create(
        organization=world.organization,
        kind="stop_idle",
        fingerprint=f"extra-{i}",
        instance=instance,
        project=instance.project,
        title=f"Stop idle {instance.name}",
        explanation="Idle.",
        monthly_saving=Decimal("100.00"),
        currency="CNY",
        saving_formula="x",
        price_source="bills",
        confidence="high",
        evidence_days=14.0,
        coverage_pct=100.0,
        risk_level=1,
        risk_reason="Low.",
        first_seen_at=MIDNIGHT,
        last_seen_at=MIDNIGHT,
    )


def _budgets(world: GlobexWorld, user: User, i: int) -> None:
    project = _projects(world, user, 300 + i)
    Budget.objects.create(
        organization=world.organization, name=f"b{i}", amount=Decimal("1000"), project=project
    )


def _threshold_rule(world: GlobexWorld, user: User, i: int) -> ThresholdRule:
    return ThresholdRule.objects.create(
        organization=world.organization,
        name=f"hot {i}",
        metric="gpu_temp_c",
        comparison="above",
        threshold=80 + i,
        duration_minutes=5,
        project=_projects(world, user, 400 + i),
    )


def _alert_recipients(world: GlobexWorld, user: User, i: int) -> None:
    AlertRecipient.objects.create(
        organization=world.organization, role="finance", project=_projects(world, user, 500 + i)
    )


def _alerts(world: GlobexWorld, user: User, i: int) -> None:
    instance = _instances(world, user, 600 + i)
    AlertEvent.objects.create(
        organization=world.organization,
        kind="threshold",
        title=f"alert {i}",
        message="hot",
        rule=_threshold_rule(world, user, 600 + i),
        instance=instance,
        project=instance.project,
        started_at=MIDNIGHT,
    )


def _bill_lines(world: GlobexWorld, user: User, i: int) -> None:
    instance = _instances(world, user, 700 + i)
    BillLine.objects.create(
        organization=world.organization,
        account=world["cloud_account"],
        bill_id=f"extra-bill-{i}",
        component_code="v1",
        item_code="i1",
        month="2026-11",
        instance=instance,
        project=instance.project,
        fee_begin_at=MIDNIGHT + dt.timedelta(hours=i + 1),
        fee_end_at=MIDNIGHT + dt.timedelta(hours=i + 2),
        list_cost=Decimal("12.5"),
        cost=Decimal("10"),
    )


def _digest_subscriptions(world: GlobexWorld, user: User, i: int) -> None:
    # A subscription is its person's own: the list shows the caller's (Alice's) only.
    subscription = DigestSubscription.objects.create(
        organization=world.organization, user=user, next_send_at=MIDNIGHT
    )
    subscription.projects.set([_projects(world, user, 800 + i)])


def _holidays(world: GlobexWorld, user: User, i: int) -> None:
    Holiday.objects.create(
        organization=world.organization, date=dt.date(2026, 12, 24 + i), name=f"h{i}"
    )


def _audit_entries(world: GlobexWorld, user: User, i: int) -> None:
    audit_record(
        organization=world.organization,
        action=audit_actions.BUDGET_CREATED,
        target=world["budget"],
        actor=user,
    )


def _automation_actions(world: GlobexWorld, user: User, i: int) -> None:
    # A stop of another instance, by the plan of another recommendation.
    recommendation = _recommendations(world, user, 900 + i)
    plan = AutomationPlan.objects.create(
        organization=world.organization,
        recommendation=recommendation,
        kind=PlanKind.STOP_IDLE,
        created_by=user,
        started_at=MIDNIGHT,
    )
    due_at = MIDNIGHT + dt.timedelta(hours=i + 1)
    assert recommendation.instance is not None
    AutomationAction.objects.create(
        organization=world.organization,
        plan=plan,
        instance=recommendation.instance,
        kind=ActionKind.STOP,
        due_at=due_at,
        next_attempt_at=due_at,
    )


Adder = Callable[[GlobexWorld, User, int], Any]

# Path -> (the most queries it may take, how to add one more row of what it lists). Five is
# the session, its user, the memberships (tenant), the page's COUNT and its rows; cloud
# accounts prefetch their sync states, organizations read the caller's roles.
LIST_QUERY_COUNTS: dict[str, tuple[int, Adder]] = {
    "/api/v1/organizations": (6, _organizations),
    "/api/v1/members": (5, _members),
    "/api/v1/invitations": (5, _invitations),
    "/api/v1/api-keys": (5, _api_keys),
    "/api/v1/cloud-accounts": (6, _cloud_accounts),
    "/api/v1/projects": (5, _projects),
    "/api/v1/project-tag-keys": (5, _tag_keys),
    "/api/v1/instances": (5, _instances),
    "/api/v1/recommendations": (5, _recommendations),
    # Budgets add their status: month-to-date and last-7-days spend, one query each per currency.
    "/api/v1/budgets": (7, _budgets),
    # The rules list first checks that the default rules exist (one query once they do).
    "/api/v1/alert-rules": (6, _threshold_rule),
    "/api/v1/alert-recipients": (5, _alert_recipients),
    # Alerts prefetch their deliveries (one more query for the page).
    "/api/v1/alerts": (6, _alerts),
    # The first page of a FOCUS export records who downloaded which period (one INSERT).
    "/api/v1/exports/focus": (10, _bill_lines),
    # The audit log's entries carry their actor's and target's names: no join per row.
    "/api/v1/audit-log": (5, _audit_entries),
    # Each action carries its plan's recommendation and its instance's name: joined, not read
    # per row.
    "/api/v1/automation/actions": (5, _automation_actions),
    # Subscriptions prefetch their projects and their latest delivery.
    "/api/v1/digest-subscriptions": (7, _digest_subscriptions),
    "/api/v1/holidays": (5, _holidays),
    # The usage tables: the count, the page's instances, their costs, hours and waste (the
    # billed-hours rollup's state, its whole days and the period's edges), the filters' values,
    # each one grouped query whatever the rows.
    "/api/v1/usage/instances": (14, _instances),
    "/api/v1/usage/projects": (12, _projects),
}
# Lists that need a query to have rows in a fixed period (Globex's world lives on 2026-11-02).
LIST_QUERIES = {
    "/api/v1/exports/focus": "?start=2026-11-01&end=2026-11-30",
    "/api/v1/usage/instances": "?start=2026-11-01&end=2026-11-07",
    "/api/v1/usage/projects": "?start=2026-11-01&end=2026-11-07",
}


def schema_lists() -> list[str]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    lists = []
    for path, operations in schema["paths"].items():
        ok = operations.get("get", {}).get("responses", {}).get("200", {})
        ref = ok.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
        component = schema["components"]["schemas"].get(ref.rsplit("/", 1)[-1], {})
        if "{" not in path and "results" in component.get("properties", {}):
            lists.append(path)
    return sorted(lists)


def test_it_pins_the_query_count_of_every_list_of_the_schema() -> None:
    assert schema_lists() == sorted(LIST_QUERY_COUNTS)


def _count(client: APIClient, path: str) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path + LIST_QUERIES.get(path, ""))
    assert response.status_code == 200, response.content
    page = response.json()
    # Keyset (cursor) pages carry no count; every row fits on the first page here.
    return len(queries), page.get("count", len(page["results"]))


@pytest.mark.parametrize("path", sorted(LIST_QUERY_COUNTS))
def test_it_lists_in_a_pinned_number_of_queries_whatever_the_rows(
    alice_client: APIClient,
    acme: Organization,
    alice: User,
    path: str,
    django_assert_max_num_queries: Callable[[int], AbstractContextManager[Any]],
) -> None:
    pinned, add = LIST_QUERY_COUNTS[path]
    world = globex_world(acme, alice)
    alice_client.get(
        path + LIST_QUERIES.get(path, "")
    )  # Warm up what is cached per process (content types, ...).
    # One added row first: "one row of the added kind" vs "many" separates growth with the rows
    # from a query that runs only once some row of a kind exists (e.g. pricing from the catalog).
    add(world, alice, MORE)

    few, rows_before = _count(alice_client, path)
    for i in range(MORE):
        add(world, alice, i)
    with django_assert_max_num_queries(pinned):
        many, rows_after = _count(alice_client, path)

    assert rows_after == rows_before + MORE
    assert many == few, f"{path}: {few} queries for {rows_before} rows, {many} for {rows_after}"

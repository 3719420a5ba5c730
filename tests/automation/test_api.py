"""The automation API as people use it: Alice (Acme's owner) automates, Charlie (viewer) reads,
Bob (Globex) sees nothing of Acme's."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import AuditEntry, Organization
from apps.automation.models import ActionStatus, AutomationAction, AutomationPlan
from apps.recommendations.models import RecommendationEvent, Status
from tests.automation.world import FakeCloud, accepted_schedule, install, schedule_world
from tests.recommendations.factories import make_instance

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeCloud:
    return install(monkeypatch, FakeCloud())


def url(recommendation_id: int) -> str:
    return f"/api/v1/recommendations/{recommendation_id}/automation"


def test_every_member_reads_it_and_owners_create_it(
    acme: Organization, alice_client: APIClient, charlie_client: APIClient, fake: FakeCloud
) -> None:
    _instance, recommendation = schedule_world(acme)
    body = charlie_client.get(url(recommendation.pk)).json()
    assert body["available"] is True
    assert body["plan"] is None
    # The window is off on weeknights 19:00-09:00 and the weekend (Shanghai): from working
    # hours the next action stops the instance, from off hours it starts it.
    local = timezone.now().astimezone(zoneinfo.ZoneInfo("Asia/Shanghai"))
    working_hours = local.weekday() < 5 and 9 <= local.hour < 19
    assert body["next_actions"][0]["kind"] == ("stop" if working_hours else "start")
    assert charlie_client.post(url(recommendation.pk), {}, format="json").status_code == 403

    response = alice_client.post(
        url(recommendation.pk), {"skip_dates": ["2026-12-31"]}, format="json"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    plan = body["plan"]
    assert plan["status"] == "active"
    assert plan["skip_dates"] == ["2026-12-31"]
    assert plan["created_by"]["email"] == "alice@acme.test"
    assert {a["kind"] for a in body["next_actions"]} == {"stop", "start"}
    assert body["next_actions"][0]["instance_name"] == "gn7-idle-14"
    assert body["weeks"][0]["promised"] == "280.00"  # 1,200 x 7 / 30
    assert AuditEntry.objects.filter(action="automation_plan.created", organization=acme).exists()
    assert RecommendationEvent.objects.filter(
        recommendation=recommendation, reason="Automation turned on."
    ).exists()
    # Twice is refused.
    again = alice_client.post(url(recommendation.pk), {}, format="json")
    assert again.status_code == 400
    assert again.json()["error"]["code"] == "plan_exists"


def test_another_organization_gets_404s(
    acme: Organization, globex: Organization, bob_client: APIClient, fake: FakeCloud
) -> None:
    _instance, recommendation = schedule_world(acme)
    assert bob_client.get(url(recommendation.pk)).status_code == 404
    assert bob_client.post(url(recommendation.pk), {}, format="json").status_code == 404
    assert bob_client.delete(url(recommendation.pk)).status_code == 404


@pytest.mark.parametrize(
    ("setup", "code"),
    [
        ("read_only", "read_only_credential"),
        ("disabled", "automation_disabled"),
        ("paused", "automation_paused"),
        ("open", "not_accepted"),
    ],
)
def test_it_refuses_with_a_clear_code(
    setup: str,
    code: str,
    acme: Organization,
    alice_client: APIClient,
    fake: FakeCloud,
) -> None:
    instance = make_instance(acme, "box")
    recommendation = accepted_schedule(
        acme, instance, status=Status.OPEN if setup == "open" else Status.ACCEPTED
    )
    fake.write_credential = setup != "read_only"
    fake.enabled = setup != "disabled"
    if setup == "paused":
        assert (
            alice_client.patch(
                "/api/v1/automation/settings", {"paused": True}, format="json"
            ).status_code
            == 200
        )
    body = alice_client.get(url(recommendation.pk)).json()
    assert body["available"] is False
    assert body["unavailable_reason"] == code
    assert body["unavailable_reason_text"]
    response = alice_client.post(url(recommendation.pk), {}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not AutomationPlan.objects.exists()


def test_an_instance_holding_memory_needs_a_confirmation(
    acme: Organization, alice_client: APIClient, fake: FakeCloud
) -> None:
    instance = make_instance(acme, "held")
    recommendation = accepted_schedule(acme, instance, kind="idle_held", action={})
    refused = alice_client.post(url(recommendation.pk), {}, format="json")
    assert refused.json()["error"]["code"] == "memory_held_not_confirmed"
    created = alice_client.post(
        url(recommendation.pk), {"memory_held_confirmed": True, "grace_hours": 48}, format="json"
    )
    assert created.status_code == 201
    plan = AutomationPlan.objects.get()
    assert plan.kind == "stop_idle"
    assert plan.grace_hours == 48
    assert plan.told_at is not None
    stop = AutomationAction.objects.get(plan=plan)
    assert stop.due_at == plan.told_at + dt.timedelta(hours=48)
    # The owners were told at once.
    assert plan.organization.alerts_alertevent_set.filter(kind="automation").count() == 1


def test_pause_resume_and_end(
    acme: Organization, alice_client: APIClient, charlie_client: APIClient, fake: FakeCloud
) -> None:
    _instance, recommendation = schedule_world(acme)
    alice_client.post(url(recommendation.pk), {}, format="json")
    assert (
        charlie_client.patch(
            url(recommendation.pk), {"status": "paused"}, format="json"
        ).status_code
        == 403
    )
    paused = alice_client.patch(url(recommendation.pk), {"status": "paused"}, format="json")
    assert paused.status_code == 200
    assert paused.json()["plan"]["status"] == "paused"
    assert paused.json()["next_actions"] == []
    resumed = alice_client.patch(url(recommendation.pk), {"status": "active"}, format="json")
    assert resumed.json()["next_actions"]
    assert alice_client.delete(url(recommendation.pk)).status_code == 204
    assert not AutomationAction.objects.filter(status=ActionStatus.PENDING).exists()
    assert AutomationPlan.objects.get().status == "ended"
    actions = {e.action for e in AuditEntry.objects.filter(organization=acme)}
    assert {"automation_plan.updated", "automation_plan.ended"} <= actions
    gone = alice_client.patch(url(recommendation.pk), {"status": "active"}, format="json")
    assert gone.json()["error"]["code"] == "no_plan"


def test_the_actions_history_is_paginated_and_scoped(
    acme: Organization,
    globex: Organization,
    alice_client: APIClient,
    bob_client: APIClient,
    fake: FakeCloud,
) -> None:
    _instance, recommendation = schedule_world(acme)
    alice_client.post(url(recommendation.pk), {}, format="json")
    body = alice_client.get(
        f"/api/v1/automation/actions?recommendation={recommendation.pk}&page_size=3"
    ).json()
    assert body["count"] == AutomationAction.objects.count() >= 9
    assert len(body["results"]) == 3
    row = body["results"][0]
    assert {"status", "reason", "reason_text", "due_at", "kind", "instance_name"} <= set(row)
    assert bob_client.get("/api/v1/automation/actions").json()["count"] == 0
    assert alice_client.get("/api/v1/automation/actions?recommendation=abc").status_code == 400


def test_the_switch_is_owners_and_audited(
    acme: Organization, alice_client: APIClient, charlie_client: APIClient
) -> None:
    assert charlie_client.get("/api/v1/automation/settings").json() == {"paused": False}
    assert (
        charlie_client.patch(
            "/api/v1/automation/settings", {"paused": True}, format="json"
        ).status_code
        == 403
    )
    assert alice_client.patch(
        "/api/v1/automation/settings", {"paused": True}, format="json"
    ).json() == {"paused": True}
    entry = AuditEntry.objects.get(action="automation_settings.updated")
    assert entry.details == {"changes": {"paused": {"old": False, "new": True}}}

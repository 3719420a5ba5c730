"""The executor: claims (one winner), guards before every stop, the one cloud call, the read
back, retries and alerts. The cloud is a fake (tests/automation/world.py)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import connection

from apps.accounts.models import Organization
from apps.alerts.models import AlertEvent, AlertKind, Severity
from apps.automation import executor, services
from apps.automation.models import ActionKind, ActionStatus, AutomationAction, AutomationPlan
from apps.cloud.models import Instance
from apps.recommendations.models import RecommendationEvent
from tests.automation.world import (
    MONDAY_NOON,
    FakeCloud,
    install,
    owner,
    schedule_world,
    write_gpu,
)

pytestmark = pytest.mark.django_db

# Monday 19:00 in Shanghai: the first stop of the week-night schedule.
FIRST_STOP = dt.datetime(2026, 11, 16, 11, tzinfo=dt.UTC)
FIRST_START = dt.datetime(2026, 11, 17, 1, tzinfo=dt.UTC)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeCloud:
    return install(monkeypatch, FakeCloud())


def _plan(acme: Organization) -> tuple[AutomationPlan, Instance]:
    instance, recommendation = schedule_world(acme)
    plan = services.automation_plan_create(
        recommendation=recommendation, actor=owner(acme), now=MONDAY_NOON
    )
    return plan, instance


def test_it_materialises_a_week_of_actions_once(acme: Organization, fake: FakeCloud) -> None:
    plan, _instance = _plan(acme)
    rows = AutomationAction.objects.filter(plan=plan)
    # Mon-Thu nights and the weekend: 5 stops and 5 starts within the next 7 days (the last
    # start, Monday 09:00, is within 7 days of Monday 12:00? no: it is the next Monday's).
    assert rows.filter(kind=ActionKind.STOP).count() == 5
    assert rows.first() is not None
    count = rows.count()
    assert services.actions_materialise(plan=plan, now=MONDAY_NOON) == 0
    assert rows.count() == count
    assert min(rows.values_list("due_at", flat=True)) == FIRST_STOP


def test_it_stops_once_at_the_window_start_and_confirms_by_reading_back(
    acme: Organization, fake: FakeCloud
) -> None:
    plan, instance = _plan(acme)
    write_gpu(instance, end=FIRST_STOP, util=1.0, mem=0.5)
    assert executor.executor_run(now=FIRST_STOP - dt.timedelta(minutes=1)) == {"confirmed": 0}
    assert fake.count("StopInstances") == 0
    executor.executor_run(now=FIRST_STOP)
    # A duplicate tick at the same moment makes no second call.
    executor.executor_run(now=FIRST_STOP)
    assert fake.count("StopInstances") == 1
    stop = AutomationAction.objects.get(plan=plan, due_at=FIRST_STOP)
    assert stop.status == ActionStatus.CONFIRMED  # the second tick read STOPPED back
    assert stop.request_id == "req-stop-2"
    reasons = list(
        RecommendationEvent.objects.filter(recommendation=plan.recommendation).values_list(
            "reason", flat=True
        )
    )
    assert "Automation stopped ins-gn7-idle-14." in reasons
    # The start at the window's end.
    executor.executor_run(now=FIRST_START)
    executor.executor_run(now=FIRST_START + dt.timedelta(minutes=1))
    start = AutomationAction.objects.get(plan=plan, due_at=FIRST_START)
    assert start.status == ActionStatus.CONFIRMED
    assert fake.states["ins-gn7-idle-14"] == "RUNNING"


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_claimers_make_one_winner(acme: Organization, fake: FakeCloud) -> None:
    plan, _instance = _plan(acme)
    due = AutomationAction.objects.filter(plan=plan, due_at=FIRST_STOP).count()
    assert due == 1
    barrier = threading.Barrier(2)
    won: list[list[int]] = []

    def claim() -> None:
        try:
            barrier.wait()
            won.append(executor.actions_claim_due(now=FIRST_STOP))
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(len(ids) for ids in won) == [0, 1]
    row = AutomationAction.objects.get(plan=plan, due_at=FIRST_STOP)
    assert row.status == ActionStatus.CLAIMED
    assert row.attempts == 1


def test_a_busy_instance_is_not_stopped_and_its_owner_is_told(
    acme: Organization, fake: FakeCloud
) -> None:
    plan, instance = _plan(acme)
    write_gpu(instance, end=FIRST_STOP, util=65.0, mem=40.0)
    executor.executor_run(now=FIRST_STOP)
    assert fake.count("StopInstances") == 0
    row = AutomationAction.objects.get(plan=plan, due_at=FIRST_STOP)
    assert (row.status, row.reason) == (ActionStatus.SKIPPED, "busy_gpu_util")
    assert row.reason_params["gpu_util_pct"] == 65.0
    alert = AlertEvent.objects.get(kind=AlertKind.AUTOMATION)
    assert alert.instance == instance
    assert alert.project == instance.project
    assert "busy" in alert.title
    assert alert.deliveries.filter(address="alice@acme.test").exists()
    assert RecommendationEvent.objects.filter(
        recommendation=plan.recommendation,
        reason="Automation did not stop ins-gn7-idle-14: it was busy.",
    ).exists()


def test_memory_held_is_busy_too(acme: Organization, fake: FakeCloud) -> None:
    plan, instance = _plan(acme)
    write_gpu(instance, end=FIRST_STOP, util=0.0, mem=55.0)
    executor.executor_run(now=FIRST_STOP)
    row = AutomationAction.objects.get(plan=plan, due_at=FIRST_STOP)
    assert (row.status, row.reason) == (ActionStatus.SKIPPED, "busy_gpu_mem")


def test_without_recent_metrics_it_does_not_stop(acme: Organization, fake: FakeCloud) -> None:
    plan, instance = _plan(acme)
    write_gpu(instance, end=FIRST_STOP - dt.timedelta(hours=2), util=0.0, mem=0.0)
    executor.executor_run(now=FIRST_STOP)
    row = AutomationAction.objects.get(plan=plan, due_at=FIRST_STOP)
    assert (row.status, row.reason) == (ActionStatus.SKIPPED, "no_recent_metrics")
    assert fake.calls == []


def test_an_opted_out_instance_is_never_touched(acme: Organization, fake: FakeCloud) -> None:
    plan, instance = _plan(acme)
    instance.tags = {"gpu-ledger:automation": "off"}
    instance.save()
    write_gpu(instance, end=FIRST_STOP, util=0.0, mem=0.0)
    executor.executor_run(now=FIRST_STOP)
    executor.executor_run(now=FIRST_START)
    assert fake.calls == []
    assert set(
        AutomationAction.objects.filter(plan=plan, due_at__lte=FIRST_START).values_list(
            "status", "reason"
        )
    ) == {(ActionStatus.SKIPPED, "opted_out")}


def test_the_organization_switch_stops_everything(acme: Organization, fake: FakeCloud) -> None:
    plan, instance = _plan(acme)
    write_gpu(instance, end=FIRST_STOP, util=0.0, mem=0.0)
    services.automation_settings_update(organization=acme, paused=True)
    executor.executor_run(now=FIRST_STOP)
    assert fake.calls == []
    row = AutomationAction.objects.get(plan=plan, due_at=FIRST_STOP)
    assert row.reason == "automation_paused"


def test_an_instance_already_stopped_counts_as_done(acme: Organization, fake: FakeCloud) -> None:
    plan, instance = _plan(acme)
    fake.states[instance.provider_id] = "STOPPED"
    write_gpu(instance, end=FIRST_STOP, util=0.0, mem=0.0)
    executor.executor_run(now=FIRST_STOP)
    assert fake.count("StopInstances") == 0
    row = AutomationAction.objects.get(plan=plan, due_at=FIRST_STOP)
    assert (row.status, row.reason) == (ActionStatus.CONFIRMED, "already_in_state")


def test_a_sold_out_start_retries_with_back_off_and_alerts_at_once(
    acme: Organization, fake: FakeCloud
) -> None:
    plan, instance = _plan(acme)
    fake.states[instance.provider_id] = "STOPPED"
    fake.sold_out = True
    executor.executor_run(now=FIRST_START)
    row = AutomationAction.objects.get(plan=plan, due_at=FIRST_START)
    assert (row.status, row.reason, row.attempts) == (ActionStatus.PENDING, "capacity_sold_out", 1)
    assert row.next_attempt_at == FIRST_START + dt.timedelta(minutes=2)
    alert = AlertEvent.objects.get(kind=AlertKind.AUTOMATION)
    assert alert.severity == Severity.CRITICAL
    # Not due again before its back-off; then retried until the retries are spent.
    executor.executor_run(now=FIRST_START + dt.timedelta(minutes=1))
    assert fake.count("StartInstances") == 1
    moment = FIRST_START
    for _ in range(10):
        row.refresh_from_db()
        if row.status != ActionStatus.PENDING:
            break
        moment = row.next_attempt_at
        executor.executor_run(now=moment)
    row.refresh_from_db()
    assert (row.status, row.reason) == (ActionStatus.FAILED, "retries_exhausted")
    assert fake.count("StartInstances") == len(executor.RETRY_DELAYS) + 1
    # One alert at the first failure, one when it gave up; none per retry.
    assert AlertEvent.objects.filter(kind=AlertKind.AUTOMATION).count() == 2


def test_pausing_a_plan_cancels_its_pending_actions(acme: Organization, fake: FakeCloud) -> None:
    plan, _instance = _plan(acme)
    services.automation_plan_update(plan=plan, actor=None, now=MONDAY_NOON, status="paused")
    assert not AutomationAction.objects.filter(plan=plan, status=ActionStatus.PENDING).exists()
    executor.executor_run(now=FIRST_STOP)
    assert fake.calls == []
    services.automation_plan_update(plan=plan, actor=None, now=MONDAY_NOON, status="active")
    assert AutomationAction.objects.filter(plan=plan, status=ActionStatus.PENDING).count() >= 9

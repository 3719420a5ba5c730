"""Budget alerts: once per threshold crossed in a month, none below, all of them e-mailed."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal

import pytest
from django.core import mail

from apps.accounts.models import Organization
from apps.alerts import receivers
from apps.alerts.evaluation.budgets import budgets_evaluate
from apps.alerts.models import AlertDelivery, AlertEvent, Budget, BudgetCrossing
from apps.alerts.services import budget_create
from apps.analysis.signals import analysis_completed
from apps.cloud.sync.signals import sync_completed
from tests.alerts.builders import bill, make_account

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
AS_OF = dt.datetime(2026, 11, 16, tzinfo=SHANGHAI)


def spend_daily(organization: Organization, daily: str, days: range) -> None:
    account = make_account(organization)
    for day in days:
        bill(account, dt.datetime(2026, 11, day, 10, tzinfo=SHANGHAI), daily)


def test_it_alerts_once_per_threshold_crossed_and_mails_the_owner(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    # 15 days x 60 = 900 of 1,000 spent (90 %); 7-day average 60 x 15 days left: 1,800 (180 %).
    spend_daily(acme, "60", range(1, 16))
    budget = budget_create(organization=acme, name="GPU", amount=Decimal("1000"))

    with django_capture_on_commit_callbacks(execute=True):
        first = budgets_evaluate(organization=acme, as_of=AS_OF)
    again = budgets_evaluate(organization=acme, as_of=AS_OF + dt.timedelta(hours=1))

    # One alert per basis (the highest threshold), every crossing recorded once.
    assert sorted(e.title for e in first) == [
        "Budget GPU: 80 % spent in 2026-11",
        "Budget GPU: forecast to reach 100 % in 2026-11",
    ]
    assert again == []
    assert sorted(
        BudgetCrossing.objects.filter(budget=budget).values_list("basis", "threshold_pct")
    ) == [("actual", 50), ("actual", 80), ("forecast", 50), ("forecast", 80), ("forecast", 100)]
    actual = next(e for e in first if e.evidence["basis"] == "actual")
    assert actual.evidence["spent"] == "900.00"
    assert actual.evidence["percent_used"] == "90.0"
    assert "has spent 900.00 CNY of its 1,000.00 CNY budget" in actual.message
    forecast = next(e for e in first if e.evidence["basis"] == "forecast")
    assert forecast.evidence["forecast"] == "1800.00"  # 900 + 60 x 15
    # The owner (Alice) is told; the viewer (Charlie) is not, by default.
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@acme.test", "alice@acme.test"]
    assert {m.alternatives[0][1] for m in mail.outbox} == {"text/html"}  # type: ignore[union-attr]
    assert set(AlertDelivery.objects.values_list("status", flat=True)) == {"sent"}

    # The 100 % of actual spend, crossed later in the month, alerts once more, and only it.
    spend_daily(acme, "150", range(16, 17))
    later = budgets_evaluate(organization=acme, as_of=AS_OF + dt.timedelta(days=1))
    assert [e.title for e in later] == ["Budget GPU: 100 % spent in 2026-11"]
    assert AlertEvent.objects.count() == 3


def test_it_does_not_alert_below_every_threshold(acme: Organization) -> None:
    # 15 x 10 = 150 of 1,000 (15 %); forecast 150 + 10 x 15 = 300 (30 %).
    spend_daily(acme, "10", range(1, 16))
    Budget.objects.create(organization=acme, name="GPU", amount=Decimal("1000"), currency="CNY")

    assert budgets_evaluate(organization=acme, as_of=AS_OF) == []
    assert not BudgetCrossing.objects.exists()


def test_it_alerts_again_in_a_new_month(acme: Organization) -> None:
    spend_daily(acme, "60", range(1, 16))
    budget_create(organization=acme, name="GPU", amount=Decimal("1000"))
    budgets_evaluate(organization=acme, as_of=AS_OF)
    account = make_account(acme)
    for day in range(1, 10):
        bill(account, dt.datetime(2026, 12, day, 10, tzinfo=SHANGHAI), "60")

    december = budgets_evaluate(organization=acme, as_of=dt.datetime(2026, 12, 10, tzinfo=SHANGHAI))

    # 9 x 60 = 540 (54 %); 540 + 60 x 22 days = 1,860 (186 %).
    assert sorted(e.title for e in december) == [
        "Budget GPU: 50 % spent in 2026-12",
        "Budget GPU: forecast to reach 100 % in 2026-12",
    ]


def test_a_sync_or_an_analysis_queues_the_evaluation_of_what_it_refreshed(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        for kind in ("bills", "metrics", "prices", "inventory"):
            sync_completed.send(sender=None, account_id=0, organization_id=acme.pk, kind=kind)
        analysis_completed.send(sender=None, organization_ids=[acme.pk], as_of=AS_OF)

    queued = [c.keywords for c in callbacks if getattr(c, "func", None) is receivers._enqueue]
    assert queued == [
        {"organization_id": acme.pk, "parts": ["budgets", "anomalies"]},
        {"organization_id": acme.pk, "parts": ["thresholds"]},
        {"organization_id": acme.pk},  # everything
    ]

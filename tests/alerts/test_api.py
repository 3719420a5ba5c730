"""The alerts API: roles, strict input (400 naming the field), status figures, the history."""

from __future__ import annotations

import datetime as dt
import json
import shlex
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.alerts.models import AlertEvent, Budget, ThresholdRule
from apps.alerts.selectors import month_of
from tests.alerts.builders import bill, make_account, make_project

pytestmark = pytest.mark.django_db


def test_it_lets_owners_write_budgets_and_viewers_only_read(
    alice_client: APIClient, charlie_client: APIClient, acme: Organization
) -> None:
    vision = make_project(acme, "vision")
    created = alice_client.post(
        "/api/v1/budgets",
        {"name": "Vision", "amount": "2000.00", "project": vision.pk},
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["scope"] == "project"
    assert body["currency"] == "CNY"  # the organization's
    assert body["actual_thresholds_pct"] == [50, 80, 100]
    assert body["forecast_thresholds_pct"] == [50, 80, 100]
    assert "the average daily cost of the last 7 complete days" in body["status"]["forecast_method"]

    assert charlie_client.get("/api/v1/budgets").json()["count"] == 1
    denied = charlie_client.patch(
        f"/api/v1/budgets/{body['id']}", {"amount": "1.00"}, format="json"
    )
    assert denied.status_code == 403
    changed = alice_client.patch(
        f"/api/v1/budgets/{body['id']}", {"actual_thresholds_pct": [90, 75, 90]}, format="json"
    )
    assert changed.json()["actual_thresholds_pct"] == [75, 90]
    assert alice_client.delete(f"/api/v1/budgets/{body['id']}").status_code == 204


def test_it_answers_400_naming_each_bad_field(
    alice_client: APIClient, acme: Organization, globex: Organization
) -> None:
    theirs = make_project(globex, "theirs")
    unknown = alice_client.post(
        "/api/v1/budgets", {"name": "x", "amount": "5", "colour": "red"}, format="json"
    )
    assert unknown.status_code == 400
    assert unknown.json()["error"]["fields"] == {"colour": ["Unknown field."]}
    response = alice_client.post(
        "/api/v1/budgets",
        {
            "name": "x",
            "amount": "-5",
            "currency": "EUR",
            "project": theirs.pk,  # another organization's: as if it did not exist
            "forecast_thresholds_pct": [0],
        },
        format="json",
    )
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {
        "amount",
        "currency",
        "project",
        "forecast_thresholds_pct",
    }
    assert not Budget.objects.exists()
    for month in ("2026-13", "0000-01", "9999-12"):
        bad_month = alice_client.get("/api/v1/budgets", {"month": month})
        assert bad_month.status_code == 400, month
        assert set(bad_month.json()["error"]["fields"]) == {"month"}


def test_it_shows_a_budget_status_a_reader_can_recompute(
    alice_client: APIClient, acme: Organization
) -> None:
    account = make_account(acme)
    now = timezone.now()
    month = month_of(acme, now)
    # A line today (not a complete day: not in the average) and one 3 days ago (in the last
    # 7 complete days); the test checks the identity, whatever the date.
    bill(account, now - dt.timedelta(seconds=1), "70")
    bill(account, now - dt.timedelta(days=3), "140")
    Budget.objects.create(organization=acme, name="All", amount=Decimal("1000"), currency="CNY")

    status = alice_client.get("/api/v1/budgets", {"month": month}).json()["results"][0]["status"]

    spent, average = Decimal(status["spent"]), Decimal(status["daily_average"])
    assert average == Decimal("20.00")  # 140 / 7
    assert Decimal(status["forecast"]) == (
        Decimal(status["spent_before_today"])
        + average * Decimal(status["days_left"])
        + Decimal(status["known_purchases"])
    )
    assert Decimal(status["percent_used"]) == (spent / 10).quantize(
        Decimal("0.1"), rounding=ROUND_HALF_UP
    )


def test_it_offers_the_tencent_alarm_policy_of_each_rule(
    alice_client: APIClient, acme: Organization
) -> None:
    rules = alice_client.get("/api/v1/alert-rules").json()["results"]
    by_name = {rule["name"]: rule for rule in rules}
    assert set(by_name) == {"GPU underused", "GPU memory nearly full", "GPU running hot"}

    idle = by_name["GPU underused"]["tencent_alarm_policy"]
    words = shlex.split(idle["command"])
    assert words[:3] == ["tccli", "monitor", "CreateAlarmPolicy"]
    options = dict(zip(words[3::2], words[4::2], strict=True))
    assert options["--Module"] == "monitor"
    assert options["--MonitorType"] == "MT_QCE"
    assert options["--Namespace"] == "cvm_device"
    # 10 minutes under 30 %: two 5-minute periods of GpuUtil lt "30" (a string, as the API wants).
    assert json.loads(options["--Condition"]) == {
        "IsUnionRule": 0,
        "Rules": [
            {
                "MetricName": "GpuUtil",
                "Period": 300,
                "Operator": "lt",
                "Value": "30",
                "ContinuePeriod": 2,
                "NoticeFrequency": 3600,
                "IsPowerNotice": 0,
            }
        ],
    }
    assert idle["request"]["Condition"] == json.loads(options["--Condition"])
    hot = by_name["GPU running hot"]["tencent_alarm_policy"]["request"]["Condition"]["Rules"][0]
    assert (hot["MetricName"], hot["Operator"], hot["Value"]) == ("GpuTemp", "gt", "85")

    created = alice_client.post(
        "/api/v1/alert-rules",
        {
            "name": "mem",
            "metric": "gpu_mem_used_pct",
            "comparison": "above",
            "threshold": 92.5,
            "duration_minutes": 3,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    rule = created.json()["tencent_alarm_policy"]["request"]["Condition"]["Rules"][0]
    assert (rule["MetricName"], rule["Value"], rule["Period"], rule["ContinuePeriod"]) == (
        "GpuMemUsage",
        "92.5",
        60,
        3,
    )
    bad = alice_client.post(
        "/api/v1/alert-rules",
        {"name": "x", "metric": "gpu_fan", "comparison": "sideways", "threshold": 1},
        format="json",
    )
    assert bad.status_code == 400
    assert set(bad.json()["error"]["fields"]) == {"metric", "comparison"}


def test_it_lists_and_filters_the_alert_history(
    alice_client: APIClient, charlie_client: APIClient, acme: Organization
) -> None:
    at = dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
    rule = ThresholdRule.objects.create(
        organization=acme, name="hot", metric="gpu_temp_c", comparison="above", threshold=85
    )
    for n, kind in enumerate(["budget", "threshold", "anomaly"]):
        AlertEvent.objects.create(
            organization=acme,
            kind=kind,
            title=kind,
            message=kind,
            rule=rule if kind == "threshold" else None,
            started_at=at + dt.timedelta(hours=n),
        )

    everything = charlie_client.get("/api/v1/alerts").json()
    assert [a["title"] for a in everything["results"]] == ["anomaly", "threshold", "budget"]
    kinds = alice_client.get("/api/v1/alerts", {"kind": ["budget", "anomaly"]}).json()
    assert [a["title"] for a in kinds["results"]] == ["anomaly", "budget"]
    still_open = alice_client.get("/api/v1/alerts", {"open": "true"}).json()
    assert [a["title"] for a in still_open["results"]] == ["threshold"]
    since = alice_client.get("/api/v1/alerts", {"since": "2026-11-02T01:00:00Z"}).json()
    assert [a["title"] for a in since["results"]] == ["anomaly", "threshold"]
    AlertEvent.objects.get(title="budget").deliveries.create(
        channel="email", address="nobody@acme.test", status="failed", error="550 No such user"
    )
    failed = alice_client.get("/api/v1/alerts", {"delivery_status": "failed"}).json()
    assert [a["title"] for a in failed["results"]] == ["budget"]
    assert failed["results"][0]["deliveries"][0]["error"] == "550 No such user"
    bad = alice_client.get("/api/v1/alerts", {"kind": "nonsense"})
    assert bad.status_code == 400
    assert set(bad.json()["error"]["fields"]) == {"kind"}
    # Ids are positive, as the schema says (minimum 1).
    not_an_id = alice_client.get("/api/v1/alerts", {"project": "0"})
    assert not_an_id.status_code == 400
    assert set(not_an_id.json()["error"]["fields"]) == {"project"}


def test_it_keeps_the_webhook_secret_write_only(
    alice_client: APIClient, charlie_client: APIClient, acme: Organization
) -> None:
    missing = alice_client.patch(
        "/api/v1/alerts/settings",
        {"webhook_url": "https://hooks.acme.test/a", "webhook_enabled": True},
        format="json",
    )
    assert missing.status_code == 400
    assert set(missing.json()["error"]["fields"]) == {"webhook_secret"}
    saved = alice_client.patch(
        "/api/v1/alerts/settings",
        {
            "webhook_url": "https://hooks.acme.test/a",
            "webhook_enabled": True,
            "webhook_secret": "s3cret-s3cret-s3cret",
        },
        format="json",
    )
    assert saved.status_code == 200, saved.content
    assert saved.json()["webhook_secret_set"] is True
    assert "s3cret" not in json.dumps(saved.json())
    assert (
        charlie_client.patch("/api/v1/alerts/settings", {"anomaly_k": 2}, format="json").status_code
        == 403
    )


def _budgets(organization: Organization, count: int) -> None:
    project = make_project(organization, f"p{count}")
    for n in range(count):
        Budget.objects.create(
            organization=organization,
            name=f"b{n}",
            amount=Decimal("100"),
            currency="CNY",
            project=project if n % 2 else None,
        )


def test_it_lists_budgets_and_alerts_in_a_fixed_number_of_queries(
    alice_client: APIClient, acme: Organization, django_assert_max_num_queries
) -> None:
    _budgets(acme, 2)
    with CaptureQueriesContext(connection) as few:
        assert alice_client.get("/api/v1/budgets").json()["count"] == 2
    _budgets(acme, 8)
    with CaptureQueriesContext(connection) as many:
        assert alice_client.get("/api/v1/budgets").json()["count"] == 10
    assert len(many) == len(few)

    for n in range(5):
        event = AlertEvent.objects.create(
            organization=acme, kind="budget", title=f"a{n}", message="m", started_at=timezone.now()
        )
        event.deliveries.create(channel="email", address="alice@acme.test")
    with django_assert_max_num_queries(len(few)):
        assert alice_client.get("/api/v1/alerts").json()["count"] == 5

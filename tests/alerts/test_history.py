"""History imported by a backfill: its alerts are recorded, not sent, and reported in one summary;
what happens after the import alerts as before."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal

import numpy as np
import pytest
from django.core import mail

from apps.accounts.models import Language, Membership, Organization, User
from apps.accounts.roles import Role
from apps.alerts.delivery import alert_email_render
from apps.alerts.evaluation.anomalies import anomalies_evaluate
from apps.alerts.evaluation.budgets import budgets_evaluate
from apps.alerts.evaluation.history import history_boundary, history_summarize
from apps.alerts.evaluation.thresholds import thresholds_evaluate
from apps.alerts.models import AlertDelivery, AlertEvent
from apps.alerts.services import alert_recipient_create, budget_create
from apps.cloud.models import CloudAccount, SyncKind, SyncState
from apps.metrics.services import metrics_write
from tests.alerts.builders import bill, make_account, make_instance, make_project

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
# Noon of 16 November (Shanghai): yesterday is the 15th, the baseline 16 Oct - 14 Nov.
AS_OF = dt.datetime(2026, 11, 16, 12, tzinfo=SHANGHAI)
YESTERDAY = dt.date(2026, 11, 15)


def backfilled(account: CloudAccount, until: dt.datetime | None) -> None:
    """The account's first bills and metrics syncs: done, up to ``until`` (None: still running)."""
    for kind in (SyncKind.BILLS, SyncKind.METRICS):
        SyncState.objects.create(
            account=account, kind=kind, last_success_at=until, backfilled_until=until
        )


def spend(account, instance, project, day: dt.date, cost: str, hour: int = 10) -> None:
    bill(
        account,
        dt.datetime.combine(day, dt.time(hour), tzinfo=SHANGHAI),
        cost,
        project=project,
        instance=instance,
    )


def thirty_days_of_100(account, instance, project=None, *, before: dt.date = YESTERDAY) -> None:
    """90 or 110 a day, alternating, for the 30 days before ``before`` (median 100, MAD 10)."""
    for n in range(30, 0, -1):
        spend(account, instance, project, before - dt.timedelta(days=n), "90" if n % 2 else "110")


def test_it_records_the_anomalies_of_imported_history_and_sends_one_summary(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    runaway = make_instance(account, "runaway", vision)
    thirty_days_of_100(account, runaway, vision)
    spend(account, runaway, vision, YESTERDAY, "400")
    # The account was connected this morning: its first syncs brought everything up to 11:00.
    backfilled(account, AS_OF - dt.timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        (anomaly,) = anomalies_evaluate(organization=acme, as_of=AS_OF)
    assert anomaly.imported
    assert not anomaly.deliveries.exists()
    assert mail.outbox == []

    with django_capture_on_commit_callbacks(execute=True):
        (summary,) = history_summarize(organization=acme, as_of=AS_OF)
        again = history_summarize(organization=acme, as_of=AS_OF + dt.timedelta(hours=1))

    assert again == []
    assert summary.kind == "history"
    assert summary.evidence["anomalies"] == 1
    assert summary.evidence["alerts"] == 1
    assert summary.evidence["imported_from_day"] == "2026-10-16"
    assert summary.evidence["imported_days"] == 32  # 16 Oct to 16 Nov
    assert summary.evidence["largest_anomaly"] == (
        "Spend of project vision far above normal on 2026-11-15"
    )
    anomaly.refresh_from_db()
    assert anomaly.summary == summary
    (message,) = mail.outbox
    assert message.to == ["alice@acme.test"]
    assert message.subject == "[GPU Ledger · Acme] What the imported history shows: 1 alert"
    assert "(32 days, 2026-10-16 to 2026-11-16) would have raised these alerts" in message.body
    assert "Cost anomalies: 1. Budget thresholds crossed: 0." in message.body
    assert (
        "The largest anomaly: Spend of project vision far above normal on 2026-11-15 "
        "(400.00 CNY against a median of 100.00 CNY)."
    ) in message.body


def test_it_attaches_a_later_imported_alert_to_the_summary_without_a_second_mail(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    box = make_instance(account, "box")
    other = make_instance(account, "other")
    thirty_days_of_100(account, box)
    thirty_days_of_100(account, other)
    spend(account, box, None, YESTERDAY, "400")
    backfilled(account, AS_OF - dt.timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        anomalies_evaluate(organization=acme, as_of=AS_OF)
        (summary,) = history_summarize(organization=acme, as_of=AS_OF)
    # A bill line of the imported hours that arrives later makes another imported anomaly.
    spend(account, other, None, YESTERDAY, "500", hour=20)

    with django_capture_on_commit_callbacks(execute=True):
        (late,) = anomalies_evaluate(organization=acme, as_of=AS_OF + dt.timedelta(hours=1))
        assert history_summarize(organization=acme, as_of=AS_OF + dt.timedelta(hours=1)) == []

    late.refresh_from_db()
    assert (late.imported, late.summary) == (True, summary)
    assert len(mail.outbox) == 1


def test_it_alerts_on_a_spike_of_a_live_day_after_the_backfill(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    box = make_instance(account, "box")
    thirty_days_of_100(account, box)
    # Connected on the 14th: the 15th came in by live syncs, and spiked.
    backfilled(account, dt.datetime(2026, 11, 14, 9, tzinfo=SHANGHAI))
    spend(account, box, None, dt.date(2026, 11, 14), "100", hour=15)
    spend(account, box, None, YESTERDAY, "400")

    with django_capture_on_commit_callbacks(execute=True):
        (event,) = anomalies_evaluate(organization=acme, as_of=AS_OF)
        summaries = history_summarize(organization=acme, as_of=AS_OF)

    assert not event.imported
    assert summaries == []
    (message,) = mail.outbox
    assert message.subject == (
        "[GPU Ledger · Acme] Spend of instance box (ins-box) far above normal on 2026-11-15"
    )
    assert AlertDelivery.objects.get(event=event).status == "sent"


def test_it_tells_the_live_hours_of_the_import_day_from_the_imported_ones(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    before = make_instance(account, "before")  # spiked in the hours the backfill imported
    after = make_instance(account, "after")  # spiked in the hours synced live since
    today = AS_OF.date()
    thirty_days_of_100(account, before, before=today)
    thirty_days_of_100(account, after, before=today)
    backfilled(account, dt.datetime.combine(today, dt.time(9), tzinfo=SHANGHAI))
    spend(account, before, None, today, "400", hour=8)
    spend(account, after, None, today, "20", hour=8)
    spend(account, after, None, today, "380", hour=10)

    with django_capture_on_commit_callbacks(execute=True):
        raised = anomalies_evaluate(organization=acme, as_of=AS_OF)

    assert {e.instance_id: e.imported for e in raised} == {before.pk: True, after.pk: False}
    (message,) = mail.outbox
    assert "instance after (ins-after)" in message.subject


def test_it_does_not_send_the_budget_thresholds_the_imported_bills_crossed(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    for day in range(1, 16):  # 15 x 40 = 600 of 1,000 before the import: 50 % crossed
        bill(account, dt.datetime(2026, 11, day, 10, tzinfo=SHANGHAI), "40")
    budget_create(organization=acme, name="GPU", amount=Decimal("1000"), forecast_thresholds_pct=[])
    backfilled(account, dt.datetime(2026, 11, 16, 1, tzinfo=SHANGHAI))

    with django_capture_on_commit_callbacks(execute=True):
        (imported,) = budgets_evaluate(organization=acme, as_of=AS_OF)
    # Live bills since: 250 more, 85 %: the 80 % threshold is news.
    bill(account, dt.datetime(2026, 11, 16, 10, tzinfo=SHANGHAI), "250")
    with django_capture_on_commit_callbacks(execute=True):
        (live,) = budgets_evaluate(organization=acme, as_of=AS_OF + dt.timedelta(hours=1))

    assert (imported.imported, imported.evidence["thresholds_pct"]) == (True, [50])
    assert (live.imported, live.evidence["thresholds_pct"]) == (False, [80])
    (message,) = mail.outbox
    assert message.subject == "[GPU Ledger · Acme] Budget GPU: 80 % spent in 2026-11"


def minutes(instance, end: dt.datetime, values: list[float]) -> None:
    start = end - dt.timedelta(minutes=len(values))
    metrics_write(
        instance_id=instance.pk,
        metric="gpu_util_pct",
        timestamps=[int((start + dt.timedelta(minutes=n)).timestamp()) for n in range(len(values))],
        values=np.array(values, dtype=np.float32),
    )


def test_it_records_a_condition_the_imported_minutes_show_and_its_recovery_unsent(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    idle = make_instance(account, "idle")
    now = dt.datetime(2026, 11, 16, 8, tzinfo=dt.UTC)
    # Imported up to ``now``: idle for its last 12 minutes (the default rule: under 30 % for 10).
    minutes(idle, now, [80.0] * 20 + [12.0] * 12)
    backfilled(account, now)

    with django_capture_on_commit_callbacks(execute=True):
        (opened,) = thresholds_evaluate(organization=acme, as_of=now + dt.timedelta(minutes=1))
    # Live minutes: still idle (nothing new), then busy (its recovery, unsent as well) ...
    minutes(idle, now + dt.timedelta(minutes=5), [9.0] * 5)
    still = thresholds_evaluate(organization=acme, as_of=now + dt.timedelta(minutes=5))
    minutes(idle, now + dt.timedelta(minutes=9), [75.0] * 4)
    with django_capture_on_commit_callbacks(execute=True):
        (recovery,) = thresholds_evaluate(organization=acme, as_of=now + dt.timedelta(minutes=9))
    # ... then idle again in the live minutes: that one is news.
    minutes(idle, now + dt.timedelta(minutes=21), [10.0] * 12)
    with django_capture_on_commit_callbacks(execute=True):
        (live,) = thresholds_evaluate(organization=acme, as_of=now + dt.timedelta(minutes=21))

    assert (opened.kind, opened.imported) == ("threshold", True)
    assert still == []
    assert (recovery.kind, recovery.imported, recovery.recovery_of) == ("recovery", True, opened)
    assert (live.kind, live.imported) == ("threshold", False)
    (message,) = mail.outbox
    assert message.subject == "[GPU Ledger · Acme] GPU underused: idle (ins-idle)"


def test_it_treats_everything_as_imported_until_the_first_sync_succeeds_and_waits_to_summarize(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    box = make_instance(account, "box")
    thirty_days_of_100(account, box)
    spend(account, box, None, YESTERDAY, "400")
    backfilled(account, None)  # the first bills and metrics syncs are still running

    with django_capture_on_commit_callbacks(execute=True):
        (event,) = anomalies_evaluate(organization=acme, as_of=AS_OF)
        assert history_summarize(organization=acme, as_of=AS_OF) == []
    assert event.imported
    assert history_boundary(acme, as_of=AS_OF).importing

    SyncState.objects.filter(account=account).update(last_success_at=AS_OF, backfilled_until=AS_OF)
    with django_capture_on_commit_callbacks(execute=True):
        (summary,) = history_summarize(organization=acme, as_of=AS_OF + dt.timedelta(minutes=5))
    assert summary.evidence["alerts"] == 1
    assert len(mail.outbox) == 1


def test_it_holds_nothing_up_for_an_account_that_fails_to_connect(acme: Organization) -> None:
    account = make_account(acme)
    backfilled(account, None)
    CloudAccount.objects.filter(pk=account.pk).update(status=CloudAccount.Status.FAILING)

    boundary = history_boundary(acme, as_of=AS_OF)

    assert (boundary.bills, boundary.metrics, boundary.importing) == (None, None, False)


def test_it_sends_the_summary_to_the_recipients_of_the_projects_it_names_in_their_language(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    nlp = make_project(acme, "nlp")
    box = make_instance(account, "box", vision)
    thirty_days_of_100(account, box, vision)
    spend(account, box, vision, YESTERDAY, "400")
    li = User.objects.create_user(email="li@acme.test", password=None, language=Language.ZH_HANS)
    wang = User.objects.create_user(email="wang@acme.test", password=None)
    Membership.objects.create(organization=acme, user=li, role=Role.LEAD)
    Membership.objects.create(organization=acme, user=wang, role=Role.LEAD)
    alert_recipient_create(organization=acme, role=Role.OWNER)
    alert_recipient_create(organization=acme, user=li, project=vision)
    alert_recipient_create(organization=acme, user=wang, project=nlp)  # not concerned
    backfilled(account, AS_OF - dt.timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        anomalies_evaluate(organization=acme, as_of=AS_OF)
        (summary,) = history_summarize(organization=acme, as_of=AS_OF)

    assert sorted(m.to[0] for m in mail.outbox) == ["alice@acme.test", "li@acme.test"]
    chinese = alert_email_render(summary, "zh-hans")
    assert chinese.subject == "[GPU Ledger · Acme] 导入的历史数据显示：1 条告警"
    assert "成本异常：1 条。" in chinese.text
    assert "最大的异常：项目 vision 在 2026-11-15 的支出远高于正常水平" in chinese.text


def test_it_sends_no_summary_when_the_imported_history_raised_nothing(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    box = make_instance(account, "box")
    thirty_days_of_100(account, box)
    backfilled(account, AS_OF - dt.timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        assert anomalies_evaluate(organization=acme, as_of=AS_OF) == []
        assert history_summarize(organization=acme, as_of=AS_OF) == []
    assert not AlertEvent.objects.exists()
    assert mail.outbox == []


def test_it_reports_an_account_connected_later_in_a_summary_of_its_own_import(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    first = make_account(acme)
    box = make_instance(first, "box")
    thirty_days_of_100(first, box, before=dt.date(2026, 11, 2))
    spend(first, box, None, dt.date(2026, 11, 1), "400")
    backfilled(first, dt.datetime(2026, 11, 2, 11, tzinfo=SHANGHAI))
    with django_capture_on_commit_callbacks(execute=True):
        anomalies_evaluate(organization=acme, as_of=dt.datetime(2026, 11, 2, 12, tzinfo=SHANGHAI))
        (earlier,) = history_summarize(
            organization=acme, as_of=dt.datetime(2026, 11, 2, 12, tzinfo=SHANGHAI)
        )
    # Two weeks later a second account is connected; its bills go back to 5 November.
    second = make_account(acme)
    other = make_instance(second, "other")
    for day in range(5, 15):
        spend(second, other, None, dt.date(2026, 11, day), "100")
    spend(second, other, None, YESTERDAY, "400")
    backfilled(second, AS_OF - dt.timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        (imported,) = [
            e for e in anomalies_evaluate(organization=acme, as_of=AS_OF) if e.instance == other
        ]
        (later,) = history_summarize(organization=acme, as_of=AS_OF)

    assert earlier.evidence["imported_from_day"] == "2026-10-03"
    assert imported.imported
    assert later.evidence["anomalies"] == 1
    assert later.evidence["imported_from_day"] == "2026-11-05"  # this import's bills only
    assert [m.subject for m in mail.outbox] == [
        "[GPU Ledger · Acme] What the imported history shows: 1 alert"
    ] * 2


def test_it_shows_a_hostile_project_name_in_the_summary_as_text(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    account = make_account(acme)
    hostile = make_project(acme, "hostile")
    hostile.name = '<img src=x onerror="alert(1)">'
    hostile.save()
    box = make_instance(account, "box", hostile)
    thirty_days_of_100(account, box, hostile)
    spend(account, box, hostile, YESTERDAY, "400")
    backfilled(account, AS_OF - dt.timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        anomalies_evaluate(organization=acme, as_of=AS_OF)
        (summary,) = history_summarize(organization=acme, as_of=AS_OF)

    html = alert_email_render(summary, "en").html

    assert "<img" not in html
    assert (
        "The largest anomaly: Spend of project &lt;img src=x onerror=&quot;alert(1)&quot;&gt;"
        in html
    )

"""Alert e-mails in each recipient's language (``User.language``); the webhook stays neutral."""

from __future__ import annotations

import datetime as dt
import json
import re
import zoneinfo
from decimal import Decimal

import numpy as np
import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives

from apps.accounts.models import Language, Membership, Organization, User
from apps.accounts.roles import Role
from apps.alerts.delivery import alert_email_render, deliveries_plan, webhook_payload
from apps.alerts.evaluation.budgets import budgets_evaluate
from apps.alerts.evaluation.thresholds import thresholds_evaluate
from apps.alerts.models import AlertDelivery
from apps.alerts.services import alert_event_raise, alert_settings_update, budget_create
from apps.metrics.services import metrics_write
from tests.alerts.builders import bill, make_account, make_instance, make_project

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
AS_OF = dt.datetime(2026, 11, 16, tzinfo=SHANGHAI)
CJK = re.compile(r"[\u4e00-\u9fff]")


def chinese_admin(organization: Organization) -> User:
    user = User.objects.create_user(email="li@acme.test", password=None, language=Language.ZH_HANS)
    Membership.objects.create(organization=organization, user=user, role=Role.ADMIN)
    return user


def mail_to(address: str) -> list[EmailMultiAlternatives]:
    sent = [m for m in mail.outbox if m.to == [address]]
    assert all(isinstance(m, EmailMultiAlternatives) for m in sent)  # text + HTML, always
    return sorted(
        (m for m in sent if isinstance(m, EmailMultiAlternatives)), key=lambda m: m.subject
    )


def test_it_writes_budget_alerts_in_each_recipients_language(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    chinese_admin(acme)
    # 15 days x 60 = 900.00 of 1,000.00 spent: 90.0 %, crossing 50 and 80 % of actual spend.
    # Forecast: the 7-day average 60.00 x 15 days left + 900.00 = 1,800.00, 180.0 %.
    account = make_account(acme)
    for day in range(1, 16):
        bill(account, dt.datetime(2026, 11, day, 10, tzinfo=SHANGHAI), "60")
    budget_create(organization=acme, name="GPU", amount=Decimal("1000"))

    with django_capture_on_commit_callbacks(execute=True):
        events = budgets_evaluate(organization=acme, as_of=AS_OF)

    # Each delivery records the language it was written in.
    assert sorted(AlertDelivery.objects.values_list("channel", "address", "language")) == [
        ("email", "alice@acme.test", "en"),
        ("email", "alice@acme.test", "en"),
        ("email", "li@acme.test", "zh-hans"),
        ("email", "li@acme.test", "zh-hans"),
    ]
    english_actual, english_forecast = mail_to("alice@acme.test")
    assert english_actual.subject == "[GPU Ledger · Acme] Budget GPU: 80 % spent in 2026-11"
    assert english_forecast.subject == (
        "[GPU Ledger · Acme] Budget GPU: forecast to reach 100 % in 2026-11"
    )
    assert (
        "The organization has spent 900.00 CNY of its 1,000.00 CNY budget for 2026-11 (90.0 %)."
        in english_actual.body
    )
    assert "See the alert history:" in english_actual.body
    assert not CJK.search(f"{english_actual.body}{english_forecast.body}")

    chinese_forecast, chinese_actual = sorted(
        mail_to("li@acme.test"), key=lambda m: "预计" not in m.subject
    )
    assert chinese_actual.subject == "[GPU Ledger · Acme] 预算 GPU：2026-11 已用 80 %"
    assert chinese_forecast.subject == "[GPU Ledger · Acme] 预算 GPU：预计 2026-11 将达到 100 %"
    # The same figures, formatted the same way, in Chinese sentences.
    assert (
        "本组织在 2026-11 已支出 900.00 CNY，预算为 1,000.00 CNY（90.0 %）。" in chinese_actual.body
    )
    assert (
        "按最近 7 天日均 60.00 CNY 计算，本组织在 2026-11 将支出 1,800.00 CNY：为预算 "
        "1,000.00 CNY 的 180.0 %（目前已支出 900.00 CNY，剩余 15.0000 天）。"
    ) in chinese_forecast.body
    assert "查看告警历史：" in chinese_actual.body
    assert "预算阈值 · 警告 ·" in chinese_actual.body
    html = str(chinese_actual.alternatives[0][0])
    assert '<html lang="zh-hans">' in html
    assert "依据的数据" in html
    assert "本组织在 2026-11 已支出 900.00 CNY" in html
    assert '<th scope="row"' in html  # the evidence, keys and figures as stored
    assert "percent_used" in html

    # The webhook carries the stored English wording and the figures: the same JSON whoever
    # reads the e-mails, with no Chinese in it. (Planned here, after the fact, so nothing posts.)
    alert_settings_update(
        organization=acme,
        webhook_url="https://hooks.acme.test/hook",
        webhook_enabled=True,
        webhook_secret="s" * 24,
    )
    for event in events:
        deliveries_plan(event)
        payload = webhook_payload(event)
        assert payload["title"] == event.title
        assert payload["message"] == event.message
        assert not CJK.search(json.dumps(payload, ensure_ascii=False))
    assert set(
        AlertDelivery.objects.filter(channel="webhook").values_list("language", flat=True)
    ) == {"en"}
    assert sorted(e.title for e in events) == [
        "Budget GPU: 80 % spent in 2026-11",
        "Budget GPU: forecast to reach 100 % in 2026-11",
    ]


def test_it_writes_a_threshold_alert_and_its_recovery_in_chinese(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    li = chinese_admin(acme)
    box = make_instance(make_account(acme), "box")
    now = dt.datetime(2026, 11, 16, 8, 0, tzinfo=dt.UTC)

    def minutes(end: dt.datetime, values: list[float]) -> None:
        start = end - dt.timedelta(minutes=len(values))
        metrics_write(
            instance_id=box.pk,
            metric="gpu_util_pct",
            timestamps=[
                int((start + dt.timedelta(minutes=n)).timestamp()) for n in range(len(values))
            ],
            values=np.array(values, dtype=np.float32),
        )

    minutes(now, [80.0] * 20 + [12.0] * 12)
    with django_capture_on_commit_callbacks(execute=True):
        thresholds_evaluate(organization=acme, as_of=now)
    minutes(now + dt.timedelta(minutes=4), [75.0] * 4)
    with django_capture_on_commit_callbacks(execute=True):
        thresholds_evaluate(organization=acme, as_of=now + dt.timedelta(minutes=4))

    alert, recovery = sorted(mail_to(li.email), key=lambda m: "已恢复" in m.subject)
    # The default rule's name is ours, so it is translated too (wording.rule_name).
    assert alert.subject == "[GPU Ledger · Acme] GPU 利用率偏低：box (ins-box)"
    # The last 10 observed minutes were all 12.0 % (the rule: below 30 for 10 minutes).
    assert (
        "实例 box (ins-box)：GPU 利用率（%） 连续 10 分钟低于 30"
        "（最近 10 个有数据的分钟内介于 12.0 与 12.0 之间，平均 12.0）。"
    ) in alert.body
    assert recovery.subject == "[GPU Ledger · Acme] 【已恢复】 GPU 利用率偏低 已恢复：box (ins-box)"
    assert "告警持续时间为 2026-11-16 08:00 UTC 至 2026-11-16 08:04 UTC。" in recovery.body
    english = [m.subject for m in mail_to("alice@acme.test")]
    assert english == [
        "[GPU Ledger · Acme] GPU underused: box (ins-box)",
        "[GPU Ledger · Acme] Resolved: GPU underused cleared: box (ins-box)",
    ]


def test_it_words_an_anomaly_from_its_evidence_in_both_languages(acme: Organization) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    box = make_instance(account, "box", project=vision)
    day = "2026-11-15"
    event = alert_event_raise(
        organization=acme,
        started_at=AS_OF,
        kind="anomaly",
        project=vision,
        instance=box,  # the instance that caused most of the rise
        dedup_key=f"anomaly:spend:project:{vision.pk}:{day}",
        evidence={
            "metric": "spend",
            "day": day,
            "value": 1234.5,
            "baseline_median": 100.0,
            "baseline_mad": 10.0,
            "k": 4.0,
            "alert_line": 159.304,  # 100 + 4 x 1.4826 x 10
            "unit": "CNY",
        },
    )

    english = alert_email_render(event, "en")
    chinese = alert_email_render(event, "zh-hans")

    assert event.title == "Spend of project vision far above normal on 2026-11-15"
    assert event.message == (
        "Spend of project vision on 2026-11-15 was 1,234.50 CNY, against a 30-day median of "
        "100.00 CNY (alert line 159.30: median + k x 1.4826 x MAD 10.00). "
        "Most of the rise is instance box (ins-box)."
    )
    assert english.subject == f"[GPU Ledger · Acme] {event.title}"
    assert english.text.startswith(f"{event.title}\n\n{event.message}\n")
    assert chinese.subject == "[GPU Ledger · Acme] 项目 vision 在 2026-11-15 的支出远高于正常水平"
    assert (
        "项目 vision 在 2026-11-15 的支出为 1,234.50 CNY，而 30 天中位数为 100.00 CNY"
        "（告警线 159.30：中位数 + k x 1.4826 x MAD 10.00）。 增长主要来自实例 box (ins-box)。"
    ) in chinese.text
    assert "成本异常 · 警告 ·" in chinese.text


def test_it_falls_back_to_the_stored_words_when_what_they_name_is_gone(
    acme: Organization,
) -> None:
    budget = budget_create(organization=acme, name="GPU", amount=Decimal("1000"))
    event = alert_event_raise(
        organization=acme,
        started_at=AS_OF,
        kind="budget",
        budget=budget,
        title="Budget GPU: 80 % spent in 2026-11",
        message="As it was when raised.",
        evidence={"basis": "actual"},  # not the figures the sentences need
    )

    chinese = alert_email_render(event, "zh-hans")

    assert chinese.subject == "[GPU Ledger · Acme] Budget GPU: 80 % spent in 2026-11"
    assert chinese.text.startswith("Budget GPU: 80 % spent in 2026-11\n\nAs it was when raised.")
    assert "查看告警历史：" in chinese.text  # the frame is still in the reader's language


def test_the_api_words_an_alert_in_its_readers_language(
    acme: Organization, alice: User, client_for, django_assert_max_num_queries
) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    box = make_instance(account, "box", project=vision)
    event = alert_event_raise(
        organization=acme,
        started_at=AS_OF,
        kind="anomaly",
        project=vision,
        instance=box,
        dedup_key=f"anomaly:spend:project:{vision.pk}:2026-11-15",
        evidence={
            "metric": "spend",
            "day": "2026-11-15",
            "value": 1234.5,
            "baseline_median": 100.0,
            "baseline_mad": 10.0,
            "k": 4.0,
            "alert_line": 159.304,
            "unit": "CNY",
        },
    )
    english = client_for(alice).get("/api/v1/alerts").json()["results"]
    assert [(a["title"], a["message"]) for a in english] == [(event.title, event.message)]

    reader = chinese_admin(acme)
    client = client_for(reader)
    with django_assert_max_num_queries(8):  # the wording reads nothing the list did not join
        (alert,) = client.get("/api/v1/alerts").json()["results"]
    assert alert["title"] == "项目 vision 在 2026-11-15 的支出远高于正常水平"
    assert CJK.search(alert["message"])
    assert alert["evidence"] == english[0]["evidence"]  # the figures do not change
    assert client.get(f"/api/v1/alerts/{event.pk}").json()["title"] == alert["title"]

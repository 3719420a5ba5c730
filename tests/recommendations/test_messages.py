"""The rules' titles and risks rendered in each language (apps/recommendations/messages), and
the API rendering every text of a row in its reader's language (every other sentence of every
kind: test_words.py)."""

from __future__ import annotations

import re

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from apps.recommendations import services
from apps.recommendations.messages import KIND_LABELS, kind_label, render, render_json
from apps.recommendations.messages.titles import TEMPLATES
from apps.recommendations.models import Recommendation
from apps.recommendations.rules import KINDS, Text

from .factories import make_instance

CJK = re.compile(r"[\u4e00-\u9fff]")
# An English word of four letters or more (the parameters' values taken out first).
ENGLISH_WORD = re.compile(r"\b(?!GPU\b)[A-Za-z]{4,}\b")
PARAMS = {
    "name": "box-1 (GN7.2XLARGE32)",
    "target": "GN7.5XLARGE80",
    "family": "GN7",
    "stop": 2,
    "count": 5,
    "type": "GN7.2XLARGE32",
    "region": "ap-guangzhou",
    "keep": 3,
    "years": 1,
}


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_every_message_renders_in_chinese_with_no_english_word(code: str) -> None:
    with translation.override("en"):
        english = render(Text(code, PARAMS))
    with translation.override("zh-hans"):
        chinese = render(Text(code, PARAMS))
    assert CJK.search(chinese), chinese
    words = chinese
    for value in sorted(map(str, PARAMS.values()), key=len, reverse=True):
        words = words.replace(value, "")  # names and ids are data, not words
    assert not ENGLISH_WORD.search(words), chinese
    assert chinese != english
    # The names and types it is about are in both.
    for value in re.findall(r"%\((\w+)\)s", str(TEMPLATES[code])):
        assert str(PARAMS[value]) in english
        assert str(PARAMS[value]) in chinese


def test_every_kind_has_a_label_in_both_languages() -> None:
    assert set(KIND_LABELS) == {kind for kind, _label in KINDS}
    for kind, label in KINDS:
        with translation.override("en"):
            assert kind_label(kind) == label
        with translation.override("zh-hans"):
            assert CJK.search(kind_label(kind)), kind


def test_a_stored_text_an_older_rule_wrote_falls_back_to_the_stored_english() -> None:
    assert render_json(None, "Stored") == "Stored"
    assert render_json({"code": "gone.title", "params": {}}, "Stored") == "Stored"
    assert render_json({"code": "stop_idle.title", "params": {}}, "Stored") == "Stored"
    assert render_json({"code": "stop_idle.title", "params": {"name": "b"}}, "x") == "Stop idle b"


@pytest.mark.django_db
def test_the_api_renders_a_title_in_its_readers_language(
    acme, alice, alice_client: APIClient, django_assert_max_num_queries
) -> None:
    from tests.recommendations.test_api import make_rec

    row = make_rec(acme, make_instance(acme, "alpha"), "stop_idle", "3600.00")
    Recommendation.objects.filter(pk=row.pk).update(
        words={
            "title": {"code": "stop_idle.title", "params": {"name": "alpha (GN7.2XLARGE32)"}},
            "risk": {"code": "stop_idle.risk", "params": {}},
        }
    )
    url = "/api/v1/recommendations"
    (item,) = alice_client.get(url).json()["results"]
    assert (item["title"], item["kind_label"]) == ("Stop idle alpha (GN7.2XLARGE32)", "Stop idle")
    assert item["risk"]["reason"] == (
        "Nothing ran on it for the whole lookback; restarting takes minutes."
    )
    alice.language = "zh-hans"
    alice.save(update_fields=["language"])
    with django_assert_max_num_queries(6):
        (item,) = alice_client.get(url).json()["results"]
    assert (item["title"], item["kind_label"]) == (
        "关停闲置实例 alpha (GN7.2XLARGE32)",
        "关停闲置实例",
    )
    assert alice_client.get(f"{url}/{row.pk}").json()["title"] == item["title"]


@pytest.mark.django_db
def test_the_api_renders_every_text_of_a_row_in_its_readers_language(
    acme, alice, alice_client: APIClient
) -> None:
    """A schedule as the run stores it: in Chinese its explanation, steps, formula, window,
    what stays billed and the stop figures; in English exactly the stored columns."""

    row = _stored(acme, "schedule")
    url = f"/api/v1/recommendations/{row.pk}"
    english = alice_client.get(url).json()
    assert english["explanation"] == row.explanation
    assert english["saving"]["formula"] == row.saving_formula
    assert english["action"]["steps"] == row.action["steps"]
    assert english["action"]["still_billed_when_stopped"] == ["系统盘 (v_cbs_system) 0.0500 CNY/h"]
    assert english["action"]["window"]["runs"][0]["label"] == "Mon 19:00-Tue 09:00"
    stop = {f["name"]: f["value"] for f in english["evidence"]["figures"]}["when_stopped"]
    assert stop == row.evidence["when_stopped"]
    assert stop.startswith("stopping saves 5.0000 CNY/h; 系统盘 0.0500 CNY/h keep billing")

    alice.language = "zh-hans"
    alice.save(update_fields=["language"])
    chinese = alice_client.get(url).json()
    assert chinese["explanation"].startswith("box (GN7.2XLARGE32) 在 周一 19:00-周二 09:00、")
    assert "关机期间仍继续计费：系统盘 (v_cbs_system) 0.0500 CNY/h；" in chinese["explanation"]
    assert chinese["saving"]["formula"].startswith(
        "时段每周 118 h 中仍运行 118.0 h/周 × 30/7 周/月"
    )
    assert chinese["action"]["steps"] == [
        "把这个时段告知该实例的使用者。",
        "在已配置 tccli 的主机上（或用云函数定时触发器）按组织时区安装这些 cron 行。",
    ]
    assert [run["label"] for run in chinese["action"]["window"]["runs"]] == [
        "周一 19:00-周二 09:00",
        "周二 19:00-周三 09:00",
        "周三 19:00-周四 09:00",
        "周四 19:00-周五 09:00",
        "周五 19:00-周一 09:00",
    ]
    # The commands and cron lines are shell, the same in every language.
    assert chinese["action"]["cron"] == english["action"]["cron"]
    stop = {f["name"]: f["value"] for f in chinese["evidence"]["figures"]}["when_stopped"]
    assert stop.startswith("关机可省 5.0000 CNY/h；系统盘 0.0500 CNY/h 仍继续计费")
    (listed,) = alice_client.get("/api/v1/recommendations").json()["results"]
    assert listed["explanation"] == chinese["explanation"]
    assert listed["saving"]["formula"] == chinese["saving"]["formula"]


@pytest.mark.django_db
def test_a_row_an_older_rule_wrote_shows_its_stored_english_in_every_language(
    acme, alice, alice_client: APIClient
) -> None:
    from tests.recommendations.test_api import make_rec

    row = make_rec(acme, make_instance(acme, "alpha"), "stop_idle", "3600.00")
    alice.language = "zh-hans"
    alice.save(update_fields=["language"])
    body = alice_client.get(f"/api/v1/recommendations/{row.pk}").json()
    assert body["explanation"] == "Because."
    assert body["saving"]["formula"] == "5.0000 CNY/h x 720 h/month"
    assert body["action"]["steps"] == ["Stop it."]


def test_the_history_shows_gpu_ledger_s_own_reasons_in_the_reader_s_language(
    acme, alice, alice_client: APIClient
) -> None:
    """A run's "Found." and an action's default reason are GPU Ledger's words, rendered per
    language; the reason a person typed is shown as written, in every language."""
    import datetime as dt

    from apps.recommendations.models import RecommendationEvent

    row = _stored(acme, "stop_idle_postpaid_bills")
    now = row.first_seen_at
    RecommendationEvent.objects.create(
        recommendation=row, at=now, to_status="open", reason="Found."
    )
    services.recommendation_snooze(
        recommendation=row, actor=alice, now=now, until=now + dt.timedelta(days=3)
    )
    row.refresh_from_db()
    services.recommendation_dismiss(
        recommendation=row, actor=alice, now=now, reason="Found a cheaper way."
    )
    url = f"/api/v1/recommendations/{row.pk}"
    english = [e["reason"] for e in alice_client.get(url).json()["history"]]
    chinese = [
        e["reason"] for e in alice_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").json()["history"]
    ]
    stored = list(row.events.order_by("at", "pk").values_list("reason", flat=True))
    assert sorted(english) == sorted(stored)
    assert "发现。" in chinese
    assert any(reason.startswith("推迟到 ") for reason in chinese)
    assert "Found a cheaper way." in chinese


def _stored(organization, case: str) -> Recommendation:
    """The gallery's finding ``case`` stored as a run stores it, on a new instance."""
    from django.utils import timezone

    from tests.recommendations.gallery import gallery

    finding = gallery()[case]
    instance = make_instance(organization, "alpha")
    now = timezone.now()
    return Recommendation.objects.create(
        organization=organization,
        kind=finding.kind,
        fingerprint=f"{case}-alpha",
        instance=instance,
        parameters=finding.parameters,
        first_seen_at=now,
        last_seen_at=now,
        **{**services._figures(finding, "CNY"), "project_id": instance.project_id},
    )

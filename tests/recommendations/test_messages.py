"""The rules' words rendered in each language (apps/recommendations/messages.py)."""

from __future__ import annotations

import re

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from apps.recommendations.messages import KIND_LABELS, TEMPLATES, kind_label, render, render_json
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

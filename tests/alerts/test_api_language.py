"""The alerts API's own words in the reader's language: a budget's forecast method and the names
of the rules every organization starts with (the figures and a person's own names unchanged)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Language, Organization, User
from apps.alerts.models import ThresholdRule
from apps.alerts.services import DEFAULT_RULES, budget_create
from apps.costs.forecast import METHOD

pytestmark = pytest.mark.django_db


@pytest.fixture
def chinese_client(alice: User, alice_client: APIClient) -> APIClient:
    User.objects.filter(pk=alice.pk).update(language=Language.ZH_HANS)
    return alice_client


def test_it_says_how_a_budget_is_forecast_in_each_language(
    alice: User, alice_client: APIClient, acme: Organization
) -> None:
    budget_create(organization=acme, name="GPU", amount=Decimal("1000"))
    english = alice_client.get("/api/v1/budgets").json()["results"][0]["status"]
    assert english["forecast_method"] == METHOD

    User.objects.filter(pk=alice.pk).update(language=Language.ZH_HANS)
    chinese = alice_client.get("/api/v1/budgets").json()["results"][0]["status"]
    assert chinese["forecast_method"].startswith("按账单月（北京时间）、摊销口径计算")
    assert "最近 7 个无购买的完整天" in chinese["forecast_method"]
    assert chinese["forecast"] == english["forecast"]


def test_the_default_rules_are_named_in_the_readers_language_and_keep_their_names(
    chinese_client: APIClient, acme: Organization
) -> None:
    rules = chinese_client.get("/api/v1/alert-rules").json()["results"]
    names = {rule["name"] for rule in rules}
    assert names == {"GPU 利用率偏低", "GPU 显存将满", "GPU 温度过高"}

    # Saving a rule as the form shows it keeps the default's name, for readers of English.
    hot = next(rule for rule in rules if rule["name"] == "GPU 温度过高")
    saved = chinese_client.patch(
        f"/api/v1/alert-rules/{hot['id']}",
        {"name": hot["name"], "threshold": 80.0},
        format="json",
    )
    assert saved.status_code == 200, saved.content
    assert saved.json()["name"] == "GPU 温度过高"
    stored = ThresholdRule.objects.get(pk=hot["id"])
    assert (stored.name, stored.threshold) == ("GPU running hot", 80.0)
    assert {rule["name"] for rule in DEFAULT_RULES} == {
        "GPU underused",
        "GPU memory nearly full",
        "GPU running hot",
    }


def test_a_rule_a_person_named_is_shown_as_they_wrote_it(
    chinese_client: APIClient, acme: Organization
) -> None:
    created = chinese_client.post(
        "/api/v1/alert-rules",
        {"name": "GPU underused!", "metric": "gpu_util_pct", "comparison": "below", "threshold": 5},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["name"] == "GPU underused!"

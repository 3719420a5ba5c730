"""The /api/v1/recommendations endpoints: filters, detail, actions and roles, totals, schema."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Membership, Organization, User
from apps.accounts.roles import Role
from apps.recommendations.models import Recommendation, Status
from tests.recommendations.factories import make_instance

pytestmark = pytest.mark.django_db
URL = "/api/v1/recommendations"


def make_rec(
    organization: Organization, instance, kind: str, saving: str | None, **fields
) -> Recommendation:
    now = timezone.now()
    return Recommendation.objects.create(
        organization=organization,
        kind=kind,
        fingerprint=f"{kind}-{instance.pk}-{saving}",
        instance=instance,
        project=instance.project,
        title=f"{kind} {instance.name}",
        explanation="Because.",
        monthly_saving=Decimal(saving) if saving is not None else None,
        currency="CNY",
        saving_formula=fields.pop("saving_formula", "5.0000 CNY/h x 720 h/month"),
        price_source="bills",
        confidence="high",
        evidence_days=14.0,
        coverage_pct=99.5,
        risk_level=1,
        risk_reason="Low.",
        evidence={
            "idle_hours": 330,
            "options": {"subscription": {"monthly": "2190.24"}},
            "chart": "metrics",
            "chart_range": {"start": "2026-11-02T00:00:00Z", "end": "2026-11-16T00:00:00Z"},
        },
        action={"steps": ["Stop it."], "commands": ["tccli cvm StopInstances"]},
        first_seen_at=now,
        last_seen_at=now,
        **fields,
    )


@pytest.fixture
def recs(acme: Organization):
    a, b = make_instance(acme, "alpha"), make_instance(acme, "beta")
    return [
        make_rec(acme, a, "stop_idle", "3600.00"),
        make_rec(acme, a, "thermal", None),
        make_rec(acme, b, "subscription", "1409.76"),
        make_rec(acme, b, "schedule", "500.00", status=Status.RESOLVED),
    ]


def test_it_lists_unresolved_recommendations_by_saving_with_pinned_queries(
    alice_client: APIClient, recs, django_assert_num_queries
) -> None:
    # Session, user, memberships (tenancy), count, page with instance and project joined.
    with django_assert_num_queries(5):
        response = alice_client.get(URL)
    assert response.status_code == 200
    body = response.json()
    assert [item["kind"] for item in body["results"]] == ["stop_idle", "subscription", "thermal"]
    first = body["results"][0]
    assert first["saving"] == {
        "monthly_amount": "3600.00",
        "currency": "CNY",
        "formula": "5.0000 CNY/h x 720 h/month",
        "price_source": "bills",
    }
    assert first["confidence"]["level"] == "high"
    assert first["risk"] == {"level": 1, "reason": "Low."}
    assert first["instance_name"] == "alpha"
    # The cloud's id beside the internal one, for tooling that knows only the cloud's.
    assert (first["instance"], first["cloud_instance_id"]) == (recs[0].instance_id, "ins-alpha")
    assert first["members"] == []
    assert first["paid_while_waiting"] is None
    # No saving is null, not "0.00", and sorts after every saving.
    assert body["results"][2]["saving"] is None


def test_it_filters_by_kind_status_project_instance_and_minimum_saving(
    alice_client: APIClient, recs
) -> None:
    def kinds(**query) -> list[str]:
        response = alice_client.get(URL, query)
        assert response.status_code == 200, response.json()
        return [item["kind"] for item in response.json()["results"]]

    assert kinds(kind=["thermal", "subscription"]) == ["subscription", "thermal"]
    assert kinds(status="resolved") == ["schedule"]
    assert kinds(project=recs[2].project_id) == ["subscription"]
    assert kinds(instance=recs[0].instance_id) == ["stop_idle", "thermal"]
    assert kinds(min_saving="1000") == ["stop_idle", "subscription"]
    assert kinds(ordering="saving") == ["subscription", "stop_idle", "thermal"]
    assert kinds(ordering="-risk") == ["stop_idle", "subscription", "thermal"]
    bad = alice_client.get(URL, {"kind": "nonsense"})
    assert bad.status_code == 400
    assert "kind" in str(bad.json())


def test_it_filters_by_the_internal_or_the_cloud_instance_id(
    alice_client: APIClient, bob_client: APIClient, recs, globex: Organization
) -> None:
    def kinds(client: APIClient, instance: str) -> list[str]:
        response = client.get(URL, {"instance": instance})
        assert response.status_code == 200, response.json()
        return [item["kind"] for item in response.json()["results"]]

    assert kinds(alice_client, "ins-alpha") == ["stop_idle", "thermal"]
    assert kinds(alice_client, str(recs[0].instance_id)) == ["stop_idle", "thermal"]
    assert kinds(alice_client, "ins-beta") == ["subscription"]
    detail = alice_client.get(f"{URL}/{recs[2].pk}").json()
    assert (detail["instance"], detail["cloud_instance_id"]) == (recs[2].instance_id, "ins-beta")
    # Unknown ids match nothing, like an unknown integer.
    assert kinds(alice_client, "ins-nothere") == []
    assert kinds(alice_client, "999999999") == []
    # Another organization's instance, by either id, matches nothing either; nor does an
    # instance of Globex's that shares a cloud id with Acme's show Acme's rows to Bob.
    make_instance(globex, "alpha")
    assert kinds(bob_client, "ins-alpha") == []
    assert kinds(bob_client, str(recs[0].instance_id)) == []
    globex_own = make_instance(globex, "gamma")
    assert kinds(alice_client, "ins-gamma") == []
    assert kinds(alice_client, str(globex_own.pk)) == []
    for bad in ("ins-", "abc", "0", "-3", "ins-a/b", str(2**63)):
        response = alice_client.get(URL, {"instance": bad})
        assert response.status_code == 400, bad
        assert "instance" in str(response.json()), bad


def test_it_shows_evidence_action_and_history_in_the_detail(alice_client, recs) -> None:
    body = alice_client.get(f"{URL}/{recs[0].pk}").json()
    assert body["evidence"]["chart"] == "metrics"
    assert body["evidence"]["chart_range"]["start"].startswith("2026-11-02")
    figures = {f["name"]: f["value"] for f in body["evidence"]["figures"]}
    assert figures == {"idle_hours": "330", "options.subscription.monthly": "2190.24"}
    assert body["action"]["commands"] == ["tccli cvm StopInstances"]
    assert body["history"] == []
    assert body["realised"] is None


def test_it_accepts_dismisses_snoozes_and_reopens_with_history(alice_client, recs) -> None:
    url = f"{URL}/{recs[0].pk}/actions"
    assert (
        alice_client.post(url, {"action": "accept"}, format="json").json()["status"] == "accepted"
    )
    body = alice_client.post(url, {"action": "reopen"}, format="json").json()
    assert body["status"] == "open"
    until = (timezone.now() + dt.timedelta(days=2)).isoformat()
    body = alice_client.post(url, {"action": "snooze", "until": until}, format="json").json()
    assert body["status"] == "snoozed"
    body = alice_client.post(
        url, {"action": "dismiss", "reason": "Demo box."}, format="json"
    ).json()
    assert body["status"] == "dismissed"
    assert [(e["to_status"], e["actor"]) for e in body["history"]] == [
        ("accepted", "alice@acme.test"),
        ("open", "alice@acme.test"),
        ("snoozed", "alice@acme.test"),
        ("dismissed", "alice@acme.test"),
    ]
    assert body["realised"] is None


def test_it_answers_400_naming_the_field_for_a_past_snooze_or_an_unknown_action(
    alice_client, recs
) -> None:
    url = f"{URL}/{recs[0].pk}/actions"
    past = (timezone.now() - dt.timedelta(days=1)).isoformat()
    response = alice_client.post(url, {"action": "snooze", "until": past}, format="json")
    assert response.status_code == 400
    assert "until" in str(response.json())
    response = alice_client.post(url, {"action": "delete"}, format="json")
    assert response.status_code == 400
    assert "action" in str(response.json())
    response = alice_client.post(url, {"action": "dismiss"}, format="json")
    assert response.status_code == 400
    assert "reason" in str(response.json())
    assert Recommendation.objects.get(pk=recs[0].pk).status == Status.OPEN


@pytest.mark.parametrize("role", [Role.VIEWER, Role.FINANCE])
def test_it_forbids_viewers_and_finance_to_act(
    client_for, acme: Organization, recs, role: str
) -> None:
    user = User.objects.create_user(email=f"{role}@acme.test", password="x-pass-12345")
    Membership.objects.create(organization=acme, user=user, role=role)
    client = client_for(user)
    assert client.get(f"{URL}/{recs[0].pk}").status_code == 200
    response = client.post(f"{URL}/{recs[0].pk}/actions", {"action": "accept"}, format="json")
    assert response.status_code == 403
    assert Recommendation.objects.get(pk=recs[0].pk).status == Status.OPEN


def test_it_answers_404_for_another_organizations_recommendation(
    bob_client: APIClient, recs
) -> None:
    assert bob_client.get(f"{URL}/{recs[0].pk}").status_code == 404
    response = bob_client.post(f"{URL}/{recs[0].pk}/actions", {"action": "accept"}, format="json")
    assert response.status_code == 404
    assert bob_client.get(URL).json()["results"] == []


def test_it_totals_savings_by_kind_and_by_project(alice_client, recs) -> None:
    body = alice_client.get(f"{URL}/totals").json()
    assert [(t["key"], t["monthly_saving"], t["count"]) for t in body["by_kind"]] == [
        ("stop_idle", "3600.00", 1),
        ("subscription", "1409.76", 1),
        ("thermal", None, 1),
    ]
    assert [(t["label"], t["monthly_saving"]) for t in body["by_project"]] == [
        ("p-alpha", "3600.00"),
        ("p-beta", "1409.76"),
    ]


def test_alternatives_are_listed_and_counted_but_their_money_is_not_added_up(
    alice_client, recs, acme
) -> None:
    beta = recs[2].instance
    alternative = make_rec(acme, beta, "spot", "1000.00", role="alternative")
    body = alice_client.get(f"{URL}/totals").json()
    by_kind = {t["key"]: t for t in body["by_kind"]}
    assert (by_kind["spot"]["count"], by_kind["spot"]["alternatives"]) == (1, 1)
    assert by_kind["spot"]["monthly_saving"] == "0.00"
    assert {t["label"]: t["monthly_saving"] for t in body["by_project"]}["p-beta"] == "1409.76"
    listed = alice_client.get(URL, {"role": "alternative"}).json()["results"]
    assert [(r["id"], r["role"]) for r in listed] == [(alternative.pk, "alternative")]
    plan = alice_client.get(URL, {"role": "plan"}).json()["results"]
    assert plan
    assert alternative.pk not in {r["id"] for r in plan}
    assert alice_client.get(URL, {"role": "neither"}).status_code == 400


def test_a_pipeline_finding_shows_paid_while_waiting_apart_from_savings_and_totals(
    acme: Organization, alice_client, recs
) -> None:
    pipeline = make_rec(
        acme,
        recs[2].instance,
        "data_pipeline",
        None,
        monthly_paid_while_waiting=Decimal("2857.14"),
        gpu_hours_waiting_per_month=Decimal("571.4"),
        saving_formula="5.0000 CNY/h x 720.0 h/month = 3600.00 CNY/month x 16000/20160",
    )
    item = alice_client.get(f"{URL}/{pipeline.pk}").json()
    assert item["saving"] is None
    assert item["paid_while_waiting"] == {
        "monthly_amount": "2857.14",
        "gpu_hours_per_month": "571.4",
        "currency": "CNY",
        "formula": pipeline.saving_formula,
        "price_source": "bills",
    }
    # Listed after every saving (the two without one by id), left out by a minimum saving,
    # and never added to a total.
    listed = [r["kind"] for r in alice_client.get(URL).json()["results"]]
    assert listed == ["stop_idle", "subscription", "thermal", "data_pipeline"]
    assert "data_pipeline" not in [
        r["kind"] for r in alice_client.get(URL, {"min_saving": "0"}).json()["results"]
    ]
    body = alice_client.get(f"{URL}/totals").json()
    by_kind = {t["key"]: (t["monthly_saving"], t["count"]) for t in body["by_kind"]}
    assert by_kind["data_pipeline"] == (None, 1)
    by_project = {t["label"]: t["monthly_saving"] for t in body["by_project"]}
    assert by_project["p-beta"] == "1409.76"  # the subscription's alone


def test_an_upsize_shows_its_typed_figures_and_a_null_saving(
    acme: Organization, alice_client, recs
) -> None:
    dearer = make_rec(
        acme,
        recs[0].instance,
        "upsize",
        None,
        parameters={"to": "GN7.8XLARGE128"},
        upsize_reason="next_in_family",
        monthly_extra_cost=Decimal("3323.09"),
        current_samples_per_currency_unit=Decimal("86400.0"),
        target_samples_per_currency_unit=Decimal("44928.0"),
    )
    stuck = make_rec(
        acme,
        recs[2].instance,
        "upsize",
        None,
        parameters={"reason": "no_larger_type"},
        upsize_reason="no_larger_type",
        current_samples_per_currency_unit=Decimal("65454.5"),
    )
    item = alice_client.get(f"{URL}/{dearer.pk}").json()
    assert item["saving"] is None
    assert item["upsize"] == {
        "reason": "next_in_family",
        "target_type": "GN7.8XLARGE128",
        "monthly_extra_cost": "3323.09",
        "current_samples_per_currency_unit": "86400.0",
        "target_samples_per_currency_unit": "44928.0",
        "currency": "CNY",
        "formula": dearer.saving_formula,
    }
    upsize = alice_client.get(f"{URL}/{stuck.pk}").json()["upsize"]
    assert (upsize["reason"], upsize["target_type"], upsize["monthly_extra_cost"]) == (
        "no_larger_type",
        None,
        None,
    )
    # Every other kind has none; and what an upsize costs more is never in a total.
    assert alice_client.get(f"{URL}/{recs[0].pk}").json()["upsize"] is None
    totals = alice_client.get(f"{URL}/totals").json()["by_kind"]
    assert {t["key"]: t["monthly_saving"] for t in totals}["upsize"] is None


def test_it_validates_and_stores_settings_overrides(alice_client, charlie_client) -> None:
    url = f"{URL}/settings"
    response = alice_client.patch(url, {"thresholds": {"nonsense": 1}}, format="json")
    assert response.status_code == 400
    assert "thresholds" in str(response.json())
    body = {
        "thresholds": {"idle_min_share": 0.9},
        "reserved_prices": [
            {"region": "ap-shanghai", "instance_type": "GN7.2XLARGE32", "hourly": "2.5"}
        ],
    }
    response = alice_client.patch(url, body, format="json")
    assert response.status_code == 200, response.json()
    assert alice_client.get(url).json()["thresholds"] == {"idle_min_share": 0.9}
    assert charlie_client.patch(url, body, format="json").status_code == 403


def test_it_describes_every_field_in_the_schema(alice_client) -> None:
    schema = alice_client.get("/api/v1/schema/", {"format": "json"}).json()
    detail = schema["components"]["schemas"]["RecommendationDetail"]["properties"]
    for name in ("saving", "confidence", "risk", "evidence", "action", "history", "realised"):
        assert name in detail, name
    for name in ("saving", "paid_while_waiting", "upsize"):
        assert detail[name]["nullable"] is True, name
    upsize = schema["components"]["schemas"]["Upsize"]["properties"]
    assert upsize["monthly_extra_cost"]["format"] == "decimal"
    assert upsize["target_samples_per_currency_unit"]["nullable"] is True
    waiting = schema["components"]["schemas"]["PaidWhileWaiting"]["properties"]
    assert waiting["gpu_hours_per_month"]["format"] == "decimal"
    assert waiting["monthly_amount"]["nullable"] is True
    evidence = schema["components"]["schemas"]["Evidence"]["properties"]
    assert set(evidence) == {"chart", "chart_range", "figures"}
    for name in ("Recommendation", "RecommendationDetail"):
        properties = schema["components"]["schemas"][name]["properties"]
        assert properties["cloud_instance_id"]["type"] == "string"
        assert properties["cloud_instance_id"]["nullable"] is True
        assert properties["members"]["items"] == {
            "$ref": "#/components/schemas/RecommendationMember"
        }
    member = schema["components"]["schemas"]["RecommendationMember"]
    assert set(member["properties"]) == {
        "instance",
        "cloud_instance_id",
        "name",
        "role",
        "monthly_share",
    }
    assert set(member["required"]) == set(member["properties"])
    assert member["properties"]["instance"]["type"] == "integer"
    assert member["properties"]["monthly_share"]["type"] == "string"
    assert member["properties"]["monthly_share"]["format"] == "decimal"
    (instance,) = [
        p
        for p in schema["paths"]["/api/v1/recommendations"]["get"]["parameters"]
        if p["name"] == "instance"
    ]
    assert [option["type"] for option in instance["schema"]["oneOf"]] == ["integer", "string"]


def test_a_recommendation_recorded_without_a_chart_range_says_null_instead_of_failing(
    acme: Organization, alice_client
) -> None:
    rec = make_rec(acme, make_instance(acme, "gamma"), "stop_idle", "10.00")
    rec.evidence = {"idle_hours": 330, "chart_range": {"end": "2026-11-16T00:00:00Z"}}
    rec.save()
    response = alice_client.get(f"{URL}/{rec.pk}")
    assert response.status_code == 200, response.content
    evidence = response.json()["evidence"]
    assert evidence["chart_range"] is None
    assert evidence["chart"] == "metrics"
    assert {"name": "idle_hours", "value": "330"} in evidence["figures"]

"""Analysis endpoints: tenancy (another organization's instance is a 404), roles, bad input."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.analysis import services
from apps.cloud.models import Instance
from tests.analysis.conftest import AS_OF, START
from tests.analysis.test_pricing import COMPUTE_COST, bill_hours

pytestmark = pytest.mark.django_db
PERIOD = {"start": "2026-10-26T00:00:00Z", "end": "2026-10-27T00:00:00Z"}


@pytest.fixture
def analysed(fleet: list[Instance]) -> list[Instance]:
    services.analysis_run(instance_ids=[i.pk for i in fleet], start=START, end=AS_OF, as_of=AS_OF)
    bill_hours(fleet[0], START, 24)
    return fleet


@pytest.fixture
def globex_instance(globex: Organization) -> Instance:
    return Instance.objects.create(
        organization=globex, provider_id="ins-globex", region="eu-frankfurt", gpu_count=1
    )


def test_it_serves_phases_with_segments_and_billed_money(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    train = analysed[0]
    response = alice_client.get(f"/api/v1/instances/{train.pk}/phases", PERIOD)
    assert response.status_code == 200
    body = response.json()
    assert body["cost_source"] == "bills"
    assert body["cost"] == str((COMPUTE_COST * 24).quantize(Decimal("0.01")))
    assert sum(Decimal(t["cost"]) for t in body["totals"].values()) == Decimal(body["cost"])
    assert set(body["totals"]) == {"unknown", "idle", "data_processing", "evaluation", "training"}
    segments = body["segments"]
    assert segments[0]["start_at"] == "2026-10-26T00:00:00Z"
    assert segments[-1]["end_at"] == "2026-10-27T00:00:00Z"
    assert sum(s["minutes"] for s in segments) == 24 * 60
    # Merged: no two neighbours share a phase.
    assert all(a["phase"] != b["phase"] for a, b in itertools.pairwise(segments))


def test_it_serves_the_hour_of_week_profile(
    charlie_client: APIClient, analysed: list[Instance]
) -> None:
    response = charlie_client.get(f"/api/v1/instances/{analysed[1].pk}/profile")
    assert response.status_code == 200
    body = response.json()
    assert body["analysed"] is True
    assert body["tz"] == "Asia/Shanghai"
    assert len(body["p95_pct"]) == 7
    assert len(body["coverage"][0]) == 24


def test_it_serves_an_unanalysed_instance_as_not_analysed_yet(
    alice_client: APIClient, make_instance: Callable[..., Instance]
) -> None:
    fresh = make_instance("fresh")
    body = alice_client.get(f"/api/v1/instances/{fresh.pk}/profile").json()
    assert body["analysed"] is False
    assert body["off_window"] is None


def test_it_summarises_money_per_project_with_unallocated(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    response = alice_client.get("/api/v1/analysis/summary", {**PERIOD, "group_by": "project"})
    assert response.status_code == 200
    body = response.json()
    names = [g["project_name"] for g in body["groups"]]
    assert names == ["vision", "Unallocated"]
    assert sum(g["instance_count"] for g in body["groups"]) == 4
    assert Decimal(body["totals"]["cost"]) == sum(Decimal(g["cost"]) for g in body["groups"])
    vision = body["groups"][0]
    assert Decimal(vision["idle_cost"]) + Decimal(vision["data_bound_cost"]) == Decimal(
        vision["wasted_cost"]
    )
    assert body["totals"]["cost_sources"]["bills"] == 1


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"start": "yesterday"}, "start"),
        ({"start": "2026-10-27", "end": "2026-10-26"}, "end"),
        ({"start": "2026-01-01", "end": "2026-10-26"}, "start"),
        ({"group_by": "team"}, "group_by"),
        ({"strat": "2026-10-26"}, "strat"),
    ],
)
def test_it_rejects_bad_query_parameters_naming_them(
    alice_client: APIClient, analysed: list[Instance], params: dict, field: str
) -> None:
    response = alice_client.get("/api/v1/analysis/summary", params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert field in error["fields"]


def test_it_rejects_a_bad_period_on_the_phases_endpoint(
    alice_client: APIClient, analysed: list[Instance]
) -> None:
    response = alice_client.get(f"/api/v1/instances/{analysed[0].pk}/phases", {"end": "2026-13-45"})
    assert response.status_code == 400
    assert "end" in response.json()["error"]["fields"]


@pytest.mark.parametrize("endpoint", ["phases", "profile"])
def test_it_answers_404_for_another_organizations_instance(
    bob_client: APIClient, alice_client: APIClient, analysed: list[Instance],
    globex_instance: Instance, endpoint: str,
) -> None:  # fmt: skip
    response = bob_client.get(f"/api/v1/instances/{analysed[0].pk}/{endpoint}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert alice_client.get(f"/api/v1/instances/{globex_instance.pk}/{endpoint}").status_code == 404


def test_it_keeps_other_organizations_out_of_the_summary(
    bob_client: APIClient, analysed: list[Instance]
) -> None:
    body = bob_client.get("/api/v1/analysis/summary", PERIOD).json()
    assert body["totals"]["instance_count"] == 0
    assert body["currency"] == "USD"


def test_it_lets_a_read_only_key_read_everything(
    key_client: Callable[..., tuple[APIClient, object]], analysed: list[Instance]
) -> None:
    client, _key = key_client(analysed[0].organization, "read")
    for url in (
        f"/api/v1/instances/{analysed[0].pk}/phases",
        f"/api/v1/instances/{analysed[0].pk}/profile",
        "/api/v1/analysis/summary",
        "/api/v1/analysis/settings",
    ):
        assert client.get(url).status_code == 200, url
    assert (
        client.patch("/api/v1/analysis/settings", {"thresholds": {}}, format="json").status_code
        == 403
    )


def test_it_lets_managers_override_thresholds_and_nobody_else(
    alice_client: APIClient, charlie_client: APIClient, bob_client: APIClient, acme: Organization
) -> None:
    patch = {"thresholds": {"idle_gpu_util_max_pct": 8}}
    assert (
        charlie_client.patch("/api/v1/analysis/settings", patch, format="json").status_code == 403
    )

    response = alice_client.patch("/api/v1/analysis/settings", patch, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["thresholds"] == {"idle_gpu_util_max_pct": 8}
    assert body["effective"]["idle_gpu_util_max_pct"] == 8.0
    assert body["defaults"]["idle_gpu_util_max_pct"] == 5.0
    assert (
        charlie_client.get("/api/v1/analysis/settings").json()["thresholds"] == patch["thresholds"]
    )
    # Bob's organization is untouched.
    assert bob_client.get("/api/v1/analysis/settings").json()["thresholds"] == {}

    reset = {"thresholds": {"idle_gpu_util_max_pct": None}}
    assert (
        alice_client.patch("/api/v1/analysis/settings", reset, format="json").json()["thresholds"]
        == {}
    )


@pytest.mark.parametrize(
    ("thresholds", "message"),
    [
        ({"idle_gpu_util_maxpct": 8}, "idle_gpu_util_maxpct: unknown threshold"),
        ({"min_phase_minutes": "ten"}, "min_phase_minutes: expected a number"),
        ({"idle_gpu_util_max_pct": 150}, "idle_gpu_util_max_pct"),
    ],
)
def test_it_rejects_invalid_thresholds_naming_the_key(
    alice_client: APIClient, acme: Organization, thresholds: dict, message: str
) -> None:
    response = alice_client.patch(
        "/api/v1/analysis/settings", {"thresholds": thresholds}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert message in " ".join(error["fields"]["thresholds"])
    assert alice_client.get("/api/v1/analysis/settings").json()["thresholds"] == {}


def test_it_rejects_unknown_fields_in_the_settings_body(
    alice_client: APIClient, acme: Organization
) -> None:
    response = alice_client.patch(
        "/api/v1/analysis/settings", {"thresholds": {}, "colour": "red"}, format="json"
    )
    assert response.status_code == 400
    assert "colour" in response.json()["error"]["fields"]

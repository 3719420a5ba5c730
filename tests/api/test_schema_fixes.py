"""Where the API's answers and its schema disagreed (issue 20), each fixed on the side that was
wrong: the schema says what the API serves and what it takes."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from apps.accounts.models import Organization, User
from apps.alerts.models import AlertEvent
from tests.api.globex_world import MIDNIGHT

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def components() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]


def test_an_alert_of_no_project_or_instance_is_served_as_its_schema_says(
    alice_client: APIClient, acme: Organization, components: dict[str, Any]
) -> None:
    AlertEvent.objects.create(
        organization=acme, kind="budget", title="spend", message="over", started_at=MIDNIGHT
    )

    (row,) = alice_client.get("/api/v1/alerts").json()["results"]

    properties = components["AlertEvent"]["properties"]
    for name in ("project_name", "instance_name", "instance_provider_id"):
        assert row[name] is None
        assert properties[name]["nullable"] is True, name


@pytest.mark.parametrize("component", ["DigestSubscription", "DigestSubscriptionRequest"])
def test_the_send_time_is_stated_as_the_local_time_the_api_serves_and_takes(
    alice_client: APIClient, alice: User, acme: Organization, component: str, components: Any
) -> None:
    created = alice_client.post("/api/v1/digest-subscriptions", {}, format="json").json()
    send_time = components[component]["properties"]["send_time"]
    matches = jsonschema_rs.validator_for(send_time).is_valid

    # RFC 3339's time (``format: time``) needs an offset the API never serves.
    assert "format" not in send_time
    assert created["send_time"] == "09:00:00"
    assert matches(created["send_time"])
    assert matches("07:30")
    assert not matches("0730")
    assert not matches("07:30+08:00")


@pytest.mark.parametrize(("sent", "status"), [("07:30", 200), ("0730", 400), ("07:30Z", 400)])
def test_the_send_time_taken_is_the_one_the_schema_states(
    alice_client: APIClient, alice: User, acme: Organization, sent: str, status: int
) -> None:
    created = alice_client.post("/api/v1/digest-subscriptions", {}, format="json").json()

    response = alice_client.patch(
        f"/api/v1/digest-subscriptions/{created['id']}", {"send_time": sent}, format="json"
    )

    assert response.status_code == status, response.content
    if status == 400:
        assert list(response.json()["error"]["fields"]) == ["send_time"]

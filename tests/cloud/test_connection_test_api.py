"""POST /cloud-accounts/test-connection: real calls to the simulator, nothing ever stored."""

from __future__ import annotations

import pytest
from django.conf import LazySettings
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatorServer,
)
from tests.integration.conftest import free_port
from tests.leaks import WRONG_SECRET_KEY

pytestmark = pytest.mark.django_db

PATH = "/api/v1/cloud-accounts/test-connection"


def payload(simulator_endpoint: str, **overrides: object) -> dict[str, object]:
    return {
        "name": "Training cloud",
        "secret_id": DEFAULT_SECRET_ID,
        "secret_key": DEFAULT_SECRET_KEY,
        "regions": ["ap-guangzhou", "ap-shanghai"],
        "endpoint": simulator_endpoint,
        "endpoint_scheme": "http",
        **overrides,
    }


def test_it_says_ok_after_calling_the_cloud_and_stores_nothing(
    alice_client: APIClient, acme: Organization, simulator: SimulatorServer
) -> None:
    response = alice_client.post(PATH, payload(simulator.endpoint), format="json")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ok"] is True
    assert body["checked"] == [
        "DescribeInstances ap-guangzhou",
        "DescribeInstances ap-shanghai",
        "DescribeAccountBalance",
    ]
    assert simulator.request_log.count("DescribeInstances") == 2
    assert simulator.request_log.count("DescribeAccountBalance") == 1
    assert not CloudAccount.objects.exists()


def test_it_returns_the_plain_error_of_a_wrong_key_and_stores_nothing(
    alice_client: APIClient, acme: Organization, simulator: SimulatorServer
) -> None:
    response = alice_client.post(
        PATH, payload(simulator.endpoint, secret_key=WRONG_SECRET_KEY), format="json"
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ok"] is False
    assert body["code"].startswith("AuthFailure")
    assert "rejected the SecretId/SecretKey" in body["message"]
    assert WRONG_SECRET_KEY not in response.content.decode()
    # A permanent error stops at the first call: no retries, no further regions.
    assert simulator.request_log.count() == 1
    assert not CloudAccount.objects.exists()


def test_it_reports_an_unreachable_endpoint(
    alice_client: APIClient, acme: Organization, settings: LazySettings
) -> None:
    endpoint = f"127.0.0.1:{free_port()}"
    settings.OUTBOUND_ALLOWED_HOSTS = [endpoint]  # allowed, but nothing listens there
    response = alice_client.post(PATH, payload(endpoint), format="json")

    assert response.status_code == 200, response.content
    assert response.json()["ok"] is False
    assert response.json()["code"] == "ClientNetworkError"


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"regions": ["ap-mars"]}, "regions"),
        ({"regions": []}, "regions"),
        ({"endpoint": "http://x"}, "endpoint"),
        ({"secret_key": ""}, "secret_key"),
        ({"secret_id": "AKID with spaces"}, "secret_id"),
    ],
)
def test_it_rejects_bad_input_naming_the_field_without_calling_the_cloud(
    alice_client: APIClient,
    acme: Organization,
    simulator: SimulatorServer,
    overrides: dict,
    field: str,
) -> None:
    response = alice_client.post(PATH, payload(simulator.endpoint, **overrides), format="json")

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert simulator.request_log.count() == 0


def test_it_is_for_owners_and_admins_only(
    charlie_client: APIClient, acme: Organization, simulator: SimulatorServer
) -> None:
    response = charlie_client.post(PATH, payload(simulator.endpoint), format="json")

    assert response.status_code == 403
    assert simulator.request_log.count() == 0

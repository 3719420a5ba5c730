"""A cloud account's endpoint override reaches only public addresses, unless the operator
allows the host: the demo's and the tests' simulator (SSRF)."""

from __future__ import annotations

import pytest
from django.conf import LazySettings
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.client import AccountConfig, TencentClient
from apps.cloud.providers.tencent.errors import CloudError
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatorServer,
)

pytestmark = pytest.mark.django_db


def _payload(endpoint: str) -> dict[str, object]:
    return {
        "name": "Training cloud",
        "secret_id": DEFAULT_SECRET_ID,
        "secret_key": DEFAULT_SECRET_KEY,
        "regions": ["ap-guangzhou"],
        "endpoint": endpoint,
        "endpoint_scheme": "http",
    }


@pytest.fixture
def unlisted_simulator(simulator: SimulatorServer, settings: LazySettings) -> SimulatorServer:
    """A simulator on 127.0.0.1 that the operator did not allow."""
    settings.OUTBOUND_ALLOWED_HOSTS = []
    return simulator


@pytest.mark.parametrize(
    "endpoint",
    [
        "{simulator}",
        "localhost:{port}",
        "169.254.169.254:80",
        "10.0.0.5:443",
        "100.64.0.1:443",
        "0.0.0.0:{port}",
    ],
)
@pytest.mark.parametrize(
    "path", ["/api/v1/cloud-accounts/test-connection", "/api/v1/cloud-accounts"]
)
def test_an_inside_endpoint_is_refused_naming_the_field(
    alice_client: APIClient,
    acme: Organization,
    unlisted_simulator: SimulatorServer,
    endpoint: str,
    path: str,
) -> None:
    port = unlisted_simulator.endpoint.rsplit(":", 1)[1]
    aimed = endpoint.format(simulator=unlisted_simulator.endpoint, port=port)
    response = alice_client.post(path, _payload(aimed), format="json")

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert set(error["fields"]) == {"endpoint"}
    assert "public addresses" in error["message"]
    assert not CloudAccount.objects.exists()
    assert unlisted_simulator.request_log.count() == 0


def test_changing_the_endpoint_to_an_inside_address_is_refused(
    alice_client: APIClient, acme: Organization, unlisted_simulator: SimulatorServer
) -> None:
    created = alice_client.post("/api/v1/cloud-accounts", _payload(""), format="json")
    assert created.status_code == 201, created.content

    response = alice_client.patch(
        f"/api/v1/cloud-accounts/{created.json()['id']}",
        {"endpoint": unlisted_simulator.endpoint},
        format="json",
    )

    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"endpoint"}
    assert CloudAccount.objects.get().endpoint == ""


def test_a_sync_against_an_inside_endpoint_stops_before_any_request(
    unlisted_simulator: SimulatorServer,
) -> None:
    # Stored before the rule, or a name that resolved elsewhere when it was saved.
    client = TencentClient(
        AccountConfig(
            secret_id=DEFAULT_SECRET_ID,
            secret_key=DEFAULT_SECRET_KEY,
            endpoint=unlisted_simulator.endpoint,
            scheme="http",
        )
    )
    with pytest.raises(CloudError) as raised:
        client.call("cvm", "DescribeInstances", {"Offset": 0, "Limit": 1}, region="ap-guangzhou")

    assert raised.value.code == "EndpointRefused"
    assert not raised.value.is_transient
    assert unlisted_simulator.request_log.count() == 0


def test_an_allowed_simulator_is_reached(
    alice_client: APIClient, acme: Organization, simulator: SimulatorServer
) -> None:
    # The simulator fixture allows its own host:port, as `make demo` does.
    response = alice_client.post(
        "/api/v1/cloud-accounts/test-connection", _payload(simulator.endpoint), format="json"
    )

    assert response.status_code == 200, response.content
    assert response.json()["ok"] is True
    assert simulator.request_log.count() > 0

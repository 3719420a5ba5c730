"""Cloud accounts through the API: validation, secrecy, tenancy, roles, and recovery."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.conf import LazySettings
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Organization, User
from apps.cloud.models import CloudAccount, SyncKind, SyncState
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatorServer,
)
from apps.cloud.sync import runner
from tests.cloud.conftest import SIM_NOW, connect
from tests.leaks import WRONG_SECRET_KEY as WRONG_KEY

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def simulator_host_allowed(settings: LazySettings) -> None:
    # The endpoint below is on 127.0.0.1: refused unless the operator allows it, as the demo
    # does for its simulator (apps.core.outbound).
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1:8900"]


def payload(**overrides: object) -> dict[str, object]:
    return {
        "name": "Training cloud",
        "secret_id": DEFAULT_SECRET_ID,
        "secret_key": DEFAULT_SECRET_KEY,
        "regions": ["ap-guangzhou"],
        "endpoint": "127.0.0.1:8900",
        "endpoint_scheme": "http",
        **overrides,
    }


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"endpoint": "http://127.0.0.1:8900"}, "endpoint"),
        ({"endpoint": "127.0.0.1"}, "endpoint"),
        ({"endpoint": "host:99999"}, "endpoint"),
        ({"regions": ["ap-mars"]}, "regions"),
        ({"regions": []}, "regions"),
        ({"regions": "ap-guangzhou"}, "regions"),
        ({"secret_id": ""}, "secret_id"),
        ({"secret_id": " AKID with spaces"}, "secret_id"),
        ({"secret_key": ""}, "secret_key"),
        ({"site": "moon"}, "site"),
    ],
)
def test_it_rejects_bad_input_naming_the_field(
    alice_client: APIClient, overrides: dict, field: str
) -> None:
    response = alice_client.post("/api/v1/cloud-accounts", payload(**overrides), format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"], response.json()
    assert CloudAccount.objects.count() == 0


def test_it_never_returns_the_secret_key(alice_client: APIClient) -> None:
    created = alice_client.post("/api/v1/cloud-accounts", payload(), format="json")
    assert created.status_code == 201, created.content
    account_id = created.json()["id"]
    responses = [
        created,
        alice_client.get("/api/v1/cloud-accounts"),
        alice_client.get(f"/api/v1/cloud-accounts/{account_id}"),
        alice_client.patch(
            f"/api/v1/cloud-accounts/{account_id}", {"secret_key": WRONG_KEY}, format="json"
        ),
        alice_client.patch(
            f"/api/v1/cloud-accounts/{account_id}", {"endpoint": "nope"}, format="json"
        ),
    ]
    for response in responses:
        body = response.content.decode()
        assert DEFAULT_SECRET_KEY not in body
        assert WRONG_KEY not in body
        assert "secret_key_encrypted" not in body
    assert DEFAULT_SECRET_KEY not in CloudAccount.objects.get().secret_key_encrypted


def test_it_keeps_the_secret_key_off_the_admin_pages(
    client, acme: Organization, simulator: SimulatorServer
) -> None:
    account = connect(acme, simulator)
    admin = User.objects.create_superuser(email="root@example.com", password="x")
    client.force_login(admin)
    for url in ["/admin/cloud/cloudaccount/", f"/admin/cloud/cloudaccount/{account.pk}/change/"]:
        response = client.get(url)
        assert response.status_code == 200
        assert DEFAULT_SECRET_KEY not in response.content.decode()
        assert account.secret_key_encrypted not in response.content.decode()


def test_it_hides_other_organizations_accounts(
    bob_client: APIClient, acme: Organization, simulator: SimulatorServer
) -> None:
    account = connect(acme, simulator)
    assert bob_client.get(f"/api/v1/cloud-accounts/{account.pk}").status_code == 404
    assert (
        bob_client.patch(
            f"/api/v1/cloud-accounts/{account.pk}", {"name": "x"}, format="json"
        ).status_code
        == 404
    )
    assert bob_client.post(f"/api/v1/cloud-accounts/{account.pk}/sync").status_code == 404
    assert bob_client.get("/api/v1/cloud-accounts").json()["count"] == 0


def test_it_makes_every_kind_due_now_on_sync_now(
    alice_client: APIClient,
    acme: Organization,
    simulator: SimulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    account = connect(acme, simulator)
    SyncState.objects.filter(account=account).update(
        next_run_at=timezone.now() + timedelta(hours=1)
    )
    dispatched: list[int] = []
    monkeypatch.setattr("apps.cloud.api.dispatch_account", SimpleNamespace(delay=dispatched.append))
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(f"/api/v1/cloud-accounts/{account.pk}/sync")
    assert response.status_code == 202
    due = SyncState.objects.filter(account=account, next_run_at__lte=timezone.now())
    assert sorted(due.values_list("kind", flat=True)) == sorted(SyncKind.values)
    assert dispatched == [account.pk]


def test_it_lets_only_managers_connect_accounts(
    charlie_client: APIClient, key_client: Callable, acme: Organization
) -> None:
    assert (
        charlie_client.post("/api/v1/cloud-accounts", payload(), format="json").status_code == 403
    )
    client, _ = key_client(acme, "write")
    assert client.post("/api/v1/cloud-accounts", payload(), format="json").status_code == 403
    assert CloudAccount.objects.count() == 0


@pytest.mark.integration
def test_it_marks_a_wrong_key_failing_in_one_sync_and_recovers_when_fixed(
    alice_client: APIClient, acme: Organization, simulator: SimulatorServer
) -> None:
    account = connect(acme, simulator, secret_key=WRONG_KEY)
    assert runner.sync_run(account.pk, SyncKind.INVENTORY, as_of=SIM_NOW) == "failed"
    account.refresh_from_db()
    assert account.status == CloudAccount.Status.FAILING
    assert "rejected the SecretId/SecretKey" in account.last_error
    assert WRONG_KEY not in account.last_error
    # No retry storm: one request, and the failed sync is not due again before its interval.
    assert (
        simulator.request_log.count("DescribeInstanceTypeConfigs")
        + simulator.request_log.count("DescribeInstances")
        == 1
    )
    state = SyncState.objects.get(account=account, kind=SyncKind.INVENTORY)
    assert state.next_run_at is not None
    assert state.last_started_at is not None
    assert state.next_run_at > state.last_started_at
    assert runner.sync_run(account.pk, SyncKind.INVENTORY, as_of=SIM_NOW) == "skipped"

    shown = alice_client.get(f"/api/v1/cloud-accounts/{account.pk}").json()
    assert shown["status"] == "failing"
    assert "SecretKey" in shown["last_error"]

    response = alice_client.patch(
        f"/api/v1/cloud-accounts/{account.pk}", {"secret_key": DEFAULT_SECRET_KEY}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "pending"
    assert runner.sync_run(account.pk, SyncKind.INVENTORY, as_of=SIM_NOW) == "ok"
    account.refresh_from_db()
    assert account.status == CloudAccount.Status.OK
    assert account.last_error == ""


def test_it_refuses_a_new_account_with_automation_on_and_creates_nothing(
    alice_client: APIClient,
) -> None:
    # A new account has only its read key: automation cannot be on from the start.
    response = alice_client.post(
        "/api/v1/cloud-accounts", payload(automation_enabled=True), format="json"
    )
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == "read_only_credential"
    assert not CloudAccount.objects.exists()

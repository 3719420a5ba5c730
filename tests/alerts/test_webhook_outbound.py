"""Alert webhooks go only to public addresses, unless the operator allows the host (SSRF)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import LazySettings
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.alerts.models import AlertDelivery, AlertSettings
from apps.alerts.services import alert_event_raise
from apps.core.crypto import encrypt_str
from tests.recording_server import Recorder, recording_server

pytestmark = pytest.mark.django_db

SECRET = "s3cret-s3cret-s3cret"


@pytest.fixture
def internal_hook() -> Iterator[tuple[type[Recorder], int]]:
    with recording_server() as server:
        yield server


def _save(client: APIClient, url: str) -> Any:
    return client.patch(
        "/api/v1/alerts/settings",
        {"webhook_url": url, "webhook_enabled": True, "webhook_secret": SECRET},
        format="json",
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/internal",
        "http://localhost:{port}/internal",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://10.0.0.5:6379/",
        "http://100.64.0.1/",
        "http://0.0.0.0:{port}/",
    ],
)
def test_an_inside_webhook_is_refused_naming_the_field(
    alice_client: APIClient,
    acme: Organization,
    internal_hook: tuple[type[Recorder], int],
    url: str,
) -> None:
    hook, port = internal_hook
    response = _save(alice_client, url.format(port=port))

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert set(error["fields"]) == {"webhook_url"}
    assert "public addresses" in error["message"]
    assert not AlertSettings.objects.filter(organization=acme, webhook_enabled=True).exists()
    assert hook.received == []


def _raise_alert(organization: Organization) -> AlertDelivery:
    alert_event_raise(
        organization=organization,
        started_at=dt.datetime(2026, 11, 16, tzinfo=dt.UTC),
        kind="anomaly",
        title="Spend far above normal",
        message="m",
        evidence={"value": 500.0},
    )
    return AlertDelivery.objects.get(channel="webhook")


def test_an_allowed_host_gets_its_webhook(
    alice_client: APIClient,
    acme: Organization,
    internal_hook: tuple[type[Recorder], int],
    settings: LazySettings,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    hook, port = internal_hook
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{port}"]
    assert _save(alice_client, f"http://127.0.0.1:{port}/hook").status_code == 200

    with django_capture_on_commit_callbacks(execute=True):
        delivery = _raise_alert(acme)

    delivery.refresh_from_db()
    assert delivery.status == "sent"
    assert hook.received == ["/hook"]


def test_a_stored_url_that_now_points_inside_is_refused_when_sending(
    acme: Organization,
    internal_hook: tuple[type[Recorder], int],
    django_capture_on_commit_callbacks: Callable,
) -> None:
    # Saved before the rule, or a name that resolved elsewhere when it was saved.
    hook, port = internal_hook
    AlertSettings.objects.update_or_create(
        organization=acme,
        defaults={
            "webhook_url": f"http://localhost:{port}/internal",
            "webhook_enabled": True,
            "webhook_secret_encrypted": encrypt_str(SECRET),
        },
    )
    with django_capture_on_commit_callbacks(execute=True):
        delivery = _raise_alert(acme)

    delivery.refresh_from_db()
    # Refused for good (no retry would help), and nothing reached the server.
    assert delivery.status == "failed"
    assert not delivery.retryable
    assert "loopback" in delivery.error
    assert hook.received == []

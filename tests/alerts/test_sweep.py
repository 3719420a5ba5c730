"""Alert mail across an SMTP outage: a recipient refused with 4xx is retried (not failed for
good), the sweep sends what the retries could not once the server is back, and a refused
address (5xx) or a sent alert is left alone.

Sending is real (aiosmtpd on loopback, Django's SMTP backend); the tasks run eagerly, where
Celery re-runs a retried task at once.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from apps.accounts.models import Organization
from apps.alerts import tasks
from apps.alerts.models import AlertDelivery, AlertEvent, DeliveryStatus
from apps.alerts.services import alert_event_raise, deliveries_sweep
from apps.cloud.models import CloudAccount
from tests.alerts.builders import make_account, make_instance, make_project
from tests.digests.test_digest import RefusingRecipients
from tests.integration.conftest import Inbox, running_smtp_server
from workers.celery import app

pytestmark = pytest.mark.django_db


class GreylistingRecipients(Inbox):
    """A mail server that defers every recipient ("try again later", a 4xx)."""

    async def handle_RCPT(
        self, server: object, session: object, envelope: object, address: str, options: object
    ) -> str:
        return "450 4.2.0 Greylisted, please try again later"


@pytest.fixture
def eager_retries() -> Iterator[None]:
    """Let an eager task run its retries: propagating would raise its first Retry."""
    propagates = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = propagates


@pytest.fixture
def smtp(settings: Any) -> Any:
    """``smtp(inbox)``: a loopback server with that handler, Django's SMTP backend on it."""
    servers: list[Any] = []

    def serve(inbox: Inbox) -> Inbox:
        server = running_smtp_server(inbox)
        _, port = next(server)
        servers.append(server)
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        return inbox

    yield serve
    for server in servers:
        server.close()


def raise_alert(organization: Organization, name: str, capture: Any) -> AlertEvent:
    """An anomaly alert for alice (the owner); its e-mail is sent as the transaction commits."""
    account = CloudAccount.objects.filter(organization=organization).first()
    account = account or make_account(organization)
    project = make_project(organization, name)
    with capture(execute=True):
        return alert_event_raise(
            organization=organization,
            started_at=dt.datetime(2026, 11, 16, tzinfo=dt.UTC),
            kind="anomaly",
            project=project,
            instance=make_instance(account, f"box-{name}", project=project),
            dedup_key=f"anomaly:spend:{name}",
            evidence={
                "metric": "spend",
                "day": "2026-11-15",
                "value": 1234.5,
                "baseline_median": 100.0,
                "baseline_mad": 10.0,
                "k": 4.0,
                "alert_line": 159.304,
                "unit": "CNY",
            },
        )


def email_of(event: AlertEvent) -> AlertDelivery:
    return AlertDelivery.objects.get(event=event, channel="email")


@pytest.mark.usefixtures("eager_retries")
def test_it_retries_a_4xx_refusal_and_sends_it_once_the_server_is_back(
    acme: Organization, smtp: Any, django_capture_on_commit_callbacks: Any
) -> None:
    smtp(GreylistingRecipients())
    deferred = raise_alert(acme, "a", django_capture_on_commit_callbacks)
    smtp(RefusingRecipients())
    refused = raise_alert(acme, "b", django_capture_on_commit_callbacks)
    inbox = smtp(Inbox())
    sent = raise_alert(acme, "c", django_capture_on_commit_callbacks)

    # Deferred through every retry: failed, but only for now.
    delivery = email_of(deferred)
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.retryable
    assert delivery.attempts == tasks.send_alert_email.max_retries + 1
    assert "450" in delivery.error
    # Refused for good at the first attempt.
    delivery = email_of(refused)
    assert (delivery.status, delivery.retryable, delivery.attempts) == (
        DeliveryStatus.FAILED,
        False,
        1,
    )
    assert "550" in delivery.error
    assert len(inbox.messages) == 1

    # The sweep's beat tick, twice (a doubled tick, or the next one).
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            deliveries_sweep(now=timezone.now())

    # Each of the two once (ids compared as a multiset: "anomaly:11" sorts before "anomaly:9").
    assert Counter(m["X-GPU-Ledger-Alert"] for m in inbox.messages) == Counter(
        [f"anomaly:{deferred.pk}", f"anomaly:{sent.pk}"]
    )
    assert email_of(deferred).status == DeliveryStatus.SENT
    assert email_of(refused).status == DeliveryStatus.FAILED
    assert email_of(sent).status == DeliveryStatus.SENT


def test_it_sweeps_a_lost_pending_delivery_but_not_one_a_day_old(
    acme: Organization, smtp: Any, django_capture_on_commit_callbacks: Any
) -> None:
    inbox = smtp(Inbox())
    # Planned, but their tasks never ran (the broker lost them).
    lost = raise_alert(acme, "a", lambda execute: django_capture_on_commit_callbacks())
    old = raise_alert(acme, "b", lambda execute: django_capture_on_commit_callbacks())
    now = timezone.now()
    AlertDelivery.objects.filter(event=lost).update(updated_at=now - dt.timedelta(minutes=40))
    AlertDelivery.objects.filter(event=old).update(
        created_at=now - dt.timedelta(days=2), updated_at=now - dt.timedelta(days=2)
    )

    with django_capture_on_commit_callbacks(execute=True):
        deliveries_sweep(now=now)

    assert [m["X-GPU-Ledger-Alert"] for m in inbox.messages] == [f"anomaly:{lost.pk}"]
    stale = email_of(old)
    assert (stale.status, stale.error) == (
        DeliveryStatus.FAILED,
        "Not sent within a day of the alert.",
    )

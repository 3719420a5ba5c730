"""The sweep: a digest the send task's retries could not deliver goes out once the mail server
is back (an outage of hours loses nothing); a refused address, or a sent digest, is left alone.

Sending is real (aiosmtpd on loopback, Django's SMTP backend); the sweep's tasks run in-process
(tests/integration/test_digest_delivery.py covers the worker path).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from apps.accounts.models import Organization, User
from apps.digests import services
from apps.digests.models import DeliveryStatus, DigestDelivery, DigestSubscription
from tests.digests.test_digest import PERIOD, RefusingRecipients
from tests.digests.world import World, build_world
from tests.integration.conftest import Inbox, free_port, running_smtp_server

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(acme: Organization) -> World:
    return build_world(acme)


@pytest.fixture
def smtp(settings: Any) -> Iterator[Any]:
    """Point Django's SMTP backend at a port: ``smtp(port)``; the connection is dropped after."""

    def use(port: int) -> None:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port

    yield use
    services._drop_connection()


def delivery(subscription: DigestSubscription, weeks_back: int, recipient: str) -> DigestDelivery:
    """A delivery of the week ``weeks_back`` weeks before PERIOD, due a few minutes ago."""
    shift = dt.timedelta(weeks=weeks_back)
    return DigestDelivery.objects.create(
        organization=subscription.organization,
        subscription=subscription,
        period_start=PERIOD[0] - shift,
        period_end=PERIOD[1] - shift,
        scheduled_for=timezone.now() - dt.timedelta(minutes=45),
        recipient=recipient,
    )


def send_with(port: int, smtp: Any, row: DigestDelivery, *, final: bool) -> None:
    smtp(port)
    with contextlib.suppress(services.TransientDeliveryError):
        services.delivery_send(delivery_id=row.pk, final_attempt=final)


def test_it_sends_again_what_an_outage_left_and_nothing_twice(
    world: World, alice: User, smtp: Any, django_capture_on_commit_callbacks: Any
) -> None:
    subscription = services.subscription_save(
        subscription=DigestSubscription(organization=world.organization, user=alice)
    )
    # The mail server down through the last retry: failed, but only for now.
    outage = delivery(subscription, 0, "outage@acme.test")
    send_with(free_port(), smtp, outage, final=True)
    # A worker died while sending; its lease ran out.
    stuck = delivery(subscription, 1, "stuck@acme.test")
    DigestDelivery.objects.filter(pk=stuck.pk).update(
        status=DeliveryStatus.SENDING, claimed_at=timezone.now() - dt.timedelta(minutes=11)
    )
    # Its task lost (the broker restarted): pending, untouched for 40 minutes.
    lost = delivery(subscription, 2, "lost@acme.test")
    DigestDelivery.objects.filter(pk=lost.pk).update(
        updated_at=timezone.now() - dt.timedelta(minutes=40)
    )
    # Waiting for its next retry: its task will send it.
    delivery(subscription, 3, "retrying@acme.test")
    # Refused by the server for good.
    refused = delivery(subscription, 4, "refused@acme.test")
    refusing = running_smtp_server(RefusingRecipients())
    _, refusing_port = next(refusing)
    try:
        send_with(refusing_port, smtp, refused, final=False)
    finally:
        refusing.close()  # type: ignore[attr-defined]
    # Failed in an outage, but due two days ago: too old to be news.
    stale = delivery(subscription, 5, "stale@acme.test")
    send_with(free_port(), smtp, stale, final=True)
    DigestDelivery.objects.filter(pk=stale.pk).update(
        scheduled_for=timezone.now() - dt.timedelta(days=2)
    )
    inbox = Inbox()
    server = running_smtp_server(inbox)
    _, port = next(server)
    try:
        sent = delivery(subscription, 6, "sent@acme.test")
        send_with(port, smtp, sent, final=False)
        assert DigestDelivery.objects.get(pk=outage.pk).status == DeliveryStatus.FAILED
        assert DigestDelivery.objects.get(pk=outage.pk).retryable

        # The mail server is back: the sweep's beat tick, twice (a doubled tick, or the next).
        for _ in range(2):
            with django_capture_on_commit_callbacks(execute=True):
                services.deliveries_sweep(now=timezone.now())
    finally:
        server.close()  # type: ignore[attr-defined]

    received = sorted(message["To"] for message in inbox.messages)
    assert received == ["lost@acme.test", "outage@acme.test", "sent@acme.test", "stuck@acme.test"]
    status = dict(DigestDelivery.objects.values_list("recipient", "status"))
    assert status == {
        "outage@acme.test": DeliveryStatus.SENT,
        "stuck@acme.test": DeliveryStatus.SENT,
        "lost@acme.test": DeliveryStatus.SENT,
        "sent@acme.test": DeliveryStatus.SENT,
        "retrying@acme.test": DeliveryStatus.PENDING,
        "refused@acme.test": DeliveryStatus.FAILED,
        "stale@acme.test": DeliveryStatus.FAILED,
    }
    refused.refresh_from_db()
    assert "550" in refused.error
    assert refused.attempts == 1
    stale.refresh_from_db()
    assert not stale.retryable
    assert stale.attempts == 1

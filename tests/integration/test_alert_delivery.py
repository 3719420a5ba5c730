"""Alerts delivered for real: a Celery worker evaluating and e-mailing through aiosmtpd on
loopback (a refused first attempt retried), a webhook verified by a loopback HTTP server, and
a permanently refused address recorded as failed."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import threading
import time
import zoneinfo
from collections.abc import Iterator
from decimal import Decimal
from email.header import decode_header, make_header
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from celery.exceptions import Retry
from django.conf import LazySettings
from django.test import override_settings

from apps.accounts.models import Organization
from apps.alerts.models import AlertDelivery, AlertEvent
from apps.alerts.services import alert_event_raise, alert_settings_update, budget_create
from apps.alerts.tasks import evaluate, send_alert_webhook
from tests.alerts.builders import bill, make_account
from tests.integration.conftest import (
    Inbox,
    RefusingInbox,
    running_smtp_server,
    start_celery_worker,
    stop_worker,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("celery-worker")]

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
AS_OF = dt.datetime(2026, 11, 16, tzinfo=SHANGHAI)


def test_a_real_worker_evaluates_a_budget_and_mails_the_alert_once(
    transactional_db: None, publish_to_broker: None, acme: Organization
) -> None:
    account = make_account(acme)
    for day in range(1, 16):  # 15 x 40 = 600 of 1,000 (60 %); forecast 600 + 40 x 15 = 1,200
        bill(account, dt.datetime(2026, 11, day, 10, tzinfo=SHANGHAI), "40")
    budget_create(organization=acme, name="GPU", amount=Decimal("1000"), forecast_thresholds_pct=[])
    smtp = running_smtp_server(RefusingInbox(refusals=1))
    inbox, port = next(smtp)
    worker = start_celery_worker("default,email", EMAIL_URL=f"smtp://127.0.0.1:{port}")
    try:
        evaluate.delay(acme.pk, ["budgets"], AS_OF.isoformat())
        # The first send is refused (451) and retried after a random 0-5 s.
        delivered = wait_for(lambda: len(inbox.messages) == 1, timeout=90)
        evaluate.delay(acme.pk, ["budgets"], (AS_OF + dt.timedelta(hours=1)).isoformat())
        settled = wait_for(
            lambda: AlertDelivery.objects.filter(status="sent").count() == 1, timeout=30
        )
        time.sleep(3)  # long enough for a second alert or a duplicate send to show up
    finally:
        output = stop_worker(worker)
        next(smtp, None)

    assert delivered, f"no alert e-mail arrived:\n{output[-4000:]}"
    assert settled
    assert inbox.attempts == 2, "one refused attempt, one delivered"
    assert len(inbox.messages) == 1
    message = inbox.messages[0]
    assert message["To"] == "alice@acme.test"
    subject = str(make_header(decode_header(message["Subject"])))
    assert subject == "[GPU Ledger · Acme] Budget GPU: 50 % spent in 2026-11"
    assert message.is_multipart()
    parts = {part.get_content_type(): part for part in message.walk()}
    text = _decoded(parts["text/plain"])
    html = _decoded(parts["text/html"])
    assert "has spent 600.00 CNY of its 1,000.00 CNY budget for 2026-11 (60.0 %)" in text
    assert "600.00" in html
    (event,) = AlertEvent.objects.all()
    (delivery,) = event.deliveries.all()
    assert (delivery.status, delivery.attempts) == ("sent", 2)
    assert delivery.message_id == message["Message-ID"]


def _decoded(part: Message) -> str:
    payload = part.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode(part.get_content_charset() or "utf-8")


class _Hook(BaseHTTPRequestHandler):
    received: list[tuple[dict[str, str], bytes]]
    statuses: list[int]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append(({k.lower(): v for k, v in self.headers.items()}, body))
        status = type(self).statuses.pop(0) if type(self).statuses else 204
        self.send_response(status)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def webhook_server(settings: LazySettings) -> Iterator[tuple[type[_Hook], str]]:
    handler = type("Hook", (_Hook,), {"received": [], "statuses": [503]})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    # Webhooks go to 127.0.0.1 only where the operator allows it (apps.core.outbound).
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{server.server_address[1]}"]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield handler, f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()


def test_the_webhook_is_signed_with_the_organizations_secret_and_retried(
    db: None,
    acme: Organization,
    webhook_server: tuple[type[_Hook], str],
    django_capture_on_commit_callbacks,
) -> None:
    hook, url = webhook_server
    secret = "acme-webhook-secret-0001"
    alert_settings_update(
        organization=acme, webhook_url=url, webhook_enabled=True, webhook_secret=secret
    )
    # Eager here: the 503 makes the task raise ``Retry`` to the caller, and the test runs the
    # retry itself (the worker test above shows the backoff through a real worker).
    with (
        override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"),
        pytest.raises(Retry),
        django_capture_on_commit_callbacks(execute=True),
    ):
        alert_event_raise(
            organization=acme,
            started_at=AS_OF,
            kind="anomaly",
            title="Spend of project vision far above normal",
            message="m",
            evidence={"value": 500.0},
        )

    delivery = AlertDelivery.objects.get(channel="webhook")
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    assert "503" in delivery.error
    send_alert_webhook.delay(delivery.pk)
    # The first POST got a 503; the retry was accepted.
    assert len(hook.received) == 2
    headers, body = hook.received[-1]
    timestamp, signature = (
        part.split("=", 1)[1] for part in headers["x-gpu-ledger-signature"].split(",")
    )
    expected = hmac.new(
        secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256
    ).hexdigest()
    assert hmac.compare_digest(signature, expected)
    payload = json.loads(body)
    assert payload["kind"] == "anomaly"
    assert payload["evidence"] == {"value": 500.0}
    forged = hmac.new(b"another secret", f"{timestamp}.".encode() + body, hashlib.sha256)
    assert not hmac.compare_digest(signature, forged.hexdigest())
    delivery.refresh_from_db()
    assert delivery.event_id == payload["id"]
    assert (delivery.status, delivery.attempts) == ("sent", 2)


class _NoSuchUser(Inbox):
    async def handle_RCPT(
        self, server: object, session: object, envelope: object, address: str, options: list
    ) -> str:
        return "550 5.1.1 No such user here"


def test_a_refused_address_is_recorded_as_failed_not_retried(
    db: None, acme: Organization, django_capture_on_commit_callbacks
) -> None:
    smtp = running_smtp_server(_NoSuchUser())
    inbox, port = next(smtp)
    try:
        with (
            override_settings(
                EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
                EMAIL_HOST="127.0.0.1",
                EMAIL_PORT=port,
                EMAIL_USE_TLS=False,
            ),
            django_capture_on_commit_callbacks(execute=True),
        ):
            event = alert_event_raise(
                organization=acme, started_at=AS_OF, kind="budget", title="t", message="m"
            )
    finally:
        next(smtp, None)

    (delivery,) = AlertDelivery.objects.filter(event=event)
    assert (delivery.status, delivery.attempts) == ("failed", 1)
    assert "No such user" in delivery.error
    assert inbox.messages == []

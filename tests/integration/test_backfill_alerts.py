"""A fresh sign-up's first backfill, for real: an account connected through the API against the
simulator, a Celery worker of every queue syncing 30 days, analysing them and evaluating the
alerts, and the e-mails it sends caught by a loopback SMTP server. The imported history once
raised an e-mail per alert (25 in 20 minutes); it now raises one summary."""

from __future__ import annotations

import time
from collections.abc import Iterator
from email.header import decode_header, make_header

import pytest
from django.conf import LazySettings
from rest_framework.test import APIClient

from apps.alerts.models import AlertDelivery, AlertEvent
from apps.cloud.models import CloudAccount, SyncKind, SyncState
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatorServer,
)
from tests.integration.conftest import Inbox, start_celery_worker, stop_worker, wait_for

pytestmark = [
    pytest.mark.integration,
    pytest.mark.stack,
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("celery-worker"),
]

BACKFILL_DAYS = 30  # the product's default (SYNC_BACKFILL_DAYS)


@pytest.fixture
def simulator(settings: LazySettings) -> Iterator[SimulatorServer]:
    # On the real clock, like the worker's evaluations: "yesterday" is yesterday for both.
    server = SimulatorServer(port=0, seed=1).start()
    # Outbound requests go to 127.0.0.1 only where the operator allows it (apps.core.outbound).
    settings.OUTBOUND_ALLOWED_HOSTS = [server.endpoint]
    yield server
    server.stop()


def test_a_fresh_sign_ups_first_backfill_sends_at_most_one_alert_email(
    alice_client: APIClient,
    simulator: SimulatorServer,
    smtp_server: tuple[Inbox, int],
    publish_to_broker: None,
) -> None:
    inbox, port = smtp_server
    worker = start_celery_worker(
        "default,email,sync,analysis",
        EMAIL_URL=f"smtp://127.0.0.1:{port}",
        SYNC_BACKFILL_DAYS=str(BACKFILL_DAYS),
        OUTBOUND_ALLOWED_HOSTS=simulator.endpoint,
    )
    try:
        created = alice_client.post(
            "/api/v1/cloud-accounts",
            {
                "name": "Training cloud",
                "secret_id": DEFAULT_SECRET_ID,
                "secret_key": DEFAULT_SECRET_KEY,
                "regions": ["ap-guangzhou", "ap-shanghai"],
                "endpoint": simulator.endpoint,
                "endpoint_scheme": "http",
            },
            format="json",
        )
        assert created.status_code == 201, created.content
        account = CloudAccount.objects.get(pk=created.json()["id"])
        # The backfill is over once both first syncs succeeded and the analysis of what they
        # brought was evaluated: that evaluation ends with the summary.
        summarized = wait_for(
            lambda: AlertDelivery.objects.filter(event__kind="history", status="sent").exists(),
            timeout=540,
        )
        time.sleep(5)  # long enough for a straggling alert e-mail to show up
    finally:
        output = stop_worker(worker)

    assert summarized, f"no summary was sent:\n{output[-6000:]}"
    states = SyncState.objects.filter(account=account, kind__in=[SyncKind.BILLS, SyncKind.METRICS])
    assert all(state.backfilled_until is not None for state in states)
    # The imported history raised alerts (the simulated fleet has hot, idle, memory-bound GPUs),
    # each recorded for the history; the e-mail is the one summary of them.
    alerts = AlertEvent.objects.exclude(kind="history")
    assert alerts.exists()
    assert not alerts.filter(imported=False).exists()
    assert not AlertDelivery.objects.exclude(event__kind="history").exists()
    (summary,) = AlertEvent.objects.filter(kind="history")
    assert summary.evidence["alerts"] == alerts.exclude(kind="recovery").count()
    assert set(alerts.values_list("summary", flat=True)) == {summary.pk}
    assert len(inbox.messages) == 1, [m["Subject"] for m in inbox.messages]
    (message,) = inbox.messages
    assert message["To"] == "alice@acme.test"
    subject = str(make_header(decode_header(message["Subject"])))
    assert subject == (
        f"[GPU Ledger · Acme] What the imported history shows: {summary.evidence['alerts']} alerts"
    )

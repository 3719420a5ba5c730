"""Background work of the digests app: claiming due digests (beat) and sending each one."""

from __future__ import annotations

import datetime as dt

from celery import Task, shared_task
from django.utils import timezone

from apps.digests import services
from apps.digests.services import TransientDeliveryError
from workers import queues
from workers.defaults import NEVER_RETRY, task_options

# SMTP down "for a while": 8 retries after 5 s doubled per retry, capped at 10 min, with full
# jitter (a random wait up to that), wait at most 5+10+...+320+600 s, about 20 minutes (10 on
# average) before a digest is recorded as failed. A longer outage is the sweep's: it queues
# such a digest again every quarter of an hour for a day (``services.deliveries_sweep``).
SEND_MAX_RETRIES = 8


@shared_task(
    **task_options(
        name="digests.claim_due",
        queue=queues.DEFAULT,
        # A dispatcher: the next beat tick claims whatever this one could not.
        retry_on=NEVER_RETRY,
    )
)
def claim_due(now_iso: str | None = None) -> int:
    """Claim the digests due at ``now_iso`` (default: the clock) and queue their sending.

    ``now_iso`` lets a test (or an operator replaying a missed morning) move time without
    touching the clock; claiming is idempotent for any given time.
    """
    now = dt.datetime.fromisoformat(now_iso) if now_iso else timezone.now()
    if timezone.is_naive(now):
        now = now.replace(tzinfo=dt.UTC)
    return len(services.subscriptions_claim_due(now=now))


@shared_task(
    **task_options(
        name="digests.sweep_undelivered",
        queue=queues.DEFAULT,
        # A sweep: the next beat tick finds whatever this one could not queue.
        retry_on=NEVER_RETRY,
    )
)
def sweep_undelivered() -> int:
    """Queue again the digests that no task will send (lost, stuck, or out of retries)."""
    return len(services.deliveries_sweep(now=timezone.now()))


@shared_task(
    bind=True,
    **task_options(
        name="digests.send_digest",
        queue=queues.EMAIL,
        # Only what services classify as transient (the server down, busy, a 4xx reply); a
        # bad address or a 5xx is recorded as failed at once and never retried.
        retry_on=(TransientDeliveryError,),
        max_retries=SEND_MAX_RETRIES,
    ),
)
def send_digest(self: Task, delivery_id: int) -> str:
    outcome = services.delivery_send(
        delivery_id=delivery_id, final_attempt=self.request.retries >= SEND_MAX_RETRIES
    )
    return "skipped" if outcome is None else outcome.status

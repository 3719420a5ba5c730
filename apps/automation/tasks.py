"""Background work of automation: materialising plans' actions ahead, and the executor."""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.utils import timezone

from apps.automation import executor, services
from workers import queues
from workers.defaults import NEVER_RETRY, task_options


def _now(now_iso: str | None) -> dt.datetime:
    now = dt.datetime.fromisoformat(now_iso) if now_iso else timezone.now()
    return now.replace(tzinfo=dt.UTC) if timezone.is_naive(now) else now


@shared_task(
    **task_options(
        name="automation.materialise",
        queue=queues.DEFAULT,
        # Idempotent top-up: the next beat tick does whatever this one could not.
        retry_on=NEVER_RETRY,
    )
)
def materialise(now_iso: str | None = None) -> int:
    """Create every active plan's actions of the next week (nothing twice)."""
    return services.actions_materialise_all(now=_now(now_iso))


@shared_task(
    **task_options(
        name="automation.execute_due",
        # It talks to Tencent Cloud (stop, start, describe): the sync queue's workers.
        queue=queues.SYNC,
        # A dispatcher: a failed action is retried by its own back-off on a later tick, and
        # the conditional UPDATE of each claim makes a duplicate tick act once.
        retry_on=NEVER_RETRY,
    )
)
def execute_due(now_iso: str | None = None) -> dict[str, int]:
    """Confirm what was sent, then claim and carry out the due actions (``now_iso``: a test's
    or an operator's moment)."""
    return executor.executor_run(now=_now(now_iso))

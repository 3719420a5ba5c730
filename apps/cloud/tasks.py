"""Background sync of cloud accounts.

Beat calls ``cloud.dispatch_due`` every minute; it fans out one ``cloud.run_sync`` per due
(account, kind). ``run_sync`` claims a lease before doing anything (apps/cloud/sync/runner.py),
so duplicates are harmless, and retries transient cloud errors with exponential backoff and
jitter, a bounded number of times (``autoretry_for``, see workers/defaults.py). The dispatchers
are never retried: beat calls ``dispatch_due`` again a minute later.
"""

from __future__ import annotations

from datetime import datetime

from celery import shared_task
from django.utils import timezone

from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.errors import CloudError
from apps.cloud.sync import runner
from workers import queues
from workers.defaults import NEVER_RETRY, task_options


@shared_task(**task_options(name="cloud.dispatch_due", queue=queues.SYNC, retry_on=NEVER_RETRY))
def dispatch_due() -> int:
    due = runner.due_syncs(timezone.now())
    for account_id, kind in due:
        run_sync.delay(account_id, kind)
    return len(due)


@shared_task(**task_options(name="cloud.dispatch_account", queue=queues.SYNC, retry_on=NEVER_RETRY))
def dispatch_account(account_id: int) -> int:
    due = [(a, k) for a, k in runner.due_syncs(timezone.now()) if a == account_id]
    for _, kind in due:
        run_sync.delay(account_id, kind)
    return len(due)


@shared_task(
    bind=True,
    **task_options(
        name="cloud.run_sync",
        queue=queues.SYNC,
        # Only transient errors reach here (throttled, network, server error): the runner
        # handles a permanent one (bad key, missing permission) itself and returns "failed".
        retry_on=(CloudError,),
        # A 30-day metrics backfill of a large fleet is long; the lease heartbeat keeps it owned.
        soft_time_limit=3 * 3600,
        time_limit=3 * 3600 + 300,
        max_retries=6,
    ),
)
def run_sync(self, account_id: int, kind: str, as_of: str | None = None) -> str:
    """Run one due sync. ``as_of`` (ISO 8601) pins the moment synced up to, for replays."""
    if not CloudAccount.objects.filter(pk=account_id).exists():
        return "gone"
    try:
        return runner.sync_run(
            account_id, kind, as_of=datetime.fromisoformat(as_of) if as_of else None
        )
    except CloudError as error:
        # sync_run released the lease. Re-raised, Celery retries it with exponential backoff and
        # full jitter (so accounts throttled together spread out); the last attempt gives up.
        if self.request.retries < self.max_retries:
            raise
        from apps.cloud.services import cloud_account_mark_failing

        cloud_account_mark_failing(
            account_id=account_id, message=f"{error} Retried {self.max_retries} times."
        )
        return "failed"

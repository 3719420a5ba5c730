"""Running one kind of sync of one account: claim, run, record the outcome.

Claiming is a conditional UPDATE of the account's SyncState row: it succeeds only when the
sync is due and nobody holds a live lease, so duplicate messages, two workers or a beat tick
arriving twice never run the same sync of an account at once. The lease expires on its own,
so a worker killed mid-sync (SIGKILL, OOM) blocks nothing for longer than the lease.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.cloud import services
from apps.cloud.models import CloudAccount, SyncKind, SyncState
from apps.cloud.providers.tencent.client import TencentClient
from apps.cloud.providers.tencent.errors import CloudError
from apps.cloud.signals import backfill_completed, sync_completed
from apps.cloud.sync.progress import ProgressRecorder
from apps.cloud.sync.registry import SyncJob, sync_function

logger = logging.getLogger(__name__)

INTERVALS = {
    SyncKind.INVENTORY: timedelta(minutes=5),
    SyncKind.METRICS: timedelta(minutes=5),
    SyncKind.PRICES: timedelta(days=1),
    SyncKind.BILLS: timedelta(hours=1),
    SyncKind.BALANCE: timedelta(hours=1),
}
# Inventory first: metrics and bills attach to the instances it creates. Bills before metrics:
# they name the instances the inventory no longer lists (terminated before the account was
# connected), whose metrics the metrics sync then fetches for the time they ran.
ORDER = [SyncKind.INVENTORY, SyncKind.PRICES, SyncKind.BILLS, SyncKind.METRICS, SyncKind.BALANCE]
# The kinds whose first success together make a backfill complete: the analysis needs both
# (metrics for the phases, bills for the money).
BACKFILL_KINDS = (SyncKind.METRICS, SyncKind.BILLS)


def lease_duration() -> timedelta:
    return timedelta(seconds=settings.SYNC_LEASE_SECONDS)


def sync_claim(account_id: int, kind: str, *, now: datetime, force: bool = False) -> bool:
    """Take the lease of (account, kind) if it is due (or ``force``) and not leased."""
    free = Q(leased_until__isnull=True) | Q(leased_until__lte=now)
    due = Q() if force else Q(next_run_at__lte=now)
    return bool(
        SyncState.objects.filter(free, due, account_id=account_id, kind=kind)
        .exclude(account__status=CloudAccount.Status.DISABLED)
        .update(leased_until=now + lease_duration(), last_started_at=now)
    )


def sync_extend_lease(account_id: int, kind: str) -> None:
    SyncState.objects.filter(account_id=account_id, kind=kind).update(
        leased_until=timezone.now() + lease_duration()
    )


def synced_within_interval(account_id: int, kind: str, *, now: datetime) -> datetime | None:
    """When (account, kind) last succeeded, if that is less than its interval before ``now``
    (the real clock): a rerun of a backfill has nothing to gain from running it again."""
    last = (
        SyncState.objects.filter(account_id=account_id, kind=kind)
        .values_list("last_success_at", flat=True)
        .first()
    )
    if last is not None and now - last < INTERVALS[SyncKind(kind)]:
        return last
    return None


def sync_release(
    account_id: int,
    kind: str,
    *,
    next_run_at: datetime,
    error: str = "",
    success_at: datetime | None = None,
    as_of: datetime | None = None,
) -> None:
    """Give the lease back and schedule the next run; ``success_at`` records a success.

    ``as_of`` is the moment a successful run synced up to (default: ``success_at``); the first
    success records it as ``backfilled_until`` (the end of the imported history), and when the
    run completes an account's backfill, ``backfill_completed`` carries it, so the analysis it
    starts covers the synced data (a replay's as well as a live sync's).
    """
    changes: dict[str, Any] = {
        "leased_until": None,
        "next_run_at": next_run_at,
        "last_error": error,
    }
    if success_at is not None:
        changes["last_success_at"] = success_at
    rows = SyncState.objects.filter(account_id=account_id, kind=kind)
    first_success = success_at is not None and rows.filter(last_success_at__isnull=True).exists()
    if first_success:
        # The first run read the past: everything before this moment is imported history.
        changes["backfilled_until"] = as_of or success_at
    # Committed before the other kind is looked at (not one transaction): when the two kinds
    # finish at once on two workers, the later look then sees both, so one of them announces.
    rows.update(**changes)
    if first_success and kind in BACKFILL_KINDS:
        _announce_if_backfilled(account_id, as_of=as_of or success_at or timezone.now())


def _announce_if_backfilled(account_id: int, *, as_of: datetime) -> None:
    """Send ``backfill_completed`` once both backfill kinds have succeeded (after commit)."""
    states = SyncState.objects.filter(
        account_id=account_id, kind__in=BACKFILL_KINDS, last_success_at__isnull=False
    )
    if states.count() < len(BACKFILL_KINDS):
        return
    organization_id = (
        CloudAccount.objects.filter(pk=account_id).values_list("organization_id", flat=True).first()
    )
    if organization_id is None:
        return
    transaction.on_commit(
        lambda: backfill_completed.send(
            sender=CloudAccount,
            account_id=account_id,
            organization_id=organization_id,
            as_of=as_of,
        )
    )


def run_kind(
    account: CloudAccount,
    kind: str,
    *,
    now: datetime,
    client: TencentClient | None = None,
    progress: Callable[[int, int], None] | None = None,
    backfill_days: int | None = None,
) -> Any:
    """Run one kind of sync (no claiming): used by the task and the backfill command.

    The function comes from the registry the owning apps fill; every call of the job's
    ``progress`` extends the lease first, so a long sync (a metrics backfill) stays owned, and
    is saved (throttled) for the UI's sync status.
    """
    run = sync_function(kind)
    client = client or services.cloud_account_client(account)
    recorder = ProgressRecorder(account.pk, kind)

    def heartbeat(done: int, planned: int) -> None:
        sync_extend_lease(account.pk, kind)
        recorder.report(done, planned)
        if progress:
            progress(done, planned)

    job = SyncJob(
        account=account,
        client=client,
        now=now,
        backfill_days=backfill_days or settings.SYNC_BACKFILL_DAYS,
        progress=heartbeat,
    )
    recorder.start()
    try:
        result = run(job)
    except BaseException as error:
        recorder.fail(error)
        raise
    recorder.finish(result=result)
    return result


def sync_run(
    account_id: int, kind: str, *, force: bool = False, as_of: datetime | None = None
) -> str:
    """Claim and run one sync. Returns "skipped", "ok" or "failed"; raises transient errors
    (after releasing the lease) so the caller can retry with backoff.

    ``as_of`` is the moment the data is synced up to (default: now); leases and schedules
    always use the real clock.
    """
    now = timezone.now()
    if not sync_claim(account_id, kind, now=now, force=force):
        return "skipped"
    account = CloudAccount.objects.select_related("organization").get(pk=account_id)
    interval = INTERVALS[SyncKind(kind)]
    try:
        run_kind(account, kind, now=as_of or now)
    except CloudError as error:
        if error.is_transient:
            sync_release(account_id, kind, next_run_at=now, error=str(error))
            raise
        # A permanent error (bad key, missing permission) is a person's job: say so once and
        # try again only at the next interval, not in a retry storm.
        logger.warning("sync %s of account %s failed: %s", kind, account_id, error.code)
        services.cloud_account_mark_failing(account_id=account_id, message=str(error))
        sync_release(account_id, kind, next_run_at=now + interval, error=str(error))
        return "failed"
    except BaseException:
        sync_release(
            account_id, kind, next_run_at=now, error="Unexpected error; see the worker log."
        )
        raise
    services.cloud_account_mark_ok(account_id=account_id)
    sync_release(
        account_id, kind, next_run_at=now + interval, success_at=timezone.now(), as_of=as_of or now
    )
    # Later apps (alerts) react to fresh data; cloud imports none of them.
    sync_completed.send(
        sender=sync_run, account_id=account_id, organization_id=account.organization_id, kind=kind
    )
    return "ok"


def due_syncs(now: datetime) -> list[tuple[int, str]]:
    """(account id, kind) of every sync that is due and not leased, in run order."""
    rows = (
        SyncState.objects.filter(next_run_at__lte=now)
        .filter(Q(leased_until__isnull=True) | Q(leased_until__lte=now))
        .exclude(account__status=CloudAccount.Status.DISABLED)
        .values_list("account_id", "kind")
    )
    return sorted(rows, key=lambda row: (row[0], ORDER.index(SyncKind(row[1]))))

"""Which bill months to sync, and when.

Bills are months in Beijing time. The current month is re-read on every bills sync (hourly);
the previous month keeps changing for a few days after it ends (late settlements), so it is
re-read daily until ``CLOSED_AFTER_DAYS`` into the new month. A first sync reads every month
the backfill window touches.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from apps.billing.sync import BEIJING, BillsResult, sync_bills
from apps.cloud.models import CloudAccount, SyncKind, SyncState
from apps.cloud.providers.tencent.client import TencentClient

CLOSED_AFTER_DAYS = 5


def month_of(moment: datetime) -> str:
    return moment.astimezone(BEIJING).strftime("%Y-%m")


def previous_month_of(moment: datetime) -> str:
    return month_of(moment.astimezone(BEIJING).replace(day=1) - timedelta(days=1))


def months_between(start: datetime, end: datetime) -> list[str]:
    months, cursor = [], start.astimezone(BEIJING).replace(day=1)
    while cursor <= end.astimezone(BEIJING):
        months.append(cursor.strftime("%Y-%m"))
        cursor = (cursor + timedelta(days=32)).replace(day=1)
    return months


def months_to_sync(state: SyncState | None, *, now: datetime, backfill_days: int) -> list[str]:
    if state is None or state.last_success_at is None:
        return months_between(now - timedelta(days=backfill_days), now)
    months = [month_of(now)]
    local = now.astimezone(BEIJING)
    previous = previous_month_of(now)
    last_previous = (state.progress or {}).get("previous_month_synced_on")
    if local.day <= CLOSED_AFTER_DAYS and last_previous != local.date().isoformat():
        months.insert(0, previous)
    return months


def sync_bill_months(
    account: CloudAccount, client: TencentClient, *, now: datetime, backfill_days: int
) -> list[BillsResult]:
    state = SyncState.objects.filter(account=account, kind=SyncKind.BILLS).first()
    months = months_to_sync(state, now=now, backfill_days=backfill_days)
    results = [sync_bills(account, client, month) for month in months]
    if state is not None and previous_month_of(now) in months:
        progress = dict(state.progress or {})
        progress["previous_month_synced_on"] = now.astimezone(BEIJING).date().isoformat()
        SyncState.objects.filter(pk=state.pk).update(progress=progress)
    return results

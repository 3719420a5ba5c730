"""Bill months: their bounds (the one place they are computed), which to sync, and when.

Bills are months in Beijing time (Asia/Shanghai calendar months, UTC+8 without daylight
saving), whatever the organization's timezone: ``month_of`` names the month of a moment,
``bill_month_bounds`` gives a month's ``[start, end)`` and ``bill_months_span`` the instants
the lines of some months cover.

The current month is re-read on every bills sync (hourly). A month that has ended keeps changing for some days
(late settlements of its last hours, adjustments, refunds), so it stays *open* and is re-read
once a Beijing day until it is final: final means read on or after its ``CLOSED_AFTER_DAYS``-th
day into the following month and unchanged (same lines, same total) since the read before, or
read for the first time that late. A month that was current at the last sync is re-read once
more when the month changes, however long the gap, so its last hours are never lost.

The bookkeeping lives in the bills ``SyncState.progress``::

    {"current_month": "2026-11",
     "open_months": {"2026-10": {"read_on": "2026-11-03", "fingerprint": "3120:4711.12345678"}},
     "charge_type_disagreements": {"2026-11": ["ins-..."]}}

(the instances whose bill says another charge type than the inventory, per month read).

After the months are read, instances only the bills name are learned from them
(``apps.billing.instances``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Max, Min

from apps.billing.instances import bill_lines_learn_instances
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.billing.sync import BEIJING, BillsResult, sync_bills
from apps.cloud.models import CloudAccount, SyncKind, SyncState
from apps.cloud.providers.tencent.client import TencentClient

CLOSED_AFTER_DAYS = 5


def month_of(moment: datetime) -> str:
    """The bill month (``yyyy-mm``, Beijing time) ``moment`` falls in."""
    return moment.astimezone(BEIJING).strftime("%Y-%m")


def bill_month_bounds(month: str) -> tuple[datetime, datetime]:
    """The bill month ``yyyy-mm`` (a Beijing calendar month) as ``[start, end)``, in UTC."""
    first = datetime.strptime(month, "%Y-%m").replace(tzinfo=BEIJING)
    following = (first + timedelta(days=32)).replace(day=1)
    return first.astimezone(UTC), following.astimezone(UTC)


def bill_months_span(organization_id: int, months: Sequence[str]) -> tuple[datetime, datetime]:
    """``[start, end)`` covering the bill ``months`` (at least one) and every line of the
    organization billed in them: a late adjustment of a month may be dated outside it."""
    ordered = sorted(months)
    begin, end = bill_month_bounds(ordered[0])[0], bill_month_bounds(ordered[-1])[1]
    span = BillLine.objects.filter(organization_id=organization_id, month__in=ordered).aggregate(
        first=Min("fee_begin_at"), last=Max("fee_begin_at")
    )
    if span["first"] is not None:
        # The last line's fee begins in the span (``fee_begin_at < end``).
        begin, end = min(begin, span["first"]), max(end, span["last"] + timedelta(seconds=1))
    return begin, end


def previous_month_of(moment: datetime) -> str:
    return month_of(moment.astimezone(BEIJING).replace(day=1) - timedelta(days=1))


def months_between(start: datetime, end: datetime) -> list[str]:
    months, cursor = [], start.astimezone(BEIJING).replace(day=1)
    while cursor <= end.astimezone(BEIJING):
        months.append(cursor.strftime("%Y-%m"))
        cursor = (cursor + timedelta(days=32)).replace(day=1)
    return months


def closes_on(month: str) -> date:
    """The Beijing day from which a re-read that changes nothing makes ``month`` final."""
    following = bill_month_bounds(month)[1].astimezone(BEIJING).date()
    return following + timedelta(days=CLOSED_AFTER_DAYS)


def _bookkeeping(state: SyncState | None) -> tuple[str | None, dict[str, dict[str, str]]]:
    progress: dict[str, Any] = (state.progress or {}) if state is not None else {}
    return progress.get("current_month"), dict(progress.get("open_months") or {})


def months_to_sync(state: SyncState | None, *, now: datetime, backfill_days: int) -> list[str]:
    """Months to read now, oldest first (the current month always, last)."""
    current = month_of(now)
    if state is None or state.last_success_at is None:
        return months_between(now - timedelta(days=backfill_days), now)
    last_current, open_months = _bookkeeping(state)
    today = now.astimezone(BEIJING).date().isoformat()
    wanted = {
        month
        for month, entry in open_months.items()
        if month < current and entry.get("read_on") != today
    }
    if last_current is None:
        # Synced before this bookkeeping existed: the previous month may not be final yet.
        wanted.add(previous_month_of(now))
    elif last_current < current:
        # The month changed since the last sync: read the old one once more, whatever the day.
        wanted.add(last_current)
    return [*sorted(wanted), current]


def _fingerprint(result: BillsResult) -> str:
    return f"{result.lines}:{result.total}"


def next_bookkeeping(
    state: SyncState | None, results: list[BillsResult], *, now: datetime
) -> dict[str, Any]:
    """The bookkeeping after reading ``results``: which past months are still open."""
    current = month_of(now)
    _, open_months = _bookkeeping(state)
    today = now.astimezone(BEIJING).date()
    for result in results:
        if result.month >= current:
            continue
        entry = open_months.get(result.month)
        unchanged = entry is None or entry.get("fingerprint") == _fingerprint(result)
        if today >= closes_on(result.month) and unchanged:
            open_months.pop(result.month, None)
        else:
            open_months[result.month] = {
                "read_on": today.isoformat(),
                "fingerprint": _fingerprint(result),
            }
    return {"current_month": current, "open_months": open_months}


def sync_bill_months(
    account: CloudAccount,
    client: TencentClient,
    *,
    now: datetime,
    backfill_days: int,
    progress: Callable[[int, int], None] | None = None,
) -> list[BillsResult]:
    """Read the months due (see ``months_to_sync``), learn bills-only instances, keep the books.

    ``progress(months done, months to read)`` is called before the first month and after each
    one, so the UI's bills bar moves month by month (a month is the unit stored atomically).
    """
    state = SyncState.objects.filter(account=account, kind=SyncKind.BILLS).first()
    months = months_to_sync(state, now=now, backfill_days=backfill_days)
    if progress:
        progress(0, len(months))
    results = []
    for month in months:
        results.append(sync_bills(account, client, month))
        if progress:
            progress(len(results), len(months))
    # The first sync (and the first after the bookkeeping existed) looks at every stored month;
    # later ones at the months they read.
    first = state is None or (state.progress or {}).get("current_month") is None
    attached = bill_lines_learn_instances(
        account=account, now=now, months=None if first else months
    )
    if state is not None:
        bookkeeping = next_bookkeeping(state, results, now=now)
        # Only the bookkeeping keys change: the row was read before the months, and since then
        # the runner saved this run's progress under another key, which must not be put back.
        with transaction.atomic():
            current = SyncState.objects.select_for_update().get(pk=state.pk)
            merged = {**(current.progress or {}), **bookkeeping}
            # Counted where the account's sync state is shown: the months just read replace
            # what earlier reads said of them.
            disagreements = dict(merged.get("charge_type_disagreements") or {})
            for result in results:
                disagreements.pop(result.month, None)
                if result.charge_type_disagreements:
                    disagreements[result.month] = list(result.charge_type_disagreements)
            merged["charge_type_disagreements"] = disagreements
            merged.pop("previous_month_synced_on", None)
            SyncState.objects.filter(pk=state.pk).update(progress=merged)
    # Lines attached to learned instances may be of any month (see bill_lines_learn_instances).
    bill_lines_changed.send(
        sender=BillLine, organization=account.organization, months=None if attached else months
    )
    return results

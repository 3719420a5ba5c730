"""Which bill months a bills sync reads (months are Beijing time)."""

from __future__ import annotations

from datetime import UTC, datetime

from apps.billing.months import months_between, months_to_sync
from apps.cloud.models import SyncKind, SyncState


def state(progress: dict | None = None) -> SyncState:
    return SyncState(
        kind=SyncKind.BILLS,
        last_success_at=datetime(2026, 11, 1, tzinfo=UTC),
        progress=progress or {},
    )


def test_it_reads_every_month_the_backfill_touches_on_a_first_sync() -> None:
    now = datetime(2026, 11, 3, 4, 0, tzinfo=UTC)
    assert months_to_sync(None, now=now, backfill_days=40) == ["2026-09", "2026-10", "2026-11"]
    assert months_to_sync(SyncState(kind=SyncKind.BILLS), now=now, backfill_days=2) == ["2026-11"]


def test_it_counts_months_in_beijing_time() -> None:
    # 16:30 UTC on October 31st is already November 1st in Beijing.
    now = datetime(2026, 10, 31, 16, 30, tzinfo=UTC)
    assert months_between(now, now) == ["2026-11"]


def test_it_rereads_the_previous_month_once_a_day_until_it_closes() -> None:
    early = datetime(2026, 11, 3, 4, 0, tzinfo=UTC)
    assert months_to_sync(state(), now=early, backfill_days=30) == ["2026-10", "2026-11"]
    synced_today = state({"previous_month_synced_on": "2026-11-03"})
    assert months_to_sync(synced_today, now=early, backfill_days=30) == ["2026-11"]
    late = datetime(2026, 11, 20, 4, 0, tzinfo=UTC)
    assert months_to_sync(state(), now=late, backfill_days=30) == ["2026-11"]

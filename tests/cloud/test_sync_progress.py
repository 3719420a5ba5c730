"""A sync's progress is saved (throttled) in SyncState.progress["run"] and served in the status."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.cloud.models import CloudAccount, SyncKind, SyncState
from apps.cloud.providers.tencent.errors import CloudError, ErrorKind
from apps.cloud.providers.tencent.simulator import SimulatorServer
from apps.cloud.sync import runner
from apps.cloud.sync.progress import PROGRESS_KEY, ProgressRecorder, run_progress
from tests.cloud.conftest import BACKFILL_DAYS, SIM_NOW, connect
from tests.leaks import WRONG_SECRET_KEY

pytestmark = [pytest.mark.django_db, pytest.mark.stack]


class FakeClock:
    def __init__(self) -> None:
        self.seconds = 100.0

    def __call__(self) -> float:
        return self.seconds


def saved_run(account: CloudAccount, kind: str) -> dict:
    return SyncState.objects.get(account=account, kind=kind).progress[PROGRESS_KEY]


def status_of(client: APIClient, account: CloudAccount, kind: str) -> dict:
    body = client.get(f"/api/v1/cloud-accounts/{account.pk}").json()
    return next(state for state in body["sync"] if state["kind"] == kind)


def test_it_saves_progress_at_most_once_per_interval(account: CloudAccount) -> None:
    clock = FakeClock()
    recorder = ProgressRecorder(account.pk, SyncKind.METRICS, interval_seconds=2.0, clock=clock)
    recorder.start()
    for done in range(1, 6):
        clock.seconds += 0.3
        recorder.report(done, 50)

    assert recorder.saves == 2  # the start, and the first report
    assert saved_run(account, SyncKind.METRICS)["done"] == 1

    clock.seconds += 2.0
    recorder.report(9, 50)

    assert recorder.saves == 3
    assert (saved_run(account, SyncKind.METRICS)["done"], recorder.run["planned"]) == (9, 50)


def test_it_keeps_the_other_keys_of_the_sync_cursor(account: CloudAccount) -> None:
    SyncState.objects.filter(account=account, kind=SyncKind.BILLS).update(
        progress={"previous_month_synced_on": "2026-11-02"}
    )
    recorder = ProgressRecorder(account.pk, SyncKind.BILLS)
    recorder.start()
    recorder.finish(result=["2026-10: 10 lines"])

    progress = SyncState.objects.get(account=account, kind=SyncKind.BILLS).progress
    assert progress["previous_month_synced_on"] == "2026-11-02"
    assert progress[PROGRESS_KEY]["summary"] == "2026-10: 10 lines"


def test_it_serves_a_running_sync_with_done_and_planned(
    alice_client: APIClient, account: CloudAccount
) -> None:
    recorder = ProgressRecorder(account.pk, SyncKind.METRICS)
    recorder.start()
    recorder.report(3, 40)

    progress = status_of(alice_client, account, SyncKind.METRICS)["progress"]

    assert progress["state"] == "running"
    assert (progress["done"], progress["planned"]) == (3, 40)
    assert status_of(alice_client, account, SyncKind.BILLS)["progress"] is None


def test_it_records_each_kind_of_a_real_backfill_as_done_with_what_it_did(
    alice_client: APIClient, account: CloudAccount
) -> None:
    for kind in runner.ORDER:
        runner.run_kind(account, kind, now=SIM_NOW, backfill_days=BACKFILL_DAYS)

    inventory = status_of(alice_client, account, SyncKind.INVENTORY)["progress"]
    metrics = status_of(alice_client, account, SyncKind.METRICS)["progress"]
    bills = status_of(alice_client, account, SyncKind.BILLS)["progress"]
    assert inventory["state"] == "done"
    assert "instances" in inventory["summary"]
    assert metrics["state"] == "done"
    assert metrics["planned"] > 0
    assert metrics["done"] == metrics["planned"]
    assert "GetMonitorData" in metrics["summary"]
    assert bills["state"] == "done"
    assert "2026-11" in bills["summary"]


def test_it_records_a_failed_sync_with_its_plain_message(
    acme: Organization, simulator: SimulatorServer, alice_client: APIClient
) -> None:
    account = connect(acme, simulator, secret_key=WRONG_SECRET_KEY)

    assert runner.sync_run(account.pk, SyncKind.INVENTORY, as_of=SIM_NOW) == "failed"

    progress = status_of(alice_client, account, SyncKind.INVENTORY)["progress"]
    assert progress["state"] == "failed"
    assert "rejected the SecretId/SecretKey" in progress["summary"]


def test_it_shows_a_run_whose_worker_died_as_interrupted(account: CloudAccount) -> None:
    recorder = ProgressRecorder(account.pk, SyncKind.METRICS)
    recorder.start()
    recorder.report(5, 40)
    state = SyncState.objects.get(account=account, kind=SyncKind.METRICS)
    state.leased_until = timezone.now() + timedelta(minutes=1)

    alive = run_progress(state)
    long_after = run_progress(state, now=timezone.now() + timedelta(hours=2))

    assert alive is not None
    assert alive["state"] == "running"
    assert long_after is not None
    assert long_after["state"] == "failed"
    assert "Interrupted" in long_after["summary"]


def test_it_records_a_transient_failure_as_retrying(account: CloudAccount) -> None:
    recorder = ProgressRecorder(account.pk, SyncKind.METRICS)
    recorder.start()
    recorder.fail(CloudError(ErrorKind.TRANSIENT, "RequestLimitExceeded", "Throttled."))
    assert saved_run(account, SyncKind.METRICS)["state"] == "retrying"

    recorder.fail(CloudError(ErrorKind.PERMISSION, "UnauthorizedOperation", "Not allowed."))
    assert saved_run(account, SyncKind.METRICS)["state"] == "failed"


def test_it_reports_bill_months_done_of_the_months_to_read(
    alice_client: APIClient, account: CloudAccount
) -> None:
    # Five days before 12:30 on November 3rd in Beijing is October 29th: two bill months.
    reports: list[tuple[int, int]] = []
    results = runner.run_kind(
        account,
        SyncKind.BILLS,
        now=SIM_NOW,
        backfill_days=5,
        progress=lambda done, planned: reports.append((done, planned)),
    )

    assert [result.month for result in results] == ["2026-10", "2026-11"]
    assert reports == [(0, 2), (1, 2), (2, 2)]
    bills = status_of(alice_client, account, SyncKind.BILLS)["progress"]
    assert bills["state"] == "done"
    assert (bills["done"], bills["planned"]) == (2, 2)
    assert "2026-10" in bills["summary"]
    assert "2026-11" in bills["summary"]
    # The bills' own bookkeeping beside the run is kept.
    saved = SyncState.objects.get(account=account, kind=SyncKind.BILLS).progress
    assert saved["current_month"] == "2026-11"


def test_it_saves_a_bill_month_done_while_the_next_one_is_read(account: CloudAccount) -> None:
    saved: list[tuple[int, int]] = []

    def look(done: int, planned: int) -> None:
        # The runner saved this report before calling us (a first report and a month apart:
        # the recorder saves the first at once, the others at most every SAVE_INTERVAL_SECONDS).
        run = saved_run(account, SyncKind.BILLS)
        saved.append((run["done"], run["planned"]))

    runner.run_kind(account, SyncKind.BILLS, now=SIM_NOW, backfill_days=5, progress=look)

    assert saved[0] == (0, 2)
    assert saved_run(account, SyncKind.BILLS)["done"] == 2

"""The end of an account's backfill is announced once, and starts the analysis at once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from apps.analysis.models import AnalysisState, PhaseDay
from apps.cloud.models import CloudAccount, Instance, SyncKind
from apps.cloud.signals import backfill_completed
from apps.cloud.sync import runner
from tests.cloud.conftest import BACKFILL_DAYS, SIM_NOW

pytestmark = pytest.mark.django_db

OnCommit = Callable[..., Any]


@pytest.fixture
def announced() -> Iterator[list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        sent.append(kwargs)

    backfill_completed.connect(receiver, dispatch_uid="test.announced")
    yield sent
    backfill_completed.disconnect(dispatch_uid="test.announced")


def succeed(account: CloudAccount, kind: str) -> None:
    now = timezone.now()
    runner.sync_release(account.pk, kind, next_run_at=now, success_at=now, as_of=SIM_NOW)


@pytest.mark.parametrize(
    "order", [(SyncKind.METRICS, SyncKind.BILLS), (SyncKind.BILLS, SyncKind.METRICS)]
)
def test_it_announces_the_backfill_once_when_metrics_and_bills_have_both_succeeded(
    account: CloudAccount,
    announced: list[dict[str, Any]],
    django_capture_on_commit_callbacks: OnCommit,
    order: tuple[str, str],
) -> None:
    first, second = order
    with django_capture_on_commit_callbacks(execute=True):
        succeed(account, SyncKind.INVENTORY)
        succeed(account, first)
    assert announced == []

    with django_capture_on_commit_callbacks(execute=True):
        succeed(account, second)
    assert announced == [
        {
            "signal": backfill_completed,
            "account_id": account.pk,
            "organization_id": account.organization_id,
            "as_of": SIM_NOW,
        }
    ]

    # Later syncs are the hourly routine, not a backfill.
    with django_capture_on_commit_callbacks(execute=True):
        succeed(account, SyncKind.METRICS)
        succeed(account, SyncKind.BILLS)
    assert len(announced) == 1


def test_it_does_not_announce_a_failed_run(
    account: CloudAccount,
    announced: list[dict[str, Any]],
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        succeed(account, SyncKind.BILLS)
        runner.sync_release(
            account.pk, SyncKind.METRICS, next_run_at=timezone.now(), error="Throttled."
        )
    assert announced == []


@pytest.mark.integration
def test_it_analyses_the_organization_as_soon_as_the_backfill_is_done(
    account: CloudAccount, django_capture_on_commit_callbacks: OnCommit
) -> None:
    # Tasks run in-process here (CELERY_TASK_ALWAYS_EAGER); the analysis is sent after commit.
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "backfill",
            account=account.pk,
            days=BACKFILL_DAYS,
            as_of=SIM_NOW.isoformat(),
            no_progress=True,
            stdout=StringIO(),
            stderr=StringIO(),
        )

    analysed = dict(
        AnalysisState.objects.filter(instance__account=account).values_list(
            "instance_id", "analysed_until"
        )
    )
    # The instances with metric data were analysed up to the hour the backfill synced to (the
    # replayed moment, not the wall clock), and their phases are stored.
    assert len(analysed) >= Instance.objects.filter(account=account).count() // 2
    assert set(analysed.values()) == {SIM_NOW.replace(minute=0, second=0, microsecond=0)}
    assert PhaseDay.objects.filter(instance_id__in=analysed).exists()

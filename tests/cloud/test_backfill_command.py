"""manage.py backfill: through the real SDK, resumable, with clear errors."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.cloud.models import CloudAccount, Instance
from apps.cloud.providers.tencent.simulator import SimulatorServer
from tests.cloud.conftest import connect
from tests.leaks import WRONG_SECRET_KEY

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


def backfill(account: CloudAccount, days: int = 1) -> str:
    out = StringIO()
    call_command(
        "backfill", account=account.pk, days=days, no_progress=True, stdout=out, stderr=StringIO()
    )
    return out.getvalue()


def test_it_backfills_an_account_and_marks_it_ok(account: CloudAccount) -> None:
    output = backfill(account)
    assert "instances" in output
    assert "GetMonitorData requests" in output
    account.refresh_from_db()
    assert account.status == CloudAccount.Status.OK
    assert Instance.objects.filter(account=account, metrics_synced_until__isnull=False).exists()


def test_it_resumes_from_the_watermarks_without_refetching(
    account: CloudAccount, simulator: SimulatorServer
) -> None:
    backfill(account, days=2)
    first = simulator.request_log.count("GetMonitorData")
    backfill(account, days=2)
    # Two days are two windows per batch of instances; the second run only re-reads the few
    # minutes before each watermark: one window per batch.
    assert simulator.request_log.count("GetMonitorData") - first <= first // 2


def test_it_explains_a_wrong_key_and_marks_the_account(acme, simulator: SimulatorServer) -> None:
    account = connect(acme, simulator, secret_key=WRONG_SECRET_KEY)
    with pytest.raises(CommandError, match="rejected the SecretId/SecretKey"):
        backfill(account)
    account.refresh_from_db()
    assert account.status == CloudAccount.Status.FAILING


@pytest.mark.parametrize(
    ("args", "message"), [({"account": 999}, "No cloud account"), ({"days": 0}, "--days")]
)
def test_it_rejects_bad_arguments(account: CloudAccount, args: dict, message: str) -> None:
    options = {"account": account.pk, "days": 1, "no_progress": True, **args}
    with pytest.raises(CommandError, match=message):
        call_command("backfill", stdout=StringIO(), stderr=StringIO(), **options)

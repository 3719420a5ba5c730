"""manage.py backfill on a bad day: it completes through transient faults with exactly a
fault-free run's data, reruns make only the requests an increment needs, and permanent errors
or the deadline stop it with a plain message and a summary."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from io import StringIO
from typing import Any

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.selectors import cost_totals
from apps.cloud.models import CloudAccount, Instance, SyncKind, SyncState
from apps.cloud.providers.tencent.simulator import SimulatorServer
from apps.cloud.providers.tencent.simulator.faults import HTTP_500, OK
from apps.metrics.constants import Metric
from apps.metrics.ingest import DATA_LAG, MONITOR_METRICS, floor_minute
from apps.metrics.selectors import metrics_read
from tests.cloud.conftest import SIM_NOW, connect
from tests.leaks import WRONG_SECRET_KEY

pytestmark = [pytest.mark.django_db, pytest.mark.integration, pytest.mark.stack]

DAYS = 1
# The bad day of the issue: about half of all requests fail, never more than two in a row.
BAD_DAY = {"throttle_every": 3, "internal_error_every": 4, "http_500_every": 6}


def backfill(account: CloudAccount, *, as_of: datetime = SIM_NOW, **options: Any) -> str:
    out = StringIO()
    call_command(
        "backfill",
        account=account.pk,
        days=DAYS,
        no_progress=True,
        as_of=as_of.isoformat(),
        stdout=out,
        stderr=StringIO(),
        **options,
    )
    return out.getvalue()


def stored(account: CloudAccount) -> dict[str, Any]:
    """Everything a backfill stores for an account, keyed by the cloud's ids."""
    instances = list(Instance.objects.filter(account=account).order_by("provider_id"))
    start = floor_minute(SIM_NOW - timedelta(days=DAYS))
    end = floor_minute(SIM_NOW - DATA_LAG)
    points = {
        metric: metrics_read(
            instance_ids=[i.pk for i in instances], metric=metric, start=start, end=end
        )
        for metric in Metric.values
    }
    lines = BillLine.objects.filter(account=account)
    return {
        "instances": [
            (i.provider_id, i.state, i.instance_type, i.tags, i.project.name if i.project else None)
            for i in instances
        ],
        "points": points,
        "bill_totals": {
            month: cost_totals(lines.filter(month=month), "resource_id")
            for month in lines.values_list("month", flat=True).distinct()
        },
        "bill_lines": lines.count(),
    }


def test_it_completes_a_bad_day_with_exactly_the_data_of_a_good_one(
    make_simulator: Callable[..., SimulatorServer], acme: Organization, globex: Organization
) -> None:
    good = connect(globex, make_simulator())
    bad_simulator = make_simulator(**BAD_DAY)
    bad = connect(acme, bad_simulator)

    backfill(good)
    output = backfill(bad)

    assert "Backfilled" in output
    expected, got = stored(good), stored(bad)
    assert got["instances"] == expected["instances"]
    assert len(got["instances"]) > 30
    assert got["bill_totals"] == expected["bill_totals"]
    assert got["bill_lines"] == expected["bill_lines"] > 1000
    for metric, rows in expected["points"].items():
        np.testing.assert_array_equal(got["points"][metric], rows, err_msg=metric)
    assert int((~np.isnan(expected["points"][Metric.GPU_UTIL_PCT])).sum()) > 30 * 1000
    # It was a bad day: every kind of fault struck, about half the requests failed.
    outcomes = Counter(record.outcome for record in bad_simulator.request_log.records())
    assert {"RequestLimitExceeded", "InternalError", HTTP_500} <= set(outcomes)
    assert outcomes[OK] <= sum(outcomes.values()) * 0.6
    # (That the server never fails more than two in a row is tested on the injector itself,
    # tests/cloud/test_retries_and_backoff.py: the log is in answer order, not arrival order,
    # and the simulator's own rate limit may throttle too.)
    bad.refresh_from_db()
    assert bad.status == CloudAccount.Status.OK


def increment_requests(account: CloudAccount) -> int:
    """GetMonitorData requests an increment of under one window needs: one per metric for each
    batch of up to MONITOR_MAX_INSTANCES instances of a region (all share one watermark)."""
    from django.conf import settings

    per_region = Counter(Instance.objects.filter(account=account).values_list("region", flat=True))
    batches = sum(math.ceil(n / settings.MONITOR_MAX_INSTANCES) for n in per_region.values())
    return batches * len(MONITOR_METRICS)


@pytest.mark.parametrize("faults", [{}, BAD_DAY], ids=["good-day", "bad-day"])
def test_it_reruns_only_the_requests_an_increment_needs(
    make_simulator: Callable[..., SimulatorServer], acme: Organization, faults: dict[str, int]
) -> None:
    clock = [SIM_NOW]
    simulator = make_simulator(now=lambda: clock[0], **faults)
    account = connect(acme, simulator)
    backfill(account)

    # Right after completion: inventory, prices, bills and balance ran within their intervals
    # and every instance is caught up, so the rerun asks the cloud nothing.
    simulator.request_log.clear()
    output = backfill(account)
    assert simulator.request_log.records() == []
    assert "inventory: skipped" in output
    assert "metrics: done: 0 points in 0 GetMonitorData requests" in output

    # Ten minutes later: only the new minutes of metrics, one request per metric and batch.
    clock[0] = SIM_NOW + timedelta(minutes=10)
    simulator.request_log.clear()
    backfill(account, as_of=clock[0])
    answered = [r for r in simulator.request_log.records() if r.outcome == OK]
    assert {r.action for r in simulator.request_log.records()} == {"GetMonitorData"}
    assert len(answered) == increment_requests(account) == 28
    if not faults:
        assert simulator.request_log.count() == len(answered)


def test_it_stops_at_once_on_a_wrong_key_with_one_request(
    acme: Organization, simulator: SimulatorServer
) -> None:
    account = connect(acme, simulator, secret_key=WRONG_SECRET_KEY)
    with pytest.raises(CommandError, match="rejected the SecretId/SecretKey"):
        backfill(account)
    assert simulator.request_log.count() == 1
    account.refresh_from_db()
    assert account.status == CloudAccount.Status.FAILING


def test_it_stops_at_once_on_a_missing_permission_and_names_it(
    make_simulator: Callable[..., SimulatorServer], acme: Organization
) -> None:
    simulator = make_simulator(denied_actions=frozenset({"DescribeInstances"}))
    account = connect(acme, simulator)
    out = StringIO()
    with pytest.raises(CommandError, match="cvm:DescribeInstances") as error:
        call_command(
            "backfill", account=account.pk, days=DAYS, no_progress=True, stdout=out,
            stderr=StringIO(), as_of=SIM_NOW.isoformat(),
        )  # fmt: skip
    assert str(error.value).startswith("inventory failed: The key of this account is not allowed")
    assert simulator.request_log.count("DescribeInstances") == 1
    assert "inventory: left: stopped at UnauthorizedOperation.CamNoAuth" in out.getvalue()
    assert "metrics: left: not started" in out.getvalue()
    # Nothing is left leased: the workers may try again at the next interval.
    assert not SyncState.objects.filter(account=account, leased_until__isnull=False).exists()


def test_it_stops_on_an_invalid_parameter_without_retrying(
    make_simulator: Callable[..., SimulatorServer], acme: Organization
) -> None:
    # The cloud allows fewer instances per GetMonitorData than configured: LimitExceeded, which
    # is a request the cloud rejects (permanent), not throttling.
    simulator = make_simulator(monitor_max_instances=5)
    account = connect(acme, simulator)
    with pytest.raises(CommandError, match="metrics failed: Tencent Cloud rejected GetMonitorData"):
        backfill(account)
    from apps.metrics.ingest import FETCH_THREADS

    requests = simulator.request_log.records("GetMonitorData")
    # Only the requests already under way when the first answer came back; none of them twice.
    assert 1 <= len(requests) <= FETCH_THREADS
    assert all(r.outcome == "LimitExceeded" for r in requests)


def test_it_stops_at_the_deadline_with_what_is_done_and_left(
    make_simulator: Callable[..., SimulatorServer], acme: Organization
) -> None:
    # Each request takes 0.3 s, so the four requests of the inventory outlast a 1 s deadline.
    simulator = make_simulator(delay_ms=300)
    account = connect(acme, simulator)
    out = StringIO()
    with pytest.raises(CommandError, match="Deadline of 1 s reached"):
        call_command(
            "backfill", account=account.pk, days=DAYS, no_progress=True, deadline=1,
            stdout=out, stderr=StringIO(), as_of=SIM_NOW.isoformat(),
        )  # fmt: skip
    summary = out.getvalue().split("Summary:")[1]
    assert re.search(r"inventory: done: \d\d instances", summary)
    for kind in ("prices", "metrics", "bills", "balance"):
        assert f"{kind}: left: not started" in summary
    assert simulator.request_log.count("GetMonitorData") == 0
    assert SyncState.objects.get(account=account, kind=SyncKind.INVENTORY).last_success_at


def test_it_reruns_a_kind_whose_interval_has_passed(
    acme: Organization, simulator: SimulatorServer
) -> None:
    account = connect(acme, simulator)
    backfill(account)
    # Inventory (every 5 min) and prices (daily) last succeeded two days ago; bills and the
    # balance (hourly) a minute ago.
    states = SyncState.objects.filter(account=account)
    two_days_ago = timezone.now() - timedelta(days=2)
    states.filter(kind__in=[SyncKind.INVENTORY, SyncKind.PRICES]).update(
        last_success_at=two_days_ago
    )
    simulator.request_log.clear()
    output = backfill(account)
    assert "inventory: done" in output
    assert "prices: done" in output
    assert "bills: skipped" in output
    assert "balance: skipped" in output
    assert simulator.request_log.count("DescribeInstances") == 2  # one page per region
    assert simulator.request_log.count("DescribeZoneInstanceConfigInfos") == 6  # 2 regions x 3
    assert simulator.request_log.count("DescribeBillDetail") == 0
    assert simulator.request_log.count("GetMonitorData") == 0
    last_success_at = states.get(kind=SyncKind.INVENTORY).last_success_at
    assert last_success_at is not None
    assert last_success_at > two_days_ago

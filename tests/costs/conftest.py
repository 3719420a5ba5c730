"""Fixtures of the cost report tests: the simulator's fleet with a whole bill month synced.

Inventory is synced from the simulator over HTTP. October's and November's bills go through the
real bills sync (``runner.run_kind``) with a client that hands it exactly the lines the
simulator's bill book publishes, in process: a month of the whole fleet over HTTP would take
minutes (tests/billing/test_month_boundary.py does the same for two instances). Three days of
metrics are analysed, so the phase split has phases to split by.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pytest

from apps.accounts.models import Organization
from apps.analysis import services as analysis_services
from apps.cloud.models import CloudAccount, SyncKind
from apps.cloud.providers.tencent.client import TencentClient
from apps.cloud.sync import runner
from tests.analysis.test_simulated_fleet import _store_metrics
from tests.cloud.conftest import SIM_NOW, connect, make_simulator  # noqa: F401

MONTH = "2026-10"


class PublishedBills:
    """DescribeBillDetail answered from the simulator's bill book, every instance."""

    def __init__(self, simulator: Any) -> None:
        self.cloud = simulator.cloud

    def describe_bill_detail(self, month: str) -> Iterator[dict[str, Any]]:
        for line in self.cloud.bills.lines(month, self.cloud.now()):
            yield line.detail


@pytest.fixture
def billed(make_simulator: Any, acme: Organization) -> tuple[CloudAccount, Any]:  # noqa: F811
    simulator = make_simulator(rate_limits={})
    account = connect(acme, simulator)
    runner.run_kind(account, SyncKind.INVENTORY, now=SIM_NOW)
    runner.run_kind(
        account,
        SyncKind.BILLS,
        now=SIM_NOW,
        client=cast(TencentClient, PublishedBills(simulator)),
        backfill_days=33,
    )
    _store_metrics(account, simulator, days=3)
    analysis_services.analysis_full_run(as_of=SIM_NOW)
    return account, simulator

"""The summary's rollup reader answers exactly what the per-minute reader answers.

On the simulator's fleet (bills synced, three days analysed): every instance's per-phase
minutes, GPU-hours and money, for periods on whole hours and periods cut mid-hour, with
instances billed by the hour, by subscription (priced from the list) and unpriced.
"""

from __future__ import annotations

import datetime as dt

import pytest

from apps.analysis import fleet_pricing, pricing
from apps.analysis.engine import Phase
from apps.cloud.models import Instance
from tests.costs.conftest import billed  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.integration]

PERIODS = [
    (dt.datetime(2026, 11, 1, tzinfo=dt.UTC), dt.datetime(2026, 11, 3, tzinfo=dt.UTC)),
    (
        dt.datetime(2026, 10, 31, 3, 17, tzinfo=dt.UTC),
        dt.datetime(2026, 11, 2, 19, 43, tzinfo=dt.UTC),
    ),
    (
        dt.datetime(2026, 11, 2, 5, 10, tzinfo=dt.UTC),
        dt.datetime(2026, 11, 2, 5, 50, tzinfo=dt.UTC),
    ),
]


def test_it_reads_the_same_figures_from_the_rollups_as_from_the_minutes(billed) -> None:  # noqa: F811
    account, _simulator = billed
    instances = list(Instance.objects.filter(account=account).order_by("pk"))
    # One instance without bills at all: priced from the list or unpriced, by existence.
    assert len(instances) > 10
    for start, end in PERIODS:
        expected = pricing.instances_waste(
            instances=instances, start=start, end=end, currency="CNY"
        )
        served = fleet_pricing.instances_waste(
            instances=instances, start=start, end=end, currency="CNY"
        )
        assert served == expected, (start, end)
        # Not vacuous: phases were found, and money spread over them.
        known = sum(
            i.by_phase[Phase.TRAINING].minutes + i.by_phase[Phase.IDLE].minutes for i in served
        )
        assert known > 0, (start, end)
        assert sum(i.total_cost for i in served) > 0
    sources = {item.cost_source for item in expected}
    assert "bills" in sources
    assert sources - {"bills"}, "an instance priced without hourly bills is covered too"

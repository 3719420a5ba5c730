"""The billed-hours rollup's phase minutes follow both of their inputs.

``BilledHoursDay`` stores, per instance and UTC day, the known phase minutes of the billed hours
(the day's ``PhaseDay`` counts masked by its billed hours), so the summary sums them instead of
unpacking PhaseDay. They must be rewritten when the bills change (billing's signal) and when the
analysis rewrites PhaseDay (a rerun with other thresholds), and the summary's reader must still
answer exactly what ``pricing`` answers from the lines and the per-minute labels.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

import numpy as np
import pytest

from apps.analysis import fleet_pricing, pricing
from apps.analysis import services as analysis_services
from apps.analysis.billed_hours import PHASE_COLUMNS
from apps.analysis.engine import REAL_PHASES
from apps.analysis.models import (
    PHASE_DAY_SHAPE,
    AnalysisSettings,
    BilledHoursDay,
    BilledHoursState,
    PhaseDay,
    phase_day_decode,
)
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.cloud.models import Instance
from tests.cloud.conftest import SIM_NOW
from tests.costs.conftest import billed  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.integration]

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")


def _stored() -> dict[tuple[int, dt.date], list[int]]:
    return {
        (row["instance_id"], row["day"]): [row[c] for c in PHASE_COLUMNS]
        for row in BilledHoursDay.objects.values("instance_id", "day", *PHASE_COLUMNS)
    }


def _recomputed() -> dict[tuple[int, dt.date], list[int]]:
    """The same figures from PhaseDay and the hour masks, in Python."""
    counts = {
        (instance_id, day): phase_day_decode(raw)
        for instance_id, day, raw in PhaseDay.objects.values_list("instance_id", "day", "minutes")
    }
    out = {}
    for instance_id, day, hours in BilledHoursDay.objects.values_list(
        "instance_id", "day", "hours"
    ):
        day_counts = counts.get((instance_id, day), np.zeros(PHASE_DAY_SHAPE, dtype=np.int64))
        mask = np.array([(hours >> h) & 1 for h in range(24)], dtype=np.int64)
        out[(instance_id, day)] = [int(day_counts[:, p] @ mask) for p in REAL_PHASES]
    return out


def _served_equals_expected(instances: list[Instance]) -> None:
    local = [dt.datetime(2026, 11, d, tzinfo=SHANGHAI) for d in (1, 2, 3)]
    for start, end in ((local[0], local[2]), (local[1], local[2])):
        expected = pricing.instances_waste(
            instances=instances, start=start, end=end, currency="CNY"
        )
        served = fleet_pricing.instances_waste(
            instances=instances, start=start, end=end, currency="CNY"
        )
        assert served == expected, (start, end)


def test_phase_minutes_follow_bills_and_analysis(billed) -> None:  # noqa: F811
    account, _simulator = billed
    instances = list(Instance.objects.filter(account=account).order_by("pk"))
    organization = account.organization
    # The bill sync built the rollup before the analysis ran: the analysis's PhaseDay writes
    # must have filled the minutes in.
    assert BilledHoursState.objects.filter(organization=organization).exists()
    stored = _stored()
    assert any(sum(v) for v in stored.values()), "some billed hours have known phases"
    assert stored == _recomputed()
    _served_equals_expected(instances)

    # The analysis again with other thresholds: PhaseDay changes, the rollup with it.
    before = dict(PhaseDay.objects.values_list("pk", "minutes"))
    AnalysisSettings.objects.update_or_create(
        organization=organization,
        defaults={"thresholds": {"idle_gpu_util_max_pct": 35.0, "data_gpu_util_max_pct": 40.0}},
    )
    analysis_services.analysis_full_run(as_of=SIM_NOW)
    after = dict(PhaseDay.objects.values_list("pk", "minutes"))
    assert {k: bytes(v) for k, v in after.items()} != {k: bytes(v) for k, v in before.items()}
    assert _stored() != stored, "the rerun moved phase minutes of billed hours"
    assert _stored() == _recomputed()
    _served_equals_expected(instances)

    # A bill change: some billed hours of an analysed day are no longer billed.
    day = dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
    doomed = BillLine.objects.filter(
        instance__in=instances[:3],
        component_class="runtime",
        fee_begin_at__gte=day + dt.timedelta(hours=3),
        fee_begin_at__lt=day + dt.timedelta(hours=9),
    )
    months = sorted(set(doomed.values_list("month", flat=True)))
    assert months
    before_bills = _stored()
    doomed.delete()
    bill_lines_changed.send(sender=BillLine, organization=organization, months=months)
    assert _stored() != before_bills
    assert _stored() == _recomputed()
    _served_equals_expected(instances)

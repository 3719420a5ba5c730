"""The summary's per-day sums (``WasteDay``) give the figures the bills and phases give.

On the simulator's fleet (October's and November's bills synced, three days analysed), the
rows are built by the events that change them (the bills sync's ``bill_lines_changed``, the
analysis's ``PhaseDay`` writes), and every whole-UTC-day period they cover is answered from
them exactly as ``fleet_pricing.fleet_waste`` answers from the bills: each instance's minutes,
GPU-hours and money per phase, its cost source, and the no-data reasons.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection

from apps.analysis import fleet_pricing, selectors, waste_days
from apps.analysis.engine import Phase
from apps.analysis.models import WasteDay, WasteDayState
from apps.analysis.no_data import no_data
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.cloud.models import Instance
from tests.costs.conftest import billed  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.integration]

UTC = dt.UTC
# Whole UTC days: inside October, across the month's end (two months' running totals), the
# three analysed days, and one day.
PERIODS = [
    (dt.datetime(2026, 10, 5, tzinfo=UTC), dt.datetime(2026, 10, 12, tzinfo=UTC)),
    (dt.datetime(2026, 10, 20, tzinfo=UTC), dt.datetime(2026, 11, 3, tzinfo=UTC)),
    (dt.datetime(2026, 10, 31, tzinfo=UTC), dt.datetime(2026, 11, 3, tzinfo=UTC)),
    (dt.datetime(2026, 11, 2, tzinfo=UTC), dt.datetime(2026, 11, 3, tzinfo=UTC)),
]


def _live(organization, start, end):
    instances = selectors.gpu_instance_rows_in_period(
        organization=organization, start=start, end=end
    )
    fleet = fleet_pricing.fleet_waste(
        instances=instances, start=start, end=end, currency=organization.currency
    )
    return instances, fleet


def _compare(organization, start, end):
    rolled = waste_days.rolled_fleet(
        organization_id=organization.pk, start=start, end=end, currency=organization.currency
    )
    assert rolled is not None, (start, end)
    instances, fleet = _live(organization, start, end)
    assert [i.pk for i in rolled.instances] == [i.pk for i in instances]
    assert [i.state for i in rolled.instances] == [i.state for i in instances]
    assert [i.tags for i in rolled.instances] == [i.tags for i in instances]
    assert rolled.fleet.items() == fleet.items(), (start, end)
    states = {i.pk: i.state for i in instances}
    served = no_data(fleet=rolled.fleet, start=start, end=end, states=states)
    expected = no_data(fleet=fleet, start=start, end=end, states=states)
    for field in ("minutes", "gpu_hours_e4", "cost_cents"):
        assert getattr(served, field).tolist() == getattr(expected, field).tolist(), (start, end)
    return rolled.fleet


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only, like its reader")
def test_the_day_sums_answer_what_the_bills_and_phases_answer(billed) -> None:  # noqa: F811
    account, _simulator = billed
    organization = account.organization
    state = WasteDayState.objects.get(organization=organization)
    assert state.first_day <= dt.date(2026, 10, 1)
    assert state.last_day >= dt.date(2026, 11, 2)
    sources: set[str] = set()
    for start, end in PERIODS:
        fleet = _compare(organization, start, end)
        sources.update(fleet.cost_sources)
        assert fleet.total_cost() > 0
    assert "bills" in sources
    assert sources - {"bills"}, "an instance priced without hourly bills is covered too"
    # Not vacuous: the analysed days have phases.
    analysed = _compare(organization, *PERIODS[3])
    assert analysed.minutes[:, Phase.TRAINING].sum() + analysed.minutes[:, Phase.IDLE].sum() > 0


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only, like its reader")
def test_a_period_they_do_not_cover_is_read_from_the_bills(billed) -> None:  # noqa: F811
    account, _simulator = billed
    organization = account.organization
    state = WasteDayState.objects.get(organization=organization)
    end = dt.datetime.combine(state.last_day, dt.time(), tzinfo=UTC) + dt.timedelta(days=1)
    start = end - dt.timedelta(days=2)
    assert waste_days.rolled_fleet(
        organization_id=organization.pk, start=start, end=end, currency="CNY"
    )
    # Beyond the last day covered, before the first, or not on whole UTC days: not from here.
    for s, e in [
        (start + dt.timedelta(days=1), end + dt.timedelta(days=1)),
        (
            dt.datetime.combine(state.first_day, dt.time(), tzinfo=UTC) - dt.timedelta(days=1),
            end,
        ),
        (start + dt.timedelta(hours=3), end),
    ]:
        assert (
            waste_days.rolled_fleet(organization_id=organization.pk, start=s, end=e, currency="CNY")
            is None
        )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only, like its reader")
def test_a_changed_bill_line_changes_the_day_sums_and_only_its_day(billed) -> None:  # noqa: F811
    account, _simulator = billed
    organization = account.organization
    line = (
        BillLine.objects.filter(
            organization=organization,
            instance__isnull=False,
            fee_begin_at__gte=dt.datetime(2026, 10, 15, tzinfo=UTC),
            fee_begin_at__lt=dt.datetime(2026, 10, 16, tzinfo=UTC),
            component_class="runtime",
        )
        .order_by("pk")
        .first()
    )
    assert line is not None
    before = {
        (row.instance_id, row.day): row.billed_cost
        for row in WasteDay.objects.filter(organization=organization)
    }
    BillLine.objects.filter(pk=line.pk).update(cost=line.cost + Decimal("7.00"))
    bill_lines_changed.send(sender=None, organization=organization, months=[line.month])
    after = {
        (row.instance_id, row.day): row.billed_cost
        for row in WasteDay.objects.filter(organization=organization)
    }
    # (A rebuild may add rows past the last one: the days its purchases still cover.)
    changed = {key for key in before if after.get(key) != before[key]}
    day = line.fee_begin_at.astimezone(UTC).date()
    # The running totals of that instance from that day to the last row, nothing else.
    odd = sorted(k for k in changed if not (k[0] == line.instance_id and k[1] >= day))
    assert changed
    assert not odd, [(k, before.get(k), after[k]) for k in odd[:5]]
    assert all(after[key] - before[key] == Decimal("7.00") for key in changed)
    for start, end in PERIODS[:2]:
        _compare(organization, start, end)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only, like its reader")
def test_a_new_analysis_keeps_the_day_sums_true(billed) -> None:  # noqa: F811
    """The analysis rewrites PhaseDay for some instances and days: their rows follow."""
    from apps.analysis import services as analysis_services
    from apps.analysis.models import PhaseDay
    from tests.cloud.conftest import SIM_NOW

    account, _simulator = billed
    organization = account.organization
    instance = Instance.objects.filter(account=account, phase_days__isnull=False).first()
    assert instance is not None
    # Forget one instance's phases of a day, as if never analysed, then analyse again.
    day = dt.date(2026, 11, 1)
    PhaseDay.objects.filter(instance=instance, day=day).delete()
    waste_days.waste_days_rebuild(
        organization_id=organization.pk, day_from=day, day_to=day, instance_ids=[instance.pk]
    )
    _compare(organization, *PERIODS[2])
    analysis_services.analysis_full_run(as_of=SIM_NOW)
    _compare(organization, *PERIODS[2])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only, like its reader")
def test_purchases_price_only_a_subscription_as_the_bills_path_does(billed) -> None:  # noqa: F811
    """The rows keep every instance's purchases; pricing reads them for a subscription only
    (an instance listed as pay-as-you-go now is priced from the list, both ways)."""
    account, _simulator = billed
    organization = account.organization
    prepaid = Instance.objects.filter(account=account, charge_type="PREPAID").order_by("pk")
    changed = prepaid.first()
    assert changed is not None
    assert WasteDay.objects.filter(instance=changed, spread_seconds__gt=0).exists()
    Instance.objects.filter(pk=changed.pk).update(charge_type="POSTPAID_BY_HOUR")
    for start, end in PERIODS:
        _compare(organization, start, end)

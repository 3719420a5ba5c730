"""A digest's spend figures (periods, days, movers) recomputed line by line from the bills."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.digests.selectors import digest_figures
from tests.digests.world import SHANGHAI, World, build_world

pytestmark = pytest.mark.django_db

WEEK = dt.timedelta(days=7)
START = dt.datetime(2026, 11, 23, tzinfo=SHANGHAI)
PERIODS = [(START, START + WEEK), (START - WEEK, START)]


@pytest.fixture
def world(acme: Organization) -> World:
    world = build_world(acme)
    # Two lines the world lacks, either side of a Shanghai midnight (16:00 UTC): an hour in
    # another currency (a digest counts every line, like the bill) and a refund.
    train = world.instances["train-a"]
    for bill_id, begin, cost, currency in (
        ("usd-hour", dt.datetime(2026, 11, 24, 16, tzinfo=dt.UTC), "0.37", "USD"),
        ("refund", dt.datetime(2026, 11, 24, 15, 59, 59, tzinfo=dt.UTC), "-7.77", "CNY"),
    ):
        BillLine.objects.create(
            organization=acme,
            account=world.account,
            bill_id=bill_id,
            component_code="v_cvm_compute",
            item_code="cvm",
            month="2026-11",
            instance=train,
            project=train.project,
            resource_id=train.provider_id,
            fee_begin_at=begin,
            fee_end_at=begin + dt.timedelta(minutes=59, seconds=59),
            list_cost=Decimal(cost),
            cost=Decimal(cost),
            currency=currency,
        )
    return world


def _by_hand(
    organization: Organization, start: dt.datetime, end: dt.datetime
) -> tuple[dict[dt.date, Decimal], dict[int | None, Decimal], dict[int | None, Decimal]]:
    """Per Shanghai day, per project and per instance: each line read and added in Python."""
    days: dict[dt.date, Decimal] = defaultdict(Decimal)
    projects: dict[int | None, Decimal] = defaultdict(Decimal)
    instances: dict[int | None, Decimal] = defaultdict(Decimal)
    for line in BillLine.objects.filter(organization=organization):
        if start <= line.fee_begin_at < end:
            days[line.fee_begin_at.astimezone(SHANGHAI).date()] += line.cost
            projects[line.project_id] += line.cost
            instances[line.instance_id] += line.cost
    return days, projects, instances


def test_it_sums_every_line_of_each_period_day_and_mover(world: World) -> None:
    organization = world.organization
    figures = digest_figures(
        organization=organization,
        project_ids=None,
        periods=PERIODS,
        tz_name="Asia/Shanghai",
        use_cache=False,
    )
    days, projects, instances = _by_hand(organization, *PERIODS[0])
    previous_days, previous_projects, previous_instances = _by_hand(organization, *PERIODS[1])

    assert [period.cost for period in figures.periods] == [
        sum(days.values(), Decimal(0)),
        sum(previous_days.values(), Decimal(0)),
    ]
    # 168 h x 12.85 + 0.37 USD - 7.77 = 2,151.40: the two added lines are in.
    assert figures.periods[0].cost == Decimal("2151.40")
    shown = {day: cost for day, index, cost in figures.daily_spend if index == 0}
    assert shown == dict(days)
    # 24 x 12.85 = 308.40 a day; the refund's 23:59:59 in Shanghai is still the 24th.
    assert shown[dt.date(2026, 11, 24)] == Decimal("308.40") - Decimal("7.77")
    assert shown[dt.date(2026, 11, 25)] == Decimal("308.40") + Decimal("0.37")
    for mover in figures.project_movers:
        assert (mover.current, mover.previous) == (
            projects.get(mover.key, Decimal(0)),
            previous_projects.get(mover.key, Decimal(0)),
        )
    for mover in figures.instance_movers:
        assert (mover.current, mover.previous) == (
            instances.get(mover.key, Decimal(0)),
            previous_instances.get(mover.key, Decimal(0)),
        )
    assert {mover.name for mover in figures.instance_movers} == {"serve-b", "train-a"}


def test_a_project_digest_sums_only_its_projects_lines(world: World) -> None:
    organization = world.organization
    figures = digest_figures(
        organization=organization,
        project_ids=[world.serving.pk],
        periods=PERIODS,
        tz_name="Asia/Shanghai",
        use_cache=False,
    )
    _days, projects, _instances = _by_hand(organization, *PERIODS[0])
    assert figures.periods[0].cost == projects[world.serving.pk] == Decimal("1092.00")

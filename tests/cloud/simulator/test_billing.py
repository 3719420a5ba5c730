"""Billing: bill lines that follow exactly from prices and running hours; paging; balance."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

import pytest
from tencentcloud.billing.v20180709 import models as billing_models
from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException

from apps.cloud.providers.tencent.simulator.constants import (
    INITIAL_CASH_FEN,
    month_bounds,
    to_epoch,
)
from apps.cloud.providers.tencent.simulator.scenario import RESERVED_INSTANCE, events_of

from ._prices import keeps_billing
from ._sdk import MONTH, NOW, billing, describe_bill_detail

MONTH_START = month_bounds(MONTH)[0]
SETTLED = to_epoch(NOW) // 3600 * 3600  # lines appear once their hour is over


def _line_total(line) -> Decimal:
    return sum((Decimal(c.RealCost) for c in line.ComponentSet), Decimal(0))


@pytest.fixture(scope="module")
def month_lines(sim):
    """Every line of MONTH, paged 300 at a time with Context, as the sync pipeline would."""
    client, lines, context, offset = billing(sim), [], None, 0
    while True:
        params = {"Month": MONTH, "Offset": offset, "Limit": 300, "NeedRecordNum": 1}
        if context:
            params["Context"] = context
        page = describe_bill_detail(client, **params)
        lines.extend(page.DetailSet)
        context, offset = page.Context, offset + len(page.DetailSet)
        if offset >= page.Total:
            return lines


def _totals(lines, key=lambda line: line.ResourceId):
    totals: defaultdict[str, Decimal] = defaultdict(Decimal)
    for line in lines:
        totals[key(line)] += _line_total(line)
    return dict(totals)


def test_it_sums_bill_lines_to_the_expected_totals_exactly(sim, month_lines):
    by_instance = _totals(month_lines)

    assert len(month_lines) == sim.cloud.expected_bill_line_count(MONTH)
    assert len({line.BillId for line in month_lines}) == len(month_lines)
    for instance_id, total in by_instance.items():
        assert total == sim.cloud.expected_bill_total(instance_id, MONTH)
    assert by_instance == sim.cloud.expected_totals_by_instance(MONTH)


def test_it_sums_per_project_including_untagged(sim, month_lines):
    def project(line):
        return next((t.TagValue for t in line.Tags if t.TagKey == "project"), None)

    by_project = _totals(month_lines, project)

    assert by_project == sim.cloud.expected_totals_by_project(MONTH)
    assert {"vision", "nlp", "recsys", "项目A", None} == set(by_project)
    assert sum(by_project.values()) == sim.cloud.expected_month_total(MONTH)


def test_it_bills_an_always_on_instance_its_hourly_price_per_hour(sim, month_lines):
    inst = next(
        i
        for i in sim.fleet.find(charge_type="POSTPAID_BY_HOUR", pattern="inference")
        if i.created_at < MONTH_START and not events_of(i.index, RESERVED_INSTANCE)
    )
    hours = (SETTLED - MONTH_START) // 3600

    lines = [line for line in month_lines if line.ResourceId == inst.instance_id]

    assert len(lines) == hours
    assert sum(map(_line_total, lines)) == hours * (inst.spec.hourly_cny + keeps_billing(inst))
    assert {line.ActionTypeName for line in lines} == {"按量计费小时结"}


def test_it_bills_spot_at_the_spot_price(sim, month_lines):
    inst = next(i for i in sim.fleet.find(charge_type="SPOTPAID") if i.created_at < MONTH_START)
    hours = (SETTLED - MONTH_START) // 3600

    lines = [line for line in month_lines if line.ResourceId == inst.instance_id]

    assert sum(map(_line_total, lines)) == hours * (inst.spec.spot_hourly_cny + keeps_billing(inst))
    compute = lines[0].ComponentSet[0]
    assert Decimal(compute.SinglePrice) == inst.spec.compute_hourly_cny
    assert Decimal(compute.Cost) > Decimal(compute.RealCost)


def test_it_charges_day_only_instances_only_disk_at_night(sim, month_lines):
    inst = next(i for i in sim.fleet.with_pattern("day_only_stopped") if i.created_at < MONTH_START)
    running = sim.cloud.expected_running_seconds(inst.instance_id, MONTH_START, SETTLED)
    hours = (SETTLED - MONTH_START) // 3600

    lines = [line for line in month_lines if line.ResourceId == inst.instance_id]

    expected = inst.spec.hourly_cny * running / 3600 + keeps_billing(inst) * hours
    assert sum(map(_line_total, lines)) == expected
    assert running < hours * 3600 / 2


def test_it_bills_prepaid_instances_once_per_subscription_month(sim, month_lines):
    for inst in sim.fleet.find(charge_type="PREPAID"):
        lines = [line for line in month_lines if line.ResourceId == inst.instance_id]
        starts = [s for s in inst.subscription_starts(until=SETTLED) if s >= MONTH_START]
        # A month charged twice and refunded once (the scenario's duplicate renewal) nets to one.
        net: defaultdict[str, Decimal] = defaultdict(Decimal)
        for line in lines:
            net[line.FeeBeginTime] += _line_total(line)
            assert line.PayModeName == "包年包月"

        assert len(net) == len(starts)
        assert set(net.values()) <= {
            inst.spec.monthly_discount_cny + keeps_billing(inst, monthly=True)
        }


def test_it_keeps_bill_ids_stable_across_calls(sim):
    client = billing(sim)
    first = describe_bill_detail(client, Month=MONTH, Offset=600, Limit=50)
    second = describe_bill_detail(client, Month=MONTH, Offset=600, Limit=50)

    assert [line.BillId for line in first.DetailSet] == [line.BillId for line in second.DetailSet]


def test_it_pins_the_snapshot_of_the_first_page_with_context(make_sim):
    clock = {"now": NOW}
    sim = make_sim(now=lambda: clock["now"], rate_limits={})
    client = billing(sim)
    first = describe_bill_detail(client, Month=MONTH, Offset=0, Limit=300)

    clock["now"] = NOW + timedelta(hours=2)
    with_context = describe_bill_detail(
        client, Month=MONTH, Offset=300, Limit=300, Context=first.Context
    )
    fresh = describe_bill_detail(client, Month=MONTH, Offset=300, Limit=300)

    assert with_context.Total == first.Total
    assert fresh.Total > first.Total


def test_it_rejects_a_context_of_another_month(sim):
    client = billing(sim)
    october = describe_bill_detail(client, Month="2026-10", Offset=0, Limit=1)

    with pytest.raises(TencentCloudSDKException) as caught:
        describe_bill_detail(client, Month=MONTH, Offset=1, Limit=1, Context=october.Context)

    assert caught.value.get_code() == "InvalidParameterValue"


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"Month": MONTH, "Offset": 0, "Limit": 301}, "InvalidParameterValue.LimitExceeded"),
        ({"Offset": 0, "Limit": 10}, "MissingParameter"),
        ({"Month": MONTH, "Limit": 10}, "MissingParameter"),
        (
            {
                "BeginTime": "2026-10-31 00:00:00",
                "EndTime": "2026-11-01 00:00:00",
                "Offset": 0,
                "Limit": 10,
            },
            "InvalidParameterValue",
        ),
        ({"Month": "2026-13", "Offset": 0, "Limit": 10}, "InvalidParameterValue"),
    ],
)
def test_it_validates_bill_detail_requests(sim, params, code):
    with pytest.raises(TencentCloudSDKException) as caught:
        describe_bill_detail(billing(sim), **params)

    assert caught.value.get_code() == code


def test_it_selects_the_month_from_begin_and_end_time(sim):
    by_times = describe_bill_detail(
        billing(sim),
        BeginTime="2026-11-03 00:00:00",
        EndTime="2026-11-05 00:00:00",
        Offset=0,
        Limit=5,
    )

    assert by_times.Total == sim.cloud.expected_bill_line_count(MONTH)


def test_it_reports_the_balance_in_fen(sim):
    response = billing(sim).DescribeAccountBalance(billing_models.DescribeAccountBalanceRequest())

    assert isinstance(response.Balance, int)
    assert response.Balance == response.RealBalance == sim.cloud.expected_balance_fen()
    spent_fen = sum(sim.cloud.expected_month_total(m) for m in sim.cloud.bill_months()) * 100
    assert response.Balance == INITIAL_CASH_FEN - int(spent_fen.quantize(Decimal(1)))


def test_it_bills_the_first_partial_hour_per_second(sim, month_lines):
    new = max(sim.fleet.all_instances, key=lambda i: i.created_at)
    lines = [line for line in month_lines if line.ResourceId == new.instance_id]
    seconds = 3600 - new.created_at % 3600

    compute, gpu, *_ = lines[0].ComponentSet

    for component, hourly in (
        (compute, new.spec.compute_hourly_cny),
        (gpu, new.spec.gpu_hourly_cny),
    ):
        assert component.TimeSpan == str(seconds)
        assert component.TimeUnitName == "秒"
        exact = hourly * seconds / 3600
        assert Decimal(component.RealCost) == exact.quantize(Decimal("0.00000001"), ROUND_HALF_UP)
    assert len(lines) == (SETTLED - new.created_at // 3600 * 3600) // 3600

"""Bill lines shaped the way Tencent documents them, read over the real SDK (no patching).

A GPU instance's line holds one component per part billed (compute, GPU, system disk, data disk,
bandwidth), each with its own codes, names, unit prices and payment split; the components add up
to the line; and the product's classifier (apps/billing/classify.py), which reads only the words
Tencent documents, places every line and component the simulator writes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from apps.billing import classify
from apps.cloud.providers.tencent.simulator import SimulatedCloud, scenario
from apps.cloud.providers.tencent.simulator.constants import (
    BEIJING,
    beijing_str,
    month_bounds,
    to_epoch,
)
from apps.cloud.providers.tencent.simulator.fleet import add_months
from apps.cloud.providers.tencent.simulator.scenario import (
    BILL_EVENTS,
    DUPLICATE_RENEWAL,
    RESERVED_INSTANCE,
    SLA_CREDIT,
    VOUCHER_RENEWAL,
    hardware_of,
)

from ._prices import keeps_billing
from ._sdk import MONTH, NOW, billing, cvm, describe_bill_detail, describe_instances

MONTH_START = month_bounds(MONTH)[0]
SETTLED = to_epoch(NOW) // 3600 * 3600

LINE_FIELDS = {
    "BusinessCode", "BusinessCodeName", "ProductCode", "ProductCodeName", "PayModeName",
    "ActionType", "ActionTypeName", "ResourceId", "ResourceName", "RegionId", "RegionName",
    "ZoneName", "ProjectId", "ProjectName", "FeeBeginTime", "FeeEndTime", "PayTime", "BillId",
    "OrderId", "PayerUin", "OwnerUin", "OperateUin", "Tags", "BillMonth", "BillDay",
    "ComponentSet",
}  # fmt: skip
COMPONENT_FIELDS = {
    "ComponentCode", "ComponentCodeName", "ItemCode", "ItemCodeName", "SinglePrice",
    "ContractPrice", "SpecifiedPrice", "PriceUnit", "UsedAmount", "UsedAmountUnit", "TimeSpan",
    "TimeUnitName", "Cost", "Discount", "RealCost", "IncentivePayAmount", "VoucherPayAmount",
    "CashPayAmount", "InstanceType",
}  # fmt: skip
MONEY_FIELDS = ("SinglePrice", "ContractPrice", "Cost", "RealCost", "CashPayAmount")


def lines_of(sim: Any, month: str, **filters: Any) -> list[dict[str, Any]]:
    """Every line of a month as the API sends it (dicts), paged with Context over the SDK."""
    client, context, offset = billing(sim), None, 0
    out: list[dict[str, Any]] = []
    while True:
        params = {"Month": month, "Offset": offset, "Limit": 300, **filters}
        if context:
            params["Context"] = context
        page = describe_bill_detail(client, **params)
        out.extend(json.loads(line.to_json_string()) for line in page.DetailSet)
        context, offset = page.Context, offset + len(page.DetailSet)
        if offset >= page.Total:
            return out


@pytest.fixture(scope="module")
def month_lines(sim: Any) -> list[dict[str, Any]]:
    return lines_of(sim, MONTH)


def sim_time(seconds: int) -> str:
    """A bill time (Beijing, ``yyyy-mm-dd hh:mm:ss``) of unix seconds."""
    return beijing_str(seconds)


def to_sim(text: str) -> int:
    """Unix seconds of a bill time."""
    return to_epoch(datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=BEIJING))


def _sum(components: list[dict[str, Any]], field: str) -> Decimal:
    return sum((Decimal(c[field]) for c in components), Decimal(0))


def _by_name(line: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["ComponentCodeName"]: c for c in line["ComponentSet"]}


def _full_hours(month_lines, inst):
    return [
        line
        for line in month_lines
        if line["ResourceId"] == inst.instance_id
        and line["ComponentSet"][0]["TimeSpan"] == "3600"
        and len(line["ComponentSet"]) > 1
    ]


def test_every_line_has_the_documented_fields_and_its_components_add_up(sim, month_lines):
    totals: defaultdict[str, Decimal] = defaultdict(Decimal)
    for line in month_lines:
        assert set(line) >= LINE_FIELDS
        assert line["PayerUin"] == line["OwnerUin"] != ""
        for component in line["ComponentSet"]:
            assert {k for k, v in component.items() if v is not None} >= COMPONENT_FIELDS
            for field in MONEY_FIELDS:
                assert Decimal(component[field]) == Decimal(component[field]).quantize(
                    Decimal("0.00000001")
                ), "money is a decimal string with 8 places"
            assert Decimal(component["CashPayAmount"]) + Decimal(
                component["VoucherPayAmount"]
            ) + Decimal(component["IncentivePayAmount"]) == Decimal(component["RealCost"])
        assert len({(c["ComponentCode"], c["ItemCode"]) for c in line["ComponentSet"]}) == len(
            line["ComponentSet"]
        ), "a component code and item appear once per line"
        totals[line["ResourceId"]] += _sum(line["ComponentSet"], "RealCost")

    assert dict(totals) == {
        k: v for k, v in sim.cloud.expected_totals_by_instance(MONTH).items() if k in totals
    }


def test_an_hour_of_a_gpu_instance_bills_compute_gpu_and_disks_apart(sim, month_lines):
    inst = next(
        i
        for i in sim.fleet.find(charge_type="POSTPAID_BY_HOUR")
        if hardware_of(i.index).data_disk_gb
    )
    hour = _full_hours(month_lines, inst)[0]

    parts = _by_name(hour)
    assert set(parts) == {"运算组件", "GPU", "系统盘", "数据盘"}
    compute, gpu = parts["运算组件"], parts["GPU"]
    assert Decimal(gpu["RealCost"]) > Decimal(compute["RealCost"]), "the cards cost the most"
    assert (
        Decimal(compute["ContractPrice"]) + Decimal(gpu["ContractPrice"]) * int(gpu["UsedAmount"])
        == inst.spec.hourly_cny
    )
    assert gpu["UsedAmount"] == str(inst.spec.gpu_count)
    assert parts["数据盘"]["UsedAmount"] == str(hardware_of(inst.index).data_disk_gb)
    assert parts["数据盘"]["UsedAmountUnit"] == "GB"
    assert _sum(hour["ComponentSet"], "Cost") == _sum(hour["ComponentSet"], "RealCost"), (
        "pay-as-you-go gets no discount"
    )
    assert {c["PriceUnit"] for c in hour["ComponentSet"]} <= {"元/个/小时", "元/GB/小时"}
    assert hour["FeeEndTime"][11:] == hour["FeeBeginTime"][11:13] + ":59:59"


def test_public_bandwidth_is_a_component_of_its_own(sim, month_lines):
    inst = next(
        i
        for i in sim.fleet.find(charge_type="POSTPAID_BY_HOUR")
        if hardware_of(i.index).bandwidth_mbps
    )
    parts = _by_name(_full_hours(month_lines, inst)[0])

    assert parts["带宽"]["UsedAmount"] == str(hardware_of(inst.index).bandwidth_mbps)
    assert parts["带宽"]["UsedAmountUnit"] == "Mbps"
    assert parts["带宽"]["PriceUnit"] == "元/Mbps/小时"


def test_the_products_classifier_places_every_component(month_lines):
    expected = {
        "运算组件": classify.RUNTIME,
        "GPU": classify.RUNTIME,
        "系统盘": classify.STORAGE,
        "数据盘": classify.STORAGE,
        "带宽": classify.NETWORK,
    }
    seen = set()
    for line in month_lines:
        for component in line["ComponentSet"]:
            name = component["ComponentCodeName"]
            seen.add(name)
            assert classify.component_class_of(component) == expected[name]
    assert seen == set(expected)


def test_hourly_lines_classify_as_usage_of_their_charge_type(sim, month_lines):
    charge_types = {i.instance_id: i.charge_type for i in sim.fleet.all_instances}
    for line in month_lines:
        if line["FeeEndTime"] > line["FeeBeginTime"][:13] + ":59:59":
            continue  # a subscription month
        assert classify.charge_category_of(line) == classify.USAGE
        assert classify.charge_type_of(line) == charge_types[line["ResourceId"]]


def test_spot_hours_say_spot_in_their_name_and_components_not_their_code(sim, month_lines):
    spot_ids = {i.instance_id: i for i in sim.fleet.find(charge_type="SPOTPAID")}
    spot_lines = [line for line in month_lines if line["ResourceId"] in spot_ids]

    assert spot_lines
    for line in spot_lines:
        assert line["ActionTypeName"] == "竞价实例小时结"
        assert "spot" not in line["ActionType"].lower()
        assert line["PayModeName"] == "按量计费"
        assert classify.charge_type_of(line) == "SPOTPAID"
        for component in line["ComponentSet"]:
            runtime = classify.component_class_of(component) == classify.RUNTIME
            assert component["InstanceType"] == ("spot" if runtime else "")
            if runtime:
                assert Decimal(component["ContractPrice"]) < Decimal(component["SinglePrice"])
            else:
                assert component["ContractPrice"] == component["SinglePrice"]
    inst = next(iter(spot_ids.values()))
    hour = _by_name(next(line for line in spot_lines if line["ResourceId"] == inst.instance_id))
    gpu = hour["GPU"]
    assert (
        Decimal(hour["运算组件"]["ContractPrice"])
        + Decimal(gpu["ContractPrice"]) * int(gpu["UsedAmount"])
        == inst.spec.spot_hourly_cny
    )
    # A product that guessed the charge type from the code would call spot pay-as-you-go.
    postpaid_codes = {
        line["ActionType"] for line in month_lines if line["ActionTypeName"] == "按量计费小时结"
    }
    assert {line["ActionType"] for line in spot_lines} <= postpaid_codes


def _all_lines_of(sim, inst) -> list[dict[str, Any]]:
    """Every line of one instance in every bill month so far."""
    return [
        line
        for month in sim.cloud.bill_months()
        for line in lines_of(sim, month, ResourceId=inst.instance_id)
    ]


def _role(sim, role):
    return next(i for i in sim.fleet.all_instances if i.index == role)


def test_subscriptions_bill_a_purchase_then_renewals_each_covering_its_month(sim):
    for inst in sim.fleet.find(charge_type="PREPAID"):
        lines = [
            line
            for line in _all_lines_of(sim, inst)
            if classify.charge_category_of(line) == classify.PURCHASE
        ]
        starts = inst.subscription_starts(until=SETTLED)

        assert [line["ActionTypeName"] for line in lines][:2] == ["包年包月新购", "包年包月续费"]
        assert {line["FeeBeginTime"] for line in lines} == {sim_time(start) for start in starts}, (
            "one period per subscription month, duplicates aside"
        )
        for line in lines:
            assert line["PayModeName"] == "包年包月"
            assert classify.charge_type_of(line) == "PREPAID"
            begin = starts.index(next(s for s in starts if sim_time(s) == line["FeeBeginTime"]))
            following = add_months(inst.created_at, begin + 1)
            assert line["FeeEndTime"] == sim_time(following - 1)
            assert {c["TimeUnitName"] for c in line["ComponentSet"]} == {"月"}
            assert {c["ComponentCodeName"] for c in line["ComponentSet"]} >= {
                "运算组件", "GPU", "系统盘",
            }  # fmt: skip
            # A subscription is discounted; its runtime parts list above what is paid.
            compute = _by_name(line)["运算组件"]
            assert Decimal(compute["ContractPrice"]) < Decimal(compute["SinglePrice"])


def test_a_duplicate_renewal_is_refunded_for_the_same_month(sim):
    event = next(e for e in BILL_EVENTS if e.kind == DUPLICATE_RENEWAL)
    inst = _role(sim, event.role)
    lines = _all_lines_of(sim, inst)
    refund = next(line for line in lines if "退款" in line["ActionTypeName"])
    same_month = [
        line
        for line in lines
        if line["FeeBeginTime"] == refund["FeeBeginTime"] and line is not refund
    ]

    assert classify.charge_category_of(refund) == classify.REFUND
    assert classify.charge_type_of(refund) == "PREPAID"
    assert [line["ActionTypeName"] for line in same_month] == ["包年包月续费", "包年包月续费"]
    assert refund["FeeEndTime"] == same_month[0]["FeeEndTime"]
    assert len({line["BillId"] for line in [*same_month, refund]}) == 3
    charged = _sum(same_month[1]["ComponentSet"], "RealCost")
    assert _sum(refund["ComponentSet"], "RealCost") == -charged < 0
    assert all(Decimal(c["Cost"]) < 0 for c in refund["ComponentSet"])
    assert (
        to_sim(refund["PayTime"]) - to_sim(same_month[1]["PayTime"])
        == (event.delay_hours - 2) * 3600
    )


def test_a_renewal_paid_partly_by_a_voucher(sim):
    event = next(e for e in BILL_EVENTS if e.kind == VOUCHER_RENEWAL)
    inst = _role(sim, event.role)
    renewal = next(
        line
        for line in _all_lines_of(sim, inst)
        if _sum(line["ComponentSet"], "VoucherPayAmount") > 0
    )

    assert renewal["ActionTypeName"] == "包年包月续费"
    assert classify.charge_category_of(renewal) == classify.PURCHASE
    assert _sum(renewal["ComponentSet"], "VoucherPayAmount") == event.amount
    assert _sum(renewal["ComponentSet"], "CashPayAmount") == (
        _sum(renewal["ComponentSet"], "RealCost") - event.amount
    )
    assert _sum(renewal["ComponentSet"], "RealCost") == (
        inst.spec.monthly_discount_cny + keeps_billing(inst, monthly=True)
    ), "a voucher pays a charge; it does not lower it"


def test_subscriptions_bill_no_hours(sim, month_lines):
    prepaid = {i.instance_id for i in sim.fleet.find(charge_type="PREPAID")}

    assert not [
        line
        for line in month_lines
        if line["ResourceId"] in prepaid and line["FeeEndTime"][:10] == line["FeeBeginTime"][:10]
    ]


def test_an_sla_credit_is_an_adjustment_naming_the_outage_and_the_instance(sim):
    event = next(e for e in BILL_EVENTS if e.kind == SLA_CREDIT)
    inst = _role(sim, event.role)
    credit = next(line for line in _all_lines_of(sim, inst) if line["ActionTypeName"] == "调账")
    outage = sim.fleet.anchor - event.days_before_anchor * 86400 + event.hour * 3600

    assert classify.charge_category_of(credit) == classify.CREDIT
    assert credit["ResourceId"] == inst.instance_id
    assert credit["FeeBeginTime"] == sim_time(outage)
    assert credit["FeeEndTime"] == sim_time(outage + event.hours * 3600 - 1)
    assert to_sim(credit["PayTime"]) == outage + event.delay_hours * 3600
    assert "SLA赔偿" in {c["ItemCodeName"] for c in credit["ComponentSet"]}
    assert _sum(credit["ComponentSet"], "RealCost") == -inst.spec.hourly_cny * event.hours


def test_a_reserved_instance_is_bought_upfront_then_pays_part_of_the_hours(sim):
    event = next(e for e in BILL_EVENTS if e.kind == RESERVED_INSTANCE)
    inst = _role(sim, event.role)
    bought = sim.fleet.anchor - event.days_before_anchor * 86400 + event.hour * 3600
    month = sim_time(bought)[:7]
    purchase = next(
        line
        for line in lines_of(sim, month)
        if line["ProductCodeName"].endswith("预留实例") and line["ZoneName"]
    )
    hours = lines_of(sim, month, ResourceId=inst.instance_id)
    before = [line for line in hours if to_sim(line["FeeBeginTime"]) < bought]
    after = [line for line in hours if to_sim(line["FeeBeginTime"]) >= bought]

    # The purchase: one line for the RI itself (not the instance), covering its year.
    assert purchase["ResourceId"] != inst.instance_id
    assert purchase["FeeBeginTime"] == sim_time(bought)
    assert to_sim(purchase["FeeEndTime"]) == bought + 365 * 86400 - 1
    assert classify.charge_category_of(purchase) == classify.PURCHASE
    assert [classify.commitment_of(c) for c in purchase["ComponentSet"]] == ["RI"]
    assert _sum(purchase["ComponentSet"], "RealCost") > 0
    # The hours after it: the runtime parts deducted by the RI, paying less than their list.
    assert before
    assert after
    for line in after:
        for component in line["ComponentSet"]:
            runtime = classify.component_class_of(component) == classify.RUNTIME
            assert classify.commitment_of(component) == ("RI" if runtime else "")
            if runtime:
                assert Decimal(component["RealCost"]) < Decimal(component["Cost"])
                assert component["OriginalCostWithRI"] == component["Cost"]
    assert all(c["InstanceType"] == "" for line in before for c in line["ComponentSet"])
    assert _sum(after[-1]["ComponentSet"], "RealCost") < _sum(
        before[-1]["ComponentSet"], "RealCost"
    )


def test_a_stop_charging_instance_keeps_paying_its_disks_and_bandwidth_when_stopped(
    sim, month_lines
):
    inst = next(
        i
        for i in sim.fleet.with_pattern("day_only_stopped")
        if hardware_of(i.index).data_disk_gb and hardware_of(i.index).bandwidth_mbps
    )
    lines = [line for line in month_lines if line["ResourceId"] == inst.instance_id]
    stopped, running = [], []
    for line in lines:
        hour = to_sim(line["FeeBeginTime"])
        modes = {inst.stop_charging_mode_at(t) for t in range(hour, hour + 3600, 600)}
        if modes == {"STOP_CHARGING"}:
            stopped.append(line)
        elif modes == {"NOT_APPLICABLE"}:
            running.append(line)

    assert len(stopped) > len(lines) / 2, "nights and weekends"
    assert running
    for line in stopped:
        assert set(_by_name(line)) == {"系统盘", "数据盘", "带宽"}
        assert {c["TimeSpan"] for c in line["ComponentSet"]} == {"3600"}
        assert _sum(line["ComponentSet"], "RealCost") == keeps_billing(inst)
    for line in running:
        assert set(_by_name(line)) == {"运算组件", "GPU", "系统盘", "数据盘", "带宽"}
        assert _sum(line["ComponentSet"], "RealCost") == inst.spec.hourly_cny + keeps_billing(inst)


def test_a_keep_charging_instance_keeps_paying_everything_when_stopped(sim, month_lines):
    inst = next(i for i in sim.fleet.all_instances if i.stopped_at is not None)
    after = [
        line
        for line in month_lines
        if line["ResourceId"] == inst.instance_id
        and to_sim(line["FeeBeginTime"]) >= inst.stopped_at // 3600 * 3600 + 3600
    ]

    assert after
    assert inst.stop_charging_mode_at(inst.stopped_at + 3600) == "KEEP_CHARGING"
    for line in after:
        assert {"运算组件", "GPU", "系统盘"} <= set(_by_name(line))


def test_the_inventory_lists_the_data_disks_and_public_bandwidth_the_bills_charge(sim):
    inst = next(
        i
        for i in sim.fleet.all_instances
        if hardware_of(i.index).data_disk_gb and hardware_of(i.index).bandwidth_mbps
    )
    listed = describe_instances(cvm(sim, inst.region), InstanceIds=[inst.instance_id]).InstanceSet[
        0
    ]

    assert [d.DiskSize for d in listed.DataDisks] == [hardware_of(inst.index).data_disk_gb]
    assert (
        listed.InternetAccessible.InternetMaxBandwidthOut == hardware_of(inst.index).bandwidth_mbps
    )
    assert listed.InternetAccessible.PublicIpAssigned is True
    assert len(listed.PublicIpAddresses) == 1


def test_the_scenario_table_refuses_an_event_its_instance_cannot_have():
    charge_types = {i.index: i.charge_type for i in SimulatedCloud(now=lambda: NOW).fleet}
    scenario.check(charge_types)

    charge_types[next(e.role for e in BILL_EVENTS if e.kind == RESERVED_INSTANCE)] = "PREPAID"
    with pytest.raises(ValueError, match="reserved_instance"):
        scenario.check(charge_types)


def test_the_expected_hourly_price_is_what_a_full_running_hour_bills(sim, month_lines):
    """For every hourly instance: runtime = its runtime components' ContractPrice x UsedAmount,
    the rest = its disks' and bandwidth's; together the line's RealCost."""
    by_instance: dict[str, dict[str, Any]] = {}
    for line in month_lines:
        names = set(_by_name(line))
        if {"运算组件", "GPU"} <= names and line["ComponentSet"][0]["TimeSpan"] == "3600":
            by_instance[line["ResourceId"]] = line  # the latest full running hour
    hourly = {i.instance_id for i in sim.fleet.all_instances if i.charge_type != "PREPAID"}
    assert set(by_instance) == hourly

    for instance_id, line in by_instance.items():
        runtime, keeps = sim.cloud.expected_hourly_price(instance_id, to_sim(line["FeeBeginTime"]))
        paid = {
            klass: sum(
                (
                    Decimal(c["ContractPrice"]) * int(c["UsedAmount"])
                    for c in line["ComponentSet"]
                    if (classify.component_class_of(c) == classify.RUNTIME) == (klass == "runtime")
                ),
                Decimal(0),
            )
            for klass in ("runtime", "keeps")
        }
        assert paid == {"runtime": runtime, "keeps": keeps}
        assert _sum(line["ComponentSet"], "RealCost") == runtime + keeps

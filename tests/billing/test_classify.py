"""What a bill line is, read from the words Tencent documents, never from a code we expect.

The lines below are shaped as DescribeBillDetail documents them (tencent-api.md section 4 and the
DOMAIN notes on how a GPU bill looks): Chinese transaction types, components named by kind,
codes that differ from anything the simulator writes.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from apps.billing import classify
from apps.billing.models import BillLine, ChargeCategory, ComponentClass
from apps.billing.sync import bill_lines_from, charge_type_disagreements
from apps.cloud.models import ChargeType, Instance, InstanceSource


def component(name: str, code: str = "", item_name: str = "", **fields: Any) -> dict[str, Any]:
    return {
        "ComponentCodeName": name,
        "ComponentCode": code,
        "ItemCodeName": item_name,
        "ItemCode": "",
        "SinglePrice": "1.00000000",
        "ContractPrice": "1.00000000",
        "RealCost": "1.00000000",
        "Cost": "1.00000000",
        **fields,
    }


def line(action_name: str, *components: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "BillId": "20261101000000000000001",
        "ResourceId": "ins-abc123",
        "ActionType": "whatever_code",
        "ActionTypeName": action_name,
        "PayModeName": fields.pop("PayModeName", ""),
        "FeeBeginTime": "2026-11-01 10:00:00",
        "FeeEndTime": "2026-11-01 10:59:59",
        "PayTime": "2026-11-01 11:00:05",
        "PayerUin": "100012345678",
        "OwnerUin": "100087654321",
        "ComponentSet": list(components),
        **fields,
    }


@pytest.mark.parametrize(
    ("action_name", "pay_mode_name", "components", "expected"),
    [
        # Spot hours say so in their transaction type, whatever their action code.
        ("竞价实例小时结", "按量计费", [component("CPU")], ChargeType.SPOTPAID),
        # ... or in a component's InstanceType, while the line calls itself pay-as-you-go.
        (
            "按量计费小时结",
            "按量计费",
            [component("GPU", InstanceType="spot")],
            ChargeType.SPOTPAID,
        ),
        ("按量计费小时结", "按量计费", [component("CPU")], ChargeType.POSTPAID_BY_HOUR),
        ("包年包月续费", "包年包月", [component("运算组件")], ChargeType.PREPAID),
        # The documented example: a subscription converted to pay-as-you-go refunds the rest.
        ("包年包月转按量", "包年包月", [component("运算组件")], ChargeType.PREPAID),
        ("调账", "", [component("运算组件")], ""),
    ],
)
def test_it_reads_the_charge_type_from_the_lines_words(
    action_name: str, pay_mode_name: str, components: list[dict[str, Any]], expected: str
) -> None:
    raw = line(action_name, *components, PayModeName=pay_mode_name)
    assert classify.charge_type_of(raw) == expected


def test_it_reads_the_pay_mode_request_field_when_the_names_are_missing() -> None:
    assert classify.charge_type_of(line("", component("CPU"), PayMode="prePay")) == "PREPAID"
    assert classify.charge_type_of(line("", component("CPU"), PayMode="postPay")) == (
        "POSTPAID_BY_HOUR"
    )


@pytest.mark.parametrize(
    ("action_name", "names", "expected"),
    [
        ("按量计费小时结", "CPU", classify.USAGE),
        ("竞价实例小时结", "CPU", classify.USAGE),
        ("包年包月新购", "运算组件", classify.PURCHASE),
        ("包年包月续费", "运算组件", classify.PURCHASE),
        ("包年包月升配", "运算组件", classify.PURCHASE),
        ("包年包月退款", "运算组件", classify.REFUND),
        ("包年包月转按量", "运算组件", classify.REFUND),
        ("调账", "SLA赔偿", classify.CREDIT),
        ("调账", "运算组件", classify.ADJUSTMENT),
        ("按量计费日结", "带宽", classify.USAGE),
        ("一个从未见过的交易类型", "CPU", classify.USAGE),
    ],
)
def test_it_reads_what_a_line_is_from_its_transaction_type(
    action_name: str, names: str, expected: str
) -> None:
    raw = line(action_name, component("运算组件", item_name=names))
    assert classify.charge_category_of(raw) == expected


@pytest.mark.parametrize(
    ("name", "code", "item_name", "expected"),
    [
        ("CPU", "", "", classify.RUNTIME),
        ("内存", "", "", classify.RUNTIME),
        ("GPU", "", "GPU-1*T4", classify.RUNTIME),
        ("运算组件", "virtual_v_cvm_compute", "运算组件-标准型S2-2核4G", classify.RUNTIME),
        ("系统盘", "", "高性能云硬盘", classify.STORAGE),
        ("数据盘", "", "SSD云硬盘", classify.STORAGE),
        ("带宽", "", "按带宽计费", classify.NETWORK),
        ("公网IP", "", "", classify.NETWORK),
        # No name: the code's words decide.
        ("", "v_cvm_disk_data", "", classify.STORAGE),
        ("", "gpu_component_v2", "", classify.RUNTIME),
        ("", "bandwidth_package", "", classify.NETWORK),
        # Nothing we know: unknown, which prices as runtime (counted, never dropped).
        ("许可证", "v_cvm_license", "Windows", classify.UNKNOWN),
    ],
)
def test_it_classifies_each_component_by_its_name_then_its_code(
    name: str, code: str, item_name: str, expected: str
) -> None:
    assert classify.component_class_of(component(name, code, item_name)) == expected


def test_it_reads_commitments_from_the_components_instance_type() -> None:
    assert classify.commitment_of(component("CPU", InstanceType="RI")) == "RI"
    assert classify.commitment_of(component("CPU", InstanceType="sp")) == "SP"
    assert classify.commitment_of(component("CPU", InstanceType="spot")) == ""
    assert classify.commitment_of(component("CPU", InstanceType="")) == ""


def test_it_stores_every_component_of_a_line_with_what_it_is() -> None:
    raw = line(
        "竞价实例小时结",
        component("CPU", ContractPrice="0.20000000", RealCost="0.20000000", InstanceType="spot"),
        component("GPU", ContractPrice="1.10000000", RealCost="1.10000000", PriceUnit="元/小时"),
        component("系统盘", RealCost="0.05000000"),
        component(
            "内存", ContractPrice="0", RealCost="0", InstanceType="RI", OriginalCostWithRI="0.4"
        ),
        PayModeName="按量计费",
    )
    rows = bill_lines_from(raw)
    assert [r.component_class for r in rows] == [
        ComponentClass.RUNTIME,
        ComponentClass.RUNTIME,
        ComponentClass.STORAGE,
        ComponentClass.RUNTIME,
    ]
    # The line is spot as a whole: its disk says nothing about spot by itself.
    assert {r.charge_type for r in rows} == {ChargeType.SPOTPAID}
    assert {r.charge_category for r in rows} == {ChargeCategory.USAGE}
    assert rows[1].contract_price == Decimal("1.1")
    assert rows[1].price_unit == "元/小时"
    assert rows[3].commitment == "RI"
    assert rows[3].cost_without_commitment == Decimal("0.4")
    assert rows[0].payer_uin == "100012345678"
    assert rows[0].owner_uin == "100087654321"
    assert rows[0].pay_time == dt.datetime(2026, 11, 1, 3, 0, 5, tzinfo=dt.UTC)


@pytest.mark.django_db
def test_it_names_the_instances_whose_bill_and_inventory_disagree_on_the_charge_type(
    acme: Any,
) -> None:
    def instance(provider_id: str, charge_type: str) -> Instance:
        return Instance.objects.create(
            organization=acme,
            provider_id=provider_id,
            name=provider_id,
            charge_type=charge_type,
            source=InstanceSource.INVENTORY,
        )

    spot, converted = instance("ins-spot", "SPOTPAID"), instance("ins-conv", "POSTPAID_BY_HOUR")

    def row(owner: Instance, hour: int, action_name: str) -> BillLine:
        raw = line(action_name, component("CPU"), FeeBeginTime=f"2026-11-01 {hour:02d}:00:00")
        (bill_line,) = bill_lines_from(raw, organization=acme, instance=owner)
        return bill_line

    rows = [
        # The inventory says spot; the bill says pay-as-you-go: a disagreement.
        row(spot, 10, "按量计费小时结"),
        # Converted during the month: only the latest usage line is compared, and it agrees.
        row(converted, 9, "包年包月续费"),
        row(converted, 11, "按量计费小时结"),
    ]
    assert charge_type_disagreements(rows) == ["ins-spot"]

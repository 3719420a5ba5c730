"""CVM: inventory paging and filters, instance life events, hardware and list prices."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException

from apps.cloud.providers.tencent.simulator.catalog import INSTANCE_TYPES
from apps.cloud.providers.tencent.simulator.constants import to_epoch

from ._sdk import NOW, cvm, describe_instances


def _all_instances(client, **params):
    seen, offset = [], 0
    while True:
        page = describe_instances(client, Offset=offset, Limit=7, **params)
        seen.extend(page.InstanceSet)
        offset += 7
        if offset >= page.TotalCount:
            return seen, page.TotalCount


@pytest.mark.parametrize("region", ["ap-guangzhou", "ap-shanghai"])
def test_it_pages_through_all_instances_of_a_region(sim, region):
    instances, total = _all_instances(cvm(sim, region))

    expected = [inst.instance_id for inst in sim.cloud.instances(NOW, region)]
    assert [i.InstanceId for i in instances] == expected
    assert total == len(expected)


def test_it_defaults_to_twenty_and_caps_the_limit_at_a_hundred(sim):
    client = cvm(sim, "ap-shanghai")

    assert len(describe_instances(client).InstanceSet) == 18
    assert len(describe_instances(client, Limit=100).InstanceSet) == 18
    with pytest.raises(TencentCloudSDKException) as caught:
        describe_instances(client, Limit=101)
    assert caught.value.get_code() == "InvalidParameterValue.LimitExceeded"


def test_it_hides_the_terminated_instance_and_shows_the_new_one(sim):
    gone = [i for i in sim.fleet.all_instances if i.terminated_at is not None]
    listed = {i.InstanceId: i for i in _all_instances(cvm(sim))[0]}

    assert len(gone) == 1
    assert gone[0].instance_id not in listed
    newest = max(listed.values(), key=lambda i: i.CreatedTime)
    age = NOW - NOW.fromisoformat(newest.CreatedTime.replace("Z", "+00:00"))
    assert timedelta(days=1) < age < timedelta(days=3)


def test_it_filters_by_non_ascii_tag_value_and_charge_type(sim):
    client = cvm(sim)
    tagged = describe_instances(
        client, Limit=100, Filters=[{"Name": "tag:project", "Values": ["项目A"]}]
    )
    spot = describe_instances(
        client, Limit=100, Filters=[{"Name": "instance-charge-type", "Values": ["SPOTPAID"]}]
    )

    assert tagged.TotalCount == 3
    assert all(
        {"Key": "project", "Value": "项目A"} in [t._serialize() for t in i.Tags]
        for i in tagged.InstanceSet
    )
    assert spot.TotalCount == 2
    assert {i.InstanceChargeType for i in spot.InstanceSet} == {"SPOTPAID"}


def test_it_lists_untagged_instances_without_tags(sim):
    instances, _ = _all_instances(cvm(sim))

    untagged = [i for i in instances if not i.Tags]
    assert len(untagged) == 2


def test_it_reports_gpu_hardware_and_prepaid_expiry(sim):
    instances, _ = _all_instances(cvm(sim))

    for item in instances:
        spec = INSTANCE_TYPES[item.InstanceType]
        assert item.GPUInfo.GPUCount == float(spec.gpu_count)
        assert spec.cpu == item.CPU
        assert item.Memory == spec.memory_gib
        if item.InstanceChargeType == "PREPAID":
            assert item.ExpiredTime > NOW.strftime("%Y-%m-%dT%H:%M:%SZ")
            assert item.RenewFlag == "NOTIFY_AND_AUTO_RENEW"
        else:
            assert item.ExpiredTime is None


def test_it_stops_day_only_instances_at_night_with_stop_charging(make_sim):
    night = NOW.replace(hour=15)  # 23:00 in Beijing
    sim = make_sim(now=lambda: night)

    stopped = describe_instances(
        cvm(sim), Limit=100, Filters=[{"Name": "instance-state", "Values": ["STOPPED"]}]
    ).InstanceSet

    modes = {i.InstanceName: i.StopChargingMode for i in stopped}
    day_only = {
        i.name for i in sim.fleet.with_pattern("day_only_stopped") if i.region == "ap-guangzhou"
    }
    assert {name for name, mode in modes.items() if mode == "STOP_CHARGING"} == day_only
    # The long-stopped idle instance still pays for compute.
    assert list(modes.values()).count("KEEP_CHARGING") == 1


def test_it_lists_prices_per_charge_type_in_yuan(sim):
    raw = cvm(sim).call_json(
        "DescribeZoneInstanceConfigInfos",
        {
            "Filters": [
                {"Name": "instance-type", "Values": ["GN10Xp.2XLARGE40"]},
                {"Name": "zone", "Values": ["ap-guangzhou-4"]},
            ]
        },
    )
    prices = {i["InstanceChargeType"]: i["Price"] for i in raw["Response"]["InstanceTypeQuotaSet"]}
    spec = INSTANCE_TYPES["GN10Xp.2XLARGE40"]

    assert prices["POSTPAID_BY_HOUR"]["UnitPriceDiscount"] == float(spec.hourly_cny) == 15.8
    assert prices["POSTPAID_BY_HOUR"]["ChargeUnit"] == "HOUR"
    assert prices["SPOTPAID"]["UnitPriceDiscount"] == float(spec.spot_hourly_cny)
    assert Decimal(str(prices["PREPAID"]["DiscountPrice"])) == spec.monthly_discount_cny
    assert spec.monthly_discount_cny < spec.hourly_cny * 720


def test_it_describes_instance_type_configs_with_per_card_memory(sim):
    raw = cvm(sim, "ap-shanghai").call_json(
        "DescribeInstanceTypeConfigs", {"Filters": [{"Name": "instance-family", "Values": ["GT4"]}]}
    )
    configs = raw["Response"]["InstanceTypeConfigSet"]

    assert {c["InstanceType"] for c in configs} == {
        "GT4.4XLARGE96",
        "GT4.8XLARGE192",
        "GT4.41XLARGE948",
    }
    assert {c["GpuMemory"] for c in configs} == {40.0}
    assert {c["Zone"] for c in configs} == {"ap-shanghai-2", "ap-shanghai-4", "ap-shanghai-5"}


def test_it_rejects_two_values_in_an_instance_type_config_filter(sim):
    with pytest.raises(TencentCloudSDKException) as caught:
        cvm(sim).call_json(
            "DescribeInstanceTypeConfigs",
            {"Filters": [{"Name": "zone", "Values": ["ap-guangzhou-3", "ap-guangzhou-4"]}]},
        )

    assert caught.value.get_code() == "InvalidFilterValue.LimitExceeded"


def test_it_returns_tags_through_the_tag_api(sim):
    from ._sdk import tag

    target = next(
        i for i in sim.cloud.instances(NOW, "ap-guangzhou") if i.tag("project") == "项目A"
    )
    raw = tag(sim).call_json(
        "DescribeResourceTagsByResourceIds",
        {
            "ServiceType": "cvm",
            "ResourcePrefix": "instance",
            "ResourceRegion": "ap-guangzhou",
            "ResourceIds": [target.instance_id],
        },
    )

    tags = {t["TagKey"]: t["TagValue"] for t in raw["Response"]["Tags"]}
    assert tags == dict(target.tags)
    assert json.dumps(tags, ensure_ascii=False).count("项目A") == 1
    assert to_epoch(NOW) > target.created_at

"""StopInstances / StartInstances: states over the clock, errors, and what bills and metrics
show afterwards. Every test runs its own simulator (operations change the world)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException
from tencentcloud.cvm.v20170312 import models as cvm_models

from apps.cloud.providers.tencent.simulator import (
    READ_ONLY_SECRET_ID,
    READ_ONLY_SECRET_KEY,
    WRITE_SECRET_ID,
    WRITE_SECRET_KEY,
    SimulatorServer,
)
from apps.cloud.providers.tencent.simulator.constants import to_epoch

from ._prices import keeps_billing
from ._sdk import MONTH, NOW, billing, cvm, describe_bill_detail, describe_instances, monitor
from ._sdk import get_monitor_data as monitor_data

RUNTIME_NAMES = {"运算组件", "GPU"}
HOUR = 3600


class Clock:
    """A simulation clock the test moves by hand."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock(NOW)


@pytest.fixture
def world(make_sim: Callable[..., SimulatorServer], clock: Clock) -> SimulatorServer:
    return make_sim(now=clock, rate_limits={})


def _call(client: Any, action: str, **params: Any) -> Any:
    request = getattr(cvm_models, f"{action}Request")()
    request.from_json_string(json.dumps(params))
    return getattr(client, action)(request)


def _error(client: Any, action: str, **params: Any) -> str:
    with pytest.raises(TencentCloudSDKException) as caught:
        _call(client, action, **params)
    return str(caught.value.code)


def _described(sim: SimulatorServer, instance_id: str, region: str) -> Any:
    answer = describe_instances(cvm(sim, region), InstanceIds=[instance_id])
    return answer.InstanceSet[0]


def _always_on(
    sim: SimulatorServer, region: str = "ap-guangzhou", charge: str = "POSTPAID_BY_HOUR"
):
    return next(
        i
        for i in sim.fleet.all_instances
        if i.region == region
        and i.charge_type == charge
        and i.pattern == "training"
        and i.terminated_at is None
        and i.stopped_at is None
        and i.created_at < to_epoch(NOW) - 30 * 86400
    )


def test_it_stops_a_running_instance_through_stopping_then_starts_it_again(world, clock):
    inst = _always_on(world)
    client = cvm(world)

    answer = _call(
        client, "StopInstances", InstanceIds=[inst.instance_id], StoppedMode="STOP_CHARGING"
    )

    seen = _described(world, inst.instance_id, inst.region)
    assert (seen.InstanceState, seen.LatestOperation, seen.LatestOperationState) == (
        "STOPPING",
        "StopInstances",
        "OPERATING",
    )
    assert seen.LatestOperationRequestId == answer.RequestId
    clock.advance(seconds=29)
    assert _described(world, inst.instance_id, inst.region).InstanceState == "STOPPING"
    clock.advance(seconds=1)
    seen = _described(world, inst.instance_id, inst.region)
    assert (seen.InstanceState, seen.StopChargingMode, seen.LatestOperationState) == (
        "STOPPED",
        "STOP_CHARGING",
        "SUCCESS",
    )

    _call(client, "StartInstances", InstanceIds=[inst.instance_id])
    assert _described(world, inst.instance_id, inst.region).InstanceState == "STARTING"
    clock.advance(seconds=30)
    seen = _described(world, inst.instance_id, inst.region)
    assert (seen.InstanceState, seen.StopChargingMode, seen.LatestOperation) == (
        "RUNNING",
        "NOT_APPLICABLE",
        "StartInstances",
    )


def test_it_refuses_operations_an_instance_state_does_not_allow(world, clock):
    inst = _always_on(world)
    other = _always_on(world, "ap-guangzhou", "SPOTPAID")
    client = cvm(world)

    assert _error(client, "StartInstances", InstanceIds=[inst.instance_id]) == (
        "UnsupportedOperation.InstanceStateRunning"
    )
    _call(client, "StopInstances", InstanceIds=[inst.instance_id])
    assert _error(client, "StopInstances", InstanceIds=[inst.instance_id]) == (
        "UnsupportedOperation.InstanceStateStopping"
    )
    assert _error(client, "StartInstances", InstanceIds=[inst.instance_id]) == (
        "UnsupportedOperation.InstanceStateStopping"
    )
    clock.advance(minutes=1)
    assert _error(client, "StopInstances", InstanceIds=[inst.instance_id]) == (
        "UnsupportedOperation.InstanceStateStopped"
    )
    # One instance of the batch may not be operated: the whole request changes nothing.
    assert _error(client, "StopInstances", InstanceIds=[other.instance_id, inst.instance_id]) == (
        "UnsupportedOperation.InstanceStateStopped"
    )
    assert _described(world, other.instance_id, other.region).InstanceState == "RUNNING"
    _call(client, "StartInstances", InstanceIds=[inst.instance_id])
    assert _error(client, "StopInstances", InstanceIds=[inst.instance_id]) == (
        "UnsupportedOperation.InstanceStateStarting"
    )


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"InstanceIds": ["ins-00000000"]}, "InvalidInstanceId.NotFound"),
        ({"InstanceIds": ["i-123"]}, "InvalidInstanceId.Malformed"),
        (
            {"InstanceIds": [f"ins-{n:08d}" for n in range(101)]},
            "InvalidParameterValue.LimitExceeded",
        ),
        ({"InstanceIds": ["ins-00000000"], "StopType": "GENTLE"}, "InvalidParameterValue"),
        ({"InstanceIds": ["ins-00000000"], "StoppedMode": "FREE"}, "InvalidParameterValue"),
        (
            {"InstanceIds": ["ins-00000000"], "StopType": "HARD", "ForceStop": True},
            "InvalidParameterCombination",
        ),
    ],
)
def test_it_validates_stop_requests_with_the_documented_codes(world, params, code):
    assert _error(cvm(world), "StopInstances", **params) == code


def test_it_does_not_find_an_instance_of_another_region(world):
    inst = _always_on(world, "ap-shanghai")
    assert _error(cvm(world, "ap-guangzhou"), "StopInstances", InstanceIds=[inst.instance_id]) == (
        "InvalidInstanceId.NotFound"
    )


def test_it_allows_stop_charging_only_for_pay_as_you_go(world, clock):
    prepaid = next(i for i in world.fleet.all_instances if i.charge_type == "PREPAID")
    spot = _always_on(world, "ap-guangzhou", "SPOTPAID")
    client = cvm(world, prepaid.region)

    for inst in (prepaid, spot):
        assert _error(
            cvm(world, inst.region),
            "StopInstances",
            InstanceIds=[inst.instance_id],
            StoppedMode="STOP_CHARGING",
        ) == ("UnsupportedOperation.StoppedModeStopCharging")
    _call(client, "StopInstances", InstanceIds=[prepaid.instance_id], StoppedMode="KEEP_CHARGING")
    clock.advance(minutes=1)
    assert _described(world, prepaid.instance_id, prepaid.region).StopChargingMode == (
        "KEEP_CHARGING"
    )


def _instance_lines(sim: SimulatorServer, instance_id: str) -> list[Any]:
    client, lines, offset = billing(sim), [], 0
    while True:
        page = describe_bill_detail(
            client, Month=MONTH, ResourceId=instance_id, Offset=offset, Limit=300, NeedRecordNum=1
        )
        lines.extend(page.DetailSet)
        offset += len(page.DetailSet)
        if offset >= page.Total:
            return lines


def _runtime_seconds(line: Any) -> Decimal:
    """Billed runtime seconds of an hourly line, from its served GPU component."""
    gpu = [c for c in line.ComponentSet if c.ComponentCodeName == "GPU"]
    return Decimal(gpu[0].TimeSpan) if gpu else Decimal(0)


def _cost(line: Any, names: set[str] | None = None) -> Decimal:
    return sum(
        (
            Decimal(c.RealCost)
            for c in line.ComponentSet
            if names is None or c.ComponentCodeName in names
        ),
        Decimal(0),
    )


def _fee_hour(line: Any) -> str:
    return str(line.FeeBeginTime)


def test_it_bills_only_disks_and_bandwidth_for_hours_stopped_with_stop_charging(
    world, clock, make_sim
):
    inst = _always_on(world)
    _call(cvm(world), "StopInstances", InstanceIds=[inst.instance_id], StoppedMode="STOP_CHARGING")
    clock.advance(hours=5)
    untouched = make_sim(now=lambda: NOW + timedelta(hours=5), rate_limits={})

    lines = {_fee_hour(line): line for line in _instance_lines(world, inst.instance_id)}
    before = {_fee_hour(line): line for line in _instance_lines(untouched, inst.instance_id)}

    # Beijing 14:00 is the hour of the stop (06:30:17 UTC, STOPPED 30 s later).
    stop_hour = "2026-11-18 14:00:00"
    stopped_hours = [f"2026-11-18 {h}:00:00" for h in (15, 16, 17, 18)]
    assert _runtime_seconds(lines[stop_hour]) == 30 * 60 + 17 + 30
    for hour in stopped_hours:
        names = {c.ComponentCodeName for c in lines[hour].ComponentSet}
        assert names.isdisjoint(RUNTIME_NAMES)
        assert _cost(lines[hour]) == keeps_billing(inst)
        assert _cost(before[hour], RUNTIME_NAMES) > 0  # untouched, it would have paid runtime
    # The history before the stop is the seeded one, line for line.
    earlier = [hour for hour in before if hour < stop_hour]
    assert len(earlier) > 300
    assert all(lines[h].to_json_string() == before[h].to_json_string() for h in earlier)
    served = sum(map(_cost, lines.values()), Decimal(0))
    assert served == world.cloud.expected_bill_total(inst.instance_id, MONTH)
    assert served < untouched.cloud.expected_bill_total(inst.instance_id, MONTH)


def test_it_keeps_billing_runtime_for_hours_stopped_with_keep_charging(world, clock, make_sim):
    inst = _always_on(world)
    _call(cvm(world), "StopInstances", InstanceIds=[inst.instance_id], StoppedMode="KEEP_CHARGING")
    clock.advance(hours=3)
    untouched = make_sim(now=lambda: NOW + timedelta(hours=3), rate_limits={})

    lines = _instance_lines(world, inst.instance_id)

    assert [line.to_json_string() for line in lines] == [
        line.to_json_string() for line in _instance_lines(untouched, inst.instance_id)
    ]
    last = next(line for line in lines if _fee_hour(line) == "2026-11-18 16:00:00")
    assert _runtime_seconds(last) == HOUR
    assert _described(world, inst.instance_id, inst.region).StopChargingMode == "KEEP_CHARGING"


def test_it_serves_no_metric_points_while_an_instance_is_stopped(world, clock):
    inst = _always_on(world)
    _call(cvm(world), "StopInstances", InstanceIds=[inst.instance_id], StoppedMode="STOP_CHARGING")
    clock.advance(hours=2)
    start, end = NOW - timedelta(minutes=20), NOW + timedelta(minutes=90)

    answer = monitor_data(
        monitor(world),
        [inst.instance_id],
        MetricName="GpuUtil",
        Period=60,
        StartTime=start.isoformat(),
        EndTime=end.isoformat(),
    )

    stamps = answer.DataPoints[0].Timestamps
    assert stamps
    assert max(stamps) < to_epoch(NOW) + 60  # the minute of the stop is the last
    assert len(stamps) == world.cloud.expected_point_count(inst.instance_id, "GpuUtil", start, end)
    assert len(stamps) <= 21


def test_it_refuses_a_start_in_a_sold_out_zone_until_capacity_returns(world, clock):
    inst = _always_on(world, "ap-shanghai")
    client = cvm(world, inst.region)
    _call(client, "StopInstances", InstanceIds=[inst.instance_id], StoppedMode="STOP_CHARGING")
    clock.advance(minutes=5)
    world.cloud.operations.configure(sold_out_zones={inst.zone})

    assert _error(client, "StartInstances", InstanceIds=[inst.instance_id]) == (
        "ResourceInsufficient.AvailabilityZoneSoldOut"
    )
    assert _described(world, inst.instance_id, inst.region).InstanceState == "STOPPED"
    world.cloud.operations.configure(sold_out_zones=set())
    _call(client, "StartInstances", InstanceIds=[inst.instance_id])
    clock.advance(minutes=1)
    assert _described(world, inst.instance_id, inst.region).InstanceState == "RUNNING"


def test_it_can_accept_a_start_that_then_fails_back_to_stopped(world, clock):
    inst = _always_on(world, "ap-shanghai")
    client = cvm(world, inst.region)
    _call(client, "StopInstances", InstanceIds=[inst.instance_id], StoppedMode="STOP_CHARGING")
    clock.advance(minutes=5)
    world.cloud.operations.configure(failing_start_zones={inst.zone})

    _call(client, "StartInstances", InstanceIds=[inst.instance_id])
    assert _described(world, inst.instance_id, inst.region).InstanceState == "STARTING"
    clock.advance(minutes=1)

    seen = _described(world, inst.instance_id, inst.region)
    assert (seen.InstanceState, seen.LatestOperation, seen.LatestOperationState) == (
        "STOPPED",
        "StartInstances",
        "FAILED",
    )


def test_it_refuses_writes_to_the_read_only_key_and_reads_to_the_write_key(world):
    inst = _always_on(world)
    read_only = cvm(world, secret_id=READ_ONLY_SECRET_ID, secret_key=READ_ONLY_SECRET_KEY)
    write = cvm(world, secret_id=WRITE_SECRET_ID, secret_key=WRITE_SECRET_KEY)

    assert _error(read_only, "StopInstances", InstanceIds=[inst.instance_id]) == (
        "UnauthorizedOperation.CamNoAuth"
    )
    assert describe_instances(read_only, InstanceIds=[inst.instance_id]).TotalCount == 1
    assert _error(write, "DescribeInstanceTypeConfigs") == "UnauthorizedOperation.CamNoAuth"
    assert describe_instances(write, InstanceIds=[inst.instance_id]).TotalCount == 1
    _call(write, "StopInstances", InstanceIds=[inst.instance_id])
    assert _described(world, inst.instance_id, inst.region).InstanceState == "STOPPING"


def test_it_limits_a_write_key_to_instances_with_the_policy_tag(world):
    tagged = _always_on(world)
    untagged = next(
        i
        for i in world.fleet.all_instances
        if i.region == "ap-guangzhou" and not i.tags and i.charge_type == "POSTPAID_BY_HOUR"
    )
    world.set_policy(
        WRITE_SECRET_ID,
        allowed_actions={"StopInstances", "StartInstances", "DescribeInstances"},
        resource_tag=("project", str(tagged.tag("project"))),
    )
    write = cvm(world, secret_id=WRITE_SECRET_ID, secret_key=WRITE_SECRET_KEY)

    assert _error(write, "StopInstances", InstanceIds=[untagged.instance_id]) == (
        "UnauthorizedOperation.CamNoAuth"
    )
    _call(write, "StopInstances", InstanceIds=[tagged.instance_id])
    assert _described(world, tagged.instance_id, tagged.region).InstanceState == "STOPPING"


def test_it_lets_a_test_count_write_calls_per_instance(world):
    inst = _always_on(world)
    client = cvm(world)
    _call(client, "StopInstances", InstanceIds=[inst.instance_id], StoppedMode="STOP_CHARGING")
    _error(client, "StopInstances", InstanceIds=[inst.instance_id], StoppedMode="STOP_CHARGING")
    describe_instances(client, InstanceIds=[inst.instance_id])

    calls = world.requests("StopInstances", instance_id=inst.instance_id)

    assert [call.outcome for call in calls] == ["OK", "UnsupportedOperation.InstanceStateStopping"]
    assert calls[0].params == {"InstanceIds": [inst.instance_id], "StoppedMode": "STOP_CHARGING"}
    assert (
        calls[0].request_id
        == _described(world, inst.instance_id, inst.region).LatestOperationRequestId
    )
    assert world.requests("StartInstances") == []

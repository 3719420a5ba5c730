"""TencentClient.stop_instances / start_instances / describe_instance_states against the
simulator over HTTP, and the error classes automation branches on."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from apps.cloud.providers.tencent.client import AccountConfig, RetryPolicy, TencentClient
from apps.cloud.providers.tencent.errors import (
    CapacitySoldOut,
    CloudError,
    ErrorKind,
    InstanceNotFound,
    InstanceStateConflict,
    NotAuthorized,
)
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    READ_ONLY_SECRET_ID,
    READ_ONLY_SECRET_KEY,
    WRITE_SECRET_ID,
    WRITE_SECRET_KEY,
    SimulatorServer,
)
from apps.cloud.providers.tencent.simulator.fleet import Instance

from .conftest import SIM_NOW


class Clock:
    def __init__(self) -> None:
        self.moment = SIM_NOW

    def __call__(self) -> datetime:
        return self.moment


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sim(make_simulator: Callable[..., SimulatorServer], clock: Clock) -> SimulatorServer:
    return make_simulator(now=clock, rate_limits={})


def client_of(
    sim: SimulatorServer, secret_id: str = WRITE_SECRET_ID, secret_key: str = WRITE_SECRET_KEY
) -> TencentClient:
    config = AccountConfig(
        secret_id=secret_id,
        secret_key=secret_key,
        endpoint=sim.endpoint,
        scheme="http",
        rate_key=f"test-{uuid.uuid4().hex}",
    )
    policy = RetryPolicy(base_delay_seconds=0.001, max_delay_seconds=0.002)
    return TencentClient(config, retry=policy)


def running(sim: SimulatorServer, region: str = "ap-guangzhou") -> Instance:
    return next(
        i
        for i in sim.fleet.all_instances
        if i.region == region
        and i.charge_type == "POSTPAID_BY_HOUR"
        and i.pattern == "training"
        and i.terminated_at is None
        and i.stopped_at is None
    )


def test_it_stops_and_starts_instances_and_reads_their_states_back(sim, clock):
    inst = running(sim)
    client = client_of(sim)

    request_id = client.stop_instances(inst.region, [inst.instance_id])

    states = client.describe_instance_states(inst.region, [inst.instance_id, "ins-00000000"])
    assert states == {
        inst.instance_id: {
            "state": "STOPPING",
            "stop_charging_mode": "NOT_APPLICABLE",
            "latest_operation": "StopInstances",
            "latest_operation_state": "OPERATING",
        }
    }
    assert sim.requests("StopInstances")[0].params == {
        "InstanceIds": [inst.instance_id],
        "StopType": "SOFT",
        "StoppedMode": "STOP_CHARGING",
    }
    assert sim.requests("StopInstances")[0].request_id == request_id
    clock.moment += timedelta(minutes=1)
    assert client.describe_instance_states(inst.region, [inst.instance_id])[inst.instance_id][
        "stop_charging_mode"
    ] == ("STOP_CHARGING")

    client.start_instances(inst.region, [inst.instance_id])
    clock.moment += timedelta(minutes=1)
    state = client.describe_instance_states(inst.region, [inst.instance_id])[inst.instance_id]
    assert (state["state"], state["latest_operation"], state["latest_operation_state"]) == (
        "RUNNING",
        "StartInstances",
        "SUCCESS",
    )


def test_it_raises_a_state_conflict_for_an_instance_in_the_wrong_state(sim):
    inst = running(sim)
    client = client_of(sim)
    with pytest.raises(InstanceStateConflict) as raised:
        client.start_instances(inst.region, [inst.instance_id])
    assert raised.value.code == "UnsupportedOperation.InstanceStateRunning"
    client.stop_instances(inst.region, [inst.instance_id])
    with pytest.raises(InstanceStateConflict):
        client.stop_instances(inst.region, [inst.instance_id])
    assert isinstance(raised.value, CloudError)


def test_it_raises_not_found_for_an_id_that_does_not_exist(sim):
    with pytest.raises(InstanceNotFound) as raised:
        client_of(sim).stop_instances("ap-guangzhou", ["ins-00000000"])
    assert raised.value.code == "InvalidInstanceId.NotFound"


def test_it_raises_not_authorized_for_a_read_only_or_a_wrong_key(sim):
    inst = running(sim)
    with pytest.raises(NotAuthorized) as raised:
        client_of(sim, READ_ONLY_SECRET_ID, READ_ONLY_SECRET_KEY).stop_instances(
            inst.region, [inst.instance_id]
        )
    assert raised.value.kind == ErrorKind.PERMISSION
    assert "cvm:StopInstances" in str(raised.value)
    with pytest.raises(NotAuthorized) as raised:
        client_of(sim, DEFAULT_SECRET_ID, "x" * 32).start_instances(inst.region, [inst.instance_id])
    assert raised.value.kind == ErrorKind.CREDENTIALS
    assert sim.cloud.state_at(inst.instance_id) == "RUNNING"


def test_it_raises_capacity_sold_out_when_the_zone_has_nothing_left(sim, clock):
    inst = running(sim, "ap-shanghai")
    client = client_of(sim)
    client.stop_instances(inst.region, [inst.instance_id], stopped_mode="STOP_CHARGING")
    clock.moment += timedelta(minutes=1)
    sim.cloud.operations.configure(sold_out_zones={inst.zone})

    with pytest.raises(CapacitySoldOut) as raised:
        client.start_instances(inst.region, [inst.instance_id])

    assert raised.value.code == "ResourceInsufficient.AvailabilityZoneSoldOut"
    assert sim.cloud.state_at(inst.instance_id) == "STOPPED"


def test_it_retries_a_throttled_stop_and_sends_it_once_accepted(sim):
    inst = running(sim)
    sim.faults.configure(throttle_every=1, actions={"StopInstances"})  # two throttles, then OK

    client_of(sim).stop_instances(inst.region, [inst.instance_id])

    assert [r.outcome for r in sim.requests("StopInstances", instance_id=inst.instance_id)] == [
        "RequestLimitExceeded",
        "RequestLimitExceeded",
        "OK",
    ]


@pytest.mark.parametrize("fault", ["internal_error_every", "http_500_every"])
def test_it_never_resends_a_write_after_an_error_that_may_follow_the_work(sim, fault):
    inst = running(sim)
    sim.faults.configure(**{fault: 1}, actions={"StopInstances", "StartInstances"})

    with pytest.raises(CloudError) as raised:
        client_of(sim).stop_instances(inst.region, [inst.instance_id])

    assert raised.value.is_transient
    assert len(sim.requests("StopInstances")) == 1


def test_it_still_retries_a_read_after_an_internal_error(sim):
    inst = running(sim)
    sim.faults.configure(internal_error_every=1, actions={"DescribeInstances"})
    states = client_of(sim).describe_instance_states(inst.region, [inst.instance_id])
    assert states[inst.instance_id]["state"] == "RUNNING"
    assert len(sim.requests("DescribeInstances")) == 3


def test_it_uses_the_full_key_for_writes_too(sim):
    inst = running(sim)
    client = client_of(sim, DEFAULT_SECRET_ID, DEFAULT_SECRET_KEY)
    assert client.stop_instances(inst.region, [inst.instance_id])
    assert sim.cloud.state_at(inst.instance_id) == "STOPPING"

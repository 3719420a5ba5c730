"""Fault injection, rate limits and the request log."""

from __future__ import annotations

import time

import pytest
from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException

from apps.cloud.providers.tencent.simulator.faults import RateLimiter, RequestLog, RequestRecord

from ._sdk import cvm, describe_instances, get_monitor_data, monitor


def _codes(client, calls):
    codes = []
    for _ in range(calls):
        try:
            describe_instances(client, Limit=1)
            codes.append("OK")
        except TencentCloudSDKException as error:
            codes.append(error.get_code())
    return codes


def test_it_throttles_every_nth_request(make_sim):
    sim = make_sim(rate_limits={})
    sim.faults.configure(throttle_every=2)

    codes = _codes(cvm(sim), 4)

    assert codes == ["OK", "RequestLimitExceeded", "OK", "RequestLimitExceeded"]


def test_it_injects_internal_errors_from_the_constructor(make_sim):
    sim = make_sim(rate_limits={}, internal_error_every=3)

    assert _codes(cvm(sim), 3) == ["OK", "OK", "InternalError"]


def test_it_surfaces_http_500_as_server_network_error(make_sim):
    sim = make_sim(rate_limits={})
    sim.faults.configure(http_500_every=1)

    with pytest.raises(TencentCloudSDKException) as caught:
        describe_instances(cvm(sim))

    assert caught.value.get_code() == "ServerNetworkError"
    assert sim.request_log.count("DescribeInstances", outcome="HTTP500") == 1


def test_it_limits_faults_to_the_chosen_actions(make_sim):
    sim = make_sim(rate_limits={})
    sim.faults.configure(throttle_every=1, actions=["GetMonitorData"])
    instance_id = sim.cloud.instances(region="ap-guangzhou")[0].instance_id

    assert _codes(cvm(sim), 2) == ["OK", "OK"]
    with pytest.raises(TencentCloudSDKException) as caught:
        get_monitor_data(monitor(sim), [instance_id], MetricName="GpuUtil")
    assert caught.value.get_code() == "RequestLimitExceeded"

    sim.faults.clear()
    get_monitor_data(monitor(sim), [instance_id], MetricName="GpuUtil")


def test_it_slows_answers_down(make_sim):
    sim = make_sim(rate_limits={}, delay_ms=200)

    started = time.monotonic()
    describe_instances(cvm(sim))

    assert time.monotonic() - started >= 0.2


def test_it_enforces_a_per_second_limit_per_secret_id_and_action(make_sim):
    sim = make_sim(rate_limits={"DescribeInstances": 2})

    codes = _codes(cvm(sim), 5)

    assert codes[:2] == ["OK", "OK"]
    assert "RequestLimitExceeded" in codes[2:]
    assert sim.max_requests_in_any_window("DescribeInstances") == 5
    records = sim.request_log.records("DescribeInstances")
    assert [r.outcome for r in records] == codes
    assert {r.secret_id for r in records} == {"AKIDsimulator0000000000000000000000"}


def test_it_uses_the_documented_limits_by_default(make_sim):
    sim = make_sim()

    assert sim.rate_limiter.limits["DescribeBillDetail"] == 5
    assert sim.rate_limiter.limits["GetMonitorData"] == 20
    assert sim.rate_limiter.limits["DescribeInstances"] == 40
    assert sim.rate_limiter.limits["DescribeAccountBalance"] == 20


def test_it_slides_the_rate_limit_window():
    limiter = RateLimiter({"DescribeBillDetail": 5})

    accepted = [limiter.allow("AKID", "DescribeBillDetail", at=t / 10) for t in range(12)]

    # 0.0-0.4 pass, 0.5-0.9 are over the limit, 1.0 and 1.1 pass as 0.0 and 0.1 leave the window.
    assert accepted == [True] * 5 + [False] * 5 + [True] * 2
    assert limiter.allow("other", "DescribeBillDetail", at=0.95)


def test_it_finds_the_busiest_window_in_the_request_log():
    log = RequestLog()
    for moment in (0.0, 0.5, 0.9, 1.2, 1.3, 1.35, 3.0):
        log.append(RequestRecord(moment, moment, "billing", "DescribeBillDetail", "AKID", "OK"))
    log.append(RequestRecord(1.3, 1.3, "cvm", "DescribeInstances", "AKID", "OK"))

    assert log.max_requests_in_any_window("DescribeBillDetail", 1.0) == 5
    assert log.max_requests_in_any_window("DescribeBillDetail", 0.2) == 3
    assert log.max_requests_in_any_window("DescribeInstances") == 1

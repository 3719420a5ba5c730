"""The wire protocol: TC3 signatures, the envelope, Content-Type and the generic error codes."""

from __future__ import annotations

import time

import pytest
from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException

from ._sdk import cvm, describe_instances, raw_call


def test_it_answers_the_sdk_with_a_request_id(sim):
    response = describe_instances(cvm(sim), Limit=1)

    assert response.TotalCount > 0
    assert len(response.RequestId) == 36


def test_it_rejects_a_wrong_secret_key_with_signature_failure(sim):
    client = cvm(sim, secret_key="wrongwrongwrongwrongwrongwrong00")

    with pytest.raises(TencentCloudSDKException) as caught:
        describe_instances(client)

    assert caught.value.get_code() == "AuthFailure.SignatureFailure"
    assert caught.value.get_request_id()


def test_it_rejects_an_unknown_secret_id(sim):
    client = cvm(sim, secret_id="AKIDunknown00000000000000000000000")

    with pytest.raises(TencentCloudSDKException) as caught:
        describe_instances(client)

    assert caught.value.get_code() == "AuthFailure.SecretIdNotFound"


def test_it_rejects_a_timestamp_more_than_five_minutes_off(sim):
    status, _, body = raw_call(sim, "cvm", "DescribeInstances", timestamp=int(time.time()) - 301)

    assert status == 200
    assert body["Response"]["Error"]["Code"] == "AuthFailure.SignatureExpire"


def test_it_honours_extra_signed_headers(sim):
    _, _, body = raw_call(sim, "cvm", "DescribeInstances", extra_signed=("x-tc-action",))

    assert "Error" not in body["Response"]
    assert body["Response"]["TotalCount"] > 0


def test_it_sends_content_type_exactly_application_json_also_on_errors(sim):
    _, ok_type, _ = raw_call(sim, "cvm", "DescribeInstances")
    _, error_type, body = raw_call(sim, "cvm", "NoSuchThing")

    assert ok_type == "application/json"
    assert error_type == "application/json"
    assert body["Response"]["Error"]["Code"] == "InvalidAction"


def test_it_rejects_an_unknown_version(sim):
    _, _, body = raw_call(sim, "cvm", "DescribeInstances", version="2099-01-01")

    assert body["Response"]["Error"]["Code"] == "NoSuchVersion"


def test_it_rejects_a_region_outside_the_fleet(sim):
    with pytest.raises(TencentCloudSDKException) as caught:
        describe_instances(cvm(sim, region="ap-beijing"))

    assert caught.value.get_code() == "UnsupportedRegion"


def test_it_requires_a_region_for_regional_apis(sim):
    _, _, body = raw_call(sim, "cvm", "DescribeInstances", region=None)

    assert body["Response"]["Error"]["Code"] == "MissingParameter"


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"Limit": 101}, "InvalidParameterValue.LimitExceeded"),
        ({"Limit": "10"}, "InvalidParameter"),
        ({"Bogus": 1}, "UnknownParameter"),
        ({"Filters": [{"Name": "flavour", "Values": ["x"]}]}, "InvalidFilter"),
        ({"InstanceIds": ["not-an-id"]}, "InvalidInstanceId.Malformed"),
    ],
)
def test_it_validates_parameters_with_the_real_codes(sim, params, code):
    _, _, body = raw_call(sim, "cvm", "DescribeInstances", params)

    assert body["Response"]["Error"]["Code"] == code


def test_it_reports_missing_required_parameters(sim):
    _, _, body = raw_call(sim, "monitor", "GetMonitorData", {"Namespace": "QCE/CVM"})

    assert body["Response"]["Error"]["Code"] == "MissingParameter"
    assert "MetricName" in body["Response"]["Error"]["Message"]

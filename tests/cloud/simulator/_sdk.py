"""Real SDK clients pointed at a simulator, and typed call helpers (no patching of the SDK)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from tencentcloud.billing.v20180709 import billing_client
from tencentcloud.billing.v20180709 import models as billing_models
from tencentcloud.common import credential
from tencentcloud.common.profile.client_profile import ClientProfile
from tencentcloud.common.profile.http_profile import HttpProfile
from tencentcloud.cvm.v20170312 import cvm_client
from tencentcloud.cvm.v20170312 import models as cvm_models
from tencentcloud.monitor.v20180724 import models as monitor_models
from tencentcloud.monitor.v20180724 import monitor_client
from tencentcloud.tag.v20180813 import tag_client

from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatorServer,
)

# A Wednesday, 14:30 in Beijing: day-only instances are running, bills of the month so far exist.
NOW = datetime(2026, 11, 18, 6, 30, 17, tzinfo=UTC)
MONTH = "2026-11"


def profile(sim: SimulatorServer) -> ClientProfile:
    """A client profile pointing every service at the simulator over plain HTTP."""
    return ClientProfile(
        httpProfile=HttpProfile(protocol="http", endpoint=sim.endpoint, reqTimeout=10),
        language="en-US",
    )


def cred(secret_id: str = DEFAULT_SECRET_ID, secret_key: str = DEFAULT_SECRET_KEY) -> Any:
    """SDK credential, the default pair unless told otherwise."""
    return credential.Credential(secret_id, secret_key)


def cvm(sim: SimulatorServer, region: str = "ap-guangzhou", **cred_args: str) -> Any:
    """A real CvmClient."""
    return cvm_client.CvmClient(cred(**cred_args), region, profile(sim))


def monitor(sim: SimulatorServer, region: str = "ap-guangzhou") -> Any:
    """A real MonitorClient."""
    return monitor_client.MonitorClient(cred(), region, profile(sim))


def billing(sim: SimulatorServer) -> Any:
    """A real BillingClient (billing is not regional)."""
    return billing_client.BillingClient(cred(), "", profile(sim))


def tag(sim: SimulatorServer) -> Any:
    """A real TagClient."""
    return tag_client.TagClient(cred(), "ap-guangzhou", profile(sim))


def describe_instances(client: Any, **params: Any) -> Any:
    """DescribeInstances through the typed model."""
    request = cvm_models.DescribeInstancesRequest()
    request.from_json_string(json.dumps(params))
    return client.DescribeInstances(request)


def get_monitor_data(client: Any, instance_ids: list[str], **params: Any) -> Any:
    """GetMonitorData (QCE/CVM) through the typed model."""
    body = {
        "Namespace": "QCE/CVM",
        "Instances": [{"Dimensions": [{"Name": "InstanceId", "Value": i}]} for i in instance_ids],
        **params,
    }
    request = monitor_models.GetMonitorDataRequest()
    request.from_json_string(json.dumps(body))
    return client.GetMonitorData(request)


def describe_bill_detail(client: Any, **params: Any) -> Any:
    """DescribeBillDetail through the typed model."""
    request = billing_models.DescribeBillDetailRequest()
    request.from_json_string(json.dumps(params))
    return client.DescribeBillDetail(request)


def raw_call(
    sim: SimulatorServer,
    service: str,
    action: str,
    params: dict[str, Any] | None = None,
    *,
    version: str | None = None,
    region: str | None = "ap-guangzhou",
    timestamp: int | None = None,
    extra_signed: tuple[str, ...] = (),
) -> tuple[int, str, dict[str, Any]]:
    """A hand-signed JSON POST (for what the SDK cannot send): status, Content-Type, body."""
    import time
    import urllib.request

    from apps.cloud.providers.tencent.simulator.constants import SERVICE_VERSIONS
    from apps.cloud.providers.tencent.simulator.signature import sign_headers

    body = json.dumps(params or {}).encode()
    headers = sign_headers(
        secret_id=DEFAULT_SECRET_ID,
        secret_key=DEFAULT_SECRET_KEY,
        service=service,
        action=action,
        version=version or SERVICE_VERSIONS.get(service, "2017-03-12"),
        body=body,
        host=sim.endpoint,
        timestamp=int(time.time()) if timestamp is None else timestamp,
        region=region,
        extra_signed=extra_signed,
    )
    request = urllib.request.Request(f"http://{sim.endpoint}/", data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.headers["Content-Type"], json.loads(response.read())

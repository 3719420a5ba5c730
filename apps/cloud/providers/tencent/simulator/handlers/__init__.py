"""API handlers by (service, action). Each takes (RequestContext, params) and returns the
Response body without RequestId, or raises ApiError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import billing, cvm, monitor, power, tag
from .params import RequestContext

Handler = Callable[[RequestContext, dict[str, Any]], dict[str, Any]]

# (service, action) -> (handler, whether the action is regional and needs X-TC-Region).
ACTIONS: dict[tuple[str, str], tuple[Handler, bool]] = {
    ("cvm", "DescribeInstances"): (cvm.describe_instances, True),
    ("cvm", "DescribeInstanceTypeConfigs"): (cvm.describe_instance_type_configs, True),
    ("cvm", "DescribeZoneInstanceConfigInfos"): (cvm.describe_zone_instance_config_infos, True),
    ("cvm", "StopInstances"): (power.stop_instances, True),
    ("cvm", "StartInstances"): (power.start_instances, True),
    ("monitor", "GetMonitorData"): (monitor.get_monitor_data, True),
    ("billing", "DescribeBillDetail"): (billing.describe_bill_detail, False),
    ("billing", "DescribeAccountBalance"): (billing.describe_account_balance, False),
    ("tag", "DescribeResourceTagsByResourceIds"): (
        tag.describe_resource_tags_by_resource_ids,
        False,
    ),
}

__all__ = ["ACTIONS", "Handler", "RequestContext"]

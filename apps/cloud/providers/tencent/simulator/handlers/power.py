"""CVM 2017-03-12: StopInstances and StartInstances (the rules live in ``power.py``)."""

from __future__ import annotations

from typing import Any

from ..errors import ApiError
from ..power import start_instances as start
from ..power import stop_instances as stop
from .params import RequestContext, check, string_list


def stop_instances(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """StopInstances: InstanceIds (<= 100), StopType SOFT|HARD|SOFT_FIRST (default SOFT),
    StoppedMode KEEP_CHARGING|STOP_CHARGING (default KEEP_CHARGING), ForceStop (deprecated;
    not together with StopType)."""
    check(
        params,
        {"InstanceIds": list, "ForceStop": bool, "StopType": str, "StoppedMode": str},
        required=("InstanceIds",),
    )
    if params.get("ForceStop") is not None and params.get("StopType") is not None:
        raise ApiError(
            "InvalidParameterCombination",
            "The parameters `ForceStop` and `StopType` cannot be used together.",
        )
    stop_type = params.get("StopType") or ("SOFT_FIRST" if params.get("ForceStop") else "SOFT")
    stop(
        ctx.cloud,
        string_list(params["InstanceIds"], "InstanceIds"),
        region=ctx.region,
        stopped_mode=params.get("StoppedMode") or "KEEP_CHARGING",
        stop_type=stop_type,
        now=ctx.now,
        request_id=ctx.request_id,
        required_tag=ctx.resource_tag,
    )
    return {}


def start_instances(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """StartInstances: InstanceIds (<= 100), each STOPPED."""
    check(params, {"InstanceIds": list}, required=("InstanceIds",))
    start(
        ctx.cloud,
        string_list(params["InstanceIds"], "InstanceIds"),
        region=ctx.region,
        now=ctx.now,
        request_id=ctx.request_id,
        required_tag=ctx.resource_tag,
    )
    return {}

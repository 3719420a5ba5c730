"""Monitor 2018-07-24: GetMonitorData for the QCE/CVM namespace."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..constants import BEIJING, MONITOR_SUPPORTED_PERIODS, iso_beijing, to_epoch
from ..errors import ApiError, invalid_value
from ..metrics import canonical_metric
from .params import RequestContext, check

NAMESPACE = "QCE/CVM"
# Code answered when a request asks for more instances or points than allowed. It is in the
# monitor SDK's errorcodes.py; the real gateway's exact code for this case is undocumented.
MONITOR_LIMIT_ERROR_CODE = "LimitExceeded"

AVG, MAX, MIN = 1, 2, 4


def _parse_time(name: str, value: str) -> int:
    """ISO-8601 with an offset (``2018-09-22T19:51:23+08:00``); no offset means Beijing time."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise invalid_value(name, "expected ISO-8601 such as 2018-09-22T19:51:23+08:00") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=BEIJING)
    return to_epoch(moment)


def _instance_ids(instances: list[Any]) -> list[str]:
    ids: list[str] = []
    for item in instances:
        dims = item.get("Dimensions") if isinstance(item, dict) else None
        if not isinstance(dims, list) or not dims:
            raise ApiError("MissingParameter", "Each of `Instances` needs `Dimensions`.")
        values = {d.get("Name"): d.get("Value") for d in dims if isinstance(d, dict)}
        instance_id = values.get("InstanceId")
        if not isinstance(instance_id, str):
            raise invalid_value("Instances.Dimensions", "QCE/CVM needs the dimension InstanceId")
        ids.append(instance_id)
    return ids


def get_monitor_data(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """Points of one metric for up to ``max_instances`` instances of the request's region."""
    check(
        params,
        {
            "Namespace": str,
            "MetricName": str,
            "Instances": list,
            "Period": int,
            "StartTime": str,
            "EndTime": str,
            "SpecifyStatistics": int,
        },
        required=("Namespace", "MetricName", "Instances"),
    )
    if params["Namespace"].upper() != NAMESPACE:
        raise invalid_value("Namespace", f"only {NAMESPACE} is available")
    metric = canonical_metric(params["MetricName"])
    if metric is None:
        raise invalid_value("MetricName", f"metric {params['MetricName']} does not exist")
    settings = ctx.cloud.monitor
    ids = _instance_ids(params["Instances"])
    if not ids:
        raise ApiError(
            "MissingParameter", "The request is missing a required parameter `Instances`."
        )
    if len(ids) > settings.max_instances:
        raise ApiError(
            MONITOR_LIMIT_ERROR_CODE,
            f"The number of instances ({len(ids)}) exceeds the limit of "
            f"{settings.max_instances} per request.",
        )
    period = params.get("Period", 300)
    if period not in MONITOR_SUPPORTED_PERIODS:
        raise invalid_value("Period", f"supported periods are {MONITOR_SUPPORTED_PERIODS}")
    end = _parse_time("EndTime", params["EndTime"]) if "EndTime" in params else ctx.now
    start = _parse_time("StartTime", params["StartTime"]) if "StartTime" in params else end - 3600
    if start > end:
        raise invalid_value("StartTime", "StartTime must not be later than EndTime")
    first, last = start // period * period, end // period * period
    points = (last - first) // period + 1
    if points > settings.max_points:
        raise ApiError(
            MONITOR_LIMIT_ERROR_CODE,
            f"The time range holds {points} points at period {period}, more than the limit of "
            f"{settings.max_points} per instance and request.",
        )
    statistics = params.get("SpecifyStatistics", 0)
    published_until = ctx.now - settings.lag_seconds
    data_points = []
    for instance_id in ids:
        point: dict[str, Any] = {
            "Dimensions": [{"Name": "InstanceId", "Value": instance_id}],
            "Timestamps": [],
            "Values": [],
        }
        inst = ctx.cloud.fleet.by_id.get(instance_id)
        if inst is not None and inst.region == ctx.region:
            series = ctx.cloud.metrics.series(inst, metric, start, end, period, published_until)
            point["Timestamps"] = series.timestamps
            point["Values"] = series.values
            if statistics & AVG:
                point["AvgValues"] = series.values
            if statistics & MAX:
                point["MaxValues"] = series.max_values
            if statistics & MIN:
                point["MinValues"] = series.min_values
        data_points.append(point)
    return {
        "StartTime": iso_beijing(first),
        "EndTime": iso_beijing(last),
        "Period": period,
        "MetricName": params["MetricName"],
        "DataPoints": data_points,
        "Msg": "",
    }

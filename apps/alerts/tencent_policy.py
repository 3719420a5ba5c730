"""The Tencent Cloud Monitor alarm policy matching a threshold rule, as a ``tccli`` command.

Teams that want the cloud itself to alarm too can run it. The shape is the current
``CreateAlarmPolicy`` (Monitor 2018-07-24): ``Module`` "monitor", ``MonitorType`` "MT_QCE",
the alarm namespace ``cvm_device`` (not the metrics namespace "QCE/CVM"), and a ``Condition``
holding the rules, each with the metric as Cloud Monitor spells it, a lower-case operator and
the value as a *string*. The duration becomes periods: five-minute periods when it is a whole
number of them (``Period`` 300), else one-minute periods, held for ``ContinuePeriod`` periods.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from apps.alerts.models import Comparison, ThresholdRule
from apps.metrics.constants import Metric

#: Our metric -> Cloud Monitor's name (the intl spelling; names are case-insensitive there).
CLOUD_MONITOR_METRICS: dict[str, str] = {
    Metric.GPU_UTIL_PCT: "GpuUtil",
    Metric.GPU_MEM_USED_PCT: "GpuMemUsage",
    Metric.GPU_MEM_USED_MB: "GpuMemUsed",
    Metric.GPU_TEMP_C: "GpuTemp",
    Metric.GPU_POWER_W: "GpuPowDraw",
    Metric.CPU_UTIL_PCT: "CpuUsage",
    Metric.MEM_UTIL_PCT: "MemUsage",
}
OPERATORS = {Comparison.ABOVE: "gt", Comparison.BELOW: "lt"}
#: How often Cloud Monitor re-sends the notice while the alarm lasts (seconds).
NOTICE_FREQUENCY_S = 3600


def _periods(duration_minutes: int) -> tuple[int, int]:
    if duration_minutes % 5 == 0:
        return 300, duration_minutes // 5
    return 60, duration_minutes


def _value(threshold: float) -> str:
    return f"{threshold:g}"


def alarm_policy_request(rule: ThresholdRule) -> dict[str, Any]:
    """The ``CreateAlarmPolicy`` request parameters for ``rule``."""
    period, continue_period = _periods(rule.duration_minutes)
    return {
        "Module": "monitor",
        "PolicyName": f"gpu-ledger-{rule.name}"[:30],
        "MonitorType": "MT_QCE",
        "Namespace": "cvm_device",
        "Condition": {
            "IsUnionRule": 0,
            "Rules": [
                {
                    "MetricName": CLOUD_MONITOR_METRICS[rule.metric],
                    "Period": period,
                    "Operator": OPERATORS[Comparison(rule.comparison)],
                    "Value": _value(rule.threshold),
                    "ContinuePeriod": continue_period,
                    "NoticeFrequency": NOTICE_FREQUENCY_S,
                    "IsPowerNotice": 0,
                }
            ],
        },
    }


def alarm_policy_command(rule: ThresholdRule) -> str:
    """The exact ``tccli monitor CreateAlarmPolicy`` command line, quoted for a POSIX shell."""
    request = alarm_policy_request(rule)
    words = ["tccli", "monitor", "CreateAlarmPolicy"]
    for key in ("Module", "PolicyName", "MonitorType", "Namespace"):
        words += [f"--{key}", str(request[key])]
    words += ["--Condition", json.dumps(request["Condition"], separators=(",", ":"))]
    return " ".join(shlex.quote(word) for word in words)

"""The checks before every stop: may automation touch this instance now?

In order, the first that fails decides (its reason code is recorded on the action):

1. the organization's switch (``AutomationSettings.paused``) -> ``automation_paused``;
2. the plan is active -> else ``plan_not_active`` (the action is cancelled);
3. the cloud account has automation on and a write key -> ``automation_disabled`` /
   ``read_only_credential``;
4. the instance's tags do not opt out (``gpu-ledger:automation=off``) -> ``opted_out``: never
   touched, stops and starts alike;
5. (stops only) the latest minutes of GPU metrics: the newest point must be at most
   ``METRICS_MAX_AGE`` old, else ``no_recent_metrics`` (the metrics sync runs per cloud account
   and has no path for one instance, so the guard does not fetch: it does not stop what it
   cannot see); averaged over the ``BUSY_WINDOW`` ending at that point, GPU utilization above
   ``automation_busy_gpu_util_pct`` -> ``busy_gpu_util``, GPU memory used above
   ``automation_busy_gpu_mem_pct`` -> ``busy_gpu_mem`` (unless the plan's owner confirmed the
   instance may be stopped while it holds memory: ``memory_held_confirmed``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import numpy as np

from apps.automation import cloud
from apps.automation import reasons as r
from apps.automation.models import AutomationPlan, AutomationSettings, PlanStatus
from apps.cloud.models import Instance
from apps.metrics.constants import Metric
from apps.metrics.selectors import metrics_read_many
from apps.recommendations.rules import RuleThresholds

OPT_OUT_TAG = "gpu-ledger:automation"
OPT_OUT_VALUE = "off"
BUSY_WINDOW = dt.timedelta(minutes=15)
METRICS_MAX_AGE = dt.timedelta(minutes=20)


@dataclasses.dataclass(frozen=True)
class Verdict:
    reason: str = ""
    params: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.reason


OK = Verdict()


def organization_paused(organization_id: int) -> bool:
    return AutomationSettings.objects.filter(organization_id=organization_id, paused=True).exists()


def opted_out(instance: Instance) -> bool:
    tags = instance.tags or {}
    value = tags.get(OPT_OUT_TAG) if isinstance(tags, dict) else None
    return str(value or "").strip().lower() == OPT_OUT_VALUE


def account_refusal(instance: Instance) -> str:
    """Why the instance's cloud account cannot be automated ("" when it can)."""
    account = instance.account
    if account is None:
        return r.NO_CLOUD_ACCOUNT
    if not cloud.has_write_credential(account):
        return r.READ_ONLY_CREDENTIAL
    if not cloud.automation_enabled(account):
        return r.AUTOMATION_DISABLED
    return ""


def recent_gpu(instance: Instance, now: dt.datetime) -> tuple[float, float] | None:
    """(GPU utilization %, GPU memory used %) averaged over the ``BUSY_WINDOW`` ending at the
    newest minute with a utilization point, or None when that point is older than
    ``METRICS_MAX_AGE`` (or there is none)."""
    start = now - METRICS_MAX_AGE - BUSY_WINDOW
    values = metrics_read_many(
        instance_ids=[instance.pk],
        metrics=[Metric.GPU_UTIL_PCT, Metric.GPU_MEM_USED_PCT],
        start=start,
        end=now,
    )
    util = values[Metric.GPU_UTIL_PCT.value][0]
    mem = values[Metric.GPU_MEM_USED_PCT.value][0]
    seen = np.flatnonzero(np.isfinite(util))
    if seen.size == 0:
        return None
    newest = int(seen[-1])
    # Column j is the minute starting j minutes after ``start`` (floored to the minute).
    first_minute = start.replace(second=0, microsecond=0)
    if first_minute + dt.timedelta(minutes=newest + 1) < now - METRICS_MAX_AGE:
        return None
    width = int(BUSY_WINDOW.total_seconds() // 60)
    lo = max(0, newest + 1 - width)
    util_window = util[lo : newest + 1]
    mem_window = mem[lo : newest + 1]
    util_avg = float(np.nanmean(util_window))
    mem_avg = float(np.nanmean(mem_window)) if np.isfinite(mem_window).any() else 0.0
    return util_avg, mem_avg


def stop_guard(
    *, plan: AutomationPlan, instance: Instance, thresholds: RuleThresholds, now: dt.datetime
) -> Verdict:
    """May automation stop ``instance`` for ``plan`` now (see the module)?"""
    common = common_guard(plan=plan, instance=instance)
    if not common.ok:
        return common
    recent = recent_gpu(instance, now)
    if recent is None:
        return Verdict(r.NO_RECENT_METRICS)
    util, mem = recent
    figures = {"gpu_util_pct": round(util, 1), "gpu_mem_used_pct": round(mem, 1)}
    if util > thresholds.automation_busy_gpu_util_pct:
        return Verdict(
            r.BUSY_GPU_UTIL, {**figures, "threshold_pct": thresholds.automation_busy_gpu_util_pct}
        )
    if mem > thresholds.automation_busy_gpu_mem_pct and not plan.memory_held_confirmed:
        return Verdict(
            r.BUSY_GPU_MEM, {**figures, "threshold_pct": thresholds.automation_busy_gpu_mem_pct}
        )
    return OK


def common_guard(*, plan: AutomationPlan, instance: Instance) -> Verdict:
    """The checks of stops and starts alike: switch, plan, account, opt-out tag."""
    if organization_paused(plan.organization_id):
        return Verdict(r.AUTOMATION_PAUSED)
    if plan.status != PlanStatus.ACTIVE:
        return Verdict(r.PLAN_NOT_ACTIVE)
    refusal = account_refusal(instance)
    if refusal:
        return Verdict(refusal)
    if opted_out(instance):
        return Verdict(r.OPTED_OUT)
    return OK

"""Stop idle: an instance idle around the clock, truly idle or idle-held.

Truly idle (no GPU memory held): stop it. Idle-held (GPU memory held at ~0 % utilization: a
notebook left open, a hung or failed job): tell the owner before anyone stops it. They are two
kinds so that their money is reported separately.

A subscription already stopped (and quiet) is idle too, but stopping it saves nothing: a stopped
monthly subscription keeps billing until its term ends. Its finding is "do not renew, release at
the end of the term", priced as the month the bill stops charging (``stopped_subscription``).
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from .common import (
    STOPPED_QUIET_HOURS,
    PaidPrice,
    cents,
    chart_range,
    confidence,
    instance_ids_arg,
    label,
    lookback_days,
    month_hours,
    no_price,
    paid_price,
    pct,
    price_evidence,
    running_hours_per_month,
    still_billed,
    stop_command,
    stop_evidence,
)
from .thresholds import RuleThresholds
from .types import (
    PREPAID,
    PRICE_FROM_BILLS,
    STOPPED,
    Confidence,
    Finding,
    InstanceEvidence,
    Risk,
    Saving,
    Text,
)

STOP_IDLE = "stop_idle"
IDLE_HELD = "idle_held"
#: ``parameters["variant"]`` of the stop-idle finding of a stopped subscription.
STOPPED_SUBSCRIPTION = "stopped_subscription"


def idle_hours(ev: InstanceEvidence, th: RuleThresholds) -> tuple[np.ndarray, np.ndarray]:
    """(observed hours, idle hours) masks over the lookback's UTC hours."""
    observed = ev.observed_minutes > 0
    with np.errstate(invalid="ignore"):
        idle = observed & (ev.gpu_util_p95 <= th.idle_gpu_util_p95_max_pct)
    return observed, idle


def stop_idle(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """One finding when at least ``idle_min_share`` of the observed hours were idle."""
    if ev.evidence_days < th.idle_min_evidence_days:
        return []
    observed, idle = idle_hours(ev, th)
    observed_count, idle_count = int(observed.sum()), int(idle.sum())
    if not observed_count or idle_count < th.idle_min_share * observed_count:
        return []
    with np.errstate(invalid="ignore"):
        held = idle & (ev.gpu_mem_avg >= th.idle_held_gpu_mem_min_pct)
    held_count = int(held.sum())
    kind = IDLE_HELD if held_count * 2 >= idle_count else STOP_IDLE
    price = paid_price(ev, th)
    currency = ev.currency
    if price is None:
        saving = no_price(currency)
    elif ev.charge_type == PREPAID:
        saving = _not_renewed(ev, th, price)
    else:
        hours, hours_text = running_hours_per_month(ev, th)
        amount = cents(price.hourly * hours)
        saving = Saving(
            amount,
            currency,
            Text(
                "stop_idle.formula",
                {
                    "hourly": price.hourly,
                    "currency": currency,
                    "hours": hours,
                    "amount": amount,
                    "price": price.text,
                    "hours_text": hours_text,
                },
            ),
            price.source,
        )
    util_mean = float(np.nanmean(ev.gpu_util_avg[observed])) if observed_count else 0.0
    mem_mean = float(np.nanmean(ev.gpu_mem_avg[observed])) if observed_count else 0.0
    evidence = {
        "observed_hours": observed_count,
        "idle_hours": idle_count,
        "idle_held_hours": held_count,
        "idle_share_pct": round(100.0 * idle_count / observed_count, 1),
        "gpu_util_avg_pct": round(util_mean, 2),
        "gpu_mem_avg_pct": round(mem_mean, 2),
        "idle_gpu_util_p95_max_pct": th.idle_gpu_util_p95_max_pct,
        "billed_hours": str(ev.billed_hours),
        "billed_runtime_cost": str(cents(ev.billed_runtime_cost)),
        "chart": "metrics",
        "chart_range": chart_range(ev),
        **({} if ev.charge_type == PREPAID else stop_evidence(price, currency)),
        **price_evidence(price, currency),
    }
    name = label(ev)
    kept = still_billed(price, currency)
    said = {
        "name": name,
        "idle": idle_count,
        "observed": observed_count,
        "days": lookback_days(ev),
    }
    if kind == STOP_IDLE:
        title = Text("stop_idle.title", {"name": name})
        said |= {"max": pct(th.idle_gpu_util_p95_max_pct), "avg": f"{util_mean:.1f}", "kept": kept}
        if price and ev.charge_type != PREPAID:
            explanation = Text(
                "stop_idle.explanation.priced", said | {"note": price.stop_note(currency)}
            )
        else:
            explanation = Text("stop_idle.explanation", said)
        steps = [
            Text("stop_idle.step.check"),
            Text("stop_idle.step.stop", {"kept": kept}),
            Text("stop_idle.step.release"),
        ]
        risk = Risk(1, Text("stop_idle.risk"))
    else:
        title = Text("idle_held.title", {"name": name})
        explanation = Text(
            "idle_held.explanation", said | {"held": held_count, "mem": f"{mem_mean:.1f}"}
        )
        steps = [
            Text("idle_held.step.tell"),
            Text("idle_held.step.end"),
            Text("idle_held.step.stop"),
        ]
        risk = Risk(3, Text("idle_held.risk"))
    if ev.charge_type == PREPAID:
        steps.append(Text("stop_idle.step.no_renewal"))
        commands = [
            f"tccli cvm ModifyInstancesRenewFlag --region {ev.region} "
            f"{instance_ids_arg([ev.provider_id])} --RenewFlag DISABLE_NOTIFY_AND_MANUAL_RENEW"
        ]
    else:
        commands = [stop_command(ev.region, [ev.provider_id])]
    return [
        Finding(
            kind=kind,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={},
            title=title,
            explanation=explanation,
            saving=saving,
            confidence=confidence(ev, th, th.idle_min_evidence_days),
            risk=risk,
            evidence=evidence,
            action={"steps": steps, "commands": commands},
        )
    ]


def _not_renewed(ev: InstanceEvidence, th: RuleThresholds, price: PaidPrice) -> Saving:
    """A subscription's month, saved by not renewing it (stopping it saves nothing)."""
    currency = ev.currency
    offer = ev.offer()
    monthly = offer.monthly_prepaid if offer and offer.monthly_prepaid else Decimal(0)
    formula = Text("stop_idle.formula.subscription", {"monthly": monthly, "currency": currency})
    if price.source == PRICE_FROM_BILLS:
        # What the bills say it costs: its runtime amortized, a month of hours.
        monthly = cents(price.hourly * month_hours(th))
        formula = Text(
            "stop_idle.formula.amortized",
            {
                "hourly": price.hourly,
                "currency": currency,
                "hours": month_hours(th),
                "monthly": monthly,
                "price": price.text,
            },
        )
    return Saving(cents(monthly), currency, formula, price.source)


def quiet_hours(ev: InstanceEvidence) -> int:
    """The trailing hours of the lookback without a metric minute."""
    observed = np.nan_to_num(ev.observed_minutes) > 0
    seen = np.flatnonzero(observed)
    return int(observed.size if seen.size == 0 else observed.size - 1 - seen[-1])


def stopped_subscription(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """A monthly subscription stopped and quiet for at least ``STOPPED_QUIET_HOURS``: it still
    bills, so the advice is not to renew it and to release it at the end of its term, with the
    month that saves (its amortized runtime from the bills, else the catalog's subscription)."""
    if ev.charge_type != PREPAID or ev.state != STOPPED:
        return []
    quiet = quiet_hours(ev)
    if quiet < STOPPED_QUIET_HOURS:
        return []
    price = paid_price(ev, th)
    currency = ev.currency
    saving = no_price(currency) if price is None else _not_renewed(ev, th, price)
    name = label(ev)
    return [
        Finding(
            kind=STOP_IDLE,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={"variant": STOPPED_SUBSCRIPTION},
            title=Text("stopped_subscription.title", {"name": name}),
            explanation=Text(
                "stopped_subscription.explanation",
                {
                    "name": name,
                    "hours": quiet,
                    "monthly": saving.monthly_amount,
                    "currency": currency,
                },
            ),
            saving=saving,
            # The evidence is the inventory's state and the hours without a metric, and a
            # stopped subscription bills by definition: nothing here is a guess.
            confidence=Confidence(
                evidence_days=round(quiet / 24, 2),
                coverage_pct=confidence(ev, th, 0).coverage_pct,
                level="high",
            ),
            risk=Risk(1, Text("stopped_subscription.risk")),
            evidence={
                "state": ev.state,
                "quiet_hours": quiet,
                "billed_runtime_cost": str(cents(ev.billed_runtime_cost)),
                "billed_hours": str(ev.billed_hours),
                "chart": "metrics",
                "chart_range": chart_range(ev),
                **price_evidence(price, currency),
            },
            action={
                "steps": [
                    Text("stop_idle.step.check"),
                    Text("stopped_subscription.step.renewal"),
                    Text("stopped_subscription.step.release"),
                ],
                "commands": [
                    f"tccli cvm ModifyInstancesRenewFlag --region {ev.region} "
                    f"{instance_ids_arg([ev.provider_id])} "
                    "--RenewFlag DISABLE_NOTIFY_AND_MANUAL_RENEW"
                ],
            },
        )
    ]

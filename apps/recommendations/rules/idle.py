"""Stop idle: an instance idle around the clock, truly idle or idle-held.

Truly idle (no GPU memory held): stop it. Idle-held (GPU memory held at ~0 % utilization: a
notebook left open, a hung or failed job): tell the owner before anyone stops it. They are two
kinds so that their money is reported separately.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from .common import (
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
from .types import PREPAID, PRICE_FROM_BILLS, Finding, InstanceEvidence, Risk, Saving, Text

STOP_IDLE = "stop_idle"
IDLE_HELD = "idle_held"


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
        saving = Saving(cents(monthly), currency, formula, price.source)
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

"""Right-sizing: downsize (smaller type in the family) and upsize for memory pressure.

Upsize is priced per unit of work (samples/s from the throughput table), not per hour: a
bigger card that finishes the same work sooner can cost less.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from .common import (
    cents,
    chart_range,
    confidence,
    hourly_share,
    instance_ids_arg,
    is_payg,
    label,
    lookback_days,
    month_hours,
    offer_hourly,
    paid_price,
    price_evidence,
    running_hours_per_month,
)
from .thresholds import RuleThresholds
from .throughput import samples_per_second
from .types import Finding, InstanceEvidence, Risk, Saving, TypeOffer

DOWNSIZE = "downsize"
UPSIZE = "upsize"


def downsize(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """The cheapest type of the family that runs the observed peak under the target load."""
    if not is_payg(ev) or ev.evidence_days < th.downsize_min_evidence_days:
        return []
    observed = ev.observed_minutes > 0
    util = ev.gpu_util_p95[observed & ~np.isnan(ev.gpu_util_p95)]
    mem = ev.gpu_mem_p95[observed & ~np.isnan(ev.gpu_mem_p95)]
    if not util.size or not mem.size:
        return []
    util_p95 = float(np.percentile(util, 95))
    mem_peak = float(mem.max())
    if util_p95 >= th.downsize_gpu_util_p95_max_pct or mem_peak >= th.downsize_gpu_mem_peak_max_pct:
        return []
    current = ev.offer()
    if current is None or current.hourly_postpaid is None or ev.gpu_count <= 0:
        return []
    used_cards = util_p95 / 100.0 * ev.gpu_count
    used_mem_gb = mem_peak / 100.0 * ev.gpu_count * ev.gpu_memory_gb
    candidates = [
        offer
        for offer in ev.offers
        if offer.family == ev.family
        and offer.gpu_model == ev.gpu_model
        and offer.hourly_postpaid is not None
        and offer.hourly_postpaid < current.hourly_postpaid
        and offer.gpu_count > 0
        and 100.0 * used_cards / offer.gpu_count <= th.downsize_target_load_max_pct
        and 100.0 * used_mem_gb / (offer.gpu_count * offer.gpu_memory_gb)
        <= th.downsize_target_load_max_pct
    ]
    if not candidates:
        return []
    target = min(candidates, key=lambda offer: offer.hourly_postpaid or Decimal(0))
    assert target.hourly_postpaid is not None
    price = paid_price(ev, th)
    if price is None:
        return []
    hours, hours_text = running_hours_per_month(ev, th)
    # The account's discount on the current type is assumed for the target too.
    ratio = target.hourly_postpaid / current.hourly_postpaid
    target_hourly = (price.hourly * ratio).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    amount = cents((price.hourly - target_hourly) * hours)
    currency = ev.currency
    name = label(ev)
    return [
        Finding(
            kind=DOWNSIZE,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={"to": target.instance_type},
            title=f"Downsize {name} to {target.instance_type}",
            explanation=(
                f"Over the last {lookback_days(ev)} days {name} never needed its size: p95 GPU "
                f"utilization {util_p95:.1f} % and peak GPU memory {mem_peak:.1f} %. "
                f"{target.instance_type} ({target.gpu_count:g} x {target.gpu_model}) runs the "
                f"same peak under {th.downsize_target_load_max_pct:g} % for less."
            ),
            saving=Saving(
                amount,
                currency,
                f"({price.hourly} - {target_hourly}) {currency}/h x {hours} h/month = {amount} "
                f"{currency}/month; target price {price.hourly} x catalog "
                f"{target.hourly_postpaid}/{current.hourly_postpaid} (hours: {hours_text}; "
                f"price: {price.text})",
                price.source,
            ),
            confidence=confidence(ev, th, th.downsize_min_evidence_days),
            risk=Risk(2, "Peaks beyond the lookback would run slower on the smaller type."),
            evidence={
                "gpu_util_p95_pct": round(util_p95, 2),
                "gpu_mem_peak_pct": round(mem_peak, 2),
                "target": target.instance_type,
                "chart": "metrics",
                "chart_range": chart_range(ev),
                **price_evidence(price, currency),
            },
            action={
                "steps": [
                    "Stop the instance (ResetInstancesType needs it stopped).",
                    f"Change its type to {target.instance_type}, then start it.",
                ],
                "commands": [
                    f"tccli cvm ResetInstancesType --region {ev.region} "
                    f"{instance_ids_arg([ev.provider_id])} --InstanceType {target.instance_type}"
                ],
            },
        )
    ]


def upsize(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """A bigger card (or more cards) for sustained GPU memory pressure, priced per sample."""
    if ev.evidence_days < th.upsize_min_evidence_days:
        return []
    observed = ev.observed_minutes > 0
    with np.errstate(invalid="ignore"):
        pressed = ev.gpu_mem_p95 >= th.upsize_gpu_mem_min_pct
    share = hourly_share(pressed, observed)
    if share < th.upsize_min_share:
        return []
    util_avg = float(np.nanmean(ev.gpu_util_avg[observed]))
    if util_avg < th.upsize_gpu_util_min_pct:
        return []
    price = paid_price(ev, th)
    current_rate = samples_per_second(ev.gpu_model)
    if price is None or current_rate is None or ev.gpu_count <= 0:
        return []
    current_per_hour = Decimal(str(current_rate * ev.gpu_count * 3600))
    total_mem = ev.gpu_memory_gb * ev.gpu_count
    best: tuple[Decimal, TypeOffer, Decimal, Decimal] | None = None
    for offer in ev.offers:
        rate = samples_per_second(offer.gpu_model)
        hourly = offer_hourly(offer, ev.charge_type, month_hours(th))
        if rate is None or hourly is None or offer.gpu_count <= 0:
            continue
        bigger_card = offer.gpu_memory_gb > ev.gpu_memory_gb
        more_cards = (
            offer.gpu_model == ev.gpu_model
            and offer.gpu_count > ev.gpu_count
            and offer.gpu_memory_gb * offer.gpu_count > total_mem
        )
        if not (bigger_card or more_cards):
            continue
        per_hour = Decimal(str(rate * offer.gpu_count * 3600))
        per_million = hourly / per_hour * 1_000_000
        if best is None or per_million < best[0]:
            best = (per_million, offer, hourly, per_hour)
    if best is None:
        return []
    target_per_million, target, target_hourly, target_per_hour = best
    current_per_million = price.hourly / current_per_hour * 1_000_000
    hours, hours_text = running_hours_per_month(ev, th)
    monthly = price.hourly * hours
    # The same work on the target: the month's samples at the target's cost per sample.
    target_monthly = monthly * target_per_million / current_per_million
    amount = cents(monthly - target_monthly)
    currency = ev.currency
    name = label(ev)
    cards = f"{ev.gpu_count:g} x {ev.gpu_model}"
    target_cards = f"{target.gpu_count:g} x {target.gpu_model}"
    return [
        Finding(
            kind=UPSIZE,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={"to": target.instance_type},
            title=f"Upsize {name} to {target.instance_type} (GPU memory pressure)",
            explanation=(
                f"{name} ({cards}) ran with GPU memory at or above "
                f"{th.upsize_gpu_mem_min_pct:g} % in {100 * share:.0f} % of its observed hours "
                f"while {util_avg:.0f} % busy: batches are squeezed and out-of-memory failures "
                f"are near. {target.instance_type} ({target_cards}) has more GPU memory; per "
                "unit of work (BERT-base samples) it costs "
                f"{cents(target_per_million)} instead of {cents(current_per_million)} {currency} "
                "per million samples."
            ),
            saving=Saving(
                amount,
                currency,
                f"{price.hourly} {currency}/h x {hours} h/month = {cents(monthly)} {currency} "
                f"now; the same samples on the target cost {cents(monthly)} x "
                f"{cents(target_per_million)}/{cents(current_per_million)} = "
                f"{cents(target_monthly)}; saving {amount} {currency}/month (negative: costs "
                f"more). Per million samples: hourly / (samples/s x 3600) x 1e6; "
                f"{current_per_hour:.0f} vs {target_per_hour:.0f} samples/h "
                f"(hours: {hours_text}; price: {price.text})",
                price.source,
            ),
            confidence=confidence(ev, th, th.upsize_min_evidence_days),
            risk=Risk(2, "Moving the job to another type means a restart from a checkpoint."),
            evidence={
                "memory_pressure_share_pct": round(100 * share, 1),
                "gpu_util_avg_pct": round(util_avg, 1),
                "current_samples_per_hour": str(current_per_hour),
                "target_samples_per_hour": str(target_per_hour),
                "current_cost_per_million_samples": str(cents(current_per_million)),
                "target_cost_per_million_samples": str(cents(target_per_million)),
                "target_hourly": str(target_hourly),
                "chart": "metrics",
                "chart_range": chart_range(ev),
                **price_evidence(price, currency),
            },
            action={
                "steps": [
                    "Checkpoint the job.",
                    f"Resize to (or recreate on) {target.instance_type} and resume; raise the "
                    "batch size to use the new memory.",
                ],
                "commands": [
                    f"tccli cvm ResetInstancesType --region {ev.region} "
                    f"{instance_ids_arg([ev.provider_id])} --InstanceType {target.instance_type}"
                ],
            },
        )
    ]

"""Fix a data-bound pipeline, thermal alerts and moving interruption-tolerant work to spot."""

from __future__ import annotations

import dataclasses
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from .common import (
    TENTH,
    cents,
    chart_range,
    confidence,
    hourly_share,
    is_payg,
    label,
    lookback_days,
    paid_price,
    price_evidence,
    running_hours_per_month,
)
from .thresholds import RuleThresholds
from .types import Finding, InstanceEvidence, PaidWhileWaiting, Risk, Saving, Text

PIPELINE = "data_pipeline"
THERMAL = "thermal"
SPOT = "spot"

_REAL_PHASES = ("idle", "data_processing", "evaluation", "training")
# The API name of CPU utilization in ``InstanceEvidence.phase_minutes_missing``.
CPU = "cpu_util"


def data_pipeline(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """The GPU waits for data in a large share of its analysed minutes: what that waiting costs.

    The money and GPU-hours spent waiting are ``paid_while_waiting``, not a saving (``saving``
    is None): a faster pipeline returns GPU time, and the bill stays the same.

    Data-bound is low GPU utilization with GPU memory held *and a busy CPU*. Minutes classified
    without CPU utilization (a source that lacks it) match the first two only, which an idle
    GPU holding memory matches too. When the minutes seen with CPU do not make the share on
    their own, the finding says so, asks to check before acting and has low confidence.
    """
    if ev.evidence_days < th.pipeline_min_evidence_days:
        return []
    known = sum(int(ev.phase_minutes.get(phase, 0)) for phase in _REAL_PHASES)
    waiting = int(ev.phase_minutes.get("data_processing", 0))
    if not known or waiting < th.pipeline_min_share * known:
        return []
    without_cpu = min(int(ev.phase_minutes_missing.get("data_processing", {}).get(CPU, 0)), waiting)
    confirmed = waiting - without_cpu >= th.pipeline_min_share * known
    price = paid_price(ev, th)
    currency = ev.currency
    share = Decimal(waiting) / Decimal(known)
    # Reported apart from savings (DOMAIN.md "money vs time"): fixing the pipeline gives the
    # waiting back to the work; the bill only shrinks if fewer or smaller cards follow.
    hours, hours_text = running_hours_per_month(ev, th)
    gpu_hours = (hours * Decimal(str(ev.gpu_count)) * share).quantize(TENTH, ROUND_HALF_UP)
    hours_formula = (
        f"{hours} h/month x {ev.gpu_count:g} GPU(s) x {waiting}/{known} data-bound minutes = "
        f"{gpu_hours} GPU-hours/month waiting (hours: {hours_text})"
    )
    if price is None:
        waiting_cost = PaidWhileWaiting(
            None, gpu_hours, currency, f"{hours_formula}; no price known", "none"
        )
    else:
        monthly = cents(price.hourly * hours)
        amount = cents(monthly * share)
        waiting_cost = PaidWhileWaiting(
            amount,
            gpu_hours,
            currency,
            f"{price.hourly} {currency}/h x {hours} h/month = {monthly} {currency}/month x "
            f"{waiting}/{known} data-bound minutes = {amount} {currency}/month paid while "
            f"waiting for data; {hours_formula} (price: {price.text})",
            price.source,
        )
    name = label(ev)
    share_pct = round(float(100 * share), 1)
    level = confidence(ev, th, th.pipeline_min_evidence_days)
    if confirmed:
        title = Text("data_pipeline.title", {"name": name})
        explanation = (
            f"{name} was data-bound in {share_pct} % of its analysed minutes over the last "
            f"{lookback_days(ev)} days: GPU utilization low, GPU memory allocated and the CPU "
            "busy preparing input. The card is paid for while it waits; a faster input "
            "pipeline gives that time back to training."
        )
    else:
        title = Text("data_pipeline.check.title", {"name": name})
        explanation = (
            f"{name} looked data-bound in {share_pct} % of its analysed minutes over the last "
            f"{lookback_days(ev)} days: GPU utilization low with GPU memory allocated. Its "
            f"metrics have no CPU utilization for {without_cpu} of those {waiting} minutes, so "
            "a CPU busy preparing input could not be confirmed: a job stalled on something "
            "else, or a notebook holding the card, looks the same. Check the input pipeline "
            "before acting; if it is the bottleneck, fixing it gives that time back."
        )
        level = dataclasses.replace(level, level="low")
    return [
        Finding(
            kind=PIPELINE,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={},
            title=title,
            explanation=explanation,
            saving=None,
            paid_while_waiting=waiting_cost,
            confidence=level,
            risk=Risk(0, Text("data_pipeline.risk")),
            evidence={
                "data_bound_minutes": waiting,
                "data_bound_minutes_without_cpu": without_cpu,
                "analysed_minutes": known,
                "data_bound_share_pct": share_pct,
                "running_hours_per_month": str(hours),
                "gpu_count": ev.gpu_count,
                "chart": "phases",
                "chart_range": chart_range(ev),
                **price_evidence(price, currency),
            },
            action={
                "steps": [
                    "Profile the input pipeline (e.g. torch.utils.bottleneck, tf.data profiler).",
                    "Raise DataLoader num_workers, enable pin_memory and prefetching.",
                    "Pre-process and cache the data set (decoded, resized) once, on CPU instances.",
                    "Move data next to the instance (local NVMe, CFS Turbo) instead of COS reads.",
                ],
                "commands": [],
            },
        )
    ]


def thermal(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """An operations alert: the GPU runs hot for a large share of its hours. No saving."""
    if ev.evidence_days < th.thermal_min_evidence_days:
        return []
    observed = ev.observed_minutes > 0
    with np.errstate(invalid="ignore"):
        hot = ev.gpu_temp_p95 > th.thermal_temp_min_c
    share = hourly_share(hot, observed)
    if share < th.thermal_min_share:
        return []
    peak = float(np.nanmax(ev.gpu_temp_p95[observed & hot]))
    name = label(ev)
    return [
        Finding(
            kind=THERMAL,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={},
            title=Text("thermal.title", {"name": name}),
            explanation=(
                f"{name}'s GPU temperature (p95 of the hour) was above "
                f"{th.thermal_temp_min_c:g} °C in {100 * share:.0f} % of its observed hours, up "
                f"to {peak:.0f} °C. Hot cards throttle their clocks (slower work for the same "
                "money) and fail sooner. This is an operations alert, not a saving."
            ),
            # An operations alert: nothing on the bill changes, so no saving (not a zero one).
            saving=None,
            confidence=confidence(ev, th, th.thermal_min_evidence_days),
            risk=Risk(3, Text("thermal.risk")),
            evidence={
                "hot_hours": int(np.count_nonzero(hot & observed)),
                "observed_hours": int(observed.sum()),
                "temp_p95_peak_c": round(peak, 1),
                "chart": "metrics:gpu_temp_c",
                "chart_range": chart_range(ev),
            },
            action={
                "steps": [
                    "Open a ticket with Tencent Cloud support naming the instance and the hours.",
                    "Stop and start it (STOP_CHARGING) so it is placed on another host.",
                    "Check the workload's power limit (nvidia-smi -pl) if the heat persists.",
                ],
                "commands": [],
            },
        )
    ]


def spot(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """Spot for work tagged interruption-tolerant (checkpointed training, HPO), with its risk.

    Metrics cannot tell whether a job survives being reclaimed, so only a tag (``spot_tags``)
    makes an instance a candidate.
    """
    if not is_payg(ev) or ev.evidence_days < th.spot_min_evidence_days:
        return []
    tags = {f"{k}={v}".lower() for k, v in ev.tags.items()}
    marked = sorted(tags & {tag.lower() for tag in th.spot_tags})
    offer = ev.offer()
    if not marked or offer is None or offer.hourly_spot is None or not offer.hourly_postpaid:
        return []
    price = paid_price(ev, th)
    if price is None:
        return []
    hours, hours_text = running_hours_per_month(ev, th)
    monthly = cents(price.hourly * hours)
    ratio = offer.hourly_spot / offer.hourly_postpaid
    amount = cents(monthly * (1 - ratio))
    currency = ev.currency
    name = label(ev)
    return [
        Finding(
            kind=SPOT,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={},
            title=Text("spot.title", {"name": name}),
            explanation=(
                f"{name} is tagged {', '.join(marked)}: its work survives interruption. Spot "
                f"{ev.instance_type} costs {offer.hourly_spot} instead of "
                f"{offer.hourly_postpaid} {currency}/h, but can be reclaimed with about two "
                "minutes' notice whenever the zone needs the capacity."
            ),
            saving=Saving(
                amount,
                currency,
                f"{monthly} {currency}/month x (1 - {offer.hourly_spot}/{offer.hourly_postpaid}"
                f") = {amount} {currency}/month (hours: {hours_text}; price: {price.text})",
                price.source,
            ),
            confidence=confidence(ev, th, th.spot_min_evidence_days),
            risk=Risk(3, Text("spot.risk")),
            evidence={
                "tags": marked,
                "spot_hourly": str(offer.hourly_spot),
                "postpaid_hourly": str(offer.hourly_postpaid),
                "chart": "cost",
                "chart_range": chart_range(ev),
                **price_evidence(price, currency),
            },
            action={
                "steps": [
                    "Make sure the job checkpoints at least every few minutes.",
                    f"Create a SPOTPAID {ev.instance_type} from an image of this instance; "
                    "release this one once the job runs there.",
                ],
                "commands": [
                    f"tccli cvm RunInstances --region {ev.region} --InstanceChargeType SPOTPAID "
                    f'--InstanceType {ev.instance_type} --Placement \'{{"Zone":"{ev.zone}"}}\''
                ],
            },
        )
    ]

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
    pct,
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
    hours_formula = Text(
        "data_pipeline.formula.gpu_hours",
        {
            "hours": hours,
            "gpus": f"{ev.gpu_count:g}",
            "waiting": waiting,
            "known": known,
            "gpu_hours": gpu_hours,
            "hours_text": hours_text,
        },
    )
    if price is None:
        waiting_cost = PaidWhileWaiting(
            None,
            gpu_hours,
            currency,
            Text("data_pipeline.formula.no_price", {"gpu_hours": hours_formula}),
            "none",
        )
    else:
        monthly = cents(price.hourly * hours)
        amount = cents(monthly * share)
        waiting_cost = PaidWhileWaiting(
            amount,
            gpu_hours,
            currency,
            Text(
                "data_pipeline.formula",
                {
                    "hourly": price.hourly,
                    "currency": currency,
                    "hours": hours,
                    "monthly": monthly,
                    "waiting": waiting,
                    "known": known,
                    "amount": amount,
                    "gpu_hours": hours_formula,
                    "price": price.text,
                },
            ),
            price.source,
        )
    name = label(ev)
    share_pct = round(float(100 * share), 1)
    level = confidence(ev, th, th.pipeline_min_evidence_days)
    said = {
        "name": name,
        "share": share_pct,
        "days": lookback_days(ev),
        "without_cpu": without_cpu,
        "waiting": waiting,
    }
    if confirmed:
        title = Text("data_pipeline.title", {"name": name})
        explanation = Text("data_pipeline.explanation", said)
    else:
        title = Text("data_pipeline.check.title", {"name": name})
        explanation = Text("data_pipeline.check.explanation", said)
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
                    Text("data_pipeline.step.profile"),
                    Text("data_pipeline.step.loader"),
                    Text("data_pipeline.step.cache"),
                    Text("data_pipeline.step.local"),
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
            explanation=Text(
                "thermal.explanation",
                {
                    "name": name,
                    "min": pct(th.thermal_temp_min_c),
                    "share": f"{100 * share:.0f}",
                    "peak": f"{peak:.0f}",
                },
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
                    Text("thermal.step.ticket"),
                    Text("thermal.step.restart"),
                    Text("thermal.step.power"),
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
            explanation=Text(
                "spot.explanation",
                {
                    "name": name,
                    "tags": marked,
                    "type": ev.instance_type,
                    "spot": offer.hourly_spot,
                    "postpaid": offer.hourly_postpaid,
                    "currency": currency,
                },
            ),
            saving=Saving(
                amount,
                currency,
                Text(
                    "spot.formula",
                    {
                        "monthly": monthly,
                        "currency": currency,
                        "spot": offer.hourly_spot,
                        "postpaid": offer.hourly_postpaid,
                        "amount": amount,
                        "hours_text": hours_text,
                        "price": price.text,
                    },
                ),
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
                    Text("spot.step.checkpoint"),
                    Text("spot.step.create", {"type": ev.instance_type}),
                ],
                "commands": [
                    f"tccli cvm RunInstances --region {ev.region} --InstanceChargeType SPOTPAID "
                    f'--InstanceType {ev.instance_type} --Placement \'{{"Zone":"{ev.zone}"}}\''
                ],
            },
        )
    ]

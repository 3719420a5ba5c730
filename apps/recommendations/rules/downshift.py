"""Night downshift: a smaller type (fewer cards) in the hours where load is low but not zero.

The "day mid/high spec, night low-spec baseline" pattern: inference or interactive fleets that
still serve something at night, so they cannot stop, but need far fewer cards.

This module is the smaller-type variant, one instance at a time. The issue's other variant,
fewer *instances* at night (a project running several alike, some stopped for the night), is
in ``fewer.py``: it weighs a project's instances together and targets the project, and where it
applies it replaces these findings for the instances of its group.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from apps.core.weekruns import WeekRun

from .common import (
    TENTH,
    cents,
    confidence,
    existed_days,
    instance_ids_arg,
    is_payg,
    label,
    paid_price,
    pct,
    price_evidence,
)
from .thresholds import RuleThresholds
from .types import Finding, InstanceEvidence, Profile, Risk, Saving, Text
from .weekly import circular_runs, profile_chart, run_json, run_mask, run_text, window_cron

DOWNSHIFT = "night_downshift"


def night_runs(profile: Profile, th: RuleThresholds) -> list[WeekRun]:
    """The recurring runs of hours low but not zero (p95 above idle, at most
    ``downshift_p95_max_pct``) of a profile that is busier in other hours; none otherwise."""
    coverage = np.nan_to_num(np.asarray(profile.coverage, dtype=np.float64), nan=0.0)
    p95 = np.asarray(profile.p95_pct, dtype=np.float64)
    seen = coverage >= th.schedule_min_coverage
    with np.errstate(invalid="ignore"):
        low = seen & (p95 > th.idle_gpu_util_p95_max_pct) & (p95 <= th.downshift_p95_max_pct)
        busy = seen & (p95 > th.downshift_p95_max_pct)
    if not busy.any():
        return []
    return circular_runs(low, th.downshift_min_run_hours)


def night_downshift(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    profile = ev.profile
    if not is_payg(ev) or profile is None or ev.gpu_count <= 1:
        return []
    if existed_days(ev) < th.schedule_min_evidence_days:
        return []
    coverage = np.nan_to_num(np.asarray(profile.coverage, dtype=np.float64), nan=0.0)
    p95 = np.asarray(profile.p95_pct, dtype=np.float64)
    runs = night_runs(profile, th)
    if not runs:
        return []
    mask = run_mask(runs)
    night_peak = float(np.nanmax(p95[mask]))
    current = ev.offer()
    if current is None or current.hourly_postpaid is None:
        return []
    candidates = [
        offer
        for offer in ev.offers
        if offer.family == ev.family
        and offer.gpu_model == ev.gpu_model
        and 0 < offer.gpu_count < ev.gpu_count
        and offer.hourly_postpaid is not None
        and offer.hourly_postpaid < current.hourly_postpaid
        and night_peak * ev.gpu_count / offer.gpu_count <= th.downshift_target_load_max_pct
    ]
    price = paid_price(ev, th)
    if not candidates or price is None:
        return []
    target = min(candidates, key=lambda offer: offer.hourly_postpaid or Decimal(0))
    assert target.hourly_postpaid is not None
    ratio = target.hourly_postpaid / current.hourly_postpaid
    target_hourly = (price.hourly * ratio).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    running_weekly = Decimal(str(round(float(coverage[mask].sum()), 1)))
    hours = (running_weekly * th.days_per_month / 7).quantize(TENTH, rounding=ROUND_HALF_UP)
    amount = cents((price.hourly - target_hourly) * hours)
    currency = ev.currency
    name = label(ev)
    windows = [run_text(run) for run in runs]
    resize = (
        f"tccli cvm ResetInstancesType --region {ev.region} "
        f"{instance_ids_arg([ev.provider_id])} --InstanceType "
    )
    return [
        Finding(
            kind=DOWNSHIFT,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={
                "to": target.instance_type,
                "runs": [[r.start_weekday, r.start_hour, r.hours] for r in runs],
            },
            title=Text("night_downshift.title", {"name": name, "target": target.instance_type}),
            explanation=Text(
                "night_downshift.explanation",
                {
                    "windows": windows,
                    "tz": profile.tz,
                    "name": name,
                    "idle_max": pct(th.idle_gpu_util_p95_max_pct),
                    "max": pct(th.downshift_p95_max_pct),
                    "peak": f"{night_peak:.0f}",
                    "target": target.instance_type,
                    "cards": f"{target.gpu_count:g}",
                    "model": target.gpu_model,
                },
            ),
            saving=Saving(
                amount,
                currency,
                Text(
                    "night_downshift.formula",
                    {
                        "running": running_weekly,
                        "days_per_month": th.days_per_month,
                        "hours": hours,
                        "hourly": price.hourly,
                        "target_hourly": target_hourly,
                        "currency": currency,
                        "amount": amount,
                        "target_catalog": target.hourly_postpaid,
                        "current_catalog": current.hourly_postpaid,
                        "price": price.text,
                    },
                ),
                price.source,
            ),
            confidence=confidence(ev, th, th.schedule_min_evidence_days / 2),
            risk=Risk(3, Text("night_downshift.risk")),
            evidence={
                "night_p95_peak_pct": round(night_peak, 1),
                "weekly_hours": int(mask.sum()),
                "tz": profile.tz,
                **profile_chart(profile),
                **price_evidence(price, currency),
            },
            action={
                "window": {"tz": profile.tz, "runs": [run_json(run) for run in runs]},
                "steps": [
                    Text("night_downshift.step.balance"),
                    Text("night_downshift.step.resize"),
                ],
                "commands": [resize + target.instance_type, resize + ev.instance_type],
                "cron": window_cron(
                    profile.tz,
                    runs,
                    at_start=resize + target.instance_type,
                    at_end=resize + ev.instance_type,
                ),
            },
        )
    ]

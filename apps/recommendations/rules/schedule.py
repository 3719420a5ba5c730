"""Day/night schedule: stop the instance (STOP_CHARGING) in its recurring off window.

The window comes from the hour-of-week profile in the organization's timezone: a cell is off
when the instance was observed there with a low p95, or was not running there at all (already
stopped). The saving counts only the off hours it is still running, so an instance already
stopped by hand gets a schedule that automates what it does, worth nothing more.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from .common import (
    TENTH,
    cents,
    confidence,
    existed_days,
    is_payg,
    label,
    paid_price,
    price_evidence,
    start_command,
    still_billed,
    stop_command,
    stop_evidence,
)
from .thresholds import RuleThresholds
from .types import Finding, InstanceEvidence, Risk, Saving, Text
from .weekly import (
    HOURS_PER_WEEK,
    circular_runs,
    profile_chart,
    run_json,
    run_mask,
    window_cron,
)

SCHEDULE = "schedule"


def off_cells(ev: InstanceEvidence, th: RuleThresholds) -> np.ndarray | None:
    """(7, 24) mask of off cells, or None without a usable profile."""
    profile = ev.profile
    if profile is None:
        return None
    coverage = np.nan_to_num(np.asarray(profile.coverage, dtype=np.float64), nan=0.0)
    p95 = np.asarray(profile.p95_pct, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        low = (coverage >= th.schedule_min_coverage) & (p95 < th.schedule_p95_max_pct)
    stopped = coverage <= th.schedule_stopped_coverage_max
    return low | stopped


def schedule(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """A weekly stop/start schedule for a pay-as-you-go instance with an off window."""
    if not is_payg(ev) or ev.profile is None:
        return []
    if existed_days(ev) < th.schedule_min_evidence_days:
        return []
    off = off_cells(ev, th)
    if off is None or off.all() or not off.any():
        return []
    runs = circular_runs(off, th.schedule_min_run_hours)
    if not runs:
        return []
    mask = run_mask(runs)
    weekly_hours = int(mask.sum())
    if weekly_hours >= HOURS_PER_WEEK:
        return []
    profile = ev.profile
    coverage = np.nan_to_num(np.asarray(profile.coverage, dtype=np.float64), nan=0.0)
    running_weekly = Decimal(str(round(float(coverage[mask].sum()), 1)))
    price = paid_price(ev, th)
    currency = ev.currency
    weeks = Decimal(th.days_per_month) / 7
    if price is None:
        saving = Saving(Decimal(0), currency, "no price known for this instance", "none")
    else:
        hours = (running_weekly * weeks).quantize(TENTH, rounding=ROUND_HALF_UP)
        amount = cents(price.hourly * hours)
        saving = Saving(
            amount,
            currency,
            f"{running_weekly} h/week still running inside the {weekly_hours} h/week window "
            f"x {th.days_per_month}/7 weeks/month = {hours} h/month x {price.hourly} "
            f"{currency}/h = {amount} {currency}/month (runtime components only; price: {price.text})",
            price.source,
        )
    already = running_weekly < 1
    name = label(ev)
    windows = ", ".join(str(run) for run in runs)
    stop = stop_command(ev.region, [ev.provider_id])
    start = start_command(ev.region, [ev.provider_id])
    cron = window_cron(profile.tz, runs, at_start=stop, at_end=start)
    kept = still_billed(price, currency)
    honest = (
        "STOP_CHARGING stops the runtime charges (compute, GPU) only: "
        f"{', '.join(kept)} keep billing while it is stopped, and a GPU type can be sold out "
        "when it starts again."
    )
    if price is not None:
        honest += f" In numbers: {price.stop_note(currency)}."
    if already:
        title = Text("schedule.automate.title", {"name": name})
        explanation = (
            f"{name} is already not running in {windows} ({profile.tz}), {weekly_hours} h a "
            "week, so there is nothing more to save; a schedule makes that automatic, so a "
            f"forgotten stop does not run all night. {honest}"
        )
    else:
        title = Text("schedule.title", {"name": name})
        explanation = (
            f"{name} sits under {th.schedule_p95_max_pct:g} % GPU utilization (p95) in "
            f"{windows} ({profile.tz}), {weekly_hours} h a week, yet it runs and is billed in "
            f"{running_weekly} of those hours. Stop it in that window and start it again after. "
            f"{honest}"
        )
    return [
        Finding(
            kind=SCHEDULE,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={"runs": [[r.start_weekday, r.start_hour, r.hours] for r in runs]},
            title=title,
            explanation=explanation,
            saving=saving,
            confidence=confidence(ev, th, th.schedule_min_evidence_days / 2),
            risk=Risk(2, Text("schedule.risk")),
            evidence={
                "weekly_off_hours": weekly_hours,
                "running_hours_per_week_in_window": str(running_weekly),
                "p95_max_pct": th.schedule_p95_max_pct,
                "supporting_weeks": profile.supporting_weeks,
                "tz": profile.tz,
                **profile_chart(profile),
                **stop_evidence(price, currency),
                **price_evidence(price, currency),
            },
            action={
                "window": {
                    "tz": profile.tz,
                    "runs": [run_json(run) for run in runs],
                    "weekly_hours": weekly_hours,
                },
                "stopped_mode": "STOP_CHARGING",
                "still_billed_when_stopped": kept,
                "commands": [stop, start],
                "cron": cron,
                "steps": [
                    "Tell the instance's users the window.",
                    "Install the cron lines on a host with tccli configured (or a serverless "
                    "timer) in the organization's timezone.",
                ],
            },
        )
    ]

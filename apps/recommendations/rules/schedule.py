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
    no_price,
    paid_price,
    pct,
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
    run_text,
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
        saving = no_price(currency)
    else:
        hours = (running_weekly * weeks).quantize(TENTH, rounding=ROUND_HALF_UP)
        amount = cents(price.hourly * hours)
        saving = Saving(
            amount,
            currency,
            Text(
                "schedule.formula",
                {
                    "running": running_weekly,
                    "weekly_hours": weekly_hours,
                    "days_per_month": th.days_per_month,
                    "hours": hours,
                    "hourly": price.hourly,
                    "currency": currency,
                    "amount": amount,
                    "price": price.text,
                },
            ),
            price.source,
        )
    already = running_weekly < 1
    name = label(ev)
    windows = [run_text(run) for run in runs]
    stop = stop_command(ev.region, [ev.provider_id])
    start = start_command(ev.region, [ev.provider_id])
    cron = window_cron(profile.tz, runs, at_start=stop, at_end=start)
    kept = still_billed(price, currency)
    honest = (
        Text("schedule.honest", {"kept": kept})
        if price is None
        else Text("schedule.honest.priced", {"kept": kept, "note": price.stop_note(currency)})
    )
    said = {
        "name": name,
        "windows": windows,
        "tz": profile.tz,
        "weekly_hours": weekly_hours,
        "honest": honest,
    }
    if already:
        title = Text("schedule.automate.title", {"name": name})
        explanation = Text("schedule.automate.explanation", said)
    else:
        title = Text("schedule.title", {"name": name})
        explanation = Text(
            "schedule.explanation",
            said | {"max": pct(th.schedule_p95_max_pct), "running": running_weekly},
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
                "steps": [Text("schedule.step.tell"), Text("step.install_cron")],
            },
        )
    ]

"""Night downshift, the fewer-instances variant: stop some of a project's alike instances at night.

A project serving from several pay-as-you-go instances of one type (in one region) whose summed
load at night is low but not zero can run the night on ``k`` of its ``n`` instances and stop the
others (STOP_CHARGING) for the window. The load of a cell of the week is the sum of the
instances' p95 GPU utilization there, in percent of one instance: every instance is of the same
type, so ``k`` instances carry ``k x 100`` of it. The sum of p95s is at least the p95 of the sum,
so the estimate errs towards keeping more. Cells count only where every instance of the group
was running; the rest of the week must need more than ``k`` instances somewhere (otherwise the
group is idle or over-provisioned around the clock, which other rules handle).

Each instance must show the shape on its own, as the smaller-type variant asks of one: busy
hours, and a recurring run of hours low but not zero. Summing loads assumes the instances are
replicas of one service, whose requests any of them can take; an instance busy around the clock
(a training job) carries work that cannot move to another, so it is left out of the group (and
keeps running).

The finding targets the project: one recommendation for the group, naming the instances to stop
(those with the lowest night p95, by provider id on a tie) and the ones that keep serving.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from apps.core.weekruns import WeekRun

from .common import (
    KEPT_WHEN_STOPPED,
    TENTH,
    PaidPrice,
    cents,
    confidence,
    existed_days,
    is_payg,
    paid_price,
    pct,
    start_command,
    stop_command,
)
from .downshift import DOWNSHIFT, night_runs
from .thresholds import RuleThresholds
from .types import (
    LIST_SEMICOLON,
    PRICE_FROM_BILLS,
    PRICE_FROM_CATALOG,
    Finding,
    InstanceEvidence,
    Risk,
    Saving,
    Text,
)
from .weekly import circular_runs, profile_chart, run_json, run_mask, run_text, window_cron

#: ``parameters["variant"]`` of a fewer-instances night downshift (the smaller-type variant,
#: one instance's, has none).
FEWER_INSTANCES = "fewer_instances"

_LEVELS = {"low": 0, "medium": 1, "high": 2}


def group_key(ev: InstanceEvidence) -> tuple[int, str, str] | None:
    """The group an instance belongs to (project, region, type), None when it cannot be in one:
    not pay-as-you-go or in no project. One region: one load balancer, one ``--region``."""
    if not is_payg(ev) or ev.project_id is None:
        return None
    return (ev.project_id, ev.region, ev.instance_type)


def fewer_at_night(group: Sequence[InstanceEvidence], th: RuleThresholds) -> list[Finding]:
    """A fewer-instances night downshift for alike instances (at least 2 usable), or nothing.

    ``group`` is one project's instances of one type in one region (ValueError otherwise); the
    ones that are not pay-as-you-go, have no profile, too little evidence or no low-but-not-zero
    hours of their own are left out, and keep running.
    """
    keys = {(ev.project_id, ev.region, ev.instance_type) for ev in group}
    if len(keys) > 1:
        raise ValueError(f"fewer_at_night: instances of different groups {sorted(map(str, keys))}")
    members = sorted(
        (
            ev
            for ev in group
            if group_key(ev) is not None
            and ev.profile is not None
            and existed_days(ev) >= th.schedule_min_evidence_days
            and night_runs(ev.profile, th)
        ),
        key=lambda ev: ev.provider_id,
    )
    n = len(members)
    target = th.downshift_target_load_max_pct
    if n < 2 or target <= 0 or len({ev.profile.tz for ev in members if ev.profile}) != 1:
        return []
    profiles = [ev.profile for ev in members if ev.profile is not None]
    coverage = np.stack(
        [np.nan_to_num(np.asarray(p.coverage, dtype=np.float64), nan=0.0) for p in profiles]
    )
    p95 = np.stack([np.asarray(p.p95_pct, dtype=np.float64) for p in profiles])
    running = (coverage >= th.schedule_min_coverage) & ~np.isnan(p95)
    load = np.nan_to_num(p95, nan=0.0).sum(axis=0)
    # Instances the cell's load needs at ``target`` % each (a hair under: 70.0 / 70 is one).
    need = np.maximum(np.ceil(load / target - 1e-9), 1)
    all_running = running.all(axis=0)
    observed = running.any(axis=0)
    best: tuple[int, int, list[WeekRun]] | None = None  # (instances stopped x hours, k, runs)
    for k in range(1, n):
        low = all_running & (load > th.idle_gpu_util_p95_max_pct) & (need <= k)
        if not (observed & (need > k)).any():
            continue
        runs = circular_runs(low, th.downshift_min_run_hours)
        if not runs:
            continue
        score = (n - k) * int(run_mask(runs).sum())
        # On a tie the larger k: the same saving with more headroom.
        if best is None or score >= best[0]:
            best = (score, k, runs)
    if best is None:
        return []
    _, keep, runs = best
    mask = run_mask(runs)
    night = {ev.provider_id: float(np.nanmax(p95[i][mask])) for i, ev in enumerate(members)}
    order = sorted(range(n), key=lambda i: (night[members[i].provider_id], members[i].provider_id))
    stopped = sorted(order[: n - keep], key=lambda i: members[i].provider_id)
    kept = sorted(order[n - keep :], key=lambda i: members[i].provider_id)
    prices: dict[int, PaidPrice] = {}
    for i in stopped:
        price = paid_price(members[i], th)
        if price is None:
            return []
        prices[i] = price
    first = members[0]
    profile = profiles[0]
    currency = first.currency
    weekly_hours = int(mask.sum())
    summed_peak = float(load[mask].max())
    hot_peak = float(load.max())
    lines: list[Text] = []
    amount = Decimal(0)
    running_weekly: dict[str, str] = {}
    shares: dict[int, Decimal] = {}
    for i in stopped:
        ev, price = members[i], prices[i]
        weekly = Decimal(str(round(float(coverage[i][mask].sum()), 1)))
        hours = (weekly * th.days_per_month / 7).quantize(TENTH, rounding=ROUND_HALF_UP)
        part = cents(price.hourly * hours)
        amount += part
        shares[i] = part
        running_weekly[ev.provider_id] = str(weekly)
        lines.append(
            Text(
                "fewer_instances.formula.line",
                {
                    "id": ev.provider_id,
                    "running": weekly,
                    "days_per_month": th.days_per_month,
                    "hours": hours,
                    "hourly": price.hourly,
                    "currency": currency,
                    "part": part,
                },
            )
        )
    sources = {prices[i].source for i in stopped}
    source = PRICE_FROM_BILLS if sources == {PRICE_FROM_BILLS} else PRICE_FROM_CATALOG
    priced = [
        Text(
            "fewer_instances.formula.price", {"id": members[i].provider_id, "price": prices[i].text}
        )
        for i in stopped
    ]
    stop_ids = [members[i].provider_id for i in stopped]
    keep_ids = [members[i].provider_id for i in kept]
    stop = stop_command(first.region, stop_ids)
    start = start_command(first.region, stop_ids)
    cron = window_cron(profile.tz, runs, at_start=stop, at_end=start)
    windows = [run_text(run) for run in runs]
    per_kept = summed_peak / keep
    day_need = min(math.ceil(hot_peak / target - 1e-9), n)
    weakest = min(
        (confidence(ev, th, th.schedule_min_evidence_days / 2) for ev in members),
        key=lambda c: (_LEVELS.get(c.level, 0), c.evidence_days),
    )
    return [
        Finding(
            kind=DOWNSHIFT,
            instance_id=None,
            project_id=first.project_id,
            parameters={
                "variant": FEWER_INSTANCES,
                "instance_type": first.instance_type,
                "region": first.region,
                "keep": keep,
                "runs": [[r.start_weekday, r.start_hour, r.hours] for r in runs],
            },
            title=Text(
                "fewer_instances.title",
                {
                    "stop": n - keep,
                    "count": n,
                    "type": first.instance_type,
                    "region": first.region,
                },
            ),
            explanation=Text(
                "fewer_instances.explanation" if keep > 1 else "fewer_instances.explanation_one",
                {
                    "windows": windows,
                    "tz": profile.tz,
                    "count": n,
                    "type": first.instance_type,
                    "region": first.region,
                    "peak": f"{summed_peak:.0f}",
                    "keep": keep,
                    "per_kept": f"{per_kept:.0f}",
                    "max": pct(target),
                    "day_need": day_need,
                    "stop_ids": stop_ids,
                    "keep_ids": keep_ids,
                },
            ),
            saving=Saving(
                amount,
                currency,
                Text(
                    "fewer_instances.formula",
                    {
                        "lines": Text(LIST_SEMICOLON, {"items": lines}),
                        "amount": amount,
                        "currency": currency,
                        "prices": Text(LIST_SEMICOLON, {"items": priced}),
                    },
                ),
                source,
            ),
            confidence=weakest,
            risk=Risk(
                3,
                Text(
                    "fewer_instances.risk" if keep > 1 else "fewer_instances.risk_one",
                    {"keep": keep},
                ),
            ),
            evidence={
                "instance_type": first.instance_type,
                "region": first.region,
                "instances": n,
                "keep": keep,
                "night_p95_peak_pct": {pid: round(value, 1) for pid, value in night.items()},
                "summed_night_p95_peak_pct": round(summed_peak, 1),
                "kept_load_max_pct": round(per_kept, 1),
                "target_load_max_pct": target,
                "running_hours_per_week_in_window": running_weekly,
                "hourly_price": {members[i].provider_id: str(prices[i].hourly) for i in stopped},
                "weekly_hours": weekly_hours,
                "tz": profile.tz,
                **profile_chart(profile),
            },
            action={
                "window": {
                    "tz": profile.tz,
                    "runs": [run_json(run) for run in runs],
                    "weekly_hours": weekly_hours,
                },
                "stop_instances": stop_ids,
                "keep_instances": keep_ids,
                # For tooling: who the finding is about, as fields. Each stopped instance's
                # share is its own line of the saving (in cents), so the shares sum to it
                # exactly; the kept ones save nothing.
                "members": [
                    {
                        "instance_id": members[i].instance_id,
                        "provider_id": members[i].provider_id,
                        "name": members[i].name,
                        "role": "stop" if i in shares else "keep",
                        "monthly_share": str(shares.get(i, Decimal("0.00"))),
                    }
                    for i in sorted(stopped + kept, key=lambda i: members[i].provider_id)
                ],
                "stopped_mode": "STOP_CHARGING",
                "still_billed_when_stopped": list(KEPT_WHEN_STOPPED),
                "commands": [stop, start],
                "cron": cron,
                "steps": [
                    Text(
                        "fewer_instances.step.drain", {"keep_ids": keep_ids, "stop_ids": stop_ids}
                    ),
                    Text("fewer_instances.step.stop", {"stop_ids": stop_ids}),
                    Text("step.install_cron"),
                ],
            },
        )
    ]

"""Right-sizing: downsize (smaller type in the family) and upsize for memory pressure.

Upsize moves to the family's next larger type and is priced per unit of work (samples/s from
the throughput table), not per hour: a bigger type that finishes the same work sooner can
cost less.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from .common import (
    TENTH,
    cents,
    chart_range,
    confidence,
    hourly_rounded,
    hourly_share,
    instance_ids_arg,
    is_payg,
    label,
    lookback_days,
    month_hours,
    offer_hourly,
    paid_price,
    pct,
    price_evidence,
    running_hours_per_month,
)
from .thresholds import RuleThresholds
from .throughput import samples_per_second
from .types import (
    NEXT_IN_FAMILY,
    NO_LARGER_TYPE,
    Finding,
    InstanceEvidence,
    Risk,
    Saving,
    Text,
    TypeOffer,
    UpsizeFigures,
)

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
            title=Text("downsize.title", {"name": name, "target": target.instance_type}),
            explanation=Text(
                "downsize.explanation",
                {
                    "days": lookback_days(ev),
                    "name": name,
                    "util": f"{util_p95:.1f}",
                    "mem": f"{mem_peak:.1f}",
                    "target": target.instance_type,
                    "cards": f"{target.gpu_count:g}",
                    "model": target.gpu_model,
                    "max": pct(th.downsize_target_load_max_pct),
                },
            ),
            saving=Saving(
                amount,
                currency,
                Text(
                    "downsize.formula",
                    {
                        "hourly": price.hourly,
                        "target_hourly": target_hourly,
                        "currency": currency,
                        "hours": hours,
                        "amount": amount,
                        "target_catalog": target.hourly_postpaid,
                        "current_catalog": current.hourly_postpaid,
                        "hours_text": hours_text,
                        "price": price.text,
                    },
                ),
                price.source,
            ),
            confidence=confidence(ev, th, th.downsize_min_evidence_days),
            risk=Risk(2, Text("downsize.risk")),
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
                    Text("downsize.step.stop"),
                    Text("downsize.step.change", {"target": target.instance_type}),
                ],
                "commands": [
                    f"tccli cvm ResetInstancesType --region {ev.region} "
                    f"{instance_ids_arg([ev.provider_id])} --InstanceType {target.instance_type}"
                ],
            },
        )
    ]


def next_larger(ev: InstanceEvidence) -> TypeOffer | None:
    """The family's next type up: at least as much GPU memory per card and as many cards, more
    of one of them; the smallest such step (total GPU memory, then price). None when the zone's
    catalog has no larger type of the family: a jump to another family (or to eight cards)
    is not what relieves memory pressure, and its price per hour says nothing of the work."""
    larger = [
        offer
        for offer in ev.offers
        if offer.family == ev.family
        and offer.gpu_memory_gb >= ev.gpu_memory_gb
        and offer.gpu_count >= ev.gpu_count
        and (offer.gpu_memory_gb > ev.gpu_memory_gb or offer.gpu_count > ev.gpu_count)
    ]
    if not larger:
        return None
    return min(
        larger,
        key=lambda o: (o.gpu_memory_gb * o.gpu_count, o.hourly_postpaid or Decimal("Infinity")),
    )


def _samples_per_hour(gpu_model: str, gpu_count: float) -> Decimal | None:
    rate = samples_per_second(gpu_model)
    return Decimal(str(rate * gpu_count * 3600)) if rate is not None and gpu_count > 0 else None


def _per_money(samples_per_hour: Decimal | None, hourly: Decimal | None) -> Decimal | None:
    if samples_per_hour is None or not hourly:
        return None
    return (samples_per_hour / hourly).quantize(TENTH, rounding=ROUND_HALF_UP)


def _known(evidence: dict[str, object]) -> dict[str, object]:
    """The evidence without the figures that are unknown (no price, no throughput), decimals
    as text like every other rule's."""
    return {
        key: str(value) if isinstance(value, Decimal) else value
        for key, value in evidence.items()
        if value is not None
    }


def upsize(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """Sustained GPU memory pressure: the family's next larger type, priced per unit of work.

    The target is ``next_larger``. Its hourly price is the current one paid times the
    catalog's ratio of the two types (the account's discount carried over, as for downsize;
    the catalog's own price where the current type has none). Work is BERT-base training
    samples (the throughput table), assumed to scale with the cards.

    Priced for the same work: the month's samples at the target's cost per sample. That
    costs more (``monthly_extra_cost``, ``saving`` None) or less (a positive ``saving`` of
    the difference, extra cost 0.00): a saving is never negative. Without a larger type in
    the zone's catalog the pressure stays a finding, with its evidence, reason
    ``NO_LARGER_TYPE`` and no saving.
    """
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
    currency = ev.currency
    name = label(ev)
    cards = f"{ev.gpu_count:g} x {ev.gpu_model} {ev.gpu_memory_gb:g} GB"
    current_per_hour = _samples_per_hour(ev.gpu_model, ev.gpu_count)
    current_per_money = _per_money(current_per_hour, price.hourly if price else None)
    pressure = Text(
        "upsize.pressure",
        {
            "name": name,
            "cards": cards,
            "min": pct(th.upsize_gpu_mem_min_pct),
            "share": f"{100 * share:.0f}",
            "util": f"{util_avg:.0f}",
        },
    )
    evidence: dict[str, object] = {
        "memory_pressure_share_pct": round(100 * share, 1),
        "gpu_mem_min_pct": th.upsize_gpu_mem_min_pct,
        "gpu_util_avg_pct": round(util_avg, 1),
        "gpu_count": ev.gpu_count,
        "gpu_memory_gb": ev.gpu_memory_gb,
        "current_samples_per_hour": current_per_hour,
        "chart": "metrics",
        "chart_range": chart_range(ev),
        **price_evidence(price, currency),
    }
    target = next_larger(ev)
    if target is None:
        figures = UpsizeFigures(
            NO_LARGER_TYPE,
            None,
            None,
            current_per_money,
            None,
            currency,
            Text(
                "upsize.no_larger_type.formula",
                {"family": ev.family, "zone": ev.zone, "type": ev.instance_type},
            ),
            price.source if price else "none",
        )
        return [
            Finding(
                kind=UPSIZE,
                instance_id=ev.instance_id,
                project_id=ev.project_id,
                parameters={"reason": NO_LARGER_TYPE},
                title=Text("upsize.no_larger_type.title", {"name": name, "family": ev.family}),
                explanation=Text(
                    "upsize.no_larger_type.explanation",
                    {"pressure": pressure, "family": ev.family, "zone": ev.zone},
                ),
                saving=None,
                upsize=figures,
                confidence=confidence(ev, th, th.upsize_min_evidence_days),
                risk=Risk(1, Text("upsize.no_larger_type.risk")),
                evidence=_known({**evidence, "family": ev.family}),
                action={
                    "steps": [
                        Text("upsize.no_larger_type.step.batch"),
                        Text("upsize.no_larger_type.step.precision"),
                        Text("upsize.no_larger_type.step.shard"),
                    ],
                    "commands": [],
                },
            )
        ]
    current = ev.offer()
    target_catalog = offer_hourly(target, ev.charge_type, month_hours(th))
    current_catalog = offer_hourly(current, ev.charge_type, month_hours(th)) if current else None
    if price is not None and target_catalog is not None and current_catalog:
        # The account's discount on the current type is assumed for the target too.
        target_hourly: Decimal | None = hourly_rounded(
            price.hourly * target_catalog / current_catalog
        )
        hourly_text = Text(
            "upsize.target_price.ratio",
            {"hourly": price.hourly, "target": target_catalog, "current": current_catalog},
        )
    else:
        target_hourly = target_catalog
        hourly_text = Text("upsize.target_price.catalog", {"target": target_catalog})
    target_per_hour = _samples_per_hour(target.gpu_model, target.gpu_count)
    target_per_money = _per_money(target_per_hour, target_hourly)
    saving: Saving | None = None
    extra: Decimal | None = None
    formula = Text(
        "upsize.formula.unpriced",
        {"type": ev.instance_type, "target": target.instance_type, "charge_type": ev.charge_type},
    )
    if price is not None and target_hourly and current_per_hour and target_per_hour:
        hours, hours_text = running_hours_per_month(ev, th)
        monthly = cents(price.hourly * hours)
        # The same work on the target: the month's samples over the target's samples per hour.
        target_hours = (hours * current_per_hour / target_per_hour).quantize(TENTH, ROUND_HALF_UP)
        same_work = cents(target_hourly * target_hours)
        extra = max(same_work - monthly, Decimal(0))
        formula = Text(
            "upsize.formula.extra" if same_work >= monthly else "upsize.formula.saving",
            {
                "hourly": price.hourly,
                "currency": currency,
                "hours": hours,
                "monthly": monthly,
                "current_per_hour": f"{current_per_hour:.0f}",
                "target_per_hour": f"{target_per_hour:.0f}",
                "target_hours": target_hours,
                "target_hourly": target_hourly,
                "target_price": hourly_text,
                "same_work": same_work,
                "difference": abs(same_work - monthly),
                "current_per_money": current_per_money,
                "target_per_money": target_per_money,
                "hours_text": hours_text,
                "price": price.text,
            },
        )
        if same_work < monthly:
            saving = Saving(monthly - same_work, currency, formula, price.source)
        evidence["target_hours_for_the_same_work"] = str(target_hours)
        evidence["running_hours_per_month"] = str(hours)
    figures = UpsizeFigures(
        NEXT_IN_FAMILY,
        target.instance_type,
        extra,
        current_per_money,
        target_per_money,
        currency,
        formula,
        price.source if price else "none",
    )
    said = {
        "pressure": pressure,
        "target": target.instance_type,
        "cards": f"{target.gpu_count:g} x {target.gpu_model} {target.gpu_memory_gb:g} GB",
        "family": ev.family,
        "currency": currency,
        "target_per_money": target_per_money,
        "current_per_money": current_per_money,
    }
    return [
        Finding(
            kind=UPSIZE,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={"to": target.instance_type},
            title=Text("upsize.title", {"name": name, "target": target.instance_type}),
            explanation=Text(
                "upsize.explanation.per_work"
                if target_per_money and current_per_money
                else "upsize.explanation",
                said,
            ),
            saving=saving,
            upsize=figures,
            confidence=confidence(ev, th, th.upsize_min_evidence_days),
            risk=Risk(2, Text("upsize.risk")),
            evidence=_known(
                {
                    **evidence,
                    "target": target.instance_type,
                    "target_gpu_count": target.gpu_count,
                    "target_gpu_memory_gb": target.gpu_memory_gb,
                    "target_hourly": target_hourly,
                    "target_samples_per_hour": target_per_hour,
                    "current_samples_per_currency_unit": current_per_money,
                    "target_samples_per_currency_unit": target_per_money,
                }
            ),
            action={
                "steps": [
                    Text("upsize.step.checkpoint"),
                    Text("upsize.step.resize", {"target": target.instance_type}),
                ],
                "commands": [
                    f"tccli cvm ResetInstancesType --region {ev.region} "
                    f"{instance_ids_arg([ev.provider_id])} --InstanceType {target.instance_type}"
                ],
            },
        )
    ]

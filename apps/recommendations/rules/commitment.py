"""Pay-as-you-go -> monthly subscription, or pay-as-you-go + reserved-instance voucher.

Both are priced against what the instance costs at its observed uptime; the cheaper one is
recommended and the other shown beside it. Break-even uptime: the share of a month's hours
above which the commitment is cheaper than paying by the hour.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from .common import (
    cents,
    chart_range,
    confidence,
    existed_days,
    instance_ids_arg,
    is_payg,
    label,
    lookback_days,
    month_hours,
    paid_price,
    price_evidence,
    running_hours_per_month,
)
from .thresholds import RuleThresholds
from .types import Finding, InstanceEvidence, Risk, Saving, Text

SUBSCRIPTION = "subscription"
RESERVED_INSTANCE = "reserved_instance"
PCT = Decimal("0.1")


def commitment(ev: InstanceEvidence, th: RuleThresholds) -> list[Finding]:
    """Subscription or reserved instance for a pay-as-you-go instance up most of the time."""
    if not is_payg(ev) or existed_days(ev) < th.subscription_min_evidence_days:
        return []
    price = paid_price(ev, th)
    if price is None or price.hourly <= 0:
        return []
    hours, hours_text = running_hours_per_month(ev, th)
    full = Decimal(month_hours(th))
    uptime = hours / full
    payg_monthly = cents(price.hourly * hours)
    options: list[tuple[str, Decimal, Text]] = []
    offer = ev.offer()
    if offer is not None and offer.monthly_prepaid is not None:
        options.append((SUBSCRIPTION, offer.monthly_prepaid, Text("commitment.subscription")))
    reserved = next(
        (
            r
            for r in ev.reserved_prices
            if r.region == ev.region and r.instance_type == ev.instance_type
        ),
        None,
    )
    if reserved is not None:
        options.append(
            (
                RESERVED_INSTANCE,
                cents(reserved.hourly * full),
                Text("commitment.reserved", {"years": reserved.term_years}),
            )
        )
    if not options:
        return []
    kind, commit_monthly, what = min(options, key=lambda option: option[1])
    break_even = commit_monthly / (price.hourly * full)
    if uptime < break_even + Decimal(str(th.subscription_uptime_margin)):
        return []
    amount = payg_monthly - commit_monthly
    currency = ev.currency
    break_even_pct = (100 * break_even).quantize(PCT, rounding=ROUND_HALF_UP)
    uptime_pct = (100 * uptime).quantize(PCT, rounding=ROUND_HALF_UP)
    others = {
        name: {
            "monthly": str(monthly),
            "break_even_uptime_pct": str(
                (100 * monthly / (price.hourly * full)).quantize(PCT, rounding=ROUND_HALF_UP)
            ),
        }
        for name, monthly, _ in options
    }
    name = label(ev)
    formula = Text(
        "commitment.formula",
        {
            "hourly": price.hourly,
            "currency": currency,
            "hours": hours,
            "payg": payg_monthly,
            "commitment": commit_monthly,
            "what": what,
            "amount": amount,
            "full": full,
            "break_even": break_even_pct,
            "hours_text": hours_text,
            "price": price.text,
        },
    )
    if kind == SUBSCRIPTION:
        title = Text("subscription.title", {"name": name})
        steps = [Text("subscription.step.console"), Text("subscription.step.api")]
        commands = [
            f"tccli cvm ModifyInstancesChargeType --region {ev.region} "
            f"{instance_ids_arg([ev.provider_id])} --InstanceChargeType PREPAID "
            '--InstanceChargePrepaid \'{"Period":1,"RenewFlag":"NOTIFY_AND_AUTO_RENEW"}\''
        ]
        reason = Text("subscription.risk")
    else:
        assert reserved is not None
        title = Text("reserved_instance.title", {"name": name})
        steps = [
            Text(
                "reserved_instance.step.purchase",
                {"type": ev.instance_type, "region": ev.region, "years": reserved.term_years},
            ),
            Text("reserved_instance.step.match"),
        ]
        commands = []
        reason = Text("reserved_instance.risk", {"years": reserved.term_years})
    explanation = Text(
        "commitment.explanation",
        {
            "name": name,
            "uptime": uptime_pct,
            "days": lookback_days(ev),
            "what": what,
            "break_even": break_even_pct,
            "amount": amount,
            "currency": currency,
        },
    )
    return [
        Finding(
            kind=kind,
            instance_id=ev.instance_id,
            project_id=ev.project_id,
            parameters={"to": kind},
            title=title,
            explanation=explanation,
            saving=Saving(amount, currency, formula, price.source),
            confidence=confidence(ev, th, th.subscription_min_evidence_days),
            risk=Risk(1, reason),
            evidence={
                "uptime_pct": str(uptime_pct),
                "hours_per_month": str(hours),
                "hourly_price": str(price.hourly),
                "payg_monthly": str(payg_monthly),
                "commitment_monthly": str(commit_monthly),
                "break_even_uptime_pct": str(break_even_pct),
                "options": others,
                "chart": "cost",
                "chart_range": chart_range(ev),
                **price_evidence(price, currency),
            },
            action={"steps": steps, "commands": commands},
        )
    ]

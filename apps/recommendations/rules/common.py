"""Helpers every rule shares: the price actually paid, monthly hours, confidence, commands."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from .thresholds import RuleThresholds
from .types import (
    LIST_PLUS,
    POSTPAID,
    PREPAID,
    PRICE_FROM_BILLS,
    PRICE_FROM_CATALOG,
    SPOT,
    STOP_CHARGING,
    STOPPED,
    UNKNOWN,
    BilledComponent,
    Confidence,
    InstanceEvidence,
    Saving,
    Text,
    TypeOffer,
)

CENT = Decimal("0.01")
HOURLY = Decimal("0.0001")
TENTH = Decimal("0.1")


def cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def hourly_rounded(amount: Decimal) -> Decimal:
    return amount.quantize(HOURLY, rounding=ROUND_HALF_UP)


@dataclasses.dataclass(frozen=True)
class PricedComponent:
    """One billed component's hourly price: its cost over the hours it is priced by."""

    component_class: str
    code: str
    name: str
    cost: Decimal
    hours: Decimal
    hourly: Decimal

    def as_evidence(self) -> dict[str, str]:
        return {
            "class": self.component_class,
            "name": self.name,
            "cost": str(cents(self.cost)),
            "hours": str(self.hours.quantize(TENTH)),
            "hourly": str(self.hourly),
        }


@dataclasses.dataclass(frozen=True)
class PaidPrice:
    """The runtime price of an instance per hour: what the bills say, else the catalog.

    From the bills, ``hourly`` is every runtime component's cost over the billed hours (each
    hour once); ``components`` are those components, each over the same hours, so their hourly
    prices add up to ``hourly`` (to the rounding of each). ``persistent`` are the components
    that keep billing when the instance is stopped (disks, IPs), each over its own hours.
    """

    hourly: Decimal
    source: str
    text: Text
    """How it was obtained, e.g. ``1234.56 CNY runtime billed / 240.0 h billed = 5.1440 CNY/h``."""
    components: tuple[PricedComponent, ...] = ()
    persistent: tuple[PricedComponent, ...] = ()

    @property
    def persistent_hourly(self) -> Decimal:
        """What keeps billing per hour while the instance is stopped."""
        return sum((c.hourly for c in self.persistent), Decimal(0))

    @property
    def unknown(self) -> tuple[PricedComponent, ...]:
        """The components no rule could place, priced as runtime."""
        return tuple(c for c in self.components if c.component_class == UNKNOWN)

    def evidence(self, currency: str) -> dict[str, object]:
        """The figures a user recomputes the price from (JSON-ready, strings for money)."""
        return {
            "runtime_hourly": str(self.hourly),
            "price_source": self.source,
            "runtime_components": {c.code or "-": c.as_evidence() for c in self.components},
            "persistent_hourly": str(self.persistent_hourly),
            "persistent_components": {c.code or "-": c.as_evidence() for c in self.persistent},
            "unknown_components": len(self.unknown),
            "unknown_cost": str(cents(sum((c.cost for c in self.unknown), Decimal(0)))),
            "currency": currency,
        }

    def stop_note(self, currency: str) -> Text:
        """'stopping saves X/h; disks Y/h keep billing', named."""
        kept: Text | str = ""
        if self.persistent:
            kept = Text(
                "stop_note.kept",
                {
                    "items": [f"{c.name or c.code} {c.hourly}" for c in self.persistent],
                    "hourly": self.persistent_hourly,
                    "currency": currency,
                },
            )
        unknown: Text | str = ""
        if self.unknown:
            unknown = Text(
                "stop_note.unknown",
                {
                    "count": len(self.unknown),
                    "items": [f"{c.name or c.code} {c.hourly}" for c in self.unknown],
                },
            )
        return Text(
            "stop_note",
            {"hourly": self.hourly, "currency": currency, "kept": kept, "unknown": unknown},
        )


#: What keeps billing while stopped when no bill names it (no bills yet, or a catalog price).
KEPT_WHEN_STOPPED = (Text("kept.disks"), Text("kept.bandwidth"))


def still_billed(price: PaidPrice | None, currency: str) -> list[Text]:
    """What keeps billing while the instance is stopped with STOP_CHARGING: the bills'
    persistent components, named with their hourly price, else the usual parts."""
    if price is None or not price.persistent:
        return list(KEPT_WHEN_STOPPED)
    return [
        Text(
            "kept.component",
            {"name": c.name or c.code, "code": c.code, "hourly": c.hourly, "currency": currency},
        )
        for c in price.persistent
    ]


def stop_evidence(price: PaidPrice | None, currency: str) -> dict[str, object]:
    """The figures of a stop: what it saves an hour and what keeps billing, named."""
    if price is None:
        return {}
    return {
        "stopping_saves_hourly": str(price.hourly),
        "keeps_billing_hourly": str(price.persistent_hourly),
        "when_stopped": price.stop_note(currency),
    }


def price_evidence(price: PaidPrice | None, currency: str) -> dict[str, object]:
    """``{"price": ...}``: the components a price is made of, for a finding's evidence."""
    return {"price": price.evidence(currency)} if price is not None else {}


def offer_hourly(offer: TypeOffer, charge_type: str, hours_per_month: int) -> Decimal | None:
    """The catalog's hourly price of a type for a charge type (a subscription spread over hours)."""
    if charge_type == SPOT:
        return offer.hourly_spot
    if charge_type == PREPAID:
        if offer.monthly_prepaid is None:
            return None
        return hourly_rounded(offer.monthly_prepaid / hours_per_month)
    return offer.hourly_postpaid


def _priced(component: BilledComponent, hours: Decimal) -> PricedComponent:
    hourly = hourly_rounded(component.cost / hours) if hours > 0 else Decimal(0)
    return PricedComponent(
        component.component_class, component.code, component.name, component.cost, hours, hourly
    )


def persistent_components(ev: InstanceEvidence) -> tuple[PricedComponent, ...]:
    """The components that keep billing when stopped, each over its own billed hours."""
    return tuple(_priced(c, c.hours) for c in ev.billed_components if not c.runtime)


def paid_price(ev: InstanceEvidence, th: RuleThresholds) -> PaidPrice | None:
    """Runtime price paid per hour: billed runtime cost / billed hours (for a subscription,
    its purchases' runtime amortized over the hours they cover), else the catalog's."""
    persistent = persistent_components(ev)
    if ev.billed_hours > 0:
        hourly = hourly_rounded(ev.billed_runtime_cost / ev.billed_hours)
        components = tuple(_priced(c, ev.billed_hours) for c in ev.billed_components if c.runtime)
        parts: Text | str = ""
        if components:
            items = [f"{c.name or c.code} {cents(c.cost)}" for c in components]
            parts = Text("price.parts", {"items": Text(LIST_PLUS, {"items": items})})
        return PaidPrice(
            hourly,
            PRICE_FROM_BILLS,
            Text(
                "price.amortized" if ev.charge_type == PREPAID else "price.billed",
                {
                    "cost": cents(ev.billed_runtime_cost),
                    "currency": ev.currency,
                    "hours": ev.billed_hours.quantize(TENTH),
                    "hourly": hourly,
                    "parts": parts,
                },
            ),
            components,
            persistent,
        )
    offer = ev.offer()
    if offer is None:
        return None
    hourly_or_none = offer_hourly(offer, ev.charge_type, month_hours(th))
    if hourly_or_none is None:
        return None
    if ev.charge_type == PREPAID and offer.monthly_prepaid is not None:
        text = Text(
            "price.catalog_subscription",
            {
                "monthly": offer.monthly_prepaid,
                "currency": offer.currency,
                "hours": month_hours(th),
                "hourly": hourly_or_none,
            },
        )
    else:
        text = Text("price.catalog", {"hourly": hourly_or_none, "currency": offer.currency})
    return PaidPrice(hourly_or_none, PRICE_FROM_CATALOG, text, (), persistent)


def month_hours(th: RuleThresholds) -> int:
    return th.days_per_month * 24


def existed_days(ev: InstanceEvidence) -> float:
    return max(ev.existed_hours, 0.0) / 24.0


def running_hours_per_month(ev: InstanceEvidence, th: RuleThresholds) -> tuple[Decimal, Text]:
    """Hours a month the instance is paid for at today's pattern, and how that was computed.

    From the billed hours where there are bills (a KEEP_CHARGING stop is billed without
    running), else from the observed hours; scaled from the days it existed in the lookback.
    """
    days = Decimal(str(round(existed_days(ev), 2)))
    if days <= 0:
        return Decimal(0), Text("hours.none")
    if ev.charge_type != PREPAID and ev.billed_hours > 0:
        basis, code = ev.billed_hours.quantize(TENTH), "hours.billed"
    else:
        basis, code = Decimal(ev.observed_hours), "hours.observed"
    hours = (basis * th.days_per_month / days).quantize(TENTH, rounding=ROUND_HALF_UP)
    hours = min(hours, Decimal(month_hours(th)))
    return hours, Text(
        code,
        {"basis": basis, "days": days, "days_per_month": th.days_per_month, "hours": hours},
    )


def confidence(ev: InstanceEvidence, th: RuleThresholds, min_days: float) -> Confidence:
    """High with the whole lookback observed, medium with twice the minimum, low otherwise."""
    expected = max(ev.existed_hours, 0.0) * 60.0
    observed = float(ev.observed_minutes.sum())
    coverage = round(100.0 * observed / expected, 1) if expected else 0.0
    days = ev.evidence_days
    if days >= 0.8 * lookback_days(ev) and coverage >= 80:
        level = "high"
    elif days >= 2 * min_days:
        level = "medium"
    else:
        level = "low"
    return Confidence(evidence_days=days, coverage_pct=min(coverage, 100.0), level=level)


def lookback_days(ev: InstanceEvidence) -> int:
    """Whole days the evidence spans (the rule's lookback)."""
    return round((ev.end - ev.start).total_seconds() / 86400)


def chart_range(ev: InstanceEvidence) -> dict[str, str]:
    return {"start": iso(ev.start), "end": iso(ev.end)}


def iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def instance_ids_arg(provider_ids: Sequence[str]) -> str:
    """tccli's ``--InstanceIds`` with a JSON list, quoted for a shell: '["ins-a","ins-b"]'."""
    return f"--InstanceIds '{json.dumps(list(provider_ids), separators=(',', ':'))}'"


def stop_command(region: str, provider_ids: Sequence[str]) -> str:
    return (
        f"tccli cvm StopInstances --region {region} {instance_ids_arg(provider_ids)} "
        "--StoppedMode STOP_CHARGING"
    )


def start_command(region: str, provider_ids: Sequence[str]) -> str:
    return f"tccli cvm StartInstances --region {region} {instance_ids_arg(provider_ids)}"


def hourly_share(mask: np.ndarray, of: np.ndarray) -> float:
    total = int(np.count_nonzero(of))
    return float(np.count_nonzero(mask & of)) / total if total else 0.0


def pct(value: float) -> str:
    """A threshold in percent as the words show it (``5``, ``12.5``)."""
    return f"{value:g}"


def no_price(currency: str, source: str = "none") -> Saving:
    """The saving of a finding whose instance has no known price: nothing to promise."""
    return Saving(Decimal(0), currency, Text("saving.no_price"), source)


def label(ev: InstanceEvidence) -> str:
    return f"{ev.name or ev.provider_id} ({ev.instance_type})"


def is_payg(ev: InstanceEvidence) -> bool:
    return ev.charge_type == POSTPAID


#: Hours without a single metric minute after which a stopped instance counts as stopped for
#: good, not for the night: longer than a weekend off (Friday 19:00 to Monday 09:00 is 62 h).
STOPPED_QUIET_HOURS = 72


def stopped_unbilled(ev: InstanceEvidence) -> bool:
    """A pay-as-you-go instance stopped with STOP_CHARGING: its runtime bills nothing now, so
    stopping it when idle saves nothing the bill can show."""
    return is_payg(ev) and ev.state == STOPPED and ev.stop_charging_mode == STOP_CHARGING


def stopped_for_good(ev: InstanceEvidence) -> bool:
    """``stopped_unbilled`` and quiet (no metric minute) for the last ``STOPPED_QUIET_HOURS``
    of the lookback: a schedule has nothing left to stop. A day-only instance stopped each
    night is not (the inventory may be read at night): its schedule stays, rather than being
    resolved at night and reopened by day."""
    recent = ev.observed_minutes[-STOPPED_QUIET_HOURS:]
    return stopped_unbilled(ev) and not float(np.nansum(recent)) > 0

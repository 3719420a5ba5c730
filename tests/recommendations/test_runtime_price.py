"""The runtime price per instance-hour is the sum of the instance's runtime components, as paid.

Bills shaped the way Tencent documents them (compute, GPU, system disk, data disk and bandwidth
components per hourly line, ``tests.billing.tencent_bills``) go through the bills sync. For
every instance, the price the rules and the waste figures use must equal the sum of its runtime
components' ContractPrice, read here from the raw lines: every runtime component counted, each
hour counted once however many components bill it, the disks and bandwidth kept apart, and a
component of an unknown kind priced as runtime and counted.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from apps.accounts.models import Organization
from apps.analysis.pricing import instances_waste
from apps.cloud.models import ChargeType, CloudAccount, Instance
from apps.recommendations.evidence import organization_evidence
from apps.recommendations.rules import DEFAULT_RULE_THRESHOLDS
from apps.recommendations.rules.common import paid_price
from tests.billing.tencent_bills import (
    MYSTERY,
    SUBSCRIPTION_REFUND,
    SUBSCRIPTION_RENEWAL,
    Part,
    gn7_monthly_parts,
    gn7_parts,
    hour_lines,
    store,
    subscription_line,
)
from tests.recommendations.factories import AS_OF, END, make_instance

pytestmark = pytest.mark.django_db

BEIJING = dt.timezone(dt.timedelta(hours=8))
HOUR = dt.timedelta(hours=1)

START = END - dt.timedelta(days=14)
HOURS = 14 * 24
# Stopped with STOP_CHARGING every night 00-08 UTC: only the disks and bandwidth bill then.
NIGHTS = frozenset(h for h in range(HOURS) if h % 24 < 8)


def contract_runtime_price(lines: Sequence[dict[str, Any]], parts: Sequence[Part]) -> Decimal:
    """The sum of the runtime components' ContractPrice of a running hour, from the raw lines."""
    runtime = {p.code for p in parts if p.runtime}
    running = max(lines, key=lambda line: len(line["ComponentSet"]))
    return sum(
        (
            Decimal(c["ContractPrice"])
            for c in running["ComponentSet"]
            if c["ComponentCode"] in runtime
        ),
        Decimal(0),
    )


def running_hours(lines: Sequence[dict[str, Any]], parts: Sequence[Part]) -> int:
    runtime = {p.code for p in parts if p.runtime}
    return sum(1 for line in lines if {c["ComponentCode"] for c in line["ComponentSet"]} & runtime)


@pytest.fixture
def fleet(acme: Organization) -> dict[str, tuple[Instance, tuple[Part, ...], list[dict]]]:
    """Four instances of one account: always on; stopped at night; another GPU price; and one
    with a component no rule knows."""
    first = make_instance(acme, "always")
    account = first.account
    assert isinstance(account, CloudAccount)
    shapes = {
        "always": (first, gn7_parts(), frozenset()),
        "nights": (make_instance(acme, "nights", account=account), gn7_parts(), NIGHTS),
        "dearer": (
            make_instance(acme, "dearer", account=account),
            gn7_parts(gpu_price="27.60000000"),
            frozenset(),
        ),
        "mystery": (
            make_instance(acme, "mystery", account=account),
            (*gn7_parts(), MYSTERY),
            frozenset(),
        ),
    }
    out = {}
    every: list[dict] = []
    for name, (instance, parts, stopped) in shapes.items():
        lines = hour_lines(instance, start=START, hours=HOURS, parts=parts, stopped=stopped)
        every += lines
        out[name] = (instance, parts, lines)
    store(account, every)
    return out


def test_it_prices_every_instance_at_the_sum_of_its_runtime_components(acme, fleet) -> None:
    evidence = {
        ev.instance_id: ev
        for ev in organization_evidence(
            organization=acme, as_of=AS_OF, thresholds=DEFAULT_RULE_THRESHOLDS
        )
    }
    for name, (instance, parts, lines) in fleet.items():
        expected = contract_runtime_price(lines, parts)
        ev = evidence[instance.pk]
        # Each running hour once, although two to three runtime components bill it.
        assert ev.billed_hours == running_hours(lines, parts), name
        price = paid_price(ev, DEFAULT_RULE_THRESHOLDS)
        assert price is not None
        assert price.hourly == expected, name
        # Each runtime component with its own hourly price, adding up to the price.
        assert {c.code: c.hourly for c in price.components} == {
            p.code: p.contract_price for p in parts if p.runtime
        }, name
        assert sum(c.hourly for c in price.components) == expected
        # Disks and bandwidth kept apart, priced per hour they bill (stopped hours included).
        assert {c.code: c.hourly for c in price.persistent} == {
            p.code: p.contract_price * p.used for p in parts if not p.runtime
        }, name
    always = paid_price(evidence[fleet["always"][0].pk], DEFAULT_RULE_THRESHOLDS)
    assert always is not None
    assert always.hourly == Decimal("15.12")  # compute 1.32 + GPU 13.80, as the issue measured


def test_it_prices_an_unknown_component_as_runtime_and_counts_it(acme, fleet) -> None:
    instance, _parts, _lines = fleet["mystery"]
    (ev,) = [
        ev
        for ev in organization_evidence(
            organization=acme, as_of=AS_OF, thresholds=DEFAULT_RULE_THRESHOLDS
        )
        if ev.instance_id == instance.pk
    ]
    price = paid_price(ev, DEFAULT_RULE_THRESHOLDS)
    assert price is not None
    assert price.hourly == Decimal("15.12") + MYSTERY.contract_price
    assert [(c.code, c.component_class) for c in price.unknown] == [(MYSTERY.code, "unknown")]
    figures = price.evidence("CNY")
    assert figures["unknown_components"] == 1
    assert Decimal(str(figures["unknown_cost"])) == MYSTERY.contract_price * HOURS


def test_it_splits_the_waste_of_the_runtime_components_only(acme, fleet) -> None:
    """What the phases share is every runtime component of the billed hours, not the disks."""
    instances = [instance for instance, _p, _l in fleet.values()]
    figures = {
        w.instance_id: w
        for w in instances_waste(instances=instances, start=START, end=END, currency="CNY")
    }
    for name, (instance, parts, lines) in fleet.items():
        expected = contract_runtime_price(lines, parts) * running_hours(lines, parts)
        assert figures[instance.pk].billed_cost == expected, name


def amortized_runtime_price(
    lines: Sequence[dict[str, Any]], parts: Sequence[Part], start: dt.datetime, end: dt.datetime
) -> Decimal:
    """From the raw subscription lines: each runtime component's cost spread evenly over the
    seconds its line covers, the share in ``[start, end)``, over the hours covered there."""
    runtime = {p.code for p in parts if p.runtime}
    cost, covered = Decimal(0), set()
    for line in lines:
        begin = dt.datetime.fromisoformat(line["FeeBeginTime"]).replace(tzinfo=BEIJING)
        stop = dt.datetime.fromisoformat(line["FeeEndTime"]).replace(tzinfo=BEIJING)
        stop += dt.timedelta(seconds=1)
        lo, hi = max(begin, start), min(stop, end)
        share = Decimal(int((hi - lo).total_seconds())) / int((stop - begin).total_seconds())
        cost += share * sum(
            (Decimal(c["RealCost"]) for c in line["ComponentSet"] if c["ComponentCode"] in runtime),
            Decimal(0),
        )
        covered |= {lo + dt.timedelta(hours=h) for h in range(int((hi - lo) / HOUR))}
    return (cost / len(covered)).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)


def test_it_prices_a_subscription_at_its_runtime_components_amortized(acme) -> None:
    """A month bought (runtime 5,990.40) and a duplicate renewal refunded: 8.32 CNY/h over the
    hours they cover, each hour once; the waste of its hours at that price too."""
    instance = make_instance(acme, "sub")
    instance.charge_type = ChargeType.PREPAID
    instance.save(update_fields=["charge_type"])
    parts = gn7_monthly_parts()
    month = (
        dt.datetime(2026, 11, 1, tzinfo=BEIJING),
        dt.datetime(2026, 12, 1, tzinfo=BEIJING),
    )
    lines = [
        subscription_line(instance, *month, parts),
        subscription_line(instance, *month, parts, action_type_name=SUBSCRIPTION_RENEWAL),
        subscription_line(instance, *month, parts, action_type_name=SUBSCRIPTION_REFUND),
    ]
    assert isinstance(instance.account, CloudAccount)
    store(instance.account, lines)
    expected = amortized_runtime_price(lines, parts, START, END)
    assert expected == Decimal("8.32")
    (ev,) = organization_evidence(
        organization=acme, as_of=AS_OF, thresholds=DEFAULT_RULE_THRESHOLDS
    )
    assert ev.billed_hours == HOURS
    price = paid_price(ev, DEFAULT_RULE_THRESHOLDS)
    assert price is not None
    assert (price.hourly, price.source) == (expected, "bills")
    assert {c.code: c.hourly for c in price.components} == {
        "v_cvm_compute": Decimal("1.32"),
        "v_cvm_gpu": Decimal("7.00"),
    }
    assert {c.code: c.hourly for c in price.persistent} == {
        "v_cvm_rootdisk": Decimal("0.0250"),
        "v_cvm_datadisk": Decimal("0.3200"),
    }
    (figures,) = instances_waste(instances=[instance], start=START, end=END, currency="CNY")
    assert figures.cost_source == "bills"
    assert figures.total_cost == (expected * HOURS).quantize(Decimal("0.01"))

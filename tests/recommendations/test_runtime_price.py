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
from decimal import Decimal
from typing import Any

import pytest

from apps.accounts.models import Organization
from apps.analysis.pricing import instances_waste
from apps.cloud.models import CloudAccount, Instance
from apps.recommendations.evidence import organization_evidence
from apps.recommendations.rules import DEFAULT_RULE_THRESHOLDS
from apps.recommendations.rules.common import paid_price
from tests.billing.tencent_bills import MYSTERY, Part, gn7_parts, hour_lines, store
from tests.recommendations.factories import AS_OF, END, make_instance

pytestmark = pytest.mark.django_db

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
    assert paid_price(evidence[fleet["always"][0].pk], DEFAULT_RULE_THRESHOLDS).hourly == Decimal(
        "15.12"
    )


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

"""One plan per instance (rules/plans.py): compatible findings priced in sequence, the rest
alternatives; no instance's plan saves more than it costs."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from apps.recommendations.rules import Confidence, Finding, Risk, Saving, Text
from apps.recommendations.rules.commitment import SUBSCRIPTION
from apps.recommendations.rules.downshift import DOWNSHIFT
from apps.recommendations.rules.fewer import FEWER_INSTANCES
from apps.recommendations.rules.idle import STOP_IDLE
from apps.recommendations.rules.operations import PIPELINE, SPOT, THERMAL
from apps.recommendations.rules.plans import (
    ALTERNATIVE,
    PLAN,
    compatible,
    monthly_runtime_cost,
    plan_instances,
)
from apps.recommendations.rules.schedule import SCHEDULE
from apps.recommendations.rules.sizing import DOWNSIZE, UPSIZE
from apps.recommendations.rules.thresholds import DEFAULT_RULE_THRESHOLDS as TH

from .builders import evidence

EV = evidence()  # 5.00 CNY/h billed, 336 h in 14 days: 720 h a month
COST = Decimal("3600.00")


def finding(
    kind: str,
    amount: str | None,
    instance_id: int | None = 7,
    parameters: dict | None = None,
    **action,
) -> Finding:
    formula = Text("price.catalog", {"hourly": amount, "currency": "CNY"})
    saving = None if amount is None else Saving(Decimal(amount), "CNY", formula, "bills")
    return Finding(
        kind=kind,
        instance_id=instance_id,
        project_id=3,
        parameters=parameters or {},
        title=Text(f"{kind}.title", {"name": "box"}),
        explanation=Text("stop_idle.step.check"),
        saving=saving,
        confidence=Confidence(14, 100.0, "high"),
        risk=Risk(1, Text("stop_idle.risk")),
        evidence={},
        action=action,
    )


def amount(row: Finding) -> Decimal:
    assert row.saving is not None
    return row.saving.monthly_amount


def by_kind(findings: list[Finding]) -> dict[str, Finding]:
    return {f.kind: f for f in findings}


def recomputed(evidence: Mapping[str, Any]) -> Decimal:
    """A plan row's saving from its evidence alone (the rule ``plan_evidence`` documents)."""
    plan = evidence["plan"]
    cost = Decimal(plan["monthly_cost"])
    total = Decimal(0)
    for step in plan["steps"]:
        left = Decimal(step["left_before"])
        if left == 1:
            saving = Decimal(step["saving_alone"])
        else:
            saving = (cost * left * Decimal(step["share"])).quantize(
                Decimal("0.01"), rounding=ROUND_HALF_UP
            )
        saving = min(saving, cost - total)
        assert Decimal(step["saving"]) == saving
        total += saving
        if step["kind"] == plan["this"]:
            return saving
    raise AssertionError("the row is not among its plan's steps")


def test_the_monthly_cost_is_the_runtime_price_paid_times_the_hours_a_month() -> None:
    assert monthly_runtime_cost(EV, TH) == COST


def test_a_schedule_and_spot_are_priced_in_sequence_never_above_the_cost() -> None:
    rows = by_kind(plan_instances([EV], [finding(SCHEDULE, "1440"), finding(SPOT, "2520")], TH))
    assert rows[SCHEDULE].role == rows[SPOT].role == PLAN
    assert amount(rows[SCHEDULE]) == Decimal("1440")
    # Spot saves 70 % of what the schedule leaves (60 %): 3600 x 0.6 x 0.7.
    assert amount(rows[SPOT]) == Decimal("1512.00")
    for row in rows.values():
        assert recomputed(row.evidence) == amount(row)
    assert rows[SPOT].evidence["plan"]["total"] == "2952.00"


def test_a_commitment_and_a_schedule_are_alternatives_the_larger_is_the_plan() -> None:
    rows = by_kind(
        plan_instances([EV], [finding(SCHEDULE, "1440"), finding(SUBSCRIPTION, "1000")], TH)
    )
    assert rows[SCHEDULE].role == PLAN
    assert rows[SUBSCRIPTION].role == ALTERNATIVE
    assert amount(rows[SUBSCRIPTION]) == Decimal("1000")  # its own figure


def test_two_prices_exclude_each_other() -> None:
    rows = by_kind(plan_instances([EV], [finding(SUBSCRIPTION, "2000"), finding(SPOT, "2520")], TH))
    assert (rows[SPOT].role, rows[SUBSCRIPTION].role) == (PLAN, ALTERNATIVE)


def test_the_best_set_can_beat_the_best_single_finding() -> None:
    # Subscription alone 2000 vs schedule 1440 + spot 1512 = 2952.
    rows = by_kind(
        plan_instances(
            [EV],
            [finding(SUBSCRIPTION, "2000"), finding(SCHEDULE, "1440"), finding(SPOT, "2520")],
            TH,
        )
    )
    assert {k: r.role for k, r in rows.items()} == {
        SUBSCRIPTION: ALTERNATIVE,
        SCHEDULE: PLAN,
        SPOT: PLAN,
    }


def test_overlapping_findings_never_add_up_to_more_than_the_instance_costs() -> None:
    findings = [finding(SCHEDULE, "3000"), finding(DOWNSIZE, "3000"), finding(SPOT, "3500")]
    rows = plan_instances([EV], findings, TH)
    plan = [r for r in rows if r.role == PLAN]
    assert len(plan) == 3
    assert sum(amount(r) for r in plan) <= COST
    for row in plan:
        assert recomputed(row.evidence) == amount(row)


def test_a_finding_without_money_joins_a_plan_it_does_not_conflict_with() -> None:
    rows = by_kind(
        plan_instances(
            [EV],
            [finding(STOP_IDLE, "3600"), finding(THERMAL, None), finding(SPOT, "2520")],
            TH,
        )
    )
    assert rows[STOP_IDLE].role == rows[THERMAL].role == PLAN
    assert rows[THERMAL].saving is None
    assert rows[SPOT].role == ALTERNATIVE  # stopping makes the price of its hours moot


def test_an_upsize_without_saving_is_an_alternative_to_a_downsize() -> None:
    rows = by_kind(
        plan_instances(
            [EV], [finding(DOWNSIZE, "900"), finding(UPSIZE, None), finding(PIPELINE, None)], TH
        )
    )
    assert (rows[DOWNSIZE].role, rows[UPSIZE].role, rows[PIPELINE].role) == (
        PLAN,
        ALTERNATIVE,
        PLAN,
    )


def test_a_stopped_share_of_fewer_at_night_comes_first() -> None:
    fewer = finding(
        DOWNSHIFT,
        "1000",
        instance_id=None,
        parameters={"variant": FEWER_INSTANCES},
        members=[
            {"instance_id": 7, "role": "stop", "monthly_share": "1000.00"},
            {"instance_id": 8, "role": "keep", "monthly_share": "0.00"},
        ],
    )
    rows = plan_instances([EV], [fewer, finding(SPOT, "2520")], TH)
    spot = next(r for r in rows if r.kind == SPOT)
    assert amount(next(r for r in rows if r.instance_id is None)) == Decimal("1000")
    share = (Decimal(1000) / COST).quantize(Decimal("0.000001"))
    assert amount(spot) == (COST * (1 - share) * Decimal("0.7")).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP
    )
    assert recomputed(spot.evidence) == amount(spot)


def test_an_alternative_is_never_worth_more_than_the_instance_costs() -> None:
    rows = by_kind(plan_instances([EV], [finding(SPOT, "3000"), finding(SUBSCRIPTION, "5000")], TH))
    assert rows[SUBSCRIPTION].role == PLAN
    assert amount(rows[SUBSCRIPTION]) == COST
    assert rows[SPOT].role == ALTERNATIVE


@pytest.mark.parametrize(
    ("a", "b", "together"),
    [
        (SCHEDULE, SPOT, True),
        (SCHEDULE, SUBSCRIPTION, False),
        (DOWNSIZE, SUBSCRIPTION, True),
        (DOWNSIZE, UPSIZE, False),
        (STOP_IDLE, THERMAL, True),
        (STOP_IDLE, DOWNSIZE, False),
        (SPOT, SUBSCRIPTION, False),
    ],
)
def test_compatibility(a: str, b: str, together: bool) -> None:
    assert compatible(a, b) is together
    assert compatible(b, a) is together

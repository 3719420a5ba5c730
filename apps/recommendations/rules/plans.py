"""One plan per instance: the best set of findings that can all be done, priced in sequence.

The rules price each finding on its own, against the instance as it runs today; several of
them change the same bill (a schedule and a move to spot both make the same hours cheaper), and
some exclude each other (a subscription bills the hours a schedule would stop). Added up as
they come, an instance's "savings" exceeded what it costs. Here:

- the findings that change an instance's bill are grouped by what they change: its hours
  (stop, schedule, night downshift), its size (downsize, upsize, night downshift) or the price
  of its hours (subscription, reserved instance, spot). At most one of each group is done, a
  stop makes every other change moot, and a commitment is not combined with fewer hours (it
  bills them anyway);
- of the sets that can all be done, the plan is the one that saves the most, priced in that
  order: each finding's own saving is a share of the instance's monthly runtime cost, and the
  next one saves its share of what is left. So a schedule that saves 40 % followed by spot
  that saves 70 % saves 40 % + 70 % x 60 % = 82 %, never more than the cost;
- a stopped share of a project's "fewer instances at night" is a step the plan starts from
  (that finding is stored on its own and keeps its figure);
- the other findings of the instance are alternatives, with their own (stand-alone) figures.
  Findings without money (pipeline, thermal, an upsize that costs more) join the plan when they
  can be done with it.

Headline totals add up plan rows only (``PLAN``). Every plan row's evidence carries the figures
that recompute its saving (``plan_evidence``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from .commitment import RESERVED_INSTANCE, SUBSCRIPTION
from .common import cents, month_hours, paid_price, running_hours_per_month
from .downshift import DOWNSHIFT
from .fewer import FEWER_INSTANCES
from .idle import IDLE_HELD, STOP_IDLE
from .operations import SPOT
from .schedule import SCHEDULE
from .sizing import DOWNSIZE, UPSIZE
from .thresholds import RuleThresholds
from .types import PREPAID, Finding, InstanceEvidence, Saving, Text

PLAN = "plan"
ALTERNATIVE = "alternative"
ROLES = ((PLAN, "Plan"), (ALTERNATIVE, "Alternative"))

_STOPS = frozenset({STOP_IDLE, IDLE_HELD})
_COMMITMENTS = frozenset({SUBSCRIPTION, RESERVED_INSTANCE})
# What a finding changes; two findings that change the same thing are alternatives. The order
# is the order a plan is priced in: hours first (they change what a size or a price applies
# to), then the size, then the price of the hours left.
_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("hours", frozenset({STOP_IDLE, IDLE_HELD, SCHEDULE, DOWNSHIFT, FEWER_INSTANCES})),
    ("size", frozenset({DOWNSIZE, UPSIZE, DOWNSHIFT})),
    ("price", frozenset({SUBSCRIPTION, RESERVED_INSTANCE, SPOT})),
)
# Fewer hours and a commitment: the commitment bills the hours anyway.
_FEWER_HOURS = frozenset({SCHEDULE, DOWNSHIFT, FEWER_INSTANCES})
_BILL_CHANGING = frozenset().union(*(kinds for _name, kinds in _GROUPS))
_ONE = Decimal(1)
# Shares of the monthly cost are kept to this precision, so that the evidence recomputes.
_SHARE = Decimal("0.000001")


def compatible(a: str, b: str) -> bool:
    """Whether findings of kinds ``a`` and ``b`` can both be done on one instance."""
    if a == b:
        return False
    if a in _STOPS or b in _STOPS:
        # Stopping the instance makes every other change of its bill moot; an alert about it
        # (thermal, pipeline) stays.
        return not (({a, b} - _STOPS) <= _BILL_CHANGING)
    if any(a in kinds and b in kinds for _name, kinds in _GROUPS):
        return False
    return not (
        (a in _FEWER_HOURS and b in _COMMITMENTS) or (b in _FEWER_HOURS and a in _COMMITMENTS)
    )


def _step(kind: str) -> int:
    return next((i for i, (_n, kinds) in enumerate(_GROUPS) if kind in kinds), len(_GROUPS))


def _amount(finding: Finding) -> Decimal:
    saving = finding.saving
    if saving is None or saving.monthly_amount <= 0:
        return Decimal(0)
    return saving.monthly_amount


@dataclasses.dataclass(frozen=True)
class _Step:
    kind: str
    alone: Decimal
    """The finding's own saving (a stopped share of fewer-at-night: that share)."""
    share: Decimal
    """``alone`` as a share of the monthly cost (at most 1)."""


def monthly_runtime_cost(ev: InstanceEvidence, th: RuleThresholds) -> Decimal | None:
    """What the instance's runtime costs a month at today's pattern (None: no price known):
    the runtime price paid per hour x the hours a month it is paid for (every hour for a
    subscription)."""
    price = paid_price(ev, th)
    if price is None or price.hourly <= 0:
        return None
    if ev.charge_type == PREPAID:
        hours = Decimal(month_hours(th))
    else:
        hours, _how = running_hours_per_month(ev, th)
    return cents(price.hourly * hours)


def _sequence(
    steps: Sequence[_Step], cost: Decimal | None
) -> tuple[Decimal, list[tuple[_Step, Decimal, Decimal]]]:
    """Price ``steps`` in order: (total, [(step, share of the cost left before it, saving)]).

    The first step saves its own figure; each next one ``cost x left x share`` to the cent,
    never more than the cost not saved yet."""
    out: list[tuple[_Step, Decimal, Decimal]] = []
    if cost is None or cost <= 0:
        return sum((s.alone for s in steps), Decimal(0)), [(s, _ONE, s.alone) for s in steps]
    left, total = _ONE, Decimal(0)
    for step in sorted(steps, key=lambda s: _step(s.kind)):
        saving = step.alone if left == _ONE else cents(cost * left * step.share)
        saving = min(saving, cost - total)
        out.append((step, left, saving))
        total += saving
        left *= _ONE - step.share
    return total, out


def _share_of(amount: Decimal, cost: Decimal | None) -> Decimal:
    if cost is None or cost <= 0:
        return Decimal(0)
    return min(amount / cost, _ONE).quantize(_SHARE)


def _best(steps: Sequence[_Step], fixed: Sequence[_Step], cost: Decimal | None) -> list[_Step]:
    """The compatible subset of ``steps`` (with ``fixed`` always in) that saves the most;
    on a tie the smaller set, then the earlier kinds."""
    order = {kind: i for i, kind in enumerate(sorted({s.kind for s in steps}))}
    best: tuple[Decimal, int, tuple[int, ...]] | None = None
    chosen: list[_Step] = []
    for size in range(len(steps) + 1):
        for subset in itertools.combinations(steps, size):
            members = [*fixed, *subset]
            if any(not compatible(a.kind, b.kind) for a, b in itertools.combinations(members, 2)):
                continue
            total, _priced = _sequence(members, cost)
            key = (-total, size, tuple(sorted(order[s.kind] for s in subset)))
            if best is None or key < best:
                best, chosen = key, list(subset)
    return chosen


def _stopped_shares(findings: Iterable[Finding]) -> dict[int, list[Decimal]]:
    """Instance id -> its stopped shares of the project-level fewer-at-night findings."""
    out: dict[int, list[Decimal]] = {}
    for finding in findings:
        # Stored as a project's night downshift, told apart by its variant.
        if finding.instance_id is not None or finding.parameters.get("variant") != FEWER_INSTANCES:
            continue
        for member in finding.action.get("members", ()):
            if member.get("role") == "stop":
                out.setdefault(int(member["instance_id"]), []).append(
                    Decimal(str(member["monthly_share"]))
                )
    return out


def plan_instances(
    fleet: Sequence[InstanceEvidence], findings: Sequence[Finding], th: RuleThresholds
) -> list[Finding]:
    """``findings`` with each instance's plan marked (``role``) and priced in sequence.

    Applied last (after ``billable_only``): project-level findings keep their figures and are
    plan rows; an instance's findings are split into its plan and the alternatives.
    """
    evidence: Mapping[int, InstanceEvidence] = {ev.instance_id: ev for ev in fleet}
    shares_of = _stopped_shares(findings)
    by_instance: dict[int, list[Finding]] = {}
    out: list[Finding] = []
    for finding in findings:
        if finding.instance_id is None:
            out.append(finding)
        else:
            by_instance.setdefault(finding.instance_id, []).append(finding)
    for instance_id, own in by_instance.items():
        ev = evidence.get(instance_id)
        out += _instance_plan(
            own, monthly_runtime_cost(ev, th) if ev else None, shares_of.get(instance_id, [])
        )
    return out


def _instance_plan(
    own: Sequence[Finding], cost: Decimal | None, stopped_shares: Sequence[Decimal]
) -> list[Finding]:
    fixed = [_Step(FEWER_INSTANCES, share, _share_of(share, cost)) for share in stopped_shares]
    steps = {
        index: _Step(f.kind, _amount(f), _share_of(_amount(f), cost))
        for index, f in enumerate(own)
        if _amount(f) > 0
    }
    chosen = _best(list(steps.values()), fixed, cost)
    in_plan = {index for index, step in steps.items() if any(step is c for c in chosen)}
    # Findings without money join the plan when they can be done with it.
    kinds = [s.kind for s in (*fixed, *chosen)]
    for index, f in enumerate(own):
        if index not in steps and all(compatible(f.kind, k) for k in kinds):
            in_plan.add(index)
            kinds.append(f.kind)
    _total, priced = _sequence([*fixed, *chosen], cost)
    out = []
    for index, f in enumerate(own):
        if index not in in_plan:
            out.append(_alternative(f, cost))
        elif index not in steps:
            out.append(dataclasses.replace(f, role=PLAN))
        else:
            out.append(_priced(f, steps[index], cost, priced))
    return out


def _alternative(finding: Finding, cost: Decimal | None) -> Finding:
    """An alternative keeps its own figure, at most the instance's monthly cost."""
    saving = finding.saving
    if saving is not None and cost is not None and saving.monthly_amount > cost:
        saving = Saving(
            cost,
            saving.currency,
            Text("plan.capped", {"formula": saving.formula, "cost": cost}),
            saving.price_source,
        )
    return dataclasses.replace(finding, role=ALTERNATIVE, saving=saving)


def _priced(
    finding: Finding,
    step: _Step,
    cost: Decimal | None,
    priced: Sequence[tuple[_Step, Decimal, Decimal]],
) -> Finding:
    """``finding`` as a plan row: its saving after the plan's earlier steps, and the figures
    that recompute it (``evidence["plan"]``)."""
    assert finding.saving is not None
    left, saving = next((left, saving) for s, left, saving in priced if s is step)
    formula = finding.saving.formula
    if saving != finding.saving.monthly_amount:
        before = [s.kind for s, _left, _saving in priced if _step(s.kind) < _step(step.kind)]
        formula = Text(
            "plan.after" if before else "plan.after_nothing",
            {
                "formula": formula,
                "before": [Text(f"kind.{kind}") for kind in before],
                "cost": cost,
                "left": left.normalize(),
                "share": step.share.normalize(),
                "saving": saving,
            },
        )
    return dataclasses.replace(
        finding,
        role=PLAN,
        saving=Saving(saving, finding.saving.currency, formula, finding.saving.price_source),
        evidence={**finding.evidence, "plan": plan_evidence(cost, priced, step)},
    )


def plan_evidence(
    cost: Decimal | None, priced: Sequence[tuple[_Step, Decimal, Decimal]], step: _Step
) -> dict[str, object]:
    """The plan a row belongs to, as fields: the monthly runtime cost, and each step's own
    saving, its share of the cost, the share left before it and its saving in the plan: the
    first step saves its own figure, each next one ``monthly_cost x left_before x share`` to
    the cent (at most what the earlier ones left)."""
    return {
        "monthly_cost": None if cost is None else str(cost),
        "this": step.kind,
        "steps": [
            {
                "kind": s.kind,
                "saving_alone": str(s.alone),
                "share": str(s.share),
                "left_before": str(left.normalize()),
                "saving": str(saving),
            }
            for s, left, saving in priced
        ],
        "total": str(sum((saving for _s, _l, saving in priced), Decimal(0))),
    }

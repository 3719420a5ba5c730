"""A finding of every kind and every variant the rules word differently, from hand-built
evidence (no database): what the words tests render in each language."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import numpy as np

from apps.recommendations.rules import (
    DEFAULT_RULE_THRESHOLDS,
    BilledComponent,
    Finding,
    InstanceEvidence,
    ReservedPrice,
    TypeOffer,
    evaluate,
    fewer_at_night,
    plan_instances,
)
from tests.recommendations.builders import (
    V100_A100_OFFERS,
    evidence,
    hourly,
    pressed_v100,
    profile,
    stopped_subscription,
    v100,
    working_hours_matrix,
)

TH = DEFAULT_RULE_THRESHOLDS
NO_BILLS = {"billed_hours": Decimal(0), "billed_runtime_cost": Decimal(0)}
# A bill naming its parts: compute and GPU (runtime), a component no rule places (priced as
# runtime) and a disk that keeps billing while the instance is stopped.
BILLED = (
    BilledComponent(
        "runtime", "v_cvm_compute", "云服务器计算", Decimal("1500.00"), Decimal(336), True
    ),
    BilledComponent("unknown", "v_mystery", "", Decimal("180.00"), Decimal(336), True),
    BilledComponent("storage", "v_cbs_system", "系统盘", Decimal("33.60"), Decimal(672), False),
)


def _idle(**changes: object) -> InstanceEvidence:
    base: dict[str, object] = {
        "gpu_util_p95": hourly(3.0),
        "gpu_util_avg": hourly(1.5),
        "gpu_mem_avg": hourly(1.2),
        "gpu_mem_p95": hourly(1.5),
        "phase_minutes": {"idle": 20160},
    }
    return evidence(**{**base, **changes})


def _day_only(**changes: object) -> InstanceEvidence:
    return evidence(
        profile=profile(working_hours_matrix(busy=85.0, off=3.0), np.ones((7, 24))),
        gpu_util_p95=hourly(40.0),
        **changes,
    )


def _web(index: int, night: float) -> InstanceEvidence:
    return evidence(
        instance_id=100 + index,
        provider_id=f"ins-web{index}",
        name=f"web-{index}",
        profile=profile(working_hours_matrix(busy=80.0, off=night), np.ones((7, 24))),
    )


def _one(findings: list[Finding], kind: str) -> Finding:
    (found,) = [f for f in findings if f.kind == kind]
    return found


def _pipeline(**changes: object) -> InstanceEvidence:
    return evidence(
        gpu_count=2,
        gpu_util_p95=hourly(18.0),
        gpu_mem_p95=hourly(56.0),
        phase_minutes={"idle": 160, "data_processing": 16000, "training": 4000},
        **changes,
    )


def _plans() -> dict[str, Finding]:
    """Plan rows priced after an earlier step, a first step capped at the cost, and an
    alternative capped at the cost."""
    both = _day_only(tags={"workload": "HPO"})
    after = _one(plan_instances([both], evaluate(both), TH), "spot")
    steady = evidence(tags={"workload": "HPO"})
    found = evaluate(steady)
    spot = _one(found, "spot")
    assert spot.saving is not None
    subscription = _one(found, "subscription")
    assert subscription.saving is not None
    dear = dataclasses.replace(
        spot, saving=dataclasses.replace(spot.saving, monthly_amount=Decimal("99999.00"))
    )
    dearer = dataclasses.replace(
        subscription,
        saving=dataclasses.replace(subscription.saving, monthly_amount=Decimal("88888.00")),
    )
    # Both above the cost, and alternatives of each other: the plan takes one (capped in the
    # plan), the other stays an alternative (capped at the cost).
    rows = plan_instances([steady], [dear, dearer], TH)
    capped = next(r for r in rows if r.role == "alternative")
    alone = plan_instances([steady], [dear], TH)[0]
    return {"plan_after": after, "plan_capped": capped, "plan_first_capped": alone}


def gallery() -> dict[str, Finding]:
    """Variant name -> its finding."""
    four = [_web(0, 16.0), _web(1, 18.0), _web(2, 17.0), _web(3, 16.0)]
    four_busier = [_web(i, 25.0) for i in range(4)]
    next_size = (*V100_A100_OFFERS, v100("GN10Xp.10XLARGE160", 4, "70.00"))
    cheaper_size = (*V100_A100_OFFERS, v100("GN10Xp.10XLARGE160", 4, "50.00"))
    prepaid_sizes = (
        *V100_A100_OFFERS,
        TypeOffer(
            "GN10Xp.10XLARGE160",
            "GN10Xp",
            "NVIDIA V100",
            4,
            32,
            Decimal("70.00"),
            Decimal("29484.00"),
        ),
    )
    unpriced = tuple(
        dataclasses.replace(v100(name, cards, "0"), hourly_postpaid=None)
        for name, cards in (("GN10Xp.5XLARGE80", 2), ("GN10Xp.10XLARGE160", 4))
    )
    already_stopped = working_hours_matrix(busy=1.0, off=0.0)
    ri = ReservedPrice("ap-shanghai", "GN7.2XLARGE32", Decimal("2.50"), 1, "CNY")
    night = working_hours_matrix(busy=70.0, off=20.0)
    night[5:, :] = 20.0
    cases = {
        "stop_idle_postpaid_bills": (_idle(billed_components=BILLED), "stop_idle"),
        "stop_idle_postpaid_catalog": (_idle(**NO_BILLS), "stop_idle"),
        "stop_idle_no_price": (_idle(offers=(), **NO_BILLS), "stop_idle"),
        "stop_idle_no_days": (_idle(existed_hours=0.0), "stop_idle"),
        "stop_idle_prepaid_bills": (_idle(charge_type="PREPAID"), "stop_idle"),
        "stop_idle_prepaid_catalog": (_idle(charge_type="PREPAID", **NO_BILLS), "stop_idle"),
        "stopped_subscription_bills": (stopped_subscription(), "stop_idle"),
        "stopped_subscription_catalog": (stopped_subscription(240, **NO_BILLS), "stop_idle"),
        "idle_held": (_idle(gpu_mem_avg=hourly(40.0)), "idle_held"),
        "idle_held_prepaid": (_idle(gpu_mem_avg=hourly(40.0), charge_type="PREPAID"), "idle_held"),
        "schedule": (_day_only(billed_components=BILLED), "schedule"),
        "schedule_no_price": (_day_only(offers=(), **NO_BILLS), "schedule"),
        "schedule_automate": (
            evidence(
                profile=profile(np.where(already_stopped > 0, 85.0, np.nan), already_stopped),
                billed_hours=Decimal(100),
            ),
            "schedule",
        ),
        "night_downshift": (
            evidence(
                instance_type="GN7.8XLARGE128",
                gpu_count=2,
                profile=profile(night, np.ones((7, 24))),
                billed_runtime_cost=Decimal("4435.20"),
            ),
            "night_downshift",
        ),
        "subscription": (evidence(), "subscription"),
        "reserved_instance": (evidence(reserved_prices=(ri,)), "reserved_instance"),
        "spot": (evidence(tags={"workload": "HPO"}), "spot"),
        "downsize": (
            evidence(
                instance_type="GN7.8XLARGE128",
                gpu_count=2,
                gpu_util_p95=hourly(20.0),
                gpu_util_avg=hourly(12.0),
                gpu_mem_p95=hourly(30.0),
                gpu_mem_avg=hourly(25.0),
                billed_runtime_cost=Decimal("4435.20"),
            ),
            "downsize",
        ),
        "upsize_extra_cost": (pressed_v100(next_size), "upsize"),
        "upsize_saving": (pressed_v100(cheaper_size), "upsize"),
        "upsize_target_catalog_only": (pressed_v100(next_size[-1:]), "upsize"),
        "upsize_unpriced": (pressed_v100(unpriced, **NO_BILLS), "upsize"),
        "upsize_prepaid_catalog": (
            pressed_v100(prepaid_sizes, charge_type="PREPAID", **NO_BILLS),
            "upsize",
        ),
        "upsize_no_larger_type": (
            evidence(
                instance_type="GN7.8XLARGE128",
                gpu_count=2,
                gpu_util_avg=hourly(75.0),
                gpu_mem_p95=hourly(96.0),
                billed_runtime_cost=Decimal("4435.20"),
            ),
            "upsize",
        ),
        "data_pipeline": (_pipeline(), "data_pipeline"),
        "data_pipeline_no_price": (_pipeline(offers=(), **NO_BILLS), "data_pipeline"),
        "data_pipeline_unconfirmed": (
            _pipeline(phase_minutes_missing={"data_processing": {"cpu_util": 15000}}),
            "data_pipeline",
        ),
        "thermal": (evidence(gpu_temp_p95=hourly(88.0)), "thermal"),
    }
    out = {name: _one(evaluate(ev), kind) for name, (ev, kind) in cases.items()}
    (out["fewer_instances_keep_one"],) = fewer_at_night(four, TH)
    (out["fewer_instances_keep_many"],) = fewer_at_night(four_busier, TH)
    out.update(_plans())
    return out

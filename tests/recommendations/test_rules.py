"""Every rule on hand-built inputs (no database); each saving recomputed here from the figures."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest

from apps.recommendations.rules import (
    DEFAULT_RULE_THRESHOLDS,
    PRICE_FROM_BILLS,
    PRICE_FROM_CATALOG,
    ReservedPrice,
    RuleThresholds,
    ThresholdError,
    billable_only,
    evaluate,
    samples_per_second,
)
from apps.recommendations.rules.weekly import circular_runs
from tests.recommendations.builders import (
    HOURS,
    V100_A100_OFFERS,
    evidence,
    hourly,
    pressed_v100,
    profile,
    stopped_subscription,
    v100,
    working_hours_matrix,
)
from tests.recommendations.words import english

CENT = Decimal("0.01")


def kinds(findings) -> list[str]:
    return [f.kind for f in findings]


def by_kind(findings, kind):
    (found,) = [f for f in findings if f.kind == kind]
    return found


def idle_evidence(**changes):
    base = {
        "gpu_util_p95": hourly(3.0),
        "gpu_util_avg": hourly(1.5),
        "gpu_mem_avg": hourly(1.2),
        "gpu_mem_p95": hourly(1.5),
        "phase_minutes": {"idle": 20160},
    }
    return evidence(**{**base, **changes})


def test_it_stops_an_instance_idle_around_the_clock_and_prices_it_from_the_bills() -> None:
    findings = evaluate(idle_evidence())
    assert kinds(findings) == ["stop_idle"]
    (finding,) = findings
    assert finding.saving is not None
    # 1680.00 CNY / 336 h = 5.0000 CNY/h; 336 h billed in 14 days -> 720 h a month.
    assert finding.saving.monthly_amount == Decimal("5.0000") * 720
    assert finding.saving.price_source == PRICE_FROM_BILLS
    assert "1680.00 CNY runtime billed / 336.0 h billed = 5.0000 CNY/h" in english(
        finding.saving.formula
    )
    assert "--StoppedMode STOP_CHARGING" in finding.action["commands"][0]
    assert "--InstanceIds '[\"ins-abc12345\"]'" in finding.action["commands"][0]
    assert finding.evidence["idle_hours"] == HOURS


def test_it_reports_idle_held_separately_when_gpu_memory_is_held() -> None:
    findings = evaluate(idle_evidence(gpu_mem_avg=hourly(40.0)))
    assert kinds(findings) == ["idle_held"]
    assert findings[0].risk.level == 3
    assert "Tell the owner" in english(findings[0].action["steps"][0])


def test_it_uses_the_catalog_price_without_bills_and_says_so() -> None:
    (finding,) = evaluate(idle_evidence(billed_hours=Decimal(0), billed_runtime_cost=Decimal(0)))
    assert finding.saving is not None
    # Catalog 5.20 CNY/h x 336 observed hours in 14 days x 30/14 = 720 h.
    assert finding.saving.monthly_amount == (Decimal("5.20") * 720).quantize(CENT)
    assert finding.saving.price_source == PRICE_FROM_CATALOG


def test_it_needs_three_days_of_evidence_before_calling_an_instance_idle() -> None:
    short = np.zeros(HOURS)
    short[-48:] = 60.0
    assert "stop_idle" not in kinds(evaluate(idle_evidence(observed_minutes=short)))
    short[-72:] = 60.0
    assert kinds(evaluate(idle_evidence(observed_minutes=short))) == ["stop_idle"]


def test_it_never_gives_an_instance_idle_around_the_clock_a_168_hour_schedule() -> None:
    flat = profile(np.full((7, 24), 3.0), np.ones((7, 24)))
    assert kinds(evaluate(idle_evidence(profile=flat))) == ["stop_idle"]


def test_it_schedules_a_day_only_instance_with_cron_and_honest_stop_charging() -> None:
    p95 = working_hours_matrix(busy=85.0, off=3.0)
    ev = evidence(
        profile=profile(p95, np.ones((7, 24))),
        gpu_util_p95=hourly(40.0),
        billed_hours=Decimal(336),
        billed_runtime_cost=Decimal("1680.00"),
    )
    finding = by_kind(evaluate(ev), "schedule")
    runs = finding.action["window"]["runs"]
    assert [(r["start_hour"], r["end_hour"]) for r in runs] == [(19, 9)] * 5
    assert finding.action["window"]["weekly_hours"] == 168 - 50
    # 118 h/week running in the window x 30/7 = 505.7 h/month x 5.0000 CNY/h.
    hours = (Decimal(118) * 30 / 7).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    assert finding.saving.monthly_amount == (hours * Decimal("5.0000")).quantize(CENT)
    assert "CRON_TZ=Asia/Shanghai" in finding.action["cron"]
    assert any(
        line.startswith("0 19 * * 1-5 tccli cvm StopInstances") for line in finding.action["cron"]
    )
    assert any(
        line.startswith("0 9 * * 1-5 tccli cvm StartInstances") for line in finding.action["cron"]
    )
    assert "disks" in english(finding.explanation)
    # The schedule changes the uptime, so no subscription is offered beside it.
    assert "subscription" not in kinds(evaluate(ev))


def test_it_gives_an_instance_already_stopped_at_night_a_schedule_worth_nothing_more() -> None:
    coverage = working_hours_matrix(busy=1.0, off=0.0)
    p95 = np.where(coverage > 0, 85.0, np.nan)
    ev = evidence(profile=profile(p95, coverage), billed_hours=Decimal(100))
    finding = by_kind(evaluate(ev), "schedule")
    assert finding.saving.monthly_amount == 0
    assert finding.title.code == "schedule.automate.title"


def _day_only(**changes):
    return evidence(
        profile=profile(working_hours_matrix(busy=85.0, off=3.0), np.ones((7, 24))),
        gpu_util_p95=hourly(40.0),
        **changes,
    )


def test_nothing_is_saved_by_stopping_a_pay_as_you_go_instance_stopped_without_charges() -> None:
    """Stopped with STOP_CHARGING it bills no runtime: no stop, no schedule; every other finding
    (and the same instance stopped with KEEP_CHARGING, or running) keeps its figures."""
    stopped = {"state": "STOPPED", "stop_charging_mode": "STOP_CHARGING"}
    for ev, kind in ((idle_evidence(), "stop_idle"), (_day_only(), "schedule")):
        assert kind in kinds(evaluate(ev))
        for other in (
            {},
            {"state": "STOPPED", "stop_charging_mode": "KEEP_CHARGING"},
            {"state": "RUNNING", "stop_charging_mode": "NOT_APPLICABLE"},
        ):
            same = dataclasses.replace(ev, **other)
            assert billable_only([same], evaluate(same)) == evaluate(ev), (kind, other)
        # A schedule goes only once the instance is stopped for good (no metric minute for 72
        # hours): a day-only instance whose inventory is read during its night off keeps it.
        metrics = ev.observed_minutes.copy()
        metrics[-72:] = 0.0
        quiet = dataclasses.replace(ev, observed_minutes=metrics, **stopped)
        found = evaluate(quiet)
        assert kind in kinds(found)
        assert billable_only([quiet], found) == [f for f in found if f.kind != kind]
        tonight = dataclasses.replace(ev, **stopped)
        if kind == "schedule":
            assert billable_only([tonight], evaluate(tonight)) == evaluate(tonight)
        else:
            assert kind not in kinds(billable_only([tonight], evaluate(tonight)))
    # Held GPU memory too (the same rule's other kind), and another instance's stay.
    held = dataclasses.replace(idle_evidence(gpu_mem_avg=hourly(40.0)), **stopped)
    other = dataclasses.replace(idle_evidence(), instance_id=2, provider_id="ins-other")
    findings = evaluate(held) + evaluate(other)
    assert kinds(findings) == ["idle_held", "stop_idle"]
    assert [f.instance_id for f in billable_only([held, other], findings)] == [2]


def test_a_stopped_subscription_still_bills_and_keeps_its_release_saving() -> None:
    ev = dataclasses.replace(
        idle_evidence(charge_type="PREPAID"), state="STOPPED", stop_charging_mode="STOP_CHARGING"
    )
    findings = evaluate(ev)
    assert kinds(findings) == ["stop_idle"]
    assert billable_only([ev], findings) == findings


def test_it_offers_no_schedule_for_a_monthly_subscription() -> None:
    p95 = working_hours_matrix(busy=85.0, off=3.0)
    ev = evidence(profile=profile(p95, np.ones((7, 24))), charge_type="PREPAID")
    assert "schedule" not in kinds(evaluate(ev))


def test_it_switches_a_steady_instance_to_monthly_with_the_break_even_uptime() -> None:
    finding = by_kind(evaluate(evidence()), "subscription")
    # 5.0000 x 720 = 3600.00 pay-as-you-go; subscription 2190.24; saving 1409.76.
    assert finding.saving.monthly_amount == Decimal("3600.00") - Decimal("2190.24")
    # Break-even 2190.24 / (5.0000 x 720) = 60.8 %.
    assert finding.evidence["break_even_uptime_pct"] == "60.8"
    assert "ModifyInstancesChargeType" in finding.action["commands"][0]


def test_it_keeps_pay_as_you_go_below_the_break_even_uptime() -> None:
    # Up 50 % of the time: 168 of 336 hours billed.
    ev = evidence(billed_hours=Decimal(168), billed_runtime_cost=Decimal("840.00"))
    assert "subscription" not in kinds(evaluate(ev))


def test_it_prefers_a_cheaper_reserved_instance_and_shows_both_break_evens() -> None:
    ri = ReservedPrice("ap-shanghai", "GN7.2XLARGE32", Decimal("2.50"), 1, "CNY")
    finding = by_kind(evaluate(evidence(reserved_prices=(ri,))), "reserved_instance")
    # 3600.00 - 2.50 x 720 = 1800.00.
    assert finding.saving.monthly_amount == Decimal("1800.00")
    assert finding.evidence["options"]["subscription"]["break_even_uptime_pct"] == "60.8"
    assert finding.evidence["options"]["reserved_instance"]["break_even_uptime_pct"] == "50.0"


def test_it_moves_only_tagged_interruption_tolerant_work_to_spot_with_its_reclaim_risk() -> None:
    assert "spot" not in kinds(evaluate(evidence()))
    finding = by_kind(evaluate(evidence(tags={"workload": "HPO"})), "spot")
    # 3600.00 x (1 - 1.04 / 5.20) = 2880.00.
    assert finding.saving.monthly_amount == Decimal("2880.00")
    assert finding.risk.reason.code == "spot.risk"  # reclaimed with ~2 minutes' notice


def test_it_downsizes_to_the_cheapest_type_that_fits_the_peak() -> None:
    ev = evidence(
        instance_type="GN7.8XLARGE128",
        gpu_count=2,
        gpu_util_p95=hourly(20.0),
        gpu_util_avg=hourly(12.0),
        gpu_mem_p95=hourly(30.0),
        gpu_mem_avg=hourly(25.0),
        billed_runtime_cost=Decimal("4435.20"),
    )
    finding = by_kind(evaluate(ev), "downsize")
    assert finding.parameters == {"to": "GN7.2XLARGE32"}
    # Paid 4435.20 / 336 = 13.2000; target 13.2000 x 5.20 / 13.60 = 5.0471; x 720 h.
    target = (Decimal("13.2000") * Decimal("5.20") / Decimal("13.60")).quantize(Decimal("0.0001"))
    assert finding.saving.monthly_amount == ((Decimal("13.2000") - target) * 720).quantize(CENT)


def same_work_on_target(finding):
    """The month's work on the target, from the evidence shown: (cost now, cost there)."""
    shown = finding.evidence
    hours = Decimal(shown["running_hours_per_month"])
    now = (Decimal(shown["price"]["runtime_hourly"]) * hours).quantize(CENT, ROUND_HALF_UP)
    target_hours = hours * Decimal(shown["current_samples_per_hour"])
    target_hours /= Decimal(shown["target_samples_per_hour"])
    there = Decimal(shown["target_hourly"]) * target_hours.quantize(Decimal("0.1"), ROUND_HALF_UP)
    return now, there.quantize(CENT, ROUND_HALF_UP)


def test_it_upsizes_to_the_next_type_in_the_family_not_the_biggest_in_the_catalog() -> None:
    """The next step (4 cards), not 8 cards, nor an A100 of another family that is cheaper per
    sample: memory pressure is relieved by the next larger size of what it runs on."""
    offers = (
        *V100_A100_OFFERS,
        v100("GN10Xp.20XLARGE320", 8, "126.40"),
        v100("GN10Xp.10XLARGE160", 4, "63.20"),
    )
    finding = by_kind(evaluate(pressed_v100(offers)), "upsize")
    assert finding.parameters == {"to": "GN10Xp.10XLARGE160"}
    figures = finding.upsize
    assert figures is not None
    assert (figures.reason, figures.target_type) == ("next_in_family", "GN10Xp.10XLARGE160")
    # Twice the cards at twice the price: the same work costs the same, so no saving, and
    # no extra cost either (31.6000 x 720 h = 22752.00 = 63.2000 x 360 h).
    now, there = same_work_on_target(finding)
    assert now == there == Decimal("22752.00")
    assert finding.saving is None
    assert figures.monthly_extra_cost == Decimal("0.00")
    # Work per yuan: samples per hour / price per hour, 2 x 280 x 3600 / 31.6000.
    per_yuan = (Decimal(2 * 280 * 3600) / Decimal("31.6000")).quantize(Decimal("0.1"))
    assert figures.current_samples_per_currency_unit == per_yuan
    assert figures.target_samples_per_currency_unit == per_yuan


@pytest.mark.parametrize("target_price", ["50.00", "60.00", "63.20", "70.00", "126.40"])
def test_an_upsize_never_has_a_negative_saving(target_price: str) -> None:
    """Dearer per unit of work: the extra cost, no saving. Cheaper: a positive saving."""
    offers = (*V100_A100_OFFERS, v100("GN10Xp.10XLARGE160", 4, target_price))
    finding = by_kind(evaluate(pressed_v100(offers)), "upsize")
    figures = finding.upsize
    assert figures is not None
    now, there = same_work_on_target(finding)
    assert figures.monthly_extra_cost == max(there - now, Decimal(0))
    if there < now:
        assert finding.saving is not None
        assert finding.saving.monthly_amount == now - there > 0
    else:
        assert finding.saving is None
    assert figures.monthly_extra_cost >= 0
    assert (figures.target_samples_per_currency_unit or 0) > 0


def test_an_upsize_without_any_price_names_its_target_and_prices_nothing() -> None:
    unpriced = tuple(
        dataclasses.replace(v100(name, cards, "0"), hourly_postpaid=None)
        for name, cards in (("GN10Xp.5XLARGE80", 2), ("GN10Xp.10XLARGE160", 4))
    )
    ev = pressed_v100(unpriced, billed_hours=Decimal(0), billed_runtime_cost=Decimal(0))
    finding = by_kind(evaluate(ev), "upsize")
    assert finding.saving is None
    assert finding.upsize is not None
    assert finding.upsize.target_type == "GN10Xp.10XLARGE160"
    assert finding.upsize.monthly_extra_cost is None
    assert "cannot be priced" in english(finding.upsize.formula)


def test_memory_pressure_without_a_larger_type_stays_a_finding_without_a_saving() -> None:
    """The largest GN7 already (2 x T4): nothing larger in the family, so no target, no
    saving, and the reason and the pressure's evidence are shown."""
    ev = evidence(
        instance_type="GN7.8XLARGE128",
        gpu_count=2,
        gpu_util_avg=hourly(75.0),
        gpu_mem_p95=hourly(96.0),
        billed_runtime_cost=Decimal("4435.20"),
    )
    finding = by_kind(evaluate(ev), "upsize")
    assert finding.saving is None
    assert finding.parameters == {"reason": "no_larger_type"}
    figures = finding.upsize
    assert figures is not None
    assert (figures.reason, figures.target_type, figures.monthly_extra_cost) == (
        "no_larger_type",
        None,
        None,
    )
    assert finding.evidence["family"] == "GN7"
    assert finding.evidence["memory_pressure_share_pct"] == 100.0
    assert "commands" in finding.action
    assert finding.action["commands"] == []
    # What the work costs now is still shown: 2 x 120 x 3600 samples/h / 13.2000 CNY/h.
    expected = (Decimal(2 * 120 * 3600) / Decimal("13.2000")).quantize(Decimal("0.1"))
    assert figures.current_samples_per_currency_unit == expected


def test_it_knows_the_bert_base_throughput_of_t4_v100_and_a100() -> None:
    assert [samples_per_second(m) for m in ("NVIDIA T4", "Tesla V100", "NVIDIA A100")] == [
        120.0,
        280.0,
        500.0,
    ]
    assert samples_per_second("NVIDIA A10") == 220.0


def test_it_reports_a_data_bound_pipeline_as_paid_while_waiting_not_as_a_saving() -> None:
    ev = evidence(
        gpu_count=2,
        gpu_util_p95=hourly(18.0),
        gpu_mem_p95=hourly(56.0),
        phase_minutes={"idle": 160, "data_processing": 16000, "training": 4000},
    )
    finding = by_kind(evaluate(ev), "data_pipeline")
    # Fixing the pipeline gives GPU time back; the bill stays: no saving.
    assert finding.saving is None
    waiting = finding.paid_while_waiting
    assert waiting is not None
    # Recomputed from the evidence shown: price x hours a month x the data-bound share.
    shown = finding.evidence
    share = Decimal(shown["data_bound_minutes"]) / Decimal(shown["analysed_minutes"])
    hours = Decimal(shown["running_hours_per_month"])
    hourly_price = Decimal(shown["price"]["runtime_hourly"])
    monthly = (hourly_price * hours).quantize(CENT, ROUND_HALF_UP)
    assert waiting.monthly_amount == (monthly * share).quantize(CENT, ROUND_HALF_UP)
    gpu_hours = hours * shown["gpu_count"] * share
    assert waiting.gpu_hours_per_month == gpu_hours.quantize(Decimal("0.1"), ROUND_HALF_UP)
    # And the figures themselves: 1680.00 CNY / 336 h = 5.0000 CNY/h, 720 h, 2 cards.
    assert (hourly_price, hours, shown["gpu_count"]) == (Decimal("5.0000"), Decimal("720.0"), 2)
    assert waiting.gpu_hours_per_month == Decimal("1142.9")  # 720 x 2 x 16000/20160
    assert f"= {waiting.monthly_amount} CNY/month paid while waiting" in english(waiting.formula)
    assert f"= {waiting.gpu_hours_per_month} GPU-hours/month" in english(waiting.formula)
    assert waiting.price_source == PRICE_FROM_BILLS
    assert finding.risk.level == 0


def test_it_reports_the_gpu_hours_waiting_without_money_when_no_price_is_known() -> None:
    ev = evidence(
        gpu_util_p95=hourly(18.0),
        phase_minutes={"idle": 160, "data_processing": 16000, "training": 4000},
        billed_hours=Decimal(0),
        billed_runtime_cost=Decimal(0),
        offers=(),
    )
    finding = by_kind(evaluate(ev), "data_pipeline")
    assert finding.saving is None
    assert finding.paid_while_waiting is not None
    assert finding.paid_while_waiting.monthly_amount is None
    assert finding.paid_while_waiting.gpu_hours_per_month > 0


def test_it_does_not_claim_a_busy_cpu_for_data_bound_minutes_seen_without_cpu() -> None:
    """A source without CPU: the pattern is there, the cause unconfirmed; said so, low."""
    data_bound = {"idle": 160, "data_processing": 16000, "training": 4000}
    seen = evidence(gpu_util_p95=hourly(18.0), phase_minutes=data_bound)
    blind = dataclasses.replace(
        seen, phase_minutes_missing={"data_processing": {"cpu_util": 15000}}
    )
    confirmed = by_kind(evaluate(seen), "data_pipeline")
    unconfirmed = by_kind(evaluate(blind), "data_pipeline")
    assert "the CPU busy preparing input" in english(confirmed.explanation)
    assert confirmed.confidence.level == "high"
    assert "the CPU busy preparing input" not in english(unconfirmed.explanation)
    assert "no CPU utilization for 15000 of those 16000 minutes" in english(unconfirmed.explanation)
    assert unconfirmed.confidence.level == "low"
    assert unconfirmed.evidence["data_bound_minutes_without_cpu"] == 15000
    # The money is the same waiting, priced the same way, and neither is a saving.
    assert unconfirmed.paid_while_waiting == confirmed.paid_while_waiting
    assert unconfirmed.saving is confirmed.saving is None
    # Enough minutes seen with CPU (16000 - 6000 of 20160 >= 30 %): the usual finding.
    partly = dataclasses.replace(
        seen, phase_minutes_missing={"data_processing": {"cpu_util": 6000}}
    )
    assert "the CPU busy preparing input" in english(
        by_kind(evaluate(partly), "data_pipeline").explanation
    )


def test_it_raises_a_thermal_alert_without_a_saving() -> None:
    finding = by_kind(evaluate(evidence(gpu_temp_p95=hourly(88.0))), "thermal")
    # No saving at all, rather than a zero one that a total would count.
    assert finding.saving is None
    assert finding.paid_while_waiting is None
    assert "operations alert" in english(finding.explanation)


def test_it_downshifts_a_multi_card_instance_at_night() -> None:
    p95 = working_hours_matrix(busy=70.0, off=20.0)
    p95[5:, :] = 20.0
    ev = evidence(
        instance_type="GN7.8XLARGE128",
        gpu_count=2,
        profile=profile(p95, np.ones((7, 24))),
        billed_runtime_cost=Decimal("4435.20"),
    )
    finding = by_kind(evaluate(ev), "night_downshift")
    assert finding.parameters["to"] == "GN7.2XLARGE32"
    target = (Decimal("13.2000") * Decimal("5.20") / Decimal("13.60")).quantize(Decimal("0.0001"))
    hours = (Decimal(118) * 30 / 7).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    assert finding.saving.monthly_amount == ((Decimal("13.2000") - target) * hours).quantize(CENT)
    assert finding.target == f"instance:{ev.instance_id}"


def test_it_gives_a_well_used_training_instance_on_a_subscription_nothing() -> None:
    assert evaluate(evidence(charge_type="PREPAID")) == []


def test_it_applies_overrides_and_refuses_unknown_or_contradicting_keys() -> None:
    lenient = DEFAULT_RULE_THRESHOLDS.with_overrides({"idle_min_share": 0.5})
    half = idle_evidence(gpu_util_p95=np.where(np.arange(HOURS) % 2 == 0, 3.0, 50.0))
    assert "stop_idle" not in kinds(evaluate(half))
    assert "stop_idle" in kinds(evaluate(half, lenient))
    with pytest.raises(ValueError, match="nonsense"):
        DEFAULT_RULE_THRESHOLDS.with_overrides({"nonsense": 1})
    with pytest.raises(ValueError, match="idle_gpu_util_p95_max_pct"):
        RuleThresholds(idle_gpu_util_p95_max_pct=20.0)
    with pytest.raises(ValueError, match="lookback_days"):
        DEFAULT_RULE_THRESHOLDS.with_overrides({"lookback_days": 1.5})


def test_each_rule_reads_its_own_lookback_when_it_is_overridden() -> None:
    """Busy the first week of the 14 days, idle the second: idle over 7 days, not over 14."""
    week = HOURS // 2
    p95 = np.where(np.arange(HOURS) < week, 80.0, 3.0)
    fortnight = idle_evidence(gpu_util_p95=p95, phase_minutes={"idle": 10080, "training": 10080})
    hourly_fields = ("gpu_util_p95", "gpu_util_avg", "gpu_mem_avg", "gpu_mem_p95")
    sliced = {name: getattr(fortnight, name)[week:] for name in hourly_fields}
    last_week = dataclasses.replace(
        fortnight,
        start=fortnight.end - dt.timedelta(days=7),
        existed_hours=float(week),
        gpu_temp_p95=fortnight.gpu_temp_p95[week:],
        observed_minutes=fortnight.observed_minutes[week:],
        phase_minutes={"idle": 10080},
        billed_runtime_cost=Decimal("840.00"),
        billed_hours=Decimal("168"),
        **sliced,
    )
    assert "stop_idle" not in kinds(evaluate(fortnight, DEFAULT_RULE_THRESHOLDS))
    short = DEFAULT_RULE_THRESHOLDS.with_overrides({"idle_lookback_days": 7})
    assert (short.lookback_for("idle"), short.lookback_for("thermal")) == (7, 14)
    assert short.lookbacks() == [7, 14]
    finding = by_kind(evaluate(fortnight, short, {7: last_week}), "stop_idle")
    assert finding.evidence["idle_hours"] == week
    assert "last 7 days" in english(finding.explanation)
    assert finding.confidence.level == "high"  # the whole 7-day lookback observed
    with pytest.raises(ValueError, match="idle_lookback_days: no evidence over 7 days"):
        evaluate(fortnight, short)
    with pytest.raises(ValueError, match="idle_lookback_days: between 1 and 93"):
        DEFAULT_RULE_THRESHOLDS.with_overrides({"idle_lookback_days": 0})
    with pytest.raises(ValueError, match="thermal_lookback_days: expected an integer"):
        DEFAULT_RULE_THRESHOLDS.with_overrides({"thermal_lookback_days": 7.5})
    # Defaults keep the one shared lookback (one read of the evidence).
    assert DEFAULT_RULE_THRESHOLDS.lookbacks() == [14]


def test_it_finds_windows_that_wrap_from_sunday_into_monday() -> None:
    cells = np.zeros((7, 24), dtype=bool)
    cells[6, 20:] = True
    cells[0, :6] = True
    (run,) = circular_runs(cells, 6)
    assert (run.start_weekday, run.start_hour, run.hours) == (6, 20, 10)
    assert run.label() == "Sun 20:00-Mon 06:00"


def test_it_writes_cron_day_lists_with_sunday_as_zero() -> None:
    from apps.recommendations.rules.weekly import cron_lines

    assert cron_lines([(0, 19), (1, 19), (2, 19), (4, 19), (6, 7)], "stop") == [
        "0 7 * * 0 stop",
        "0 19 * * 1-3,5 stop",
    ]
    assert cron_lines([(day, 9) for day in range(7)], "start") == ["0 9 * * * start"]


def test_it_refuses_a_threshold_that_is_not_a_finite_number() -> None:
    with pytest.raises(ThresholdError, match="thermal_temp_min_c: expected a number") as caught:
        DEFAULT_RULE_THRESHOLDS.with_overrides({"thermal_temp_min_c": float("inf")})
    assert (caught.value.name, caught.value.reason) == ("thermal_temp_min_c", "expected a number")


def test_a_stopped_subscription_is_told_not_to_renew_priced_from_its_bills() -> None:
    # Stopped ten days ago: a stopped subscription still bills, so stopping saved nothing and
    # no schedule, commitment or size change applies; not renewing it saves its month.
    ev = stopped_subscription(240, billed_runtime_cost=Decimal("1680.00"))
    (finding,) = evaluate(ev)
    assert (finding.kind, finding.parameters) == ("stop_idle", {"variant": "stopped_subscription"})
    th = DEFAULT_RULE_THRESHOLDS
    hourly_paid = (ev.billed_runtime_cost / ev.billed_hours).quantize(Decimal("0.0001"))
    assert finding.saving is not None
    assert finding.saving.price_source == PRICE_FROM_BILLS
    assert finding.saving.monthly_amount == (hourly_paid * th.days_per_month * 24).quantize(CENT)
    assert finding.evidence["quiet_hours"] == 240
    assert finding.confidence.level == "high"
    (command,) = finding.action["commands"]
    assert "ModifyInstancesRenewFlag" in command
    assert ev.provider_id in command
    assert "subscription still bills" in english(finding.title)


def test_a_subscription_stopped_only_lately_or_running_gets_no_renewal_advice() -> None:
    # Quiet for less than three days (a weekend), or running: nothing to say about renewal.
    assert not any(
        f.parameters.get("variant") == "stopped_subscription"
        for ev in (
            stopped_subscription(48),
            dataclasses.replace(stopped_subscription(240), state="RUNNING"),
            dataclasses.replace(stopped_subscription(240), charge_type="POSTPAID_BY_HOUR"),
        )
        for f in evaluate(ev)
    )

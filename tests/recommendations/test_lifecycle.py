"""The stored lifecycle: one row per finding, resolve, reopen, dismiss, snooze, history."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from apps.accounts.models import Organization, User
from apps.billing.models import BillLine
from apps.billing.rollups import bill_days_refresh
from apps.recommendations import rules, services
from apps.recommendations.models import Recommendation, RecommendationEvent, Status
from apps.recommendations.rules import TypeOffer
from apps.recommendations.selectors import (
    CENT,
    Realised,
    realised_saving,
    recommendations_list,
    recommendations_totals,
)
from apps.recommendations.serializers import RealisedSerializer
from tests.recommendations.builders import T4_OFFERS, evidence, hourly, working_hours_matrix
from tests.recommendations.factories import (
    AS_OF,
    END,
    bill_hours,
    make_instance,
    set_profile,
    set_usage,
)
from tests.recommendations.words import english

pytestmark = pytest.mark.django_db


@pytest.fixture
def idle_box(acme: Organization):
    instance = make_instance(acme)
    set_usage(instance, gpu_util_p95=2.0)
    bill_hours(instance, start=END - dt.timedelta(days=14), hours=14 * 24)
    return instance


def _run(organization: Organization, at: dt.datetime = AS_OF) -> services.RunResult:
    return services.recommendations_run(organization=organization, as_of=at)


def _only(organization: Organization) -> Recommendation:
    (row,) = Recommendation.objects.for_organization(organization)
    return row


def test_it_creates_one_priced_recommendation_and_nothing_more_on_a_second_run(
    acme, idle_box
) -> None:
    first = _run(acme)
    assert first.created == 1
    row = _only(acme)
    assert row.kind == "stop_idle"
    # 5.00 CNY/h billed for 336 h in 14 days: 720 h a month.
    assert row.monthly_saving == Decimal("3600.00")
    assert row.price_source == "bills"
    second = _run(acme)
    assert (second.created, second.updated, second.unchanged) == (0, 0, 1)
    assert _only(acme).updated_at == row.updated_at


def test_a_pipeline_and_a_thermal_finding_are_stored_without_a_saving(
    acme, idle_box, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules' own findings, on hand-built evidence for this instance: what the run stores
    of a finding without a saving (null, not 0.00) and of the money paid while waiting."""
    hot_and_waiting = evidence(
        instance_id=idle_box.pk,
        project_id=idle_box.project_id,
        gpu_util_p95=hourly(18.0),
        gpu_temp_p95=hourly(88.0),
        phase_minutes={"idle": 160, "data_processing": 16000, "training": 4000},
    )
    found = [f for f in rules.evaluate(hot_and_waiting) if f.kind in ("data_pipeline", "thermal")]
    assert len(found) == 2
    monkeypatch.setattr(rules, "evaluate", lambda *args, **kwargs: found)
    _run(acme)
    pipeline = Recommendation.objects.get(kind="data_pipeline")
    thermal = Recommendation.objects.get(kind="thermal")
    assert pipeline.monthly_saving is thermal.monthly_saving is None
    (waiting,) = [f.paid_while_waiting for f in found if f.paid_while_waiting]
    assert pipeline.monthly_paid_while_waiting == waiting.monthly_amount
    assert pipeline.gpu_hours_waiting_per_month == waiting.gpu_hours_per_month
    assert pipeline.saving_formula == english(waiting.formula)
    assert thermal.monthly_paid_while_waiting is None
    assert (thermal.currency, thermal.price_source) == ("CNY", "none")
    # Stored as found: a second run changes nothing (None compares equal to the stored null).
    assert _run(acme).unchanged == 2
    # And no total counts either as money.
    by_kind, _ = recommendations_totals(rows=recommendations_list(organization=acme))
    assert {t.key: t.monthly_saving for t in by_kind} == {"data_pipeline": None, "thermal": None}


def test_an_upsize_is_stored_with_its_own_figures_and_no_negative_saving(
    acme, idle_box, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two upsizes found by the rule (a next type that costs more for the same work, and one
    with no larger type): their typed figures are stored, their savings null."""
    dearer = TypeOffer("GN7.8XLARGE128", "GN7", "NVIDIA T4", 2, 16, Decimal("20.00"))
    pressed = {
        "instance_id": idle_box.pk,
        "project_id": idle_box.project_id,
        "gpu_util_avg": hourly(75.0),
        "gpu_mem_p95": hourly(96.0),
    }
    next_type = evidence(offers=(*T4_OFFERS[:2], dearer), **pressed)
    largest = evidence(instance_type="GN7.8XLARGE128", gpu_count=2, **pressed)
    found = [f for ev in (next_type, largest) for f in rules.evaluate(ev) if f.kind == "upsize"]
    monkeypatch.setattr(rules, "evaluate", lambda *args, **kwargs: found)
    _run(acme)
    rows = {row.upsize_reason: row for row in Recommendation.objects.filter(kind="upsize")}
    assert set(rows) == {"next_in_family", "no_larger_type"}
    for finding in found:
        figures = finding.upsize
        assert figures is not None
        row = rows[figures.reason]
        assert row.monthly_saving is None
        assert row.monthly_extra_cost == figures.monthly_extra_cost
        assert row.current_samples_per_currency_unit == figures.current_samples_per_currency_unit
        assert row.target_samples_per_currency_unit == figures.target_samples_per_currency_unit
        assert row.saving_formula == english(figures.formula)
    # 5.0000 CNY/h x 720 h now; 2 cards at 5.0000 x 20.00/5.20 = 19.2308 CNY/h do it in 360 h.
    assert rows["next_in_family"].monthly_extra_cost == Decimal("3323.09")
    assert rows["no_larger_type"].monthly_extra_cost is None
    assert _run(acme).unchanged == 2


def test_a_changed_finding_updates_its_figures_in_the_same_row(acme, idle_box) -> None:
    """The price paid rises: same finding (fingerprint), new figures, no new row or event."""
    _run(acme)
    row = _only(acme)
    BillLine.objects.filter(instance=idle_box).update(cost=Decimal("6.00"))
    assert idle_box.account is not None
    bill_days_refresh(account=idle_box.account, months=["2026-11"])
    later = AS_OF + dt.timedelta(minutes=5)  # the same lookback hours
    result = _run(acme, later)
    assert (result.created, result.updated, result.resolved) == (0, 1, 0)
    updated = _only(acme)
    assert updated.pk == row.pk
    assert updated.fingerprint == row.fingerprint
    # 2016.00 billed / 336 h = 6.0000 CNY/h x 720 h a month (was 5.0000: 3600.00).
    assert updated.monthly_saving == Decimal("4320.00")
    assert "2016.00 CNY runtime billed" in updated.saving_formula
    assert (updated.first_seen_at, updated.last_seen_at) == (AS_OF, later)
    assert updated.updated_at > row.updated_at
    assert updated.status == Status.OPEN
    assert [e.to_status for e in updated.events.all()] == ["open"]


def test_it_resolves_a_finding_that_disappears_and_reopens_it_when_it_returns(
    acme, idle_box
) -> None:
    _run(acme)
    set_usage(idle_box, gpu_util_p95=80.0)
    assert _run(acme, AS_OF + dt.timedelta(hours=1)).resolved == 1
    assert _only(acme).status == Status.RESOLVED
    set_usage(idle_box, gpu_util_p95=2.0)
    assert _run(acme, AS_OF + dt.timedelta(hours=2)).reopened == 1
    row = _only(acme)
    assert row.status == Status.OPEN
    assert [(e.from_status, e.to_status) for e in row.events.all()] == [
        ("", "open"),
        ("open", "resolved"),
        ("resolved", "open"),
    ]


def test_a_stop_saving_is_resolved_once_the_instance_is_stopped_without_charges(
    acme, idle_box
) -> None:
    """Stopped with STOP_CHARGING (as the inventory reads it), a pay-as-you-go instance bills no
    runtime: its open stop_idle is no longer found, and the run resolves it."""
    _run(acme)
    row = _only(acme)
    assert (row.kind, row.status) == ("stop_idle", Status.OPEN)
    idle_box.state, idle_box.stop_charging_mode = "STOPPED", "KEEP_CHARGING"
    idle_box.save()
    assert _run(acme).resolved == 0  # still billed: still worth stopping
    idle_box.stop_charging_mode = "STOP_CHARGING"
    idle_box.save()
    result = _run(acme)
    assert (result.findings, result.resolved) == (0, 1)
    row.refresh_from_db()
    assert row.status == Status.RESOLVED
    # Started again, it bills again: the finding comes back (the same row, reopened).
    idle_box.state, idle_box.stop_charging_mode = "RUNNING", "NOT_APPLICABLE"
    idle_box.save()
    assert _run(acme).reopened == 1
    assert _only(acme).status == Status.OPEN


def test_a_day_only_instance_read_stopped_at_night_keeps_its_schedule(acme) -> None:
    """Busy 09-19 on weekdays, low otherwise: a schedule while it runs. The inventory read
    during a night off says STOPPED with STOP_CHARGING, but it ran until hours ago: the
    schedule stays open with the same figures (resolving it at night and reopening it by day
    would flap); only an instance quiet for days loses it (tests/recommendations/test_rules)."""
    box = make_instance(acme, "dayonly")
    set_usage(box, gpu_util_p95=40.0)
    bill_hours(box, start=END - dt.timedelta(days=14), hours=14 * 24)
    p95 = working_hours_matrix(busy=85.0, off=3.0)
    set_profile(box, p95)
    _run(acme)
    row = Recommendation.objects.get(instance=box, kind="schedule")
    assert row.monthly_saving is not None
    assert row.monthly_saving > 0
    others = {
        r.kind: (r.monthly_saving, r.saving_formula)
        for r in Recommendation.objects.for_organization(acme).exclude(kind="schedule")
    }
    saving = row.monthly_saving
    box.state, box.stop_charging_mode = "STOPPED", "STOP_CHARGING"
    box.save()
    result = _run(acme)
    assert result.resolved == 0
    row.refresh_from_db()
    assert (row.status, row.monthly_saving) == (Status.OPEN, saving)
    unresolved = Recommendation.objects.for_organization(acme).exclude(status=Status.RESOLVED)
    assert {
        r.kind: (r.monthly_saving, r.saving_formula) for r in unresolved if r.kind != "schedule"
    } == others


def test_it_keeps_a_dismissed_recommendation_dismissed_while_the_finding_persists(
    acme, idle_box, alice: User
) -> None:
    _run(acme)
    services.recommendation_dismiss(
        recommendation=_only(acme), actor=alice, now=AS_OF, reason="Kept for the demo."
    )
    _run(acme, AS_OF + dt.timedelta(days=1))
    row = _only(acme)
    assert row.status == Status.DISMISSED
    assert row.status_reason == "Kept for the demo."
    event = row.events.get(to_status=Status.DISMISSED)
    assert event.actor == alice


def test_it_returns_a_snoozed_recommendation_after_its_date(acme, idle_box, alice) -> None:
    _run(acme)
    until = AS_OF + dt.timedelta(days=3)
    services.recommendation_snooze(recommendation=_only(acme), actor=alice, now=AS_OF, until=until)
    _run(acme, AS_OF + dt.timedelta(days=2))
    assert _only(acme).status == Status.SNOOZED
    _run(acme, AS_OF + dt.timedelta(days=3, hours=1))
    row = _only(acme)
    assert row.status == Status.OPEN
    assert row.snoozed_until is None


def test_it_refuses_to_snooze_into_the_past_naming_the_field(acme, idle_box, alice) -> None:
    _run(acme)
    with pytest.raises(ValidationError) as error:
        services.recommendation_snooze(
            recommendation=_only(acme), actor=alice, now=AS_OF, until=AS_OF - dt.timedelta(1)
        )
    assert "until" in error.value.message_dict


def _sync_account_until(instance, end: dt.datetime) -> None:
    """A line of the instance's account for no instance (storage) ending at ``end``: the bills
    are synced that far, whatever the stopped instance itself was billed."""
    BillLine.objects.create(
        organization_id=instance.organization_id,
        account=instance.account,
        bill_id=f"cos-{end:%Y%m%d%H}",
        component_code="v_cos_storage",
        item_code="cos",
        month="2026-11",
        fee_begin_at=end - dt.timedelta(days=1),
        fee_end_at=end - dt.timedelta(seconds=1),
        list_cost=Decimal("1.00"),
        cost=Decimal("1.00"),
    )


def _recomputed(realised: Realised, instance) -> Decimal:
    """The realised monthly saving recomputed from the instance's bill lines and the periods
    the answer shows (the same weeks, rounded as shown)."""
    lines = list(BillLine.objects.filter(instance=instance).values_list("fee_begin_at", "cost"))

    def billed(start: dt.datetime, end: dt.datetime) -> Decimal:
        return sum((c for at, c in lines if start <= at < end), Decimal(0)).quantize(CENT)

    shown = RealisedSerializer(dataclasses.asdict(realised)).data
    assert Decimal(shown["cost_before"]) == billed(realised.before_start, realised.before_end)
    assert Decimal(shown["cost_after"]) == billed(realised.after_start, realised.after_end)
    before = (Decimal(shown["cost_before"]) / Decimal(str(shown["weeks_before"]))).quantize(CENT)
    after = (Decimal(shown["cost_after"]) / Decimal(str(shown["weeks_after"]))).quantize(CENT)
    assert Decimal(shown["weekly_cost_before"]) == before
    assert Decimal(shown["weekly_cost_after"]) == after
    return ((before - after) * 30 / Decimal(7)).quantize(CENT)


def test_it_measures_the_realised_saving_of_an_accepted_recommendation_from_bills(
    acme, idle_box, alice
) -> None:
    _run(acme)
    row = services.recommendation_accept(recommendation=_only(acme), actor=alice, now=END)
    # Bills before acceptance: only the last two weeks were synced (336 h x 5.00 = 1680.00),
    # so they are the baseline: 840.00 a week. After it the instance was billed one day
    # (24 h = 120.00) and stopped; the account's bills are synced to END + 5 days only, so
    # the after-period is those 5 days (not the 7 to "now"): 120.00 / 0.7143 weeks.
    bill_hours(idle_box, start=END, hours=24)
    _sync_account_until(idle_box, END + dt.timedelta(days=5))
    realised = realised_saving(row, now=END + dt.timedelta(days=7))
    assert realised is not None
    assert (realised.before_start, realised.before_end) == (END - dt.timedelta(days=14), END)
    assert (realised.after_start, realised.after_end) == (END, END + dt.timedelta(days=5))
    assert (realised.weeks_before, realised.weeks_after) == (2.0, 0.7143)
    assert (realised.cost_before, realised.cost_after) == (Decimal("1680.00"), Decimal("120.00"))
    assert realised.weekly_cost_before == Decimal("840.00")
    assert realised.weekly_cost_after == Decimal("168.00")
    assert realised.weekly_saving == Decimal("672.00")
    assert realised.monthly_saving_realised == Decimal("2880.00")
    assert realised.monthly_saving_promised == Decimal("3600.00")
    assert _recomputed(realised, idle_box) == realised.monthly_saving_realised


def test_a_young_instance_is_averaged_over_the_weeks_it_existed(acme, alice) -> None:
    box = make_instance(acme, "young")
    box.launched_at = END - dt.timedelta(days=10)
    box.save(update_fields=["launched_at"])
    set_usage(box, gpu_util_p95=2.0, days=10)
    bill_hours(box, start=END - dt.timedelta(days=10), hours=10 * 24)
    _run(acme)
    row = services.recommendation_accept(recommendation=_only(acme), actor=alice, now=END)
    bill_hours(box, start=END, hours=2 * 24)
    realised = realised_saving(row, now=END + dt.timedelta(days=2))
    assert realised is not None
    # 1200.00 over the 10 days it existed (1.4286 weeks), not over 4 weeks (300.00 a week).
    assert realised.before_start == END - dt.timedelta(days=10)
    assert realised.weeks_before == 1.4286
    assert realised.weekly_cost_before == Decimal("839.98")
    # Nothing changed after: no saving but the cents the 4-place weeks move (240.00 / 0.2857).
    assert realised.weekly_cost_after == Decimal("840.04")
    assert realised.monthly_saving_realised == Decimal("-0.26")
    assert _recomputed(realised, box) == realised.monthly_saving_realised


def test_it_keeps_history_of_every_decision(acme, idle_box, alice) -> None:
    _run(acme)
    row = _only(acme)
    services.recommendation_accept(recommendation=row, actor=alice, now=AS_OF)
    services.recommendation_reopen(recommendation=row, actor=alice, now=AS_OF)
    assert list(
        RecommendationEvent.objects.filter(recommendation=row).values_list("to_status", flat=True)
    ) == ["open", "accepted", "open"]


def test_an_accepted_recommendation_stays_accepted_and_measured_when_its_finding_goes(
    acme, idle_box, alice
) -> None:
    """Following the advice makes the finding disappear: that must not end the measurement."""
    _run(acme)
    services.recommendation_accept(recommendation=_only(acme), actor=alice, now=AS_OF)
    set_usage(idle_box, gpu_util_p95=80.0)  # the finding is gone
    later = AS_OF + dt.timedelta(days=1)
    first = _run(acme, later)
    assert (first.resolved, first.gone_accepted) == (0, 1)
    assert _run(acme, later + dt.timedelta(hours=1)).gone_accepted == 0  # noted once
    row = _only(acme)
    assert row.status == Status.ACCEPTED
    assert row.accepted_at == AS_OF
    assert row.resolved_at == later
    assert list(recommendations_list(organization=acme, statuses=["accepted"])) == [row]
    assert realised_saving(row, now=later) is not None
    assert [(e.from_status, e.to_status, e.reason) for e in row.events.all()][-1] == (
        "accepted",
        "accepted",
        "The finding is no longer seen.",
    )
    # The finding comes back (the change was undone): still accepted, noted, no longer "gone".
    set_usage(idle_box, gpu_util_p95=2.0)
    _run(acme, later + dt.timedelta(hours=2))
    row = _only(acme)
    assert (row.status, row.resolved_at) == (Status.ACCEPTED, None)
    last_event = row.events.last()
    assert last_event is not None
    assert last_event.reason == "The finding is seen again."


def test_a_row_that_left_accepted_and_reopens_shows_no_realised_saving(
    acme, idle_box, alice
) -> None:
    _run(acme)
    services.recommendation_accept(recommendation=_only(acme), actor=alice, now=AS_OF)
    services.recommendation_dismiss(
        recommendation=_only(acme), actor=alice, now=AS_OF, reason="Changed our minds."
    )
    set_usage(idle_box, gpu_util_p95=80.0)
    assert _run(acme, AS_OF + dt.timedelta(hours=1)).resolved == 1
    set_usage(idle_box, gpu_util_p95=2.0)
    assert _run(acme, AS_OF + dt.timedelta(hours=2)).reopened == 1
    row = _only(acme)
    assert row.status == Status.OPEN
    assert row.accepted_at is None
    assert realised_saving(row, now=END + dt.timedelta(days=7)) is None


def test_a_rule_with_its_own_lookback_reads_the_evidence_over_it(acme) -> None:
    """Idle the last week, busy the one before: only a 7-day idle lookback sees it idle."""
    box = make_instance(acme)
    set_usage(box, gpu_util_p95=80.0)
    box.hour_rollups.filter(hour_start__gte=END - dt.timedelta(days=7)).update(
        gpu_util_pct_p95=2.0, gpu_util_pct_avg=1.0
    )
    bill_hours(box, start=END - dt.timedelta(days=14), hours=14 * 24)
    _run(acme)
    assert not Recommendation.objects.filter(kind="stop_idle").exists()
    services.recommendation_settings_update(organization=acme, thresholds={"idle_lookback_days": 7})
    _run(acme, AS_OF + dt.timedelta(minutes=5))
    row = Recommendation.objects.get(kind="stop_idle")
    # Priced from the 7 days' bills: 168 h x 5.00 = 840.00 -> 5.0000 CNY/h x 720 h.
    assert row.monthly_saving == Decimal("3600.00")
    assert "168.0 h billed" in row.saving_formula
    assert row.evidence["idle_hours"] == 7 * 24

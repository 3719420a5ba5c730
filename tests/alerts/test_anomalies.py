"""Cost anomalies: a day far above the 30-day median + k x robust spread, with a minimum rise."""

from __future__ import annotations

import datetime as dt
import statistics
import zoneinfo
from collections import defaultdict
from decimal import Decimal

import numpy as np
import pytest

from apps.accounts.models import Organization
from apps.alerts.evaluation.anomalies import MAD_TO_SIGMA, anomalies_evaluate
from apps.alerts.evaluation.anomalies import daily_spend as read_daily_spend
from apps.alerts.models import AlertEvent
from apps.analysis.models import PhaseChoices, PhaseDay, phase_day_encode
from apps.billing.models import BillLine
from tests.alerts.builders import bill, make_account, make_instance, make_project

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
# Noon of 16 November (Shanghai): yesterday (15th) is complete, the baseline is 16 Oct - 14 Nov.
AS_OF = dt.datetime(2026, 11, 16, 12, tzinfo=SHANGHAI)
YESTERDAY = dt.date(2026, 11, 15)


def daily_spend(account, instance, project, values: dict[dt.date, str]) -> None:
    for day, cost in values.items():
        bill(
            account,
            dt.datetime.combine(day, dt.time(10), tzinfo=SHANGHAI),
            cost,
            project=project,
            instance=instance,
        )


def baseline_days() -> list[dt.date]:
    return [YESTERDAY - dt.timedelta(days=n) for n in range(30, 0, -1)]


def test_it_alerts_once_on_a_spend_jump_naming_the_instance(acme: Organization) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    steady = make_instance(account, "steady", vision)
    runaway = make_instance(account, "runaway", vision)
    # Each instance: 90 or 110 a day, alternating (median 100, MAD 10); the runaway costs 400
    # yesterday.
    for n, day in enumerate(baseline_days()):
        daily_spend(account, steady, vision, {day: "90" if n % 2 else "110"})
        daily_spend(account, runaway, vision, {day: "110" if n % 2 else "90"})
    daily_spend(account, steady, vision, {YESTERDAY: "100"})
    daily_spend(account, runaway, vision, {YESTERDAY: "400"})

    raised = anomalies_evaluate(organization=acme, as_of=AS_OF)
    again = anomalies_evaluate(organization=acme, as_of=AS_OF + dt.timedelta(hours=1))

    assert again == []
    (event,) = raised
    assert event.kind == "anomaly"
    assert event.project == vision
    assert event.instance == runaway
    assert "Most of the rise is instance runaway (ins-runaway)" in event.message
    # Recompute the project's line by hand from the evidence: 200 a day, MAD 0, so the spread
    # is the floor, 10 % of the median (20 > 10.00): line 200 + 4 x 1.4826 x 20 = 318.61 < 500.
    baseline = event.evidence["baseline_values"]
    median = statistics.median(baseline)
    mad = statistics.median(abs(v - median) for v in baseline)
    assert (median, mad) == (200.0, 0.0)
    assert event.evidence["value"] == 500.0
    spread = max(
        mad, event.evidence["mad_floor_pct"] / 100 * median, event.evidence["mad_floor_min"]
    )
    assert event.evidence["spread"] == pytest.approx(20.0)
    assert event.evidence["alert_line"] == pytest.approx(median + 4 * MAD_TO_SIGMA * spread)


def test_it_does_not_alert_within_the_noise_or_under_the_minimum(acme: Organization) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    noisy = make_instance(account, "noisy", vision)
    cheap = make_instance(account, "cheap")  # no project: judged on its own
    for n, day in enumerate(baseline_days()):
        # 70, 100, 130 around 100 (MAD 30): line 100 + 4 x 1.4826 x 30 = 277.9.
        daily_spend(account, noisy, vision, {day: ("70", "100", "130")[n % 3]})
        daily_spend(account, cheap, None, {day: "1"})
    daily_spend(account, noisy, vision, {YESTERDAY: "210"})  # high, but under the line
    daily_spend(account, cheap, None, {YESTERDAY: "40"})  # 40x its median, but only 39 more

    assert anomalies_evaluate(organization=acme, as_of=AS_OF) == []
    assert not AlertEvent.objects.exists()


def idle_day(instance, day: dt.date, idle_hours: int) -> None:
    """A UTC day with ``idle_hours`` idle hours and the rest training (Shanghai = UTC + 8)."""
    minutes = np.zeros((24, len(PhaseChoices)), dtype=np.uint8)
    minutes[:, PhaseChoices.TRAINING] = 60
    minutes[:idle_hours, PhaseChoices.TRAINING] = 0
    minutes[:idle_hours, PhaseChoices.IDLE] = 60
    PhaseDay.objects.create(
        organization_id=instance.organization_id,
        instance=instance,
        day=day,
        minutes=phase_day_encode(minutes),
    )


def test_it_alerts_on_idle_gpu_hours_far_above_normal(acme: Organization) -> None:
    account = make_account(acme)
    box = make_instance(account, "box")  # one card, no project
    # One idle hour a day (UTC 00-01, Shanghai 08-09 of the same day), then 12 yesterday.
    for day in baseline_days():
        idle_day(box, day, 1)
    idle_day(box, YESTERDAY, 12)

    (event,) = anomalies_evaluate(organization=acme, as_of=AS_OF)

    assert event.instance == box
    assert event.evidence["metric"] == "idle_gpu_hours"
    assert event.evidence["value"] == 12.0
    assert event.evidence["baseline_median"] == 1.0
    assert "Idle GPU-hours of instance box (ins-box)" in event.title


@pytest.mark.parametrize(("yesterday", "alerts"), [("1100", False), ("1700", True)])
def test_it_does_not_alert_on_a_tiny_rise_of_a_flat_series_but_does_on_a_big_one(
    acme: Organization, yesterday: str, alerts: bool
) -> None:
    account = make_account(acme)
    flat = make_instance(account, "flat")  # no project: judged on its own
    for day in baseline_days():
        daily_spend(account, flat, None, {day: "1000"})
    daily_spend(account, flat, None, {YESTERDAY: yesterday})

    raised = anomalies_evaluate(organization=acme, as_of=AS_OF)

    # MAD 0: without a floor the line is the median itself, and 1,100 (100.00 above it, over
    # the 50.00 minimum) would alert. The floor, with the default settings, is 10 % of the
    # median or 10.00, whichever is more: spread 100, line 1,000 + 4 x 1.4826 x 100 = 1,593.04.
    assert [e.instance for e in raised] == ([flat] if alerts else [])
    if alerts:
        figures = raised[0].evidence
        assert (figures["baseline_median"], figures["baseline_mad"]) == (1000.0, 0.0)
        assert (figures["mad_floor_pct"], figures["mad_floor_min"]) == (10.0, 10.0)
        spread = max(
            figures["baseline_mad"],
            figures["mad_floor_pct"] / 100 * figures["baseline_median"],
            figures["mad_floor_min"],
        )
        assert figures["spread"] == spread == 100.0
        assert figures["alert_line"] == pytest.approx(1000 + 4 * MAD_TO_SIGMA * 100)
        assert figures["alert_line"] == pytest.approx(1593.04)
        assert "spread = max(baseline_mad" in figures["formula"]
        assert "against a median of 1,000.00 CNY over the 30 days with data" in raised[0].message
        assert "spread 100.00, the MAD 0.00 or its floor" in raised[0].message


def test_it_draws_the_floor_from_the_organizations_settings(acme: Organization) -> None:
    from apps.alerts.services import alert_settings_update

    account = make_account(acme)
    flat = make_instance(account, "flat")
    for day in baseline_days():
        daily_spend(account, flat, None, {day: "1000"})
    daily_spend(account, flat, None, {YESTERDAY: "1100"})
    # 1 % of the median: spread 10, line 1,059.30, so 1,100 is an anomaly now.
    alert_settings_update(organization=acme, anomaly_mad_floor_pct=1.0)

    (event,) = anomalies_evaluate(organization=acme, as_of=AS_OF)

    assert event.evidence["spread"] == 10.0
    assert event.evidence["alert_line"] == pytest.approx(1000 + 4 * MAD_TO_SIGMA * 10)


def test_it_counts_spend_only_from_the_first_billed_day(acme: Organization) -> None:
    account = make_account(acme)
    new = make_instance(account, "new")
    # Billed for 10 days only (launched then): 100 a day. The 20 days before are not zeros.
    for day in baseline_days()[-10:]:
        daily_spend(account, new, None, {day: "100"})
    daily_spend(account, new, None, {YESTERDAY: "150"})

    # With zeros the median was 0 and 150 alerted; over its 10 days the line is 159.30.
    assert anomalies_evaluate(organization=acme, as_of=AS_OF) == []

    daily_spend(account, new, None, {YESTERDAY: "60"})  # 210 yesterday: above 159.30
    (event,) = anomalies_evaluate(organization=acme, as_of=AS_OF)
    assert event.evidence["baseline_days_with_data"] == 10
    assert event.evidence["baseline_values"] == [100.0] * 10
    assert event.evidence["baseline_first_day"] == baseline_days()[-10].isoformat()


def test_it_counts_a_day_without_the_subjects_lines_as_zero_once_it_was_billed(
    acme: Organization,
) -> None:
    account = make_account(acme)
    steady = make_instance(account, "steady")
    weekly = make_instance(account, "weekly")
    for n, day in enumerate(baseline_days()):
        daily_spend(account, steady, None, {day: "100"})
        if n % 3 == 0:  # billed one day in three; stopped (nothing billed) the others
            daily_spend(account, weekly, None, {day: "300"})
    daily_spend(account, steady, None, {YESTERDAY: "100"})
    daily_spend(account, weekly, None, {YESTERDAY: "300"})

    (event,) = anomalies_evaluate(organization=acme, as_of=AS_OF)

    # The days it was not billed, while the organization's bills were there, are zeros.
    assert event.instance == weekly
    assert event.evidence["baseline_days_with_data"] == 30
    assert event.evidence["baseline_median"] == 0.0


def test_it_leaves_days_without_analysis_out_of_the_idle_baseline(acme: Organization) -> None:
    account = make_account(acme)
    box = make_instance(account, "box")  # one card
    # Only the last 10 of the 30 days were analysed (the rest never was): 6 idle hours each.
    for day in baseline_days()[-10:]:
        idle_day(box, day, 6)
    idle_day(box, YESTERDAY, 8)

    # Counted as zeros, the 20 days without analysis made the median 0 and 8 hours alerted.
    # Over the 10 analysed days: median 6, spread max(0, 10 % x 6, 0.5) = 0.6, line 9.56.
    assert anomalies_evaluate(organization=acme, as_of=AS_OF) == []

    PhaseDay.objects.filter(instance=box, day=YESTERDAY).delete()
    idle_day(box, YESTERDAY, 14)
    (event,) = anomalies_evaluate(organization=acme, as_of=AS_OF)

    assert event.evidence["metric"] == "idle_gpu_hours"
    assert event.evidence["value"] == 14.0
    assert event.evidence["baseline_days_with_data"] == 10
    assert event.evidence["baseline_values"] == [6.0] * 10
    assert event.evidence["alert_line"] == pytest.approx(6 + 4 * MAD_TO_SIGMA * 0.6, abs=1e-4)


def test_it_needs_seven_days_with_data_to_judge(acme: Organization) -> None:
    account = make_account(acme)
    box = make_instance(account, "box")
    # Six days with data among the 30: not judged, however far above them yesterday is.
    for day in baseline_days()[-6:]:
        idle_day(box, day, 1)
        daily_spend(account, box, None, {day: "10"})
    idle_day(box, YESTERDAY, 12)
    daily_spend(account, box, None, {YESTERDAY: "1000"})

    assert anomalies_evaluate(organization=acme, as_of=AS_OF) == []


def test_its_daily_spend_is_the_lines_recomputed_one_by_one(acme: Organization) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    runner = make_instance(account, "runner", vision)
    # Every five hours over the two judged days and the day before, either side of midnights
    # in Shanghai, with a refund, an unallocated line and a line in another currency.
    moment, n = dt.datetime(2026, 11, 14, tzinfo=dt.UTC), 0
    while moment < AS_OF + dt.timedelta(hours=6):
        cost = "-4.20000001" if n == 5 else f"{n % 7}.0000000{n % 9}"
        bill(
            account,
            moment,
            cost,
            project=vision if n % 3 else None,
            instance=runner if n % 3 else None,
            currency="USD" if n == 8 else "CNY",
        )
        moment += dt.timedelta(hours=5)
        n += 1

    first, last = dt.date(2026, 11, 14), dt.date(2026, 11, 16)
    for until in (None, AS_OF):
        read = read_daily_spend(acme, first, last, until=until)
        by_hand: dict[tuple, Decimal] = defaultdict(Decimal)
        for line in BillLine.objects.filter(organization=acme, currency="CNY"):
            day = line.fee_begin_at.astimezone(SHANGHAI).date()
            if first <= day <= last and (until is None or line.fee_begin_at < until):
                by_hand[(day, line.project_id, line.instance_id)] += line.cost
        assert {(d, p, i): total for d, p, i, total in read} == {
            key: float(total) for key, total in by_hand.items()
        }
        assert len(read) == len(by_hand) > 3

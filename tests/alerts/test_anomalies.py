"""Cost anomalies: a day far above the 30-day median + k x robust spread, with a minimum rise."""

from __future__ import annotations

import datetime as dt
import statistics
import zoneinfo

import numpy as np
import pytest

from apps.accounts.models import Organization
from apps.alerts.evaluation.anomalies import MAD_TO_SIGMA, anomalies_evaluate
from apps.alerts.models import AlertEvent
from apps.analysis.models import PhaseChoices, PhaseDay, phase_day_encode
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
    # Recompute the project's line by hand from the evidence: 200 a day, MAD 0, 500 > 200 + 50.
    baseline = event.evidence["baseline_values"]
    median = statistics.median(baseline)
    mad = statistics.median(abs(v - median) for v in baseline)
    assert (median, mad) == (200.0, 0.0)
    assert event.evidence["value"] == 500.0
    assert event.evidence["alert_line"] == pytest.approx(median + 4 * MAD_TO_SIGMA * mad)


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

"""Metric thresholds with durations: one alert while the condition lasts, then a recovery."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from django.core import mail

from apps.accounts.models import Organization
from apps.alerts.evaluation.thresholds import thresholds_evaluate
from apps.alerts.models import AlertEvent, ThresholdRule
from apps.cloud.models import Instance
from apps.metrics.services import metrics_write
from tests.alerts.builders import make_account, make_instance

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 11, 16, 8, 0, tzinfo=dt.UTC)


def minutes(instance: Instance, metric: str, end: dt.datetime, values: list[float]) -> None:
    """One point a minute, the last in the minute before ``end``."""
    start = end - dt.timedelta(minutes=len(values))
    stamps = [start + dt.timedelta(minutes=n) for n in range(len(values))]
    metrics_write(
        instance_id=instance.pk,
        metric=metric,
        timestamps=[int(s.timestamp()) for s in stamps],
        values=np.array(values, dtype=np.float32),
    )


def test_it_alerts_once_while_a_gpu_idles_and_sends_a_recovery_when_it_clears(
    acme: Organization, django_capture_on_commit_callbacks
) -> None:
    box = make_instance(make_account(acme), "box")
    # Busy, then 12 minutes under 30 % (the default rule: below 30 % for 10 minutes).
    minutes(box, "gpu_util_pct", NOW, [80.0] * 20 + [12.0] * 12)

    with django_capture_on_commit_callbacks(execute=True):
        opened = thresholds_evaluate(organization=acme, as_of=NOW)
    # Five minutes later, still idle: nothing new.
    minutes(box, "gpu_util_pct", NOW + dt.timedelta(minutes=5), [9.0] * 5)
    still = thresholds_evaluate(organization=acme, as_of=NOW + dt.timedelta(minutes=5))
    # Then busy again for 4 minutes: the recovery, once.
    minutes(box, "gpu_util_pct", NOW + dt.timedelta(minutes=9), [75.0] * 4)
    with django_capture_on_commit_callbacks(execute=True):
        cleared = thresholds_evaluate(organization=acme, as_of=NOW + dt.timedelta(minutes=9))
    after = thresholds_evaluate(organization=acme, as_of=NOW + dt.timedelta(minutes=10))

    (alert,) = opened
    assert alert.kind == "threshold"
    assert alert.title == "GPU underused: box (ins-box)"
    assert alert.evidence["observed_minutes"] == 10
    assert alert.evidence["max"] == 12.0
    assert still == []
    (recovery,) = cleared
    assert recovery.kind == "recovery"
    assert recovery.recovery_of == alert
    assert after == []
    alert.refresh_from_db()
    assert alert.resolved_at == NOW + dt.timedelta(minutes=9)
    assert [m.subject for m in mail.outbox] == [
        "[GPU Ledger · Acme] GPU underused: box (ins-box)",
        "[GPU Ledger · Acme] Resolved: GPU underused cleared: box (ins-box)",
    ]


def test_it_does_not_alert_on_a_short_dip_or_a_busy_gpu(acme: Organization) -> None:
    account = make_account(acme)
    dip = make_instance(account, "dip")
    busy = make_instance(account, "busy")
    minutes(dip, "gpu_util_pct", NOW, [80.0] * 20 + [5.0] * 6)  # 6 of the 10 minutes
    minutes(busy, "gpu_util_pct", NOW, [55.0] * 30)
    minutes(busy, "gpu_temp_c", NOW, [84.0] * 30)  # under 85 °C
    minutes(busy, "gpu_mem_used_pct", NOW, [95.0] * 4)  # over 90 %, for 4 of 5 minutes

    assert thresholds_evaluate(organization=acme, as_of=NOW) == []
    assert not AlertEvent.objects.exists()


def test_it_alerts_on_heat_and_memory_and_only_for_running_instances(acme: Organization) -> None:
    account = make_account(acme)
    hot = make_instance(account, "hot")
    full = make_instance(account, "full")
    stopped = make_instance(account, "stopped", state="STOPPED")
    minutes(hot, "gpu_util_pct", NOW, [90.0] * 10)
    minutes(hot, "gpu_temp_c", NOW, [87.5] * 6)
    minutes(full, "gpu_util_pct", NOW, [90.0] * 10)
    minutes(full, "gpu_mem_used_pct", NOW, [93.0] * 5)
    minutes(stopped, "gpu_util_pct", NOW, [0.0] * 15)

    raised = thresholds_evaluate(organization=acme, as_of=NOW)

    assert sorted((e.title, e.severity) for e in raised) == [
        ("GPU memory nearly full: full (ins-full)", "warning"),
        ("GPU running hot: hot (ins-hot)", "critical"),
    ]


def test_it_closes_an_open_alert_when_the_instance_stops(acme: Organization) -> None:
    box = make_instance(make_account(acme), "box")
    minutes(box, "gpu_util_pct", NOW, [3.0] * 15)
    (alert,) = thresholds_evaluate(organization=acme, as_of=NOW)
    Instance.objects.filter(pk=box.pk).update(state="STOPPED")

    (recovery,) = thresholds_evaluate(organization=acme, as_of=NOW + dt.timedelta(minutes=5))

    assert recovery.recovery_of == alert
    assert "no longer watched" in recovery.message


def test_it_uses_the_organizations_own_rules(acme: Organization) -> None:
    box = make_instance(make_account(acme), "box")
    minutes(box, "gpu_util_pct", NOW, [3.0] * 15)
    thresholds_evaluate(organization=acme, as_of=NOW - dt.timedelta(hours=1))  # defaults made
    ThresholdRule.objects.filter(organization=acme, metric="gpu_util_pct").update(threshold=2)

    assert thresholds_evaluate(organization=acme, as_of=NOW) == []

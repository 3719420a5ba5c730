"""Raw retention: exactly the days past retention go, rollups stay."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings

from apps.core.timegrid import datetime_to_epoch_seconds
from apps.metrics import tasks
from apps.metrics.constants import Metric
from apps.metrics.models import InstanceDayRollup, InstanceHourRollup, MetricDay
from apps.metrics.services import MetricSeries, metrics_raw_prune, metrics_write_bulk

TODAY = dt.datetime(2024, 5, 10, 9, 30, tzinfo=dt.UTC)


def write_history(instances, days: int) -> None:
    """One point per (instance, metric, day) for ``days`` days up to TODAY."""
    series = []
    for back in range(days):
        seconds = datetime_to_epoch_seconds(TODAY - dt.timedelta(days=back))
        for instance in instances:
            for metric in (Metric.GPU_UTIL_PCT, Metric.CPU_UTIL_PCT):
                series.append(MetricSeries(instance.id, metric, [seconds], [float(back)]))
    metrics_write_bulk(series=series)


@pytest.mark.parametrize(("retention_days", "batch_size"), [(35, 3), (1, 1000), (7, 2)])
def test_it_prunes_exactly_the_raw_days_past_retention_and_keeps_rollups(
    acme, make_instances, retention_days, batch_size
) -> None:
    instances = make_instances(acme, 2)
    write_history(instances, 45)
    hour_rollups = list(InstanceHourRollup.objects.order_by("id").values())
    day_rollups = list(InstanceDayRollup.objects.order_by("id").values())
    cutoff = TODAY.date() - dt.timedelta(days=retention_days)

    deleted = metrics_raw_prune(as_of=TODAY, retention_days=retention_days, batch_size=batch_size)

    kept_days = sorted(set(MetricDay.objects.values_list("day", flat=True)))
    assert kept_days == [cutoff + dt.timedelta(days=n) for n in range(retention_days + 1)]
    assert MetricDay.objects.count() == 2 * 2 * (retention_days + 1)
    assert deleted == 2 * 2 * (45 - retention_days - 1)
    assert list(InstanceHourRollup.objects.order_by("id").values()) == hour_rollups
    assert list(InstanceDayRollup.objects.order_by("id").values()) == day_rollups


def test_it_prunes_with_the_configured_retention_from_the_task(
    acme, make_instances, monkeypatch
) -> None:
    write_history(make_instances(acme, 1), 10)
    monkeypatch.setattr(tasks.timezone, "now", lambda: TODAY)

    with override_settings(METRICS_RAW_RETENTION_DAYS=3):
        first = tasks.prune_raw.delay().get()
        second = tasks.prune_raw.delay().get()

    assert (first, second) == (2 * 6, 0)  # the rerun finds nothing more to delete
    oldest = MetricDay.objects.order_by("day").first()
    assert oldest is not None
    assert oldest.day == dt.date(2024, 5, 7)


def test_it_refuses_a_retention_below_one_day() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        metrics_raw_prune(as_of=TODAY, retention_days=0)

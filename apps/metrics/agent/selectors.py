"""Reads of the agent's points: work done between two moments, from the cumulative counters."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection

from apps.metrics.agent.models import WorkCounterPoint


def work_done(
    *,
    instance_ids: Collection[int],
    source: str,
    name: str,
    start: dt.datetime,
    end: dt.datetime,
) -> dict[int, float]:
    """Instance id -> units of counter ``source:name`` done in ``[start, end)``.

    A counter is cumulative, so the work is its last value before ``end`` less its value at
    ``start``: the last point at or before ``start``, else (a counter first seen within the
    period) its first point in it, since what was counted before the first point the server
    has is not known to fall in the period. An instance without a point in ``[start, end)``
    is absent, not 0: its work is unknown, which is not the same as none.
    """
    values: dict[int, float] = {}
    for instance_id in instance_ids:
        points = WorkCounterPoint.objects.filter(instance_id=instance_id, source=source, name=name)
        in_period = points.filter(sampled_at__gte=start, sampled_at__lt=end)
        last = in_period.order_by("-sampled_at").values_list("value", flat=True).first()
        if last is None:
            continue
        baseline = (
            points.filter(sampled_at__lte=start)
            .order_by("-sampled_at")
            .values_list("value", flat=True)
            .first()
        )
        if baseline is None:
            baseline = in_period.order_by("sampled_at").values_list("value", flat=True).first()
        assert baseline is not None  # the period has a point: ``last``
        values[instance_id] = last - baseline
    return values

"""What a scheduled analysis covers, cut into batches that each fit one task's time limit.

The analysis covers every day whose raw metrics the store still holds (``raw_retention_days``,
35 by default): a first backfill reads a month of history, and all of it gets its phases, not
only the last fortnight. A batch is some instances of one organization analysed over one
range; its size is bounded in instance-days (``BATCH_INSTANCE_DAYS``), so a 35-day backfill of
a large fleet is many short tasks instead of one that runs past its time limit. A batch always
covers whole instances from the UTC midnight of their first due hour to the end: the profile
is rebuilt over the days before the end and the watermarks move to it, which a batch of old
days alone could not do correctly.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Mapping, Sequence

from apps.analysis.selectors import analysis_due, instances_with_data
from apps.cloud.models import Instance
from apps.core.timegrid import floor_day, floor_hour
from apps.metrics.services import raw_retention_days

#: Instance-days analysed by one batch task: a few seconds of reading and numpy (36 instances
#: x 14 days took 2.6 s on one core), far inside the default 300 s soft time limit.
BATCH_INSTANCE_DAYS = 1_000
#: The nightly recompute re-cuts the last fortnight (thresholds changed, late data); days
#: before it keep what the incremental analysis stored when their data arrived.
FULL_RECOMPUTE_DAYS = 14


@dataclasses.dataclass(frozen=True)
class AnalysisBatch:
    """Some instances of one organization, to analyse over ``[start, end)``."""

    organization_id: int
    instance_ids: tuple[int, ...]
    start: dt.datetime
    end: dt.datetime

    @property
    def instance_days(self) -> int:
        return len(self.instance_ids) * _days(self.start, self.end)


def analysed_days() -> int:
    """How far back the analysis reaches: the raw metrics' retention (what it can read)."""
    return raw_retention_days()


def _days(start: dt.datetime, end: dt.datetime) -> int:
    return max(1, -(-(end - start) // dt.timedelta(days=1)))


def batches_of(
    starts: Mapping[int, dt.datetime],
    *,
    end: dt.datetime,
    instance_days: int | None = None,
) -> list[AnalysisBatch]:
    """Batches of instance id -> first moment to analyse, each range ending at ``end``.

    Instances are grouped by organization and by the UTC midnight of their start, in id
    order; each group is cut so that a batch holds at most ``instance_days`` instance-days
    (default ``BATCH_INSTANCE_DAYS``; at least one instance). Ordered by organization, then
    oldest start first.
    """
    if instance_days is None:
        instance_days = BATCH_INSTANCE_DAYS
    if instance_days < 1:
        raise ValueError("instance_days must be at least 1")
    organization_of = dict(
        Instance.objects.filter(pk__in=list(starts)).values_list("pk", "organization_id")
    )
    groups: dict[tuple[int, dt.datetime], list[int]] = defaultdict(list)
    for instance_id in sorted(starts):
        groups[(organization_of[instance_id], floor_day(starts[instance_id]))].append(instance_id)
    batches: list[AnalysisBatch] = []
    for (organization_id, start), ids in sorted(groups.items()):
        if start >= end:
            continue
        size = max(1, instance_days // _days(start, end))
        batches.extend(
            AnalysisBatch(organization_id, tuple(ids[i : i + size]), start, end)
            for i in range(0, len(ids), size)
        )
    return batches


def recent_batches(
    *, as_of: dt.datetime, instance_ids: Sequence[int] | None = None
) -> list[AnalysisBatch]:
    """The incremental analysis: every instance with data newer than its analysis, from the
    UTC midnight of its first such hour (within ``analysed_days``) to ``as_of``'s hour.

    A never-analysed instance (a first backfill) is due from its first hour with data, so the
    whole history the backfill read is analysed.
    """
    end = floor_hour(as_of)
    due = analysis_due(end=end, lookback_days=analysed_days(), instance_ids=instance_ids)
    return batches_of(due, end=end)


def full_batches(
    *,
    as_of: dt.datetime,
    days: int = FULL_RECOMPUTE_DAYS,
    instance_ids: Sequence[int] | None = None,
    organization_id: int | None = None,
) -> list[AnalysisBatch]:
    """A recompute of the last ``days`` (to ``as_of``'s hour) of every instance with data."""
    if days < 1:
        raise ValueError("days must be at least 1")
    end = floor_hour(as_of)
    start = floor_day(end - dt.timedelta(days=days))
    ids = instances_with_data(
        start=start, end=end, instance_ids=instance_ids, organization_id=organization_id
    )
    return batches_of(dict.fromkeys(ids, start), end=end)

"""Background analysis: the hourly incremental run and the nightly 14-day recompute.

Both are idempotent (the service writes diffs), so a duplicate beat tick or a redelivered
message after a worker crash changes nothing more. ``as_of`` is an ISO 8601 date-time so a run
can be replayed for a given moment; it defaults to now.

Both retry a lost or refused database connection (``OperationalError``: a restart, a failover,
a deadlock victim) with backoff; any other error is a bug to see, not to repeat.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from apps.analysis import services
from workers import queues
from workers.defaults import task_options


def _as_of(value: str | None) -> dt.datetime:
    if value is None:
        return timezone.now()
    moment = dt.datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError(f"as_of must carry a UTC offset, got {value!r}")
    return moment


@shared_task(
    **task_options(
        name="analysis.analyse_recent", queue=queues.ANALYSIS, retry_on=(OperationalError,)
    )
)
def analyse_recent(instance_ids: list[int] | None = None, as_of: str | None = None) -> dict:
    """Analyse only the instances and days with metric data newer than the last analysis."""
    result = services.analysis_recent_run(as_of=_as_of(as_of), instance_ids=instance_ids)
    return dataclasses.asdict(result)


@shared_task(
    **task_options(
        name="analysis.analyse_full",
        queue=queues.ANALYSIS,
        retry_on=(OperationalError,),
        # A whole fleet's 14 days is minutes of numpy, not the default 5.
        soft_time_limit=3600,
        time_limit=3900,
    )
)
def analyse_full(
    instance_ids: list[int] | None = None,
    as_of: str | None = None,
    organization_id: int | None = None,
) -> dict:
    """Recompute the last 14 days of every instance with data (or of the given ones)."""
    result = services.analysis_full_run(
        as_of=_as_of(as_of), instance_ids=instance_ids, organization_id=organization_id
    )
    return dataclasses.asdict(result)

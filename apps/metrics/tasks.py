"""Background work of the metric store: raw retention and rollup rebuilds.

The compaction and rebuilds retry a lost or refused database connection (``OperationalError``)
with backoff; the retention purge is never retried (tomorrow's run deletes what it left).
"""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from apps.metrics import services
from apps.metrics.agent.services import agent_points_prune
from workers import queues
from workers.defaults import NEVER_RETRY, task_options


@shared_task(**task_options(name="metrics.prune_raw", queue=queues.ANALYSIS, retry_on=NEVER_RETRY))
def prune_raw() -> int:
    """Delete raw metric days past retention in short batches; idempotent (a rerun deletes 0)."""
    return services.metrics_raw_prune(as_of=timezone.now())


@shared_task(
    **task_options(name="metrics.prune_agent_points", queue=queues.ANALYSIS, retry_on=NEVER_RETRY)
)
def prune_agent_points() -> int:
    """Delete agent points past raw retention; idempotent (a rerun deletes 0)."""
    return agent_points_prune(as_of=timezone.now())


@shared_task(
    **task_options(
        name="metrics.compact_recent", queue=queues.ANALYSIS, retry_on=(OperationalError,)
    )
)
def compact_recent() -> int:
    """Fold the recent points of raw days into their day arrays; idempotent (a rerun folds 0).

    Meant to run hourly, so the writer seldom folds ``RECENT_MAX_POINTS`` itself.
    """
    return services.metrics_recent_compact()


@shared_task(
    **task_options(
        name="metrics.rebuild_rollups", queue=queues.ANALYSIS, retry_on=(OperationalError,)
    )
)
def rebuild_rollups(
    instance_ids: list[int] | None = None, start_day: str | None = None, end_day: str | None = None
) -> int:
    """Recompute rollups from raw for instances/UTC days (ISO dates); idempotent."""
    return services.metrics_rollups_rebuild(
        instance_ids=instance_ids,
        start_day=dt.date.fromisoformat(start_day) if start_day else None,
        end_day=dt.date.fromisoformat(end_day) if end_day else None,
    )

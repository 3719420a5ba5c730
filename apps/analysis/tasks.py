"""Background analysis: the hourly incremental run, the nightly recompute, and their batches.

``analyse_recent`` (hourly, and right after a cloud account's first backfill) and
``analyse_full`` (nightly) only plan: they cut the work into batches of bounded instance-days
(``apps.analysis.batches``) and queue, per organization, a chain of ``analyse_batch`` tasks
ended by ``announce_analysis``. Each batch is short and has the default time limit, so a
35-day backfill of a large fleet never runs past one; a chain runs one organization's batches
one after the other (no two write the same instance's rows at once) and tells later apps
(recommendations, alerts) once, after its last batch. A batch that fails for good stops its
chain: the next hourly run finds its instances still due and analyses them.

Everything is idempotent (the service writes diffs), so a duplicate beat tick or a redelivered
message after a worker crash changes nothing more. ``as_of`` is an ISO 8601 date-time so a run
can be replayed for a given moment; it defaults to now. The tasks retry a lost or refused
database connection (``OperationalError``: a restart, a failover, a deadlock victim) with
backoff; any other error is a bug to see, not to repeat.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Sequence

from celery import chain, shared_task
from django.db import OperationalError
from django.utils import timezone

from apps.analysis import batches, services
from workers import queues
from workers.defaults import task_options


def _moment(value: str | None, name: str = "as_of") -> dt.datetime:
    if value is None:
        return timezone.now()
    moment = dt.datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError(f"{name} must carry a UTC offset, got {value!r}")
    return moment


def _enqueue(
    plan: Sequence[batches.AnalysisBatch], *, as_of: dt.datetime, checked_at: dt.datetime
) -> dict:
    """Queue one chain per organization: its batches, then the announcement."""
    by_organization: dict[int, list[batches.AnalysisBatch]] = defaultdict(list)
    for batch in plan:
        by_organization[batch.organization_id].append(batch)
    for organization_id, items in sorted(by_organization.items()):
        chain(
            *(
                analyse_batch.si(
                    instance_ids=list(batch.instance_ids),
                    start=batch.start.isoformat(),
                    end=batch.end.isoformat(),
                    as_of=as_of.isoformat(),
                    data_checked_at=checked_at.isoformat(),
                )
                for batch in items
            ),
            announce_analysis.si(organization_ids=[organization_id], as_of=as_of.isoformat()),
        ).apply_async()
    return {
        "batches": len(plan),
        "instances": len({i for batch in plan for i in batch.instance_ids}),
        "instance_days": sum(batch.instance_days for batch in plan),
    }


@shared_task(
    **task_options(
        name="analysis.analyse_recent", queue=queues.ANALYSIS, retry_on=(OperationalError,)
    )
)
def analyse_recent(instance_ids: list[int] | None = None, as_of: str | None = None) -> dict:
    """Queue the analysis of every instance and day with metric data newer than its analysis
    (every retained day of a never-analysed instance)."""
    # The wall clock is read before the rollups: data arriving meanwhile is due next time.
    checked_at = timezone.now()
    moment = _moment(as_of)
    plan = batches.recent_batches(as_of=moment, instance_ids=instance_ids)
    return _enqueue(plan, as_of=moment, checked_at=checked_at)


@shared_task(
    **task_options(
        name="analysis.analyse_full", queue=queues.ANALYSIS, retry_on=(OperationalError,)
    )
)
def analyse_full(
    instance_ids: list[int] | None = None,
    as_of: str | None = None,
    organization_id: int | None = None,
    days: int = batches.FULL_RECOMPUTE_DAYS,
) -> dict:
    """Queue a recompute of the last ``days`` (nightly: 14) of every instance with data (or of
    the given ones, or of one organization's)."""
    checked_at = timezone.now()
    moment = _moment(as_of)
    plan = batches.full_batches(
        as_of=moment, days=days, instance_ids=instance_ids, organization_id=organization_id
    )
    return _enqueue(plan, as_of=moment, checked_at=checked_at)


@shared_task(
    **task_options(
        name="analysis.analyse_batch", queue=queues.ANALYSIS, retry_on=(OperationalError,)
    )
)
def analyse_batch(
    instance_ids: list[int], start: str, end: str, as_of: str, data_checked_at: str
) -> dict:
    """Analyse one batch (some instances over one range) and store its results."""
    result = services.analysis_run(
        instance_ids=instance_ids,
        start=_moment(start, "start"),
        end=_moment(end, "end"),
        as_of=_moment(as_of),
        data_checked_at=_moment(data_checked_at, "data_checked_at"),
        announce=False,
    )
    return dataclasses.asdict(result)


@shared_task(
    **task_options(name="analysis.announce", queue=queues.ANALYSIS, retry_on=(OperationalError,))
)
def announce_analysis(organization_ids: list[int], as_of: str) -> None:
    """Tell later apps that these organizations' analysis is stored (the end of a chain)."""
    services.analysis_announce(organization_ids=organization_ids, as_of=_moment(as_of))

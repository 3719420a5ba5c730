"""Writes of the analysis: running it over the metric store, and the organization's settings.

``analysis_run`` is the one path from raw metrics to stored results; the hourly incremental
task, the nightly recompute, the settings change and the benchmark all call it. It is
idempotent: every stored result is written as a diff, so re-running on the same data changes
no row at all.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime as dt
import functools
import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from django import db
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import audit_record, overrides_changes
from apps.accounts.models import Organization
from apps.analysis import batches, results, storage
from apps.analysis.batches import AnalysisBatch
from apps.analysis.engine import (
    DEFAULT_THRESHOLDS,
    HourOfWeekProfile,
    OffWindow,
    PhaseThresholds,
    classify_phases,
    hour_of_week_profile,
)
from apps.analysis.models import AnalysisSettings
from apps.analysis.signals import analysis_completed
from apps.cloud.models import Instance
from apps.core.timegrid import datetime_to_epoch_minute, floor_day, floor_minute
from apps.metrics.constants import Metric
from apps.metrics.selectors import metrics_read, metrics_read_many

logger = logging.getLogger(__name__)

PROFILE_DAYS = 14
# Instances analysed together: bounds memory (3 metrics x 14 days x 100 instances ~ 25 MB, two
# chunks alive when pipelined) and sets the grain of the pipeline: the last chunk's writes are
# not overlapped with any analysis, so smaller chunks overlap more.
CHUNK_INSTANCES = 100


@dataclasses.dataclass
class AnalysisRunResult:
    """What one run did; all zeros for rows means nothing changed."""

    instances: int = 0
    minutes: int = 0
    segments_inserted: int = 0
    segments_deleted: int = 0
    hours_updated: int = 0
    """Hours with data in the ``PhaseDay`` rows inserted or changed."""
    hours_deleted: int = 0
    """Hours with data in the ``PhaseDay`` rows deleted (their day no longer has data)."""
    profiles_written: int = 0
    off_windows: int = 0

    def add(self, other: AnalysisRunResult) -> None:
        for field in dataclasses.fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))


def analysis_run(
    *,
    instance_ids: Sequence[int],
    start: dt.datetime,
    end: dt.datetime,
    as_of: dt.datetime,
    data_checked_at: dt.datetime | None = None,
    chunk_instances: int = CHUNK_INSTANCES,
    pipeline: bool | None = None,
    announce: bool = True,
) -> AnalysisRunResult:
    """Classify, segment and profile instances over ``[start, end)`` and store the results.

    ``start`` is floored to its UTC midnight (stored segments never cross one, see
    ``PhaseSegment``) and ``end`` is clamped to ``as_of`` and floored to the minute. Each
    instance is classified with its organization's thresholds; its segments starting in the
    range are replaced, its per-hour phase minutes (``PhaseDay``) in the range rewritten and
    its hour-of-week profile rebuilt over the ``PROFILE_DAYS`` before ``end`` in the
    organization's timezone. Each chunk of instances is one transaction; with ``pipeline``
    (default: on PostgreSQL outside a transaction) a chunk's results are written by a writer
    thread, on its own connection, while the next chunk is read and analysed. The watermark of the
    incremental analysis moves to ``end`` (never backwards); ``data_checked_at`` is recorded
    only when the caller covered every change up to that moment (the tasks do). Without
    ``announce`` the ``analysis_completed`` signal is left to the caller (a run of several
    batches sends it once, after the last: ``analysis_announce``).

    Raises ValueError for naive datetimes or unknown instance ids.
    """
    for name, moment in (("start", start), ("end", end), ("as_of", as_of)):
        if moment.tzinfo is None or moment.utcoffset() is None:
            raise ValueError(f"{name}: must be timezone-aware")
    first = floor_day(start)
    last = floor_minute(min(end, as_of))
    total = AnalysisRunResult()
    if last <= first or not instance_ids:
        return total
    rows = list(
        Instance.objects.filter(id__in=list(instance_ids))
        .order_by("id")
        .values_list("id", "organization_id")
    )
    missing = sorted(set(instance_ids) - {row[0] for row in rows})
    if missing:
        raise ValueError(f"instance_ids: unknown ids {missing[:10]}")
    by_organization: dict[int, list[int]] = defaultdict(list)
    for instance_id, organization_id in rows:
        by_organization[organization_id].append(instance_id)
    organizations = Organization.objects.in_bulk(list(by_organization))
    chunks = []
    for organization_id, ids in by_organization.items():
        thresholds = organization_thresholds(organizations[organization_id])
        tz = organizations[organization_id].timezone
        for offset in range(0, len(ids), chunk_instances):
            chunks.append(
                functools.partial(
                    _analyse_chunk,
                    organization_id=organization_id,
                    instance_ids=ids[offset : offset + chunk_instances],
                    start=first,
                    end=last,
                    as_of=as_of,
                    thresholds=thresholds,
                    tz=tz,
                    data_checked_at=data_checked_at,
                )
            )
    if pipeline is None:
        # Off inside a transaction (the writer thread has its own connection, which would not
        # see the caller's uncommitted rows nor roll back with it) and on SQLite (one writer).
        pipeline = connection.vendor == "postgresql" and not connection.in_atomic_block
    if not pipeline or len(chunks) < 2:
        for analyse in chunks:
            total.add(_store_chunk(analyse()))
        return _completed(total, list(by_organization), as_of, announce)
    # Pipelined: while a writer thread stores chunk i (mostly waiting on PostgreSQL's inserts
    # and index updates, GIL released), this thread reads and classifies chunk i + 1.
    with concurrent.futures.ThreadPoolExecutor(
        max_workers=1, thread_name_prefix="analysis-store"
    ) as writer:
        pending: concurrent.futures.Future[AnalysisRunResult] | None = None
        try:
            for analyse in chunks:
                stored = analyse()
                if pending is not None:
                    total.add(pending.result())
                pending = writer.submit(_store_chunk, stored)
            if pending is not None:
                total.add(pending.result())
        finally:
            # Runs after the pending write (one worker, in order): the thread's connection.
            writer.submit(db.connections.close_all).result()
    return _completed(total, list(by_organization), as_of, announce)


def _completed(
    total: AnalysisRunResult, organization_ids: list[int], as_of: dt.datetime, announce: bool
) -> AnalysisRunResult:
    if announce:
        analysis_announce(organization_ids=organization_ids, as_of=as_of)
    return total


def analysis_announce(*, organization_ids: Sequence[int], as_of: dt.datetime) -> None:
    """Tell later apps (recommendations, alerts) that these organizations' results are stored."""
    if organization_ids:
        analysis_completed.send(
            sender=AnalysisRunResult, organization_ids=list(organization_ids), as_of=as_of
        )


def _store_chunk(store: Callable[[], AnalysisRunResult]) -> AnalysisRunResult:
    """Write one analysed chunk in its own transaction."""
    with transaction.atomic():
        return store()


def organization_thresholds(organization: Organization) -> PhaseThresholds:
    """The organization's effective thresholds (defaults if it never changed any)."""
    row = AnalysisSettings.objects.filter(organization=organization).first()
    if row is None:
        return DEFAULT_THRESHOLDS
    try:
        return row.phase_thresholds()
    except ValueError:
        # Saved overrides are validated on write; if a newer engine rejects an old one, the
        # analysis must still run, so it falls back to the defaults and says so.
        logger.warning("analysis: invalid thresholds of organization %s ignored", organization.pk)
        return DEFAULT_THRESHOLDS


def _analyse_chunk(
    *,
    organization_id: int,
    instance_ids: list[int],
    start: dt.datetime,
    end: dt.datetime,
    as_of: dt.datetime,
    thresholds: PhaseThresholds,
    tz: str,
    data_checked_at: dt.datetime | None,
) -> Callable[[], AnalysisRunResult]:
    """Read, analyse and summarize one chunk; returns the (not yet run) write of its results."""
    arrays = analysis_inputs(instance_ids=instance_ids, start=start, end=end)
    labels = classify_phases(arrays.gpu_util, arrays.gpu_mem, arrays.cpu_util, thresholds)
    profile = hour_of_week_profile(
        arrays.profile_gpu_util, arrays.profile_start, tz, thresholds=thresholds
    )
    chunk = analysis_results(
        instance_ids=instance_ids,
        start=start,
        labels=labels,
        gpu_util=arrays.gpu_util,
        profile=profile,
        thresholds=thresholds,
        gpu_mem=arrays.gpu_mem,
        cpu_util=arrays.cpu_util,
    )
    return functools.partial(
        analysis_store,
        organization_id=organization_id,
        instance_ids=instance_ids,
        start=start,
        end=end,
        as_of=as_of,
        chunk=chunk,
        data_checked_at=data_checked_at,
    )


@dataclasses.dataclass(frozen=True)
class AnalysisInputs:
    """The store's arrays for one chunk: ``[start, end)`` and the profile's last 14 days."""

    gpu_util: np.ndarray
    gpu_mem: np.ndarray
    cpu_util: np.ndarray
    profile_gpu_util: np.ndarray
    profile_start: dt.datetime


def analysis_inputs(
    *, instance_ids: Sequence[int], start: dt.datetime, end: dt.datetime
) -> AnalysisInputs:
    """Read what the engine needs; GPU utilization once, covering both windows."""
    profile_start = end - dt.timedelta(days=PROFILE_DAYS)
    read_start = min(start, profile_start)
    others = [Metric.GPU_MEM_USED_PCT, Metric.CPU_UTIL_PCT]
    if read_start == start:
        # The usual full run: all three metrics over one window, in one call.
        arrays = metrics_read_many(
            instance_ids=instance_ids, metrics=[Metric.GPU_UTIL_PCT, *others], start=start, end=end
        )
        gpu_all = arrays[Metric.GPU_UTIL_PCT]
    else:
        gpu_all = metrics_read(
            instance_ids=instance_ids, metric=Metric.GPU_UTIL_PCT, start=read_start, end=end
        )
        arrays = metrics_read_many(instance_ids=instance_ids, metrics=others, start=start, end=end)
    return AnalysisInputs(
        gpu_util=gpu_all[
            :, datetime_to_epoch_minute(start) - datetime_to_epoch_minute(read_start) :
        ],
        gpu_mem=arrays[Metric.GPU_MEM_USED_PCT],
        cpu_util=arrays[Metric.CPU_UTIL_PCT],
        profile_gpu_util=gpu_all[
            :, datetime_to_epoch_minute(profile_start) - datetime_to_epoch_minute(read_start) :
        ],
        profile_start=profile_start,
    )


@dataclasses.dataclass(frozen=True)
class ChunkResults:
    """What ``analysis_store`` writes for one chunk, computed beforehand (no queries)."""

    segments: results.DaySegments
    day_instance_ids: np.ndarray
    day_starts: np.ndarray
    """Epoch minutes of UTC midnights; one entry per ``PhaseDay`` row (days with data only)."""
    day_minutes: np.ndarray
    """(rows, 24, phases) uint8 minute counts, Phase order; zeros for hours without data."""
    profiles: list[tuple[dict[str, Any], OffWindow | None]]
    """``results.profile_fields`` of each instance, in chunk order."""
    profile_start: dt.datetime
    minutes: int


def analysis_results(
    *,
    instance_ids: Sequence[int],
    start: dt.datetime,
    labels: np.ndarray,
    gpu_util: np.ndarray,
    profile: HourOfWeekProfile,
    thresholds: PhaseThresholds,
    gpu_mem: np.ndarray | None = None,
    cpu_util: np.ndarray | None = None,
) -> ChunkResults:
    """Segments, per-hour phase minutes and profile fields of one analysed chunk.

    ``gpu_mem`` and ``cpu_util`` are the chunk's other input arrays (same grid as
    ``gpu_util``): they give each segment its evidence (which metrics it had, so which phases
    could not be told apart), and an hour whose minutes are all unknown still gets its counts
    in ``PhaseDay`` when any of them observed something in it. Kept apart from the writes so
    that, pipelined, this CPU work runs in the analysing thread and the writer thread only
    talks to the database.
    """
    first_minute = datetime_to_epoch_minute(start)
    per_hour = results.phase_minutes_per_hour(labels)
    other_metrics = [values for values in (gpu_mem, cpu_util) if values is not None]
    keep = results.hours_with_data(per_hour, gpu_util, *other_metrics)
    day_ids, day_starts, day_minutes = results.phase_minutes_per_day(
        per_hour, keep, first_minute, np.asarray(instance_ids, dtype=np.int64)
    )
    return ChunkResults(
        segments=results.day_segments(
            labels, gpu_util, first_minute, gpu_mem=gpu_mem, cpu_util=cpu_util
        ),
        day_instance_ids=day_ids,
        day_starts=day_starts,
        day_minutes=day_minutes,
        profiles=[
            results.profile_fields(profile.instance(row), thresholds)
            for row in range(len(instance_ids))
        ],
        profile_start=profile.start_utc,
        minutes=int(labels.size),
    )


def analysis_store(
    *,
    organization_id: int,
    instance_ids: Sequence[int],
    start: dt.datetime,
    end: dt.datetime,
    as_of: dt.datetime,
    chunk: ChunkResults,
    data_checked_at: dt.datetime | None = None,
) -> AnalysisRunResult:
    """Store one chunk's results (the caller holds the transaction).

    Split from the analysis so the benchmark can time the writes on their own.
    """
    out = AnalysisRunResult(instances=len(instance_ids), minutes=chunk.minutes)
    out.segments_inserted, out.segments_deleted = storage.segments_replace(
        organization_id=organization_id,
        instance_ids=instance_ids,
        segments=chunk.segments,
        start=start,
        end=end,
    )
    # Phase minutes go to the analysis' own narrow PhaseDay table, not to the metrics app's
    # wide hour/day rollups (see PhaseDay for why).
    out.hours_updated, out.hours_deleted = storage.phase_days_replace(
        organization_id=organization_id,
        instance_ids=instance_ids,
        row_instance_ids=chunk.day_instance_ids,
        day_starts=chunk.day_starts,
        minutes=chunk.day_minutes,
        start=start,
        end=end,
    )
    out.profiles_written, out.off_windows = storage.profiles_store(
        organization_id, instance_ids, chunk.profiles, chunk.profile_start, end, as_of
    )
    storage.watermarks_advance(instance_ids, end, data_checked_at)
    return out


# --- scheduled runs ----------------------------------------------------------------------------


def analysis_batches_run(
    batches: Sequence[AnalysisBatch], *, as_of: dt.datetime, data_checked_at: dt.datetime
) -> AnalysisRunResult:
    """Run the batches one after the other in this process, then announce the results once."""
    total = AnalysisRunResult()
    for batch in batches:
        total.add(
            analysis_run(
                instance_ids=batch.instance_ids,
                start=batch.start,
                end=batch.end,
                as_of=as_of,
                data_checked_at=data_checked_at,
                announce=False,
            )
        )
    analysis_announce(
        organization_ids=sorted({batch.organization_id for batch in batches}), as_of=as_of
    )
    return total


def analysis_recent_run(
    *, as_of: dt.datetime, instance_ids: Sequence[int] | None = None
) -> AnalysisRunResult:
    """The incremental analysis, in this process: every instance and day with new data.

    New data is an hour rollup updated since the instance's ``data_checked_at`` (late points
    land in old hours too) or an hour at or after its ``analysed_until``; an instance is
    re-analysed from the UTC midnight of its earliest such hour, up to ``as_of`` floored to
    the hour, within the retained raw metrics (``batches.analysed_days``): a first backfill's
    whole history. The wall clock is read before the rollups, so data arriving while this runs
    is picked up by the next run.
    """
    checked_at = timezone.now()
    plan = batches.recent_batches(as_of=as_of, instance_ids=instance_ids)
    return analysis_batches_run(plan, as_of=as_of, data_checked_at=checked_at)


def analysis_full_run(
    *,
    as_of: dt.datetime,
    instance_ids: Sequence[int] | None = None,
    organization_id: int | None = None,
    days: int = batches.FULL_RECOMPUTE_DAYS,
) -> AnalysisRunResult:
    """A recompute of the last ``days`` of every instance with data, in this process.

    Nightly over the last fortnight: catches anything the incremental runs could not see
    (changed thresholds, pruned and re-imported data) and re-cuts segments over whole days.
    ``manage.py analyse`` runs it over every retained day.
    """
    checked_at = timezone.now()
    plan = batches.full_batches(
        as_of=as_of, days=days, instance_ids=instance_ids, organization_id=organization_id
    )
    return analysis_batches_run(plan, as_of=as_of, data_checked_at=checked_at)


# --- settings ---------------------------------------------------------------------------------


def analysis_settings_update(
    *, organization: Organization, thresholds: Mapping[str, Any]
) -> AnalysisSettings:
    """Merge threshold overrides into the organization's settings and re-analyse its fleet.

    A key set to None drops that override (back to the default). The merged overrides are
    validated with ``PhaseThresholds.with_overrides`` as a whole, so a pair that contradicts
    itself is refused; the error is a ValidationError on ``thresholds`` naming the key. On
    success a recompute of the organization's retained days is queued after commit.
    """
    with transaction.atomic():
        row, _created = AnalysisSettings.objects.select_for_update().get_or_create(
            organization=organization
        )
        merged = dict(row.thresholds or {})
        for key, value in thresholds.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        try:
            DEFAULT_THRESHOLDS.with_overrides(merged)
        except ValueError as error:
            raise ValidationError({"thresholds": [str(error)]}) from None
        if merged != row.thresholds:
            audit_record(
                organization=organization,
                action=audit_actions.ANALYSIS_SETTINGS_UPDATED,
                target=row,
                target_label="",
                details={"changes": overrides_changes(row.thresholds or {}, merged)},
            )
            row.thresholds = merged
            row.save(update_fields=["thresholds", "updated_at"])
            organization_id = organization.pk
            transaction.on_commit(lambda: _enqueue_recompute(organization_id))
    return row


def _enqueue_recompute(organization_id: int) -> None:
    from apps.analysis.tasks import analyse_full

    # Every retained day: the phases of the whole history follow the new thresholds.
    analyse_full.delay(organization_id=organization_id, days=batches.analysed_days())

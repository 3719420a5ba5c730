"""Instance profiles and analysis watermarks: rows written only where they differ."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from apps.analysis import results
from apps.analysis.engine import OffWindow
from apps.analysis.models import AnalysisState, InstanceProfile

_PROFILE_FIELDS = (
    "tz",
    "start_at",
    "end_at",
    "computed_at",
    "median_pct",
    "p95_pct",
    "coverage",
    "has_off_window",
    "off_window_weekly_hours",
    "off_window_supporting_weeks",
    "off_window",
    "low_around_the_clock",
    "low_around_the_clock_detail",
)


def profiles_store(
    organization_id: int,
    instance_ids: Sequence[int],
    profiles: Sequence[tuple[dict[str, Any], OffWindow | None]],
    profile_start: dt.datetime,
    end: dt.datetime,
    as_of: dt.datetime,
) -> tuple[int, int]:
    """Create or update the profiles that differ; (profiles written, off windows found).

    ``profiles`` are ``results.profile_fields`` of each instance, in ``instance_ids`` order.
    """
    stored = {
        p.instance_id: p for p in InstanceProfile.objects.filter(instance_id__in=instance_ids)
    }
    creates: list[InstanceProfile] = []
    updates: list[InstanceProfile] = []
    off_windows = 0
    for instance_id, (computed, window) in zip(instance_ids, profiles, strict=True):
        off_windows += window is not None
        fields = {**computed, "start_at": profile_start, "end_at": end, "computed_at": as_of}
        existing = stored.get(instance_id)
        if existing is None:
            creates.append(
                InstanceProfile(organization_id=organization_id, instance_id=instance_id, **fields)
            )
        elif any(
            results.canonical_json(getattr(existing, k)) != results.canonical_json(v)
            if k
            in ("median_pct", "p95_pct", "coverage", "off_window", "low_around_the_clock_detail")
            else getattr(existing, k) != v
            for k, v in fields.items()
        ):
            for key, value in fields.items():
                setattr(existing, key, value)
            # bulk_update does not run auto_now.
            existing.updated_at = timezone.now()
            updates.append(existing)
    InstanceProfile.objects.bulk_create(creates, batch_size=500)
    if updates:
        InstanceProfile.objects.bulk_update(
            updates, [*_PROFILE_FIELDS, "updated_at"], batch_size=200
        )
    return len(creates) + len(updates), off_windows


def watermarks_advance(
    instance_ids: Sequence[int], end: dt.datetime, data_checked_at: dt.datetime | None
) -> None:
    """Move the watermarks to ``end`` (never backwards); unchanged states are not written."""
    stored = {s.instance_id: s for s in AnalysisState.objects.filter(instance_id__in=instance_ids)}
    changed: list[AnalysisState] = []
    for instance_id in instance_ids:
        state = stored.get(instance_id) or AnalysisState(
            instance_id=instance_id, analysed_until=end
        )
        until = max(state.analysed_until, end)
        checked = data_checked_at or state.data_checked_at
        if instance_id in stored and (until, checked) == (
            state.analysed_until,
            state.data_checked_at,
        ):
            continue
        state.analysed_until, state.data_checked_at = until, checked
        changed.append(state)
    AnalysisState.objects.bulk_create(
        changed,
        update_conflicts=True,
        unique_fields=["instance"],
        update_fields=["analysed_until", "data_checked_at"],
    )

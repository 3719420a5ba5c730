"""Turning engine output into the shapes the database stores (no queries here).

Everything works on epoch minutes (``apps.core.timegrid``) so that whole fleets are handled as
numpy arrays; datetimes are made only for the rows actually written.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np

from apps.analysis.engine import (
    Evidence,
    HourOfWeekProfile,
    LowAroundTheClock,
    OffWindow,
    Phase,
    PhaseThresholds,
    describe,
    find_low_around_the_clock,
    find_off_window,
    segment_table,
    window_text,
)
from apps.core.timegrid import MINUTES_PER_DAY, MINUTES_PER_HOUR

# A label value no phase uses: pads ranges to whole hours/days and never reaches the database.
_PAD = 255
_PHASES = len(Phase)


@dataclasses.dataclass(frozen=True)
class DaySegments:
    """Segments of a fleet cut at UTC midnights, as parallel arrays (one entry per segment)."""

    row: np.ndarray
    """Index of the instance in the analysed chunk."""
    start_minute: np.ndarray
    end_minute: np.ndarray
    """Epoch minutes, ``[start, end)``."""
    phase: np.ndarray
    mean_gpu_util_pct: np.ndarray
    """Rounded to 3 decimals (so a re-run compares equal); NaN for UNKNOWN segments."""
    evidence: np.ndarray
    """``Evidence`` bits: the metrics present in at least half of the segment's minutes."""

    def __len__(self) -> int:
        return int(self.row.size)


def day_segments(
    labels: np.ndarray,
    gpu_util: np.ndarray,
    first_minute: int,
    *,
    gpu_mem: np.ndarray | None = None,
    cpu_util: np.ndarray | None = None,
) -> DaySegments:
    """Phase segments of (instances, minutes) labels starting at ``first_minute`` (a midnight).

    The range is padded to whole days and cut into one row per instance-day, so no segment
    crosses a UTC midnight; the padding is a label of its own and is dropped. With the memory
    and CPU inputs each segment gets its evidence (which metrics it had); without them every
    known segment is taken to have had all three.
    """
    if first_minute % MINUTES_PER_DAY:
        raise ValueError("first_minute must be a UTC midnight")
    instances, minutes = labels.shape
    days = max(1, -(-minutes // MINUTES_PER_DAY))
    padded = _pad(labels, days * MINUTES_PER_DAY, _PAD)
    util = _pad(gpu_util, days * MINUTES_PER_DAY, np.nan)
    grid = (instances * days, MINUTES_PER_DAY)
    others = {}
    if gpu_mem is not None and cpu_util is not None:
        others = {
            name: _pad(values, days * MINUTES_PER_DAY, np.nan).reshape(grid)
            for name, values in (("gpu_mem", gpu_mem), ("cpu_util", cpu_util))
        }
    table = segment_table(padded.reshape(grid), util.reshape(grid), **others)
    keep = table.phase != _PAD
    day_row = table.instance[keep]
    day_offset = first_minute + (day_row % days) * MINUTES_PER_DAY
    phase = table.phase[keep]
    mean = np.round(table.mean_gpu_util_pct[keep], 3)
    # An UNKNOWN minute has no GPU value: its mean is NaN already; made explicit for safety.
    mean[phase == Phase.UNKNOWN] = np.nan
    if table.evidence is None:
        evidence = np.where(phase == Phase.UNKNOWN, Evidence.NONE, Evidence.FULL)
    else:
        evidence = table.evidence[keep]
    return DaySegments(
        row=day_row // days,
        start_minute=day_offset + table.start_minute[keep],
        end_minute=day_offset + table.end_minute[keep],
        phase=phase,
        mean_gpu_util_pct=mean,
        evidence=evidence.astype(np.uint8),
    )


def phase_minutes_per_hour(labels: np.ndarray) -> np.ndarray:
    """(instances, hours, phases) minute counts; the range starts on a whole hour.

    A trailing partial hour counts only the minutes analysed so far.
    """
    instances, minutes = labels.shape
    hours = -(-minutes // MINUTES_PER_HOUR)
    by_hour = _pad(labels, hours * MINUTES_PER_HOUR, _PAD).reshape(instances, hours, 60)
    counts = np.empty((instances, hours, _PHASES), dtype=np.int64)
    for phase in Phase:
        counts[:, :, phase] = np.count_nonzero(by_hour == phase, axis=2)
    return counts


def phase_minutes_per_day(
    per_hour: np.ndarray, keep: np.ndarray, first_minute: int, instance_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``PhaseDay`` rows of (instances, hours, phases) counts starting at a UTC midnight.

    ``keep`` is ``hours_with_data``: other hours are zeroed. Returns the instance id, the epoch
    minute of the day and the (24, phases) uint8 counts of each day with at least one hour with
    data; hours past the analysed range are zeros.
    """
    if first_minute % MINUTES_PER_DAY:
        raise ValueError("first_minute must be a UTC midnight")
    instances, hours, phases = per_hour.shape
    days = max(1, -(-hours // 24))
    grid = np.zeros((instances, days * 24, phases), dtype=np.uint8)
    grid[:, :hours] = np.where(keep[:, :, None], per_hour, 0)
    grid = grid.reshape(instances * days, 24, phases)
    has = _pad(keep, days * 24, False).reshape(instances * days, 24).any(axis=1)
    starts = first_minute + MINUTES_PER_DAY * np.arange(days, dtype=np.int64)
    return (
        np.repeat(np.asarray(instance_ids, dtype=np.int64), days)[has],
        np.tile(starts, instances)[has],
        grid[has],
    )


def hours_with_data(per_hour: np.ndarray, *metrics: np.ndarray) -> np.ndarray:
    """(instances, hours) bool: the hour has a known phase minute or any observed value.

    ``metrics`` are the (instances, minutes) input arrays the labels came from (NaN where
    missing). Only hours whose minutes are all UNKNOWN are looked up in them, so the usual
    cost is one comparison per hour.
    """
    instances, hours, _phases = per_hour.shape
    has = per_hour[:, :, Phase.UNKNOWN] < per_hour.sum(axis=2)
    rows, cols = np.nonzero(~has)
    if rows.size:
        for values in metrics:
            by_hour = _pad(values, hours * MINUTES_PER_HOUR, np.nan).reshape(
                instances, hours, MINUTES_PER_HOUR
            )
            has[rows, cols] |= ~np.isnan(by_hour[rows, cols]).all(axis=1)
    return has


def profile_fields(
    profile: HourOfWeekProfile, thresholds: PhaseThresholds
) -> tuple[dict[str, object], OffWindow | None]:
    """Model fields of one instance's profile (7 x 24 JSON matrices, the off window, or the
    finding that it is low around the clock, which is never stored as a window)."""
    window = find_off_window(profile, thresholds)
    low = find_low_around_the_clock(profile, thresholds)
    fields: dict[str, object] = {
        "tz": profile.tz,
        "median_pct": _matrix(profile.median_pct, 1),
        "p95_pct": _matrix(profile.p95_pct, 1),
        "coverage": _matrix(profile.coverage, 4),
        "has_off_window": window is not None,
        "off_window_weekly_hours": window.weekly_hours if window else None,
        "off_window_supporting_weeks": window.supporting_weeks if window else None,
        "off_window": off_window_json(window) if window else None,
        "low_around_the_clock": low is not None,
        "low_around_the_clock_detail": low_around_the_clock_json(low) if low else None,
    }
    return fields, window


def low_around_the_clock_json(low: LowAroundTheClock) -> dict[str, object]:
    """The stored (and served) form of a low-around-the-clock finding."""
    return {
        "observed_hours": low.observed_hours,
        "supporting_weeks": low.supporting_weeks,
        "observed_weeks": low.observed_weeks,
        "p95_max_pct": low.p95_max_pct,
        "text": window_text(low),
        "description": describe(low),
    }


def off_window_json(window: OffWindow) -> dict[str, object]:
    """The stored (and served) form of an off window, with its human description."""
    return {
        "runs": [
            {
                "start_weekday": run.start_weekday,
                "start_hour": run.start_hour,
                "end_weekday": run.end_weekday,
                "end_hour": run.end_hour,
                "hours": run.hours,
                "label": str(run),
            }
            for run in window.runs
        ],
        "weekly_hours": window.weekly_hours,
        "longest_run_hours": window.longest_run_hours,
        "supporting_weeks": window.supporting_weeks,
        "observed_weeks": window.observed_weeks,
        "p95_max_pct": window.p95_max_pct,
        "text": window_text(window),
        "description": describe(window),
    }


def _matrix(values: np.ndarray, digits: int) -> list[list[float | None]]:
    # JSON has no NaN: a cell without observed minutes is null.
    array = np.asarray(values, dtype=np.float64)
    cells = np.round(array, digits).astype(object)
    cells[np.isnan(array)] = None
    return cells.tolist()


def _pad(array: np.ndarray, width: int, value: float) -> np.ndarray:
    if array.shape[1] == width:
        return array
    out = np.full((array.shape[0], width), value, dtype=array.dtype)
    out[:, : array.shape[1]] = array
    return out


def canonical_json(value: object) -> str:
    """Stable JSON text used to compare stored JSON with freshly computed JSON."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))

"""GPU Ledger's utilization-analysis engine: pure numpy in, dataclasses out.

No Django, no clock, no I/O: time is always an argument. The backend calls, per fleet chunk:

- :func:`classify_phases` -> per-minute :class:`Phase` labels (uint8),
- :func:`segment_table` / :func:`segments` -> merged phase segments,
- :func:`hour_of_week_profile`, :func:`find_off_window` and :func:`find_low_around_the_clock`
  -> day/night patterns, or an instance low around the clock (never a week-long "window"),
- :func:`minute_evidence` / :func:`unseparated_phases` -> which phases the metrics present
  could not tell apart (a source without CPU or GPU memory still gets phases),
- :func:`waste` -> GPU-hours and money per phase, summing exactly to the period's cost.

All thresholds live in :class:`PhaseThresholds`; organizations override them with
:meth:`PhaseThresholds.with_overrides`.
"""

from .classify import classify_phases
from .evidence import Evidence, minute_evidence, missing_metrics, unseparated_phases
from .offwindow import (
    LowAroundTheClock,
    OffWindow,
    OffWindowRun,
    describe,
    find_low_around_the_clock,
    find_off_window,
    window_text,
)
from .profile import HourOfWeekProfile, hour_of_week_profile
from .segments import Segment, SegmentTable, segment_table, segments
from .thresholds import DEFAULT_THRESHOLDS, REAL_PHASES, Phase, PhaseThresholds
from .waste import PhaseCost, WasteReport, cost_of_minutes, waste, waste_of_minutes

__all__ = [
    "DEFAULT_THRESHOLDS",
    "REAL_PHASES",
    "Evidence",
    "HourOfWeekProfile",
    "LowAroundTheClock",
    "OffWindow",
    "OffWindowRun",
    "Phase",
    "PhaseCost",
    "PhaseThresholds",
    "Segment",
    "SegmentTable",
    "WasteReport",
    "classify_phases",
    "cost_of_minutes",
    "describe",
    "find_low_around_the_clock",
    "find_off_window",
    "hour_of_week_profile",
    "minute_evidence",
    "missing_metrics",
    "segment_table",
    "segments",
    "unseparated_phases",
    "waste",
    "waste_of_minutes",
    "window_text",
]

"""GPU Ledger's utilization-analysis engine: pure numpy in, dataclasses out.

No Django, no clock, no I/O: time is always an argument. The backend calls, per fleet chunk:

- :func:`classify_phases` -> per-minute :class:`Phase` labels (uint8),
- :func:`segment_table` / :func:`segments` -> merged phase segments,
- :func:`hour_of_week_profile` and :func:`find_off_window` -> day/night patterns,
- :func:`waste` -> GPU-hours and money per phase, summing exactly to the period's cost.

All thresholds live in :class:`PhaseThresholds`; organizations override them with
:meth:`PhaseThresholds.with_overrides`.
"""

from .classify import classify_phases
from .offwindow import OffWindow, OffWindowRun, describe, find_off_window
from .profile import HourOfWeekProfile, hour_of_week_profile
from .segments import Segment, SegmentTable, segment_table, segments
from .thresholds import DEFAULT_THRESHOLDS, REAL_PHASES, Phase, PhaseThresholds
from .waste import PhaseCost, WasteReport, waste

__all__ = [
    "DEFAULT_THRESHOLDS",
    "REAL_PHASES",
    "HourOfWeekProfile",
    "OffWindow",
    "OffWindowRun",
    "Phase",
    "PhaseCost",
    "PhaseThresholds",
    "Segment",
    "SegmentTable",
    "WasteReport",
    "classify_phases",
    "describe",
    "find_off_window",
    "hour_of_week_profile",
    "segment_table",
    "segments",
    "waste",
]

"""Phase labels and every tunable threshold of the analysis engine, in one place.

The defaults come from the phase signatures in DOMAIN.md. An organization may override any of them
through :meth:`PhaseThresholds.with_overrides`, which validates names and values so a typo in a
settings form is a clear error instead of a silently ignored key.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from enum import IntEnum
from typing import Any


class Phase(IntEnum):
    """What a GPU spends a minute on.

    The integer values are stored in ``uint8`` label arrays and in the database, so they must never
    be renumbered. ``UNKNOWN`` is zero so that multiplying a label array by an "observed" mask
    turns every missing minute into ``UNKNOWN``.
    """

    UNKNOWN = 0
    """No GPU utilization for the minute. Never guessed (the other metrics alone cannot say)."""
    IDLE = 1
    """GPU ~0-5 % and CPU low. Memory that is still allocated does not make a card busy."""
    DATA_PROCESSING = 2
    """Data-bound: GPU utilization low, GPU memory allocated, CPU busy feeding (or failing to)."""
    EVALUATION = 3
    """Steady ~40-60 % utilization, typically short and after training."""
    TRAINING = 4
    """Fluctuating ~30-90 % utilization with GPU memory high."""


#: The four phases the classifier chooses between (everything but ``UNKNOWN``).
REAL_PHASES: tuple[Phase, ...] = (
    Phase.IDLE,
    Phase.DATA_PROCESSING,
    Phase.EVALUATION,
    Phase.TRAINING,
)


@dataclasses.dataclass(frozen=True)
class PhaseThresholds:
    """All thresholds of phase classification, hour-of-week profiles and off windows.

    Percentages are percentage points (0-100). Each phase is described by ranges of the
    rolling-window features; a minute whose features sit outside a phase's ranges is penalised in
    proportion to the distance (divided by the feature's ``*_scale_pct``), and the smoothing pass
    picks the cheapest sequence of phases.

    Decision recorded here because it is a product choice, not a fact: low GPU utilization with
    low CPU counts as IDLE even when GPU memory is allocated (a notebook holding a model, a hung
    job). Nothing is computing, so the money is idle money; DATA_PROCESSING needs a busy CPU.
    """

    # Idle: GPU utilization at or under this level (and CPU not busy).
    idle_gpu_util_max_pct: float = 5.0
    # Data-bound: GPU utilization at or under this level, CPU busy, GPU memory allocated.
    data_gpu_util_max_pct: float = 20.0
    # CPU at or above this is "busy" (data processing); below it is "low" (idle).
    cpu_busy_min_pct: float = 30.0
    # GPU memory at or above this counts as "allocated".
    gpu_mem_allocated_min_pct: float = 10.0
    # Evaluation: steady utilization in this band.
    eval_gpu_util_min_pct: float = 40.0
    eval_gpu_util_max_pct: float = 60.0
    # Training: utilization in this band with GPU memory high.
    train_gpu_util_min_pct: float = 30.0
    train_gpu_util_max_pct: float = 90.0
    train_gpu_mem_min_pct: float = 50.0
    # Rolling standard deviation of per-minute GPU utilization separating "steady" (evaluation)
    # from "fluctuating" (training).
    steady_gpu_util_sd_max_pct: float = 6.0
    # Evaluation releases memory: it sits at least this far below the most GPU memory held in
    # the surrounding ``memory_context_minutes``; training sits at most this far below it.
    eval_gpu_mem_drop_min_pct: float = 10.0
    train_gpu_mem_drop_max_pct: float = 10.0

    # How hard a feature outside a phase's range counts: one unit of penalty per this many points.
    gpu_util_scale_pct: float = 5.0
    gpu_util_sd_scale_pct: float = 2.0
    gpu_mem_scale_pct: float = 10.0
    cpu_scale_pct: float = 10.0
    gpu_mem_drop_scale_pct: float = 7.5

    # Smoothing: a phase shorter than this is merged into a neighbour and never reported.
    min_phase_minutes: int = 10
    # Features are computed over a centred rolling window of this many minutes. The accuracy
    # benchmark (bench/analysis_engine.py) chose one block: wider windows smear the short, steady
    # evaluation stretches into the training around them.
    feature_window_minutes: int = 5
    # The classifier decides on blocks of this many minutes; it must divide the feature window.
    block_minutes: int = 5
    # A block is decided on the minutes it has: a metric with fewer observed minutes in a block
    # than this says nothing about the block (the smoothing bridges it from its neighbours).
    # Capped at block_minutes, so an organization's shorter blocks stay valid.
    block_min_observed_minutes: int = 3
    # Width of the centred window in which evaluation's memory is compared with the most memory
    # held (evaluation comes in short runs between training stretches); 0 turns it off.
    memory_context_minutes: int = 60
    # Penalty (in the same units as feature penalties) for switching phase between two blocks.
    switch_penalty: float = 2.0

    # Hour-of-week profiles and off windows.
    off_window_p95_max_pct: float = 15.0
    off_window_min_hours: int = 2
    off_window_min_weeks: int = 2
    # Observed hours of the week (cells with enough coverage) needed before an instance whose
    # every observed hour is low is called low around the clock (half the week).
    low_around_the_clock_min_hours: int = 84
    # A local hour cell with less than this fraction of its minutes observed says nothing.
    profile_min_coverage: float = 0.5

    def __post_init__(self) -> None:
        # Validate on construction too, so no invalid instance can exist at all.
        for field in dataclasses.fields(self):
            _validate_field(field.name, getattr(self, field.name))
        self._validate_relations()

    def _validate_relations(self) -> None:
        checks = [
            (
                self.idle_gpu_util_max_pct <= self.data_gpu_util_max_pct,
                "idle_gpu_util_max_pct",
                "must not exceed data_gpu_util_max_pct",
            ),
            (
                self.eval_gpu_util_min_pct < self.eval_gpu_util_max_pct,
                "eval_gpu_util_min_pct",
                "must be below eval_gpu_util_max_pct",
            ),
            (
                self.train_gpu_util_min_pct < self.train_gpu_util_max_pct,
                "train_gpu_util_min_pct",
                "must be below train_gpu_util_max_pct",
            ),
            (
                self.feature_window_minutes % self.block_minutes == 0,
                "feature_window_minutes",
                "must be a multiple of block_minutes",
            ),
        ]
        for ok, key, reason in checks:
            if not ok:
                raise ValueError(f"{key}: {reason}")

    def with_overrides(self, overrides: Mapping[str, Any]) -> PhaseThresholds:
        """Return a copy with some thresholds replaced, e.g. from an organization's settings.

        Raises ``ValueError`` naming the offending key for an unknown name, a value of the wrong
        type, a value out of range, or a combination that contradicts itself.
        """
        known = {field.name: field for field in dataclasses.fields(self)}
        cleaned: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in known:
                raise ValueError(f"{key}: unknown threshold (known: {', '.join(sorted(known))})")
            cleaned[key] = _coerce(key, value, known[key].type)
        return dataclasses.replace(self, **cleaned)


_INT_FIELDS = {
    "min_phase_minutes": (1, 24 * 60),
    "feature_window_minutes": (1, 24 * 60),
    "block_minutes": (1, 60),
    "block_min_observed_minutes": (1, 60),
    "memory_context_minutes": (0, 24 * 60),
    "off_window_min_hours": (1, 168),
    "off_window_min_weeks": (1, 520),
    "low_around_the_clock_min_hours": (1, 168),
}
_FRACTION_FIELDS = {"profile_min_coverage"}
_POSITIVE_FIELDS = {
    "gpu_util_scale_pct",
    "gpu_util_sd_scale_pct",
    "gpu_mem_scale_pct",
    "cpu_scale_pct",
    "gpu_mem_drop_scale_pct",
}


@dataclasses.dataclass(frozen=True)
class ThresholdBound:
    """The values one threshold may take, as ``_validate_field`` checks them (the API's schema
    states them): ``low``..``high`` (no upper bound when ``high`` is None), ``low`` itself
    excluded when ``low_excluded``, whole numbers only when ``whole``."""

    whole: bool
    low: float
    high: float | None
    low_excluded: bool = False


def threshold_bound(key: str) -> ThresholdBound:
    if key in _INT_FIELDS:
        low, high = _INT_FIELDS[key]
        return ThresholdBound(whole=True, low=low, high=high)
    if key in _FRACTION_FIELDS:
        return ThresholdBound(whole=False, low=0.0, high=1.0)
    if key in _POSITIVE_FIELDS or key == "switch_penalty":
        return ThresholdBound(whole=False, low=0.0, high=None, low_excluded=True)
    return ThresholdBound(whole=False, low=0.0, high=100.0)


THRESHOLD_NAMES: tuple[str, ...] = tuple(
    field.name for field in dataclasses.fields(PhaseThresholds)
)


def _coerce(key: str, value: Any, annotation: Any) -> Any:
    """Convert an override to the field's type; booleans and strings are rejected, not guessed."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key}: expected a number, got {value!r}")
    if annotation in ("int", int):
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(f"{key}: expected a whole number, got {value!r}")
        return int(value)
    return float(value)


def _validate_field(key: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key}: expected a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{key}: must be finite, got {value!r}")
    if key in _INT_FIELDS:
        low, high = _INT_FIELDS[key]
        if not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"{key}: must be a whole number in [{low}, {high}], got {value!r}")
    elif key in _FRACTION_FIELDS:
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{key}: must be in [0, 1], got {value!r}")
    elif key in _POSITIVE_FIELDS or key == "switch_penalty":
        if value <= 0:
            raise ValueError(f"{key}: must be positive, got {value!r}")
    elif not 0.0 <= value <= 100.0:
        raise ValueError(f"{key}: must be a percentage in [0, 100], got {value!r}")


DEFAULT_THRESHOLDS = PhaseThresholds()

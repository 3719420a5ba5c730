"""Per-minute GPU/CPU metrics of the fleet, generated deterministically.

Every (seed, instance, UTC day) seeds its own generator, so a minute's value never depends on
the query window that asked for it: two overlapping queries always agree. Minutes when the
instance did not run (not yet created, stopped, terminated) have no value, and a few random
minutes are missing (the monitoring agent skipped a report) so that consumers meet gaps.

Instance-level GPU values are averages over the instance's cards (how Cloud Monitor aggregates
multiple GPUs under the ``InstanceId`` dimension is undocumented); ``GpuMemUsed`` is MB per card,
always ``GpuMemUsage / 100 x per-card memory``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from .fleet import (
    DATA_BOUND,
    DAY,
    DAY_ONLY_IDLE,
    DAY_ONLY_STOPPED,
    HOT,
    IDLE,
    INFERENCE,
    MEMORY_PRESSURE,
    TRAINING,
    Fleet,
    Instance,
)

MINUTES_PER_DAY = 1440

# Canonical metric names in the order of a generated day block.
METRIC_NAMES: tuple[str, ...] = (
    "GpuUtil",
    "GpuMemUsage",
    "GpuMemUsed",
    "GpuTemp",
    "GpuPowDraw",
    "CPUUsage",
    "MemUsage",
)
_ROW = {name: row for row, name in enumerate(METRIC_NAMES)}
# Doc revisions spell the names differently (Gpuutil, GpuUtil, CpuUsage), so lookups ignore case.
_BY_LOWER = {name.lower(): name for name in METRIC_NAMES}

# Share of minutes the agent "misses", deterministic per instance-day.
DROPOUT_RATE = 0.002
# Training jobs cycle: 375 minutes of training followed by a 45-minute evaluation stretch.
TRAINING_CYCLE_MINUTES = 420
EVALUATION_MINUTES = 45


def canonical_metric(name: str) -> str | None:
    """The canonical spelling of a metric name (case-insensitive), None if unknown."""
    return _BY_LOWER.get(name.lower())


@dataclass(frozen=True)
class Series:
    """Points of one metric of one instance: unix-second timestamps and per-period stats."""

    timestamps: list[int]
    values: list[float]
    max_values: list[float]
    min_values: list[float]


def _smooth(rng: np.random.Generator, width: int) -> np.ndarray:
    """Unit-variance noise correlated over ``width`` minutes (utilisation drifts, not jumps)."""
    white = rng.normal(size=MINUTES_PER_DAY + width - 1)
    return np.convolve(white, np.ones(width) / np.sqrt(width), mode="valid")


def _idle(s1: np.ndarray, s2: np.ndarray, s3: np.ndarray) -> tuple[np.ndarray, ...]:
    util = np.clip(1.5 + 1.0 * s1, 0.0, 5.0)
    mem = np.clip(1.2 + 0.2 * s3, 0.5, 3.0)
    cpu = np.clip(2.0 + 0.7 * s2, 0.2, 5.0)
    host = np.clip(11.0 + 0.5 * s3, 5.0, 20.0)
    return util, mem, cpu, host


def _pattern_values(
    inst: Instance, minutes: np.ndarray, noise: tuple[np.ndarray, ...]
) -> tuple[np.ndarray, ...]:
    """GPU util %, GPU memory %, CPU %, host memory % for each minute of a day."""
    s1, s2, s3, white = noise
    local = minutes + 8 * 60  # Asia/Shanghai minutes, for day/night and the daily wave
    local_hour = (local % MINUTES_PER_DAY) / 60.0
    weekday = (local // MINUTES_PER_DAY + 3) % 7  # 1970-01-01 was a Thursday
    pattern = inst.pattern
    if pattern == TRAINING:
        phase = (minutes + inst.index * 97) % TRAINING_CYCLE_MINUTES
        evaluating = phase >= TRAINING_CYCLE_MINUTES - EVALUATION_MINUTES
        train = np.clip(60.0 + 20.0 * s1 + 6.0 * white, 30.0, 92.0)
        evaluate = np.clip(50.0 + 3.0 * s2, 40.0, 60.0)
        util = np.where(evaluating, evaluate, train)
        mem = np.where(evaluating, 62.0 + 0.5 * s3, 84.0 + 0.8 * s3)
        cpu = np.clip(np.where(evaluating, 18.0 + 2.0 * s2, 28.0 + 5.0 * s3), 3.0, 100.0)
        return util, mem, cpu, 58.0 + 1.0 * s3
    if pattern == DATA_BOUND:
        util = np.clip(11.0 + 3.5 * s1 + 1.5 * white, 1.0, 19.5)
        cpu = np.clip(88.0 + 4.0 * s2, 60.0, 100.0)
        return util, 55.0 + 1.0 * s3, cpu, 72.0 + 2.0 * s3
    if pattern == IDLE:
        return _idle(s1, s2, s3)
    if pattern in (DAY_ONLY_STOPPED, DAY_ONLY_IDLE):
        busy = (weekday < 5) & (local_hour >= 9) & (local_hour < 19)
        idle = _idle(s1, s2, s3)
        util = np.where(busy, np.clip(68.0 + 14.0 * s1 + 5.0 * white, 35.0, 95.0), idle[0])
        mem = np.where(busy, 72.0 + 1.0 * s3, idle[1])
        cpu = np.where(busy, np.clip(35.0 + 5.0 * s2, 10.0, 100.0), idle[2])
        host = np.where(busy, 50.0 + 2.0 * s3, idle[3])
        return util, mem, cpu, host
    if pattern == INFERENCE:
        wave = np.sin(2 * np.pi * (local_hour - 8.0) / 24.0)  # peaks at 14:00 Shanghai
        util = np.clip(42.0 + 10.0 * wave + 4.0 * s1 + 2.0 * white, 15.0, 80.0)
        cpu = np.clip(30.0 + 6.0 * wave + 3.0 * s2, 5.0, 100.0)
        return util, 48.0 + 0.3 * s3, cpu, 45.0 + 1.0 * s3
    if pattern == MEMORY_PRESSURE:
        util = np.clip(75.0 + 10.0 * s1 + 4.0 * white, 50.0, 99.0)
        mem = np.clip(94.5 + 1.5 * s3, 90.5, 99.5)
        return util, mem, np.clip(30.0 + 4.0 * s2, 5.0, 100.0), 80.0 + 1.0 * s3
    if pattern == HOT:
        util = np.clip(91.0 + 4.0 * s1 + 2.0 * white, 80.0, 100.0)
        return util, 70.0 + 1.0 * s3, np.clip(40.0 + 4.0 * s2, 5.0, 100.0), 60.0 + 1.0 * s3
    raise ValueError(f"unknown pattern {pattern!r}")


class MetricStore:
    """Generates, caches and aggregates the per-minute metrics of a fleet."""

    def __init__(self, fleet: Fleet, cache_days: int = 400) -> None:
        self.fleet = fleet
        self._cache: OrderedDict[tuple[int, int], np.ndarray] = OrderedDict()
        self._cache_days = cache_days
        self._lock = threading.Lock()

    def day_block(self, inst: Instance, day: int) -> np.ndarray:
        """All metrics of one instance for one UTC day (``day`` = unix seconds // 86400).

        Shape (len(METRIC_NAMES), 1440); NaN where no point exists.
        """
        key = (inst.index, day)
        with self._lock:
            block = self._cache.get(key)
            if block is not None:
                self._cache.move_to_end(key)
                return block
        operations = self.fleet.operations
        version = operations.version
        block = self._generate(inst, day)
        with self._lock:
            # An operation recorded while this block was generated may have changed it: serve
            # it, but keep it only when the operations log did not move meanwhile.
            if operations.version == version:
                self._cache[key] = block
                if len(self._cache) > self._cache_days:
                    self._cache.popitem(last=False)
        return block

    def forget(self, inst: Instance, from_moment: int) -> None:
        """Drop the cached days of an instance from the day of ``from_moment`` on (an operation
        changed when it runs, hence which minutes have points)."""
        first_day = from_moment // DAY
        with self._lock:
            for key in [k for k in self._cache if k[0] == inst.index and k[1] >= first_day]:
                del self._cache[key]

    def _generate(self, inst: Instance, day: int) -> np.ndarray:
        # Draw every random number in a fixed order before any branching on the pattern, so the
        # stream for an instance-day is the same whichever code path consumes it.
        rng = np.random.default_rng([self.fleet.seed, inst.index, day])
        noise = (_smooth(rng, 31), _smooth(rng, 15), _smooth(rng, 61), rng.normal(size=1440))
        dropped = rng.random(MINUTES_PER_DAY) < DROPOUT_RATE
        temp_noise = _smooth(rng, 21)
        power_noise = rng.normal(size=MINUTES_PER_DAY)

        minutes = day * MINUTES_PER_DAY + np.arange(MINUTES_PER_DAY)
        util, mem_pct, cpu, host = _pattern_values(inst, minutes, noise)
        spec = inst.spec
        if inst.pattern == HOT:
            temp = np.clip(72.0 + 0.18 * util + 1.2 * temp_noise, 86.0, 95.0)
        else:
            temp = np.clip(30.0 + 0.45 * util + 1.2 * temp_noise, 25.0, 84.0)
        power = spec.gpu_idle_w + (spec.gpu_tdp_w - spec.gpu_idle_w) * util / 100.0
        power = np.clip(power + 2.0 * power_noise, spec.gpu_idle_w * 0.8, spec.gpu_tdp_w)
        mem_pct = np.clip(mem_pct, 0.0, 100.0)
        mem_used = mem_pct / 100.0 * spec.gpu_memory_mb
        block = np.round(
            np.vstack([util, mem_pct, mem_used, temp, power, cpu, np.clip(host, 0.0, 100.0)]), 2
        )

        day_start = day * DAY
        present = np.zeros(MINUTES_PER_DAY, dtype=bool)
        for a, b in inst.running_intervals(day_start, day_start + DAY):
            # Minute m (starting at day_start + 60 m) has a point if the instance runs then.
            present[-(-(a - day_start) // 60) : -(-(b - day_start) // 60)] = True
        block[:, ~present | dropped] = np.nan
        block.setflags(write=False)
        return block

    def minute_values(self, inst: Instance, metric: str, start: int, count: int) -> np.ndarray:
        """``count`` per-minute values of a metric from ``start`` (a whole minute, unix seconds)."""
        row = _ROW[metric]
        first = start // 60
        out = np.empty(count)
        pos = 0
        while pos < count:
            minute = first + pos
            day, offset = divmod(minute, MINUTES_PER_DAY)
            take = min(MINUTES_PER_DAY - offset, count - pos)
            out[pos : pos + take] = self.day_block(inst, day)[row, offset : offset + take]
            pos += take
        return out

    def series(
        self, inst: Instance, metric: str, start: int, end: int, period: int, published_until: int
    ) -> Series:
        """Points with timestamps in [start, end] (aligned down to the period) of one metric.

        A point at ``t`` covers the minutes [t, t + period) and is published only when
        ``t + period <= published_until`` (now minus the monitoring lag). Its value is the mean of
        the minutes that have data; a period without any is absent.
        """
        first = start // period * period
        last = min(end // period * period, (published_until - period) // period * period)
        if last < first:
            return Series([], [], [], [])
        per_slot = period // 60
        slots = (last - first) // period + 1
        grid = self.minute_values(inst, metric, first, slots * per_slot).reshape(slots, per_slot)
        have = ~np.isnan(grid)
        counts = have.sum(axis=1)
        keep = counts > 0
        filled = np.where(have, grid, 0.0)
        means = np.round(filled.sum(axis=1)[keep] / counts[keep], 3)
        maxes = np.where(have, grid, -np.inf).max(axis=1)[keep]
        mins = np.where(have, grid, np.inf).min(axis=1)[keep]
        stamps = (first + np.flatnonzero(keep) * period).tolist()
        return Series(stamps, means.tolist(), maxes.tolist(), mins.tolist())
